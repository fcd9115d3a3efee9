#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Least privilege: changing commands without CAP_BPF, CAP_NET_ADMIN and
# CAP_PERFMON, reading ones without them or without root, the modes of pins
# and state directories, objects others could swap, and nothing run from
# PATH.
#
# Unprivileged runs enter r1 with "nsenter --net" instead of xfwd's -n:
# -n is setns(), which needs the CAP_SYS_ADMIN these runs drop (tested on
# its own), and unlike "ip netns exec", nsenter --net leaves the mount
# namespace and so the pins as they are.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

PROGS="$BATS_TEST_DIRNAME/../build/test/progs"

setup_file() {
	_need_root
}

setup() {
	_common_setup
	topo_create
	PIN_DIR=$(pin_dir)
	RUN_DIR=/run/xfwd/${PIN_DIR##*/}
}

# What a test made outside its own directory goes (BIN_DIR, a symlink in
# place of RUN_DIR); what the undo commands leave fails the test.
teardown() {
	local left=0
	[[ -z ${BIN_DIR:-} ]] || rm -rf "$BIN_DIR"
	[[ ! -L ${RUN_DIR:-} ]] || rm "$RUN_DIR"
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	xr redirect del dev veth2 all >/dev/null 2>&1 || true
	xr route detach all >/dev/null 2>&1 || true
	left_behind "${PIN_DIR:-}" "${RUN_DIR:-}" || left=1
	topo_destroy
	((!left))
}

# nocaps CMD...: CMD in r1's network namespace as root without CAP_BPF,
# CAP_NET_ADMIN and CAP_SYS_ADMIN (bounding set, inheritable, ambient).
nocaps() {
	nsenter --net="/run/netns/$XF_NS_R1" setpriv --inh-caps=-all --ambient-caps=-all \
		--bounding-set=-bpf,-net_admin,-sys_admin "$@"
}

# One of each kind on r1: route on both veths (tc), a chain member on
# veth1, a redirect on veth2.
populate() {
	warm_up
	run -0 xr route attach dev veth1 dev veth2 hook tc
	# Something to count, to see that "stats reset" does not reset it.
	run -0 ping4 2 "$XF_H2_IP4" -q
	run -0 xr chain add dev veth1 obj "$PROGS/pass.bpf.o"
	run -0 xr redirect add dev veth2 to veth1
}

# JSON of show or stats on stdin without the counters that the hosts' own
# IPv6 chatter (MLD, router solicitations) moves at any time (of stats'
# devices, only which they are).
steady() {
	jq -c 'walk(if type == "object" then del(.packets, .bytes, .passed,
		.passed_bytes, .pass_reasons, .aborted, .drop, .pass, .tx, .redirect,
		.other) else . end) |
		if .counters then .counters |= map(select(.object != "route" or
			.key == "forwarded")) else . end |
		if .devices then .devices |= map({dev, ifindex, driver}) else . end'
}

# What xfwd and the kernel say is there, for before/after comparisons.
snapshot() {
	local obj
	for obj in route chain redirect stats; do
		xr -j "$obj" | steady
	done
	ip -n "$XF_NS_R1" -d link show | grep -v 'link/ether'
	in_r1 bpftool net show
	find "$PIN_DIR" "$RUN_DIR" 2>/dev/null | sort
}

