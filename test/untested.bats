#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Words of the command line that no other suite runs: the options -h and
# -d, route attach's mode, family and netfilter written out, route get's
# ports and protocols, chain's sec and its aborted and redirect rules,
# redirect's ingress written out, stats reset and watch for one object,
# make demo, and the help, man pages and completion of save, restore and
# gc. Each test with traffic builds h1 -- r1 -- h2 (scripts/topo.bash)
# and takes it down in teardown, failing for what it left behind.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/chain
load helpers/redirect

# chain.bash's rx, which redirect.bash's replaces: a key of the last UDP
# receiver's summary.
rxk() {
	jq -er --arg k "$1" '.[$k]' "$RX"
}

setup_file() {
	_need_root
	_need_progs count broken verdicts
}

setup() {
	_common_setup
	BG_PIDS=()
}

# topo: the test's h1 -- r1 -- h2, with the names teardown cleans up by.
topo() {
	topo_create
	PIN_DIR=$(pin_dir)
	RUN_DIR=/run/xfwd/${PIN_DIR##*/}
	IF_PIN=$PIN_DIR/$(ifindex "$XF_NS_R1" veth1)
}

teardown() {
	local dev left=0
	kill_bg
	[[ -n ${PIN_DIR:-} ]] || return 0
	for dev in "${RD_DEVS[@]}"; do
		xr redirect del dev "$dev" all >/dev/null 2>&1 || true
	done
	xr route detach all >/dev/null 2>&1 || true
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	left_behind "$PIN_DIR" "$RUN_DIR" || left=1
	topo_destroy
	((!left))
}

# --- options -----------------------------------------------------------------

# 5 echo requests of 1000 bytes each way: 5 frames of 1042 bytes
# forwarded on veth1, 5210 bytes, which -h prints as 5.1KiB.
# both_pings N: N pings of each family from h1 reach h2 and come back.
both_pings() {
	run -0 ping4 "$1" "$XF_H2_IP4" -q
	assert_output --partial "$1 packets transmitted, $1 received"
	run -0 ping6 "$1" "$XF_H2_IP6" -q
	assert_output --partial "$1 packets transmitted, $1 received"
}

@test "-h: route show and stats show print bytes in human units; plain and JSON keep integers" {
	local f fb
	topo
	warm_up
	run -0 attach "$ANY_HOOK"
	run -0 ping4 5 "$XF_H2_IP4" -q -s 1000
	assert_output --partial "5 packets transmitted, 5 received"
	assert_equal "$(ctr veth1 forwarded_bytes)" 5210
	# The columns count what the fast path sent itself; the first of
	# the five went to the kernel for the neighbour's upkeep.
	f=$(ctr veth1 fast) fb=$(ctr veth1 fast_bytes)
	((f >= 3))
	run -0 xr -h route show dev veth1
	assert_regex "${lines[1]}" "^veth1 .* $f +[0-9]\.[0-9]KiB +[0-9]+ +[0-9.]+K?i?B "
	run -0 xr route show dev veth1
	assert_regex "${lines[1]}" "^veth1 .* $f +$fb +[0-9]+ +[0-9]+ "
	run -0 xr -h stats show dev veth1 route
	grep -Eq "^  veth1 .* forwarded +$f +[0-9]\.[0-9]KiB " <<<"$output" || fail "$output"
	run -0 xr stats show dev veth1 route
	grep -Eq "^  veth1 .* forwarded +$f +$fb " <<<"$output" || fail "$output"
	# JSON carries raw integers whatever -h says.
	run -0 xr -h -j route show dev veth1
	assert_equal "$(jq -c '.interfaces[0] | [.forwarded, .forwarded_bytes]' <<<"$output")" "[$f,$fb]"
}

# A member the verifier refuses: libbpf's messages (the load failure and
# the verifier's log) go to stderr only with -d, before the one Error line
# that is all there is without it; the exit status and the state are the
# same either way.
@test "-d: libbpf's own messages on stderr, before the same Error line; without -d that line alone" {
	local plain
	topo
	run -1 --separate-stderr xr chain add dev veth1 obj "$PROGS/broken.bpf.o"
	assert_output ""
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_regex "$stderr" '^Error: member xf_broken: Permission denied: '
	[[ $stderr != *libbpf:* ]] || fail "libbpf's messages without -d: $stderr"
	plain=$stderr
	run -1 --separate-stderr xr -d chain add dev veth1 obj "$PROGS/broken.bpf.o"
	assert_output ""
	assert_equal "${stderr##*$'\n'}" "$plain"
	assert_regex "$stderr" "(^|"$'\n'")libbpf: prog 'xf_broken': BPF program load failed"
	[[ $stderr == *"-- BEGIN PROG LOAD LOG --"$'\n'*$'\n'"-- END PROG LOAD LOG --"$'\n'* ]] ||
		fail "no verifier log: $stderr"
	(($(wc -l <<<"$stderr") > 3))
	run -0 no_xdp veth1
	run -0 xr -j chain show
	assert_output '{"interfaces":[]}'
}

# --- route attach: mode, family, netfilter -----------------------------------

# xdp_mode_fwd MODE: route attach hook xdp mode MODE succeeds, the
# interfaces carry XDP in that mode (ip link's xdp or xdpgeneric), and
# pings of both families are forwarded by the fast path, the kernel's
# forwarding counters flat.
xdp_mode_fwd() {
	local k dev word=xdp
	[[ $1 == native ]] || word=xdpgeneric
	topo
	warm_up
	run -0 --separate-stderr attach xdp mode "$1"
	assert_equal "$stderr" ""
	run -0 xr -j route show
	assert_equal "$(jq -r '[.interfaces[] | "\(.dev) \(.hook) \(.mode)"] | join(",")' <<<"$output")" \
		"veth1 xdp $1,veth2 xdp $1"
	for dev in veth1 veth2; do
		run -0 ip -n "$XF_NS_R1" link show dev "$dev"
		assert_regex "${lines[0]}" " mtu [0-9]+ $word "
	done
	k=$(kfwd_mark veth1 veth2)
	both_pings 10
	wait_until 3 ctr_ge veth2 forwarded 20 || true
	assert_equal "$(ctr veth1 forwarded) $(ctr veth2 forwarded)" "20 20"
	kfwd_is "$k" 0 veth1 veth2
}

@test "route attach hook xdp mode generic: generic XDP on both, both families forwarded on the fast path" {
	xdp_mode_fwd generic
}

@test "route attach hook xdp mode native: driver XDP on both, both families forwarded on the fast path" {
	if kernel_lacks xdp_features; then
		topo
		xdp_ready
		run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp mode native
		assert_equal "$stderr" "Error: mode native needs the kernel to report XDP features (Linux 6.3); this kernel does not: use mode generic."
		run -0 no_hooks veth1 veth2
		return
	fi
	xdp_mode_fwd native
}

# The defaults written out are the defaults: family all forwards both
# families, lookup full and netfilter check say so in show, and check
# written out still refuses a forward chain, as the default does.
@test "route attach family all lookup full netfilter check, written out: both families forwarded; check still refuses" {
	topo
	warm_up
	in_r1 nft add table ip xfu
	in_r1 nft add chain ip xfu forward '{ type filter hook forward priority 0; }'
	in_r1 nft add rule ip xfu forward ip daddr 198.18.2.0/24 drop
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK" family all netfilter check
	assert_output ""
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_regex "$stderr" '^Error: the fast path would bypass netfilter: .*nftables table ip xfu chain forward'
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	in_r1 nft delete table ip xfu
	run -0 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK" family all lookup full netfilter check
	assert_equal "$stderr" ""
	run -0 xr -j route show
	assert_equal "$(jq -r '[.interfaces[] | "\(.family) \(.lookup) \(.netfilter.bypass)"] | unique | join(",")' <<<"$output")" \
		"all full false"
	both_pings 5
	wait_until 3 ctr_ge veth1 forwarded 10 || true
	assert_equal "$(ctr veth1 forwarded) $(ctr veth1 family)" "10 0"
}

@test "route attach netfilter bypass lookup flowtable: one Error line, exit 2, nothing changed" {
	local want='Error: "netfilter bypass" does not go with "lookup flowtable", in which netfilter decides.'
	topo
	xdp_ready
	run -2 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp lookup flowtable netfilter bypass
	assert_output ""
	assert_equal "$stderr" "$want"
	# In either order, and before anything is looked at (no such device).
	run -2 --separate-stderr xr route attach dev nosuchdev netfilter bypass lookup flowtable
	assert_equal "$stderr" "$want"
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	[[ ! -e $PIN_DIR ]] || fail "pins made: $(find "$PIN_DIR")"
}

# --- route get: ports and protocols ------------------------------------------

# rget DST ARGS...: "reason fib_rc" of route get DST iif veth1 ARGS.
rget() {
	xr -j route get "$1" iif veth1 "${@:2}" | jq -er '"\(.reason) \(.fib_rc)"'
}

# r1's policy rules act on what route get writes into the lookup: UDP to
# port 5353 is looked up in a table where h2's prefix is a blackhole, UDP
# from port 41000 in one where it is prohibited, ICMP (and ICMPv6) in one
# where it is unreachable. Each
# rule matches only with the right word, and the same packet with another
# protocol or port is forwarded.
@test "route get: sport, dport, proto udp and proto icmp reach the FIB lookup (ip rules by port and protocol)" {
	local fam dst t reason rc args
	topo
	warm_up
	run -0 attach "$ANY_HOOK"
	for fam in -4 -6; do
		ip -n "$XF_NS_R1" "$fam" rule add ipproto udp dport 5353 lookup 101
		ip -n "$XF_NS_R1" "$fam" rule add ipproto udp sport 41000 lookup 102
	done
	ip -n "$XF_NS_R1" rule add ipproto icmp lookup 100
	ip -n "$XF_NS_R1" -6 rule add ipproto ipv6-icmp lookup 100
	for t in unreachable:100 blackhole:101 prohibit:102; do
		ip -n "$XF_NS_R1" route add "${t%:*}" 198.18.2.0/24 table "${t#*:}"
		ip -n "$XF_NS_R1" -6 route add "${t%:*}" 2001:2:0:2::/64 table "${t#*:}"
	done
	for dst in "$XF_H2_IP4" "$XF_H2_IP6"; do
		while read -r reason rc args; do
			# shellcheck disable=SC2086
			run -0 rget "$dst" $args
			assert_equal "$dst $args: $output" "$dst $args: $reason $rc"
		done <<-EOF
			forwarded 0
			forwarded 0 proto udp
			blackhole 1 dport 5353
			blackhole 1 proto udp dport 5353
			forwarded 0 proto tcp dport 5353
			forwarded 0 proto udp dport 5354
			prohibit 3 sport 41000
			prohibit 3 proto udp sport 41000 dport 80
			forwarded 0 proto tcp sport 41000
			forwarded 0 sport 41001
			unreachable 2 proto icmp
			forwarded 0 proto tcp
		EOF
	done
}

# --- chain: sec, on aborted, on redirect ---------------------------------------

# verdicts.bpf.o has two XDP programs, xf_abort in section xdp and
# xf_redir in section xdp.frags.
@test "chain add sec: picks the program of that section; without it or with an empty section, refused" {
	topo
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/verdicts.bpf.o"
	assert_equal "$stderr" "Error: \"$PROGS/verdicts.bpf.o\" has 2 XDP programs; choose one with sec or prog."
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/verdicts.bpf.o" sec xdp.nosuch
	assert_equal "$stderr" "Error: no XDP program in section xdp.nosuch in \"$PROGS/verdicts.bpf.o\"."
	run -0 no_xdp veth1
	run -0 xr chain add dev veth1 obj "$PROGS/verdicts.bpf.o" sec xdp.frags
	run -0 xr chain add dev veth1 obj "$PROGS/verdicts.bpf.o" sec xdp
	run -0 xr -j chain show dev veth1
	assert_equal "$(jq -r '[.interfaces[0].chain[] | "\(.name)=\(.prog)"] | join(" ")' <<<"$output")" \
		"xf_redir=xf_redir xf_abort=xf_abort"
}

# verdict_goto VERDICT NAME SEC: member NAME (verdicts.bpf.o's section
# SEC) ends UDP to PORT with VERDICT in front of mid and tail (count).
# Alone it loses them all; with "on VERDICT goto tail", given at add, every
# datagram skips mid, reaches tail, which passes it, and h2.
verdict_goto() {
	local v=$1 name=$2 sec=$3 mid0 tail0
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name mid
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name tail
	run -0 xr chain add dev veth1 obj "$PROGS/verdicts.bpf.o" sec "$sec" name "$name" first
	assert_equal "$(members)" "$name mid tail"
	assert_equal "$(rules "$name")" ""
	udp 20
	assert_equal "$(rxk received)" 0
	assert_equal "$(mctr "$name" "$v")" 20

	run -0 xr chain del dev veth1 name "$name"
	run -0 xr chain add dev veth1 obj "$PROGS/verdicts.bpf.o" sec "$sec" name "$name" first \
		on "$v" goto tail
	assert_equal "$(members)" "$name mid tail"
	assert_equal "$(rules "$name")" "on $v goto tail"
	mid0=$(mapval mid xf_cnt) tail0=$(mapval tail xf_cnt)
	udp 50
	assert_equal "$(rxk received)" 50
	assert_equal "$(mctr "$name" "$v")" 50
	(($(mapval tail xf_cnt) - tail0 >= 50)) || fail "tail ran for $(($(mapval tail xf_cnt) - tail0)) packets"
	(($(mapval mid xf_cnt) - mid0 < 50)) || fail "mid ran for the datagrams the goto skips"
}

@test "chain on aborted goto: what a member aborts skips the member between and is passed by the target" {
	topo
	ping4 1 "$XF_H2_IP4" -q >/dev/null
	verdict_goto aborted abort xdp
}

@test "chain on redirect goto: what a member redirects skips the member between and is passed by the target" {
	topo
	ping4 1 "$XF_H2_IP4" -q >/dev/null
	verdict_goto redirect redir xdp.frags
}

# --- redirect add ingress ------------------------------------------------------

# "ingress" written out is the default direction: the rule is an ingress
# rule of veth1, h1's pings to h2's extra address in h1's subnet go
# through it, and r1's stack sees none of them; del with ingress takes it.
@test "redirect add dev veth1 ingress: an ingress rule, as without the word; del ingress removes it" {
	local in4
	topo
	tc_mode tcx
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	run -0 xr redirect add dev veth1 ingress match 198.18.1.9/32 to veth2
	run -0 xr redirect add dev veth2 ingress match 198.18.1.1/32 to veth1
	run -0 xr redirect add dev veth1 ingress to veth2
	run -0 xr redirect add dev veth2 to veth1
	run -0 xr -j redirect show
	assert_equal "$(jq -r '[.rules[] | "\(.dev) \(.dir) \(.match // "all")"] | sort | join(",")' <<<"$output")" \
		"veth1 ingress 198.18.1.9/32,veth1 ingress all,veth2 ingress 198.18.1.1/32,veth2 ingress all"
	run -0 ping4 1 198.18.1.9
	in4=$(kstat "$XF_NS_R1" IpInReceives)
	run -0 ping4 10 198.18.1.9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(rule veth1 ingress 198.18.1.9/32 packets)" 11
	assert_equal "$(kstat "$XF_NS_R1" IpInReceives)" "$in4"
	run -0 xr redirect del dev veth1 ingress match 198.18.1.9/32
	run -0 xr -j redirect show dev veth1
	assert_equal "$(jq -r '[.rules[] | "\(.dir) \(.match // "all")"] | join(",")' <<<"$output")" "ingress all"
}

# --- stats reset redirect, stats watch chain|redirect --------------------------

# st DEV OBJECT ITEM KEY FIELD: one number of "stats show -j" (0 when the
# counter is not listed).
st() {
	xr -j stats | jq -er --arg d "$1" --arg o "$2" --arg i "$3" --arg k "$4" --arg f "$5" '
		[.counters[] | select(.dev == $d and .object == $o and .item == $i and
		 .key == $k) | .[$f]] | add // 0'
}

# stats_objects: the count member in veth1's chain, a /32 redirect rule on
# veth1 and the catch-alls both ways; 10 pings counted by all of them.
stats_objects() {
	topo
	tc_mode tcx
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 xr redirect add dev veth1 match 198.18.1.9/32 to veth2
	run -0 xr redirect add dev veth1 to veth2
	run -0 xr redirect add dev veth2 to veth1
	run -0 ping4 10 198.18.1.9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	R9="ingress 198.18.1.9/32 egress->veth2"
}

@test "stats reset dev veth1 redirect zeroes veth1's rules only; stats reset redirect every rule, not the chain" {
	stats_objects
	(($(st veth1 redirect "$R9" matched packets) >= 10))
	(($(st veth2 redirect "ingress all egress->veth1" matched packets) >= 10))
	(($(st veth1 chain count pass packets) >= 10))
	run -0 --separate-stderr xr stats reset dev veth1 redirect
	assert_equal "$stderr" ""
	assert_equal "$(st veth1 redirect "$R9" matched packets) $(st veth1 redirect "$R9" matched bytes)" "0 0"
	assert_equal "$(rule veth1 198.18.1.9/32 packets)" 0
	(($(st veth2 redirect "ingress all egress->veth1" matched packets) >= 10))
	(($(st veth1 chain count pass packets) >= 10))
	run -0 xr stats reset redirect
	assert_equal "$(rule veth2 all packets)" 0
	(($(st veth1 chain count pass packets) >= 10))
	# The rules count again afterwards.
	run -0 ping4 3 198.18.1.9 -q
	assert_equal "$(rule veth1 198.18.1.9/32 packets)" 3
}

# watch_one OBJECT KEY ITEM: "stats watch -j dev veth1 OBJECT count 2",
# bounded by count and by timeout, prints two lines of OBJECT's counters
# only, and with traffic flowing the second has ITEM's KEY moving; the
# table of "stats watch OBJECT" (every device) has rows of OBJECT only.
watch_one() {
	in_h1 ping -c 60 -i 0.02 -W 1 -q 198.18.1.9 >/dev/null &
	BG_PIDS+=($!)
	run -0 --separate-stderr timeout 20 xfwd -n "$XF_NS_R1" -j stats watch dev veth1 "$1" interval 0.5 count 2
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 2
	jq -e --arg o "$1" '.interval == 1 and ([.counters[].object] | unique == [$o])' <<<"${lines[0]}"
	jq -e --arg o "$1" --arg k "$2" --arg i "$3" '.interval == 2 and
		([.counters[].object] | unique == [$o]) and .route == [] and
		([.counters[] | select(.item == $i and .key == $k) | .pps] | .[0] > 20)' <<<"${lines[1]}"
	in_h1 ping -c 30 -i 0.02 -W 1 -q 198.18.1.9 >/dev/null &
	BG_PIDS+=($!)
	run -0 timeout 20 xfwd -n "$XF_NS_R1" stats watch "$1" interval 0.2 count 2
	assert_output --partial "interval: 2"
	# Rows "DEV IFINDEX OBJECT ...": of that object only.
	assert_equal "$(awk 'NF >= 5 && $2 ~ /^[0-9]+$/ { print $3 }' <<<"$output" | sort -u)" "$1"
}

@test "stats watch dev veth1 chain and redirect count 2: that object's rates only, two intervals, exit 0" {
	stats_objects
	watch_one chain pass count
	watch_one redirect matched "$R9"
}

# --- make demo -----------------------------------------------------------------

@test "make demo (scripts/demo): exit 0, traffic forwarded and explained, no namespace left" {
	local ns n out json
	run -0 --separate-stderr timeout 120 "$XF_TOP/scripts/demo"
	out=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$output")
	ns=$(sed -n 's/^namespaces: //p' <<<"$out")
	[[ $ns =~ ^xfdemo[0-9]+-h1\ xfdemo[0-9]+-r1\ xfdemo[0-9]+-h2$ ]] || fail "namespaces: \"$ns\""
	for n in $ns; do
		[[ ! -e /run/netns/$n ]] || fail "left behind: namespace $n"
	done
	assert_equal "$(grep -c '^5 packets transmitted, 5 received, 0% packet loss' <<<"$out")" 2
	assert_equal "$(grep -c 'Time to live exceeded' <<<"$out")" 2
	assert_equal "$(grep -c '^\$ build/xfwd -n xfdemo[0-9]*-r1 route attach dev veth1 dev veth2$' <<<"$out")" 1
	# route get: forwarded, the ttl pass and an unroutable address.
	assert_equal "$(grep -E '^reason: +' <<<"$out" | awk '{ print $2 }' | paste -sd ' ')" \
		"forwarded ttl not_forwarded"
	# The pretty JSON of veth1: the 10 echo requests of both families,
	# forwarded but for the first of a family that met no neighbour and
	# those passed for the neighbours' upkeep (the first to each, then
	# one each half second).
	json=$(sed -n '/^{$/,/^}$/p' <<<"$out")
	jq -e '.interfaces[0] | .forwarded >= 4 and .forwarded + ([.pass_reasons[] |
		select(.reason == "no_neigh" or .reason == "neigh_upkeep") | .packets] | add // 0) == 10' \
		<<<"$json" || fail "veth1: $json"
	[[ $out == *$'\n'"demo done; removing the namespaces" ]] || fail "no end line: ${out: -200}"
}

# --- help, man and completion of save, restore and gc --------------------------

@test "save, restore and gc: help after the command prints their usage on stdout, exit 0" {
	local cmd
	for cmd in save restore gc; do
		run -0 --separate-stderr xfwd "$cmd" help
		assert_equal "$stderr" ""
		assert_regex "${lines[0]}" "^Usage: xfwd $cmd( |\$)"
		assert_equal "${lines[-1]}" "       xfwd $cmd help"
		# And they are in the top-level help.
		run -0 xfwd help
		assert_regex "$output" $'\n'"       xfwd \\[ OPTIONS \\] $cmd( |"$'\n'")"
		assert_regex "$output" $'\n'"       $cmd +[a-z]"
	done
	run -0 xfwd save help
	assert_equal "${lines[0]}" "Usage: xfwd save [ file FILE ] [ keep DIR ]"
	run -0 xfwd restore help
	assert_equal "${lines[0]}" "Usage: xfwd restore [ file { FILE | - } ] [ check ]"
	run -0 xfwd gc help
	assert_equal "${lines[0]}" "Usage: xfwd gc"
}

@test "save, restore and gc: the man pages have their synopsis and a section each" {
	local page=$XF_TOP/man/man8/xfwd.8.in save=$XF_TOP/man/man8/xfwd-save.8.in
	grep -q '^\.SS xfwd gc$' "$page"
	grep -q '^\.SS xfwd save ' "$page"
	grep -q '^\.SS xfwd restore ' "$page"
	grep -q '^\.SS xfwd save$' "$save"
	grep -q '^\.SS xfwd restore$' "$save"
	grep -q '^\.BR xfwd-save (8)' "$page"
	# The synopsis of xfwd(8) names all three, as rendered.
	run -0 env MANWIDTH=200 man -l "$page"
	assert_regex "$output" 'xfwd \[ OPTIONS \] gc'$'\n'
	assert_regex "$output" 'xfwd \[ OPTIONS \] save \[ file FILE \] \[ keep DIR \]'
	assert_regex "$output" 'xfwd \[ OPTIONS \] restore \[ file \{ FILE \| - \} \] \[ check \]'
	run -0 env MANWIDTH=200 man -l "$save"
	assert_regex "$output" 'xfwd \[ -n NETNS \] save \[ file FILE \] \[ keep DIR \]'
	assert_regex "$output" 'xfwd \[ -n NETNS \] \[ -force \] restore \[ file \{ FILE \| - \} \] \[ check \]'
}
