#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd save and restore in r1 of h1 -- r1 -- h2: a state with every
# object (route on both hooks, a chain with a goto and route in it, a
# redirect rule) is saved, taken down and restored; a second restore
# changes nothing; restore check names each difference; a restore that
# fails at any kernel call leaves the state as it was (XFWD_FAULT, as the
# transaction suite does, on every 23rd or 37th of its thousand calls:
# FAULT_STRIDE=1 tries them all, in about an hour); hostile documents
# change nothing.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/reliability

# The state: route hook xdp on veth1 (in a chain with two members of the
# operator's, one with a goto; "qdisc bypass", as its packets skip the
# redirect's program on veth2's egress), hook tc on veth2 (IPv4, lookup
# direct) and a redirect rule on veth2's egress.
build_state() {
	xdp_ready
	xt route attach dev veth1 hook xdp qdisc bypass
	xt route attach dev veth2 hook tc family inet lookup direct
	xt chain add dev veth1 obj "$PROGS/pass.bpf.o" name p1 first
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name c1 first on drop goto p1
	xt redirect add dev veth2 egress match 198.18.9.0/24 to veth1
}

# take_down: every object of r1 gone.
take_down() {
	xt route detach all
	xt chain del dev veth1 all
	xt redirect del dev veth2 all
	run -0 xt save
	assert_output '{
  "chain": [],
  "redirect": [],
  "route": [],
  "version": 1
}'
}

# ids: every program and link id of r1's objects, one line.
ids() {
	printf 'route show\nchain show\nredirect show\n' | xt -j -b - |
		grep -oE '"(prog_id|link_id)":[0-9]+' | tr '\n' ' '
}

@test "save, take down, restore: the same state, the same document, and traffic on the fast path" {
	build_state
	run -0 xt save file "$BATS_TEST_TMPDIR/s.json"
	assert_output ""
	[[ $(stat -c %a "$BATS_TEST_TMPDIR/s.json") == 600 ]]
	local before
	before=$(snap_norm)
	take_down
	run -0 --separate-stderr xt restore file "$BATS_TEST_TMPDIR/s.json"
	assert_equal "$stderr" ""
	assert_equal "$(snap_norm)" "$before"
	run -0 xt save
	assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/s.json")"
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	[[ $(ctr veth1 forwarded) -ge 5 ]] || fail "veth1 forwarded $(ctr veth1 forwarded)"
	run -0 --separate-stderr xt -j chain show dev veth1
	run -0 jq -ce '[.interfaces[0].chain[] | [.name, (.rules // "-")]]' <<<"$output"
	assert_output --partial '["c1","on drop goto p1"]'
}

@test "a second restore of the same document changes nothing: same ids, no packet lost" {
	build_state
	xt save file "$BATS_TEST_TMPDIR/s.json"
	local ids0
	ids0=$(ids)
	in_h1 ping -c 400 -i 0.005 -W 1 -q "$XF_H2_IP4" >"$BATS_TEST_TMPDIR/ping" 2>&1 &
	BG_PID=$!
	run -0 --separate-stderr xt restore file "$BATS_TEST_TMPDIR/s.json"
	assert_equal "$stderr" ""
	run -0 xt restore file "$BATS_TEST_TMPDIR/s.json" check
	assert_output ""
	wait "$BG_PID"
	BG_PID=
	assert_equal "$(ids)" "$ids0"
	run -0 grep -c ' 0% packet loss' "$BATS_TEST_TMPDIR/ping"
}