@test "without CAP_BPF and CAP_NET_ADMIN, every changing command fails naming them, nothing changed" {
	local before cmd line fwd
	populate
	fwd=$(ctr veth1 forwarded)
	((fwd >= 2))
	before=$(snapshot)
	while read -r line; do
		read -ra cmd <<<"$line"
		run -1 --separate-stderr nocaps xfwd "${cmd[@]}"
		assert_equal "$output" ""
		assert_equal "$stderr" "Error: \"${cmd[0]} ${cmd[1]}\" needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON; missing CAP_BPF and CAP_NET_ADMIN."
	done <<-EOF
		route attach dev veth1 hook xdp
		route detach all
		route detach dev veth2
		route refresh
		chain add dev veth1 obj $PROGS/count.bpf.o
		chain set dev veth1 name xf_pass on drop stop
		chain order dev veth1 xf_pass
		chain del dev veth1 name xf_pass
		chain del dev veth1 all
		chain profile dev veth1 duration 1
		redirect add dev veth1 to veth2
		redirect del dev veth2 all
		stats reset
		stats reset dev veth1
	EOF
	# Abbreviated and in a batch, the same.
	run -1 --separate-stderr nocaps xfwd ro det all
	assert_equal "$stderr" "Error: \"route detach\" needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON; missing CAP_BPF and CAP_NET_ADMIN."
	printf 'route show\nchain del dev veth1 all\n' >"$BATS_TEST_TMPDIR/batch"
	run -1 --separate-stderr nocaps xfwd -b "$BATS_TEST_TMPDIR/batch"
	# Line 1 (route show) may read; line 2 is refused, named with its line.
	assert_equal "$stderr" "Error: \"chain del\" needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON; missing CAP_BPF and CAP_NET_ADMIN.
Error: batch line 2 of \"$BATS_TEST_TMPDIR/batch\" failed."
	run -0 diff <(echo "$before") <(snapshot)
	assert_equal "$(ctr veth1 forwarded)" "$fwd"
	# Usage errors stay usage errors (exit 2), checked before the rights.
	run -2 --separate-stderr nocaps xfwd route attach bogus
	assert_equal "$stderr" 'Error: unexpected "bogus"; try "xfwd route help".'
}

@test "without CAP_PERFMON (nor CAP_SYS_ADMIN) a command that loads is refused naming it, before the verifier would" {
	local before
	warm_up
	before=$(snapshot)
	# xfwd's programs subtract packet pointers: the verifier refuses that
	# (EACCES) without CAP_PERFMON, after maps were made.
	run -1 --separate-stderr nsenter --net="/run/netns/$XF_NS_R1" setpriv --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-perfmon,-sys_admin \
		xfwd route attach dev veth1 dev veth2 hook tc
	assert_equal "$stderr" "Error: \"route attach\" needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON; missing CAP_PERFMON."
	assert_equal "$(snapshot)" "$before"
	# CAP_SYS_ADMIN stands in for it, as in the kernel.
	run -0 nsenter --net="/run/netns/$XF_NS_R1" setpriv --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-perfmon \
		xfwd route attach dev veth1 dev veth2 hook tc
	run -0 xr route detach all
}

@test "CAP_SYS_ADMIN stands in for CAP_BPF; -n without it names CAP_SYS_ADMIN" {
	populate
	run -1 --separate-stderr setpriv --inh-caps=-all --ambient-caps=-all \
		--bounding-set=-bpf,-net_admin xfwd -n "$XF_NS_R1" route detach all
	assert_equal "$stderr" "Error: \"route detach\" needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON; missing CAP_NET_ADMIN."
	run -1 --separate-stderr setpriv --inh-caps=-all --ambient-caps=-all \
		--bounding-set=-bpf,-net_admin,-sys_admin xfwd -n "$XF_NS_R1" route show
	assert_equal "$stderr" "Error: cannot enter network namespace \"$XF_NS_R1\": Operation not permitted (needs CAP_SYS_ADMIN)."
	# With the capabilities back, the same command works.
	run -0 xr route detach all
}