@test "restore check names each kind of difference, exits 3 and changes nothing" {
	build_state
	xt save file "$BATS_TEST_TMPDIR/s.json"
	xt route detach dev veth2
	xt chain set dev veth1 name c1 on drop stop
	xt redirect del dev veth2 egress match 198.18.9.0/24
	xt redirect add dev veth1 match 198.18.8.0/24 to veth2
	local before
	before=$(snap)
	run -3 --separate-stderr xt -j restore file "$BATS_TEST_TMPDIR/s.json" check
	assert_equal "$stderr" ""
	run -0 jq -cS '.differences | sort_by(.object, .action, .what)' <<<"$output"
	assert_output '[{"action":"change","object":"chain","what":"veth1"},{"action":"add","object":"redirect","what":"veth2 egress 198.18.9.0/24 to veth1 mode egress"},{"action":"remove","object":"redirect","what":"veth1 ingress 198.18.8.0/24 to veth2 mode egress"},{"action":"add","object":"route","what":"veth2"}]'
	assert_equal "$(snap)" "$before"
	run -0 xt restore file "$BATS_TEST_TMPDIR/s.json"
	run -0 xt restore file "$BATS_TEST_TMPDIR/s.json" check
	run -0 xt save
	assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/s.json")"
}

@test "restore from nothing fails at every kernel call without a change" {
	build_state
	xt save file "$BATS_TEST_TMPDIR/want.json"
	take_down
	xt save file "$BATS_TEST_TMPDIR/none.json"
	FAULT_STRIDE=${FAULT_STRIDE:-23} FAULT_SNAP=snap_rebuilt \
		fault_loop "restore file $BATS_TEST_TMPDIR/none.json" -- \
		restore file "$BATS_TEST_TMPDIR/want.json"
	((FAULTS > 10))
}

@test "restore over a different state fails at every kernel call and puts it back" {
	build_state
	xt save file "$BATS_TEST_TMPDIR/want.json"
	xt route detach dev veth2
	xt route attach dev veth2 hook xdp
	xt chain del dev veth1 name c1
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name c2 last
	xt redirect del dev veth2 all
	xt save file "$BATS_TEST_TMPDIR/other.json"
	FAULT_STRIDE=${FAULT_STRIDE:-37} FAULT_SNAP=snap_rebuilt \
		fault_loop "restore file $BATS_TEST_TMPDIR/other.json" -- \
		restore file "$BATS_TEST_TMPDIR/want.json"
	((FAULTS > 10))
}

# hostile NAME EXIT JQ WANT: the saved document changed by JQ is refused
# with exit EXIT and one Error line that contains WANT, and nothing
# changes. Called as a command, never under run (which would turn errexit
# off inside it and ignore every check here).
hostile() {
	local st=$2 before
	jq "$3" "$BATS_TEST_TMPDIR/s.json" >"$BATS_TEST_TMPDIR/$1.json"
	before=$(snap)
	run "-$st" --separate-stderr xt restore file "$BATS_TEST_TMPDIR/$1.json"
	assert_output ""
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_regex "$stderr" "^Error: "
	[[ $stderr == *"$4"* ]] || fail "$1: \"$4\" not in: $stderr"
	assert_equal "$(snap)" "$before"
}

@test "hostile documents are refused with one Error line and change nothing" {
	build_state
	xt save file "$BATS_TEST_TMPDIR/s.json"
	xt route detach dev veth2
	hostile unknown 2 '.route[0].colour = "red"' 'route[0]: unknown key "colour"'
	hostile type 2 '.route[0].hook = 7' 'route[0].hook: not a string'
	hostile word 2 '.route[1].lookup = "sideways"' 'route[1].lookup: "sideways" is none of the words'
	hostile version 2 '.version = 2' 'version: not 1, the only version this xfwd reads'
	hostile huge 2 '.redirect as $r | .redirect = [range(2000) | $r[0]]' 'more than 1024'
	hostile members 2 '.chain[0].members = [range(40) | {name: "m\(.)", builtin: true, on: {}}]' '40 members'
	hostile twice 2 '.route += [.route[0]]' 'twice'
	hostile goto 2 '.chain[0].members[0].on.drop = "goto nobody"' 'goto to "nobody"'
	hostile nodev 1 '.route[0].dev = "nosuchdev0"' 'device "nosuchdev0" does not exist'
	hostile hash 1 '.chain[0].members[0].sha256 = ("0" * 64)' 'has changed since the save'
	hostile nul 2 '.route[0].dev = "veth\u0000"' '\u0000 is not allowed'
	head -c 300 "$BATS_TEST_TMPDIR/s.json" >"$BATS_TEST_TMPDIR/cut.json"
	run -2 --separate-stderr xt restore file "$BATS_TEST_TMPDIR/cut.json"
	assert_regex "$stderr" "^Error: .*cut.json:[0-9]+:[0-9]+: "
	run -2 --separate-stderr xt restore file "$BATS_TEST_TMPDIR/cut.json" colour
	assert_regex "$stderr" '^Error: .*"colour"'
}

@test "-force skips what names a device that does not exist, with a Warning" {
	build_state
	xt save file "$BATS_TEST_TMPDIR/s.json"
	take_down
	jq '.route[1].dev = "gone0" | .redirect[0].to = "gone1"' "$BATS_TEST_TMPDIR/s.json" \
		>"$BATS_TEST_TMPDIR/g.json"
	run -1 --separate-stderr xt restore file "$BATS_TEST_TMPDIR/g.json"
	assert_equal "$stderr" 'Error: route[1]: device "gone0" does not exist; -force skips what names it.'
	run -0 --separate-stderr xt -force restore file "$BATS_TEST_TMPDIR/g.json"
	assert_equal "$stderr" 'Warning: route[1]: device "gone0" does not exist; skipped.
Warning: redirect[0]: device "gone1" does not exist; skipped.'
	run -0 xt -j route show
	assert_equal "$(jq -c '[.interfaces[].dev]' <<<"$output")" '["veth1"]'
}

@test "a member whose file is gone is refused by name; keep DIR makes the document self-contained" {
	cp "$PROGS/count.bpf.o" "$BATS_TEST_TMPDIR/mine.o"
	xt chain add dev veth1 obj "$BATS_TEST_TMPDIR/mine.o" name mine
	xt save file "$BATS_TEST_TMPDIR/s.json"
	run -0 jq -r '.chain[0].members[0].object' "$BATS_TEST_TMPDIR/s.json"
	assert_output "$BATS_TEST_TMPDIR/mine.o"
	xt save file "$BATS_TEST_TMPDIR/k.json" keep "$BATS_TEST_TMPDIR/keep"
	[[ $(stat -c %a "$BATS_TEST_TMPDIR/keep") == 700 ]]
	run -0 jq -r '.chain[0].members[0] | "\(.object) \(.sha256)"' "$BATS_TEST_TMPDIR/k.json"
	local sha=${output#* }
	assert_equal "${output% *}" "$BATS_TEST_TMPDIR/keep/$sha.o"
	xt chain del dev veth1 all
	rm "$BATS_TEST_TMPDIR/mine.o"
	run -1 --separate-stderr xt restore file "$BATS_TEST_TMPDIR/s.json"
	assert_equal "$stderr" "Error: chain[0].members[0] \"mine\": cannot read \"$BATS_TEST_TMPDIR/mine.o\": No such file or directory."
	run -0 xt restore file "$BATS_TEST_TMPDIR/k.json"
	run -0 xt restore file "$BATS_TEST_TMPDIR/k.json" check
}

@test "restore reads standard input; save and restore take their words once" {
	build_state
	xt save >"$BATS_TEST_TMPDIR/s.json"
	take_down
	run -0 xt restore <"$BATS_TEST_TMPDIR/s.json"
	run -0 xt restore file - check <"$BATS_TEST_TMPDIR/s.json"
	run -2 --separate-stderr xt save file a file b
	assert_regex "$stderr" '^Error: .*file'
	run -2 --separate-stderr xt restore check check
	assert_regex "$stderr" '^Error: .*check'
}