@test "show, stats and feature without the capabilities print what they can" {
	local obj
	populate
	# Root without the capabilities still reads the pins: the same tables.
	for obj in route chain stats; do
		run -0 --separate-stderr nocaps xfwd -j "$obj"
		# Netfilter's state needs CAP_NET_ADMIN: route show says it could
		# not read it, and shows the rest.
		# Nor xfrm's, or the tc programs that a forwarded packet skips.
		if [[ $obj == route ]]; then
			assert_equal "$(jq -c '[.interfaces[].netfilter.unread] | unique' \
				<<<"$output")" '["nftables: Operation not permitted"]'
			assert_equal "$(jq -c '[.interfaces[].skips.unread] | unique' \
				<<<"$output")" '["xfrm policies: Operation not permitted"]'
			output=$(jq -c 'del(.interfaces[].netfilter.unread) |
				del(.interfaces[].skips)' <<<"$output")
		fi
		assert_equal "$(steady <<<"$output")" \
			"$(xr -j "$obj" 2>/dev/null | jq -c 'del(.interfaces[]?.skips)' | steady)"
		assert_equal "$stderr" ""
	done
	# Only the other programs on a tc hook cannot be queried: said so.
	run -0 --separate-stderr nocaps xfwd -j redirect
	assert_equal "$(jq -c 'del(.rules[].foreign)' <<<"$output" | steady)" \
		"$(xr -j redirect | jq -c 'del(.rules[].foreign)' | steady)"
	run -0 jq -er '.rules[0].foreign' <<<"$output"
	assert_output "unknown (needs CAP_NET_ADMIN)"
	# feature cannot load its probes: each says why, the rest is there.
	run -0 --separate-stderr nocaps xfwd -j feature
	run -0 jq -er '.kernel.fib_lookup.detail' <<<"$output"
	assert_output --partial EPERM
	run -0 --separate-stderr nocaps xfwd -j feature
	run -0 jq -er '.interfaces[] | select(.dev == "veth1") | .xdp_native' <<<"$output"
	assert_output true
	# route get runs the attached program, which takes CAP_SYS_ADMIN to open.
	run -1 --separate-stderr nocaps xfwd route get "$XF_H2_IP4" iif veth1
	assert_equal "$output" ""
	assert_regex "$stderr" '^Error: cannot open the attached program [0-9]+: Operation not permitted \(needs CAP_SYS_ADMIN\)\.$'
	run -0 xr route get "$XF_H2_IP4" iif veth1
}

@test "show and stats as another user: empty tables and a warning naming the pins, no crash" {
	local bin obj
	populate
	# Somewhere that user may run the binary from (teardown removes it).
	bin=$(mktemp -d)
	BIN_DIR=$bin
	chmod 755 "$bin"
	cp "$XF_TOP/build/xfwd" "$bin/"
	for obj in "route show" "chain show" "redirect show" "stats" "stats show dev veth1"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr nocaps --reuid=65534 --regid=65534 --clear-groups \
			"$bin/xfwd" -j $obj
		jq -e . <<<"$output" >/dev/null
		assert_equal "$stderr" "Warning: cannot read /sys/fs/bpf/xfwd: Permission denied; what xfwd attached is not shown (run as root)."
	done
	run -0 --separate-stderr nocaps --reuid=65534 --regid=65534 --clear-groups \
		"$bin/xfwd" feature show dev veth1
	assert_output --partial veth1
	run -1 --separate-stderr nocaps --reuid=65534 --regid=65534 --clear-groups \
		"$bin/xfwd" route detach all
	assert_equal "$stderr" "Error: \"route detach\" needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON; missing CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON."
}

@test "pins and state directories are 0700 and root's, whatever the umask" {
	local bad
	umask 000
	populate
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o"
	[[ -d $PIN_DIR && -d $RUN_DIR ]]
	for d in /sys/fs/bpf/xfwd /run/xfwd; do
		assert_equal "$(stat -c '%a %U' "$d")" "700 root"
	done
	bad=$(find "$PIN_DIR" "$RUN_DIR" \( -type d \( ! -perm 700 -o ! -user root \) \) -o \
		\( ! -type d \( -perm /077 -o ! -user root \) \) -printf '%m %u %p\n')
	assert_equal "$bad" ""
	# A directory left wider (by hand, by an older xfwd) is narrowed on
	# the next change; a symlink in its place is refused.
	chmod 755 "$PIN_DIR" "$RUN_DIR"
	run -0 xr chain del dev veth1 name xf_count
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o"
	assert_equal "$(stat -c %a "$PIN_DIR") $(stat -c %a "$RUN_DIR")" "700 700"
	run -0 xr chain del dev veth1 all
	[[ ! -e $RUN_DIR ]]
	mkdir -m 700 "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$RUN_DIR"
	run -1 --separate-stderr xr chain add dev veth1 obj "$PROGS/count.bpf.o"
	rm "$RUN_DIR"
	[[ $stderr == *"Not a directory"* ]] || fail "$stderr"
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ""
}

@test "chain add refuses an object others could swap, unless -force" {
	local d=$BATS_TEST_TMPDIR/objs before
	mkdir -m 755 "$d"
	cp "$PROGS/count.bpf.o" "$d/"
	run -0 xr route attach dev veth1 hook tc
	before=$(snapshot)
	for mode in 666 664 646; do
		chmod $mode "$d/count.bpf.o"
		run -1 --separate-stderr xr chain add dev veth1 obj "$d/count.bpf.o"
		assert_equal "$stderr" "Error: \"$d/count.bpf.o\" is writable by others than its owner (mode 0$mode); another user could swap it (-force loads it anyway)."
	done
	chmod 644 "$d/count.bpf.o"
	for mode in 777 775; do
		chmod $mode "$d"
		run -1 --separate-stderr xr chain add dev veth1 obj "$d/count.bpf.o"
		assert_equal "$stderr" "Error: \"$d/count.bpf.o\" is in \"$d\", which is writable by others than its owner (mode 0$mode); another user could swap it (-force loads it anyway)."
	done
	# A link from a safe place to an unsafe one: the target counts.
	ln -s "$d/count.bpf.o" "$BATS_TEST_TMPDIR/link.o"
	run -1 --separate-stderr xr chain add dev veth1 obj "$BATS_TEST_TMPDIR/link.o"
	assert_output ""
	[[ $stderr == *"which is writable by others"* ]]
	run diff <(echo "$before") <(snapshot)
	assert_success
	# Sticky (as /tmp): others cannot rename root's file there.
	chmod 1777 "$d"
	run -0 xr chain add dev veth1 obj "$d/count.bpf.o" name sticky
	chmod 777 "$d"
	chmod 666 "$d/count.bpf.o"
	run -0 xr -force chain add dev veth1 obj "$d/count.bpf.o" name forced
	run -0 xr -j chain show dev veth1
	run -0 jq -r '[.interfaces[0].chain[].name] | join(" ")' <<<"$output"
	assert_output "sticky forced"
}

@test "nothing is run from PATH: no system(), popen() or exec*p() in cmd/ and lib/" {
	run -1 grep -rnE --include='*.[ch]' \
		'\b(system|popen|execlp|execvp|execvpe|posix_spawnp)[[:space:]]*\(' \
		"$XF_TOP"/cmd "$XF_TOP"/lib
}

@test "nothing is run from PATH: trap programs in PATH are never called" {
	local trap=$BATS_TEST_TMPDIR/trap name line
	mkdir "$trap"
	for name in ip tc bpftool modprobe sh bash dash ethtool mount umount sysctl \
		clang llc cc gcc ld nsenter env true cat ls xdp-loader; do
		printf '#!/bin/sh\n/usr/bin/touch "%s/ran-%s"\n' "$trap" "$name" >"$trap/$name"
		chmod 755 "$trap/$name"
	done
	# The trap works: a program that runs "ip" from PATH trips it.
	PATH=$trap /usr/bin/env ip >/dev/null 2>&1
	[[ -e $trap/ran-ip ]]
	rm "$trap/ran-ip"
	printf 'route show\nstats\n' >"$BATS_TEST_TMPDIR/batch"
	while read -r line; do
		read -ra cmd <<<"$line"
		run env PATH="$trap" "$XF_TOP/build/xfwd" -n "$XF_NS_R1" "${cmd[@]}"
		(( status < 2 )) || fail "xfwd ${cmd[*]}: exit $status: $output"
	done <<-EOF
		route attach dev veth1 dev veth2 hook tc
		route show
		route get $XF_H2_IP4 iif veth1
		chain add dev veth1 obj $PROGS/pass.bpf.o
		chain add dev veth1 obj $PROGS/count.bpf.o
		chain order dev veth1 xf_count xf_pass
		chain show
		redirect add dev veth2 to veth1
		redirect show
		stats
		stats reset
		feature
		feature show dev veth1
		-b $BATS_TEST_TMPDIR/batch
		redirect del dev veth2 all
		chain del dev veth1 all
		route detach all
		route attach dev veth1 dev veth2 hook xdp
		route detach all
	EOF
	run -0 ls "$trap"
	refute_output --partial ran-
}
