#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd redirect: rules that steer one device's packets straight to another,
# with real traffic for every mode, on both tc attachment paths (tcx and
# the cls_bpf fallback XFWD_TC_MODE=clsact) and on XDP. Each test builds
# h1 -- r1 -- h2 (scripts/topo.bash) plus the namespaces it needs around r1
# (pods, a proxy, monitor ports), and takes everything down in teardown.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/redirect

setup_file() {
	_need_root
}

setup() {
	_common_setup
	topo_create
	PIN_DIR=$(pin_dir)
}

# Every rule of every device the test used goes; the pins must go with
# them: what is left is removed here and fails the test.
teardown() {
	local left=0 dev ns
	kill_bg
	for dev in "${RD_DEVS[@]}"; do
		xr redirect del dev "$dev" all >/dev/null 2>&1 || true
	done
	# The pins, and the clsact markers of cls_bpf under /run/xfwd.
	left_behind "${PIN_DIR:-}" "${PIN_DIR:+/run/xfwd/${PIN_DIR##*/}}" || left=1
	[[ -z ${TOOL_PIN:-} ]] || rm -rf "$TOOL_PIN"
	xr route detach all >/dev/null 2>&1 || true
	for ns in "${EXTRA_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	topo_destroy
	((!left))
}

# --- 1. egress and ingress ------------------------------------------------------

# egress_cable tcx|cls_bpf: catch-all rules both ways make veth1 and veth2
# one cable; h2 has an address in h1's subnet. /32 and /128 rules count the
# echo requests and replies exactly. r1's stack sees nothing at all.
egress_cable() {
	local in4 in6 n6
	tc_mode "$1"
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	ip -n "$XF_NS_H2" addr add 2001:2:0:1::9/64 dev veth0 nodad
	run -0 xr redirect add dev veth1 match 198.18.1.9/32 to veth2
	run -0 xr redirect add dev veth1 match 2001:2:0:1::9/128 to veth2 mode egress
	run -0 xr redirect add dev veth1 to veth2
	run -0 xr redirect add dev veth2 match 198.18.1.1/32 to veth1
	run -0 xr redirect add dev veth2 match 2001:2:0:1::1/128 to veth1
	run -0 xr redirect add dev veth2 to veth1
	attach_is "$ATTACH"
	in4=$(kstat "$XF_NS_R1" IpInReceives)
	in6=$(kstat "$XF_NS_R1" Ip6InReceives)
	# One ping each resolves the neighbours through the catch-alls (the
	# answers to neighbour solicitations are unicast: the /128s count them).
	run -0 ping4 1 198.18.1.9
	run -0 ping6 1 2001:2:0:1::9
	# No neighbour probes from here on: their count depends on timing,
	# and under emulation (make check-kernels) pings are slow.
	ip -n "$XF_NS_H1" neigh replace 2001:2:0:1::9 dev veth0 nud permanent \
		lladdr "$(mac "$XF_NS_H2" veth0)"
	ip -n "$XF_NS_H2" neigh replace 2001:2:0:1::1 dev veth0 nud permanent \
		lladdr "$(mac "$XF_NS_H1" veth0)"
	(($(rule veth1 all packets) >= 2))
	(($(rule veth2 all packets) >= 1))
	n6=$(rule veth2 2001:2:0:1::1/128 packets)
	run -0 ping4 10 198.18.1.9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	run -0 ping6 10 2001:2:0:1::9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(rule veth1 198.18.1.9/32 packets) $(rule veth1 198.18.1.9/32 bytes)" "11 1078"
	assert_equal "$(rule veth2 198.18.1.1/32 packets) $(rule veth2 198.18.1.1/32 bytes)" "11 1078"
	assert_equal "$(rule veth1 2001:2:0:1::9/128 packets) $(rule veth1 2001:2:0:1::9/128 bytes)" "11 1298"
	assert_equal "$(rule veth2 2001:2:0:1::1/128 packets)" $((n6 + 10))
	# r1's stack saw nothing at all.
	assert_equal "$(kstat "$XF_NS_R1" IpInReceives)" "$in4"
	assert_equal "$(kstat "$XF_NS_R1" Ip6InReceives)" "$in6"
}

# bats test_tags=guest
@test "mode egress cables veth1 and veth2: ping both families, exact counters (tcx)" {
	egress_cable tcx
}

@test "mode egress cables veth1 and veth2: ping both families, exact counters (cls_bpf)" {
	egress_cable cls_bpf
}

# ingress_inject tcx|cls_bpf: h1 and h2 address their frames to the r1
# device on the far side, which r1 drops where they come in. With mode
# ingress each frame arrives on the far device as if received there, and
# r1's stack forwards it.
ingress_inject() {
	local fwd
	tc_mode "$1"
	ip -n "$XF_NS_H1" neigh replace "$XF_R1_IP4A" lladdr "$(mac "$XF_NS_R1" veth2)" \
		dev veth0 nud permanent
	ip -n "$XF_NS_H2" neigh replace "$XF_R1_IP4B" lladdr "$(mac "$XF_NS_R1" veth1)" \
		dev veth0 nud permanent
	run -1 ping4 2 "$XF_H2_IP4" -q
	assert_output --partial "2 packets transmitted, 0 received"
	run -0 xr redirect add dev veth1 match "$XF_H2_IP4/32" to veth2 mode ingress
	run -0 xr redirect add dev veth2 match "$XF_H1_IP4/32" to veth1 mode ingress
	attach_is "$ATTACH"
	fwd=$(kstat "$XF_NS_R1" IpForwDatagrams)
	run -0 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(rule veth1 "$XF_H2_IP4/32" packets) $(rule veth1 "$XF_H2_IP4/32" bytes)" "10 980"
	assert_equal "$(rule veth2 "$XF_H1_IP4/32" packets) $(rule veth2 "$XF_H1_IP4/32" bytes)" "10 980"
	assert_equal "$(rule veth1 "$XF_H2_IP4/32" mode)" ingress
	assert_equal "$(kstat "$XF_NS_R1" IpForwDatagrams)" $((fwd + 20))
}

@test "mode ingress delivers into the other veth's receive path (tcx)" {
	ingress_inject tcx
}

@test "mode ingress delivers into the other veth's receive path (cls_bpf)" {
	ingress_inject cls_bpf
}

# --- 2. peer ---------------------------------------------------------------------

# peer_into_pod tcx|cls_bpf: h1 <-> a container behind r1's vc, with mode
# peer both ways: delivered in the container, and r1's stack never sees a
# packet (its IPv4 input and IPv6 forwarding counters stay flat).
peer_into_pod() {
	local in4 fwd6 echo4 echo6
	tc_mode "$1"
	pod ctr vc 4
	# Neighbours are resolved through the kernel first: mode peer skips it.
	run -0 ping4 1 198.18.4.1
	run -0 ping6 1 2001:2:0:4::1
	run -0 xr redirect add dev veth1 match 198.18.4.1/32 to vc mode peer
	run -0 xr redirect add dev veth1 match 2001:2:0:4::1/128 to vc mode peer
	run -0 xr redirect add dev vc match "$XF_H1_IP4/32" to veth1 mode peer
	run -0 xr redirect add dev vc match "$XF_H1_IP6/128" to veth1 mode peer
	attach_is "$ATTACH"
	in4=$(kstat "$XF_NS_R1" IpInReceives)
	fwd6=$(kstat "$XF_NS_R1" Ip6OutForwDatagrams)
	echo4=$(kstat "$XF_NS_PREFIX-ctr" IcmpInEchos)
	echo6=$(kstat "$XF_NS_PREFIX-ctr" Icmp6InEchos)
	run -0 ping4 10 198.18.4.1 -q
	assert_output --partial "10 packets transmitted, 10 received"
	run -0 ping6 10 2001:2:0:4::1 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(kstat "$XF_NS_PREFIX-ctr" IcmpInEchos)" $((echo4 + 10))
	assert_equal "$(kstat "$XF_NS_PREFIX-ctr" Icmp6InEchos)" $((echo6 + 10))
	assert_equal "$(rule veth1 198.18.4.1/32 packets)" 10
	assert_equal "$(rule veth1 2001:2:0:4::1/128 packets)" 10
	assert_equal "$(rule vc "$XF_H1_IP4/32" packets)" 10
	assert_equal "$(rule vc "$XF_H1_IP6/128" packets)" 10
	assert_equal "$(kstat "$XF_NS_R1" IpInReceives)" "$in4"
	assert_equal "$(kstat "$XF_NS_R1" Ip6OutForwDatagrams)" "$fwd6"
}

# bats test_tags=guest
@test "mode peer delivers into a container namespace, past r1's stack (tcx)" {
	peer_into_pod tcx
}

@test "mode peer delivers into a container namespace, past r1's stack (cls_bpf)" {
	peer_into_pod cls_bpf
}

# --- 3. seed 002: a proxy injects into a pod's datapath ---------------------------

# proxy_inject tcx|cls_bpf: a proxy sends with the pod's address (as it
# would with IP_TRANSPARENT) and addresses its frames to the pod's host-side
# device lxpod, which r1 drops where they come in (lxprx). The pod's egress
# datapath is a counter on lxpod's tc ingress, where the host sees what the
# pod sends (HOST), and one on the pod's own eth0 egress (POD). With mode
# ingress, the seed's baseline, HOST counts every injected packet, r1
# forwards them to h2, and h2's replies reach the pod. Mode peer-egress
# (out of the pod's own egress, through POD too) needs BPF_F_EGRESS: where
# the kernel lacks it, it is refused with the reason and nothing changes.
proxy_inject() {
	local host pod echo reps h0 p0 rd=(redirect add dev lxprx match "$XF_H2_IP4/32" to lxpod)
	tc_mode "$1"
	pod pod lxpod 4
	pod prx lxprx 5
	ip -n "$XF_NS_PREFIX-prx" addr add 198.18.4.1/32 dev lo
	ip -n "$XF_NS_PREFIX-prx" neigh replace 198.18.5.254 lladdr "$(mac "$XF_NS_R1" lxpod)" \
		dev eth0 nud permanent
	tc_count "$XF_NS_R1" lxpod ingress
	host=$MAP
	tc_count "$XF_NS_PREFIX-pod" eth0 egress
	pod=$MAP
	echo=$(kstat "$XF_NS_H2" IcmpInEchos)
	# Without a rule the proxy's frames go nowhere.
	run -1 ping_ns prx 3 "$XF_H2_IP4" -I 198.18.4.1
	assert_equal "$(count "$host") $(count "$pod")" "0 0"
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$echo"

	if ! kernel_lacks peer_egress; then
		run -0 xr "${rd[@]}" mode peer-egress
		# The replies go to the pod, not to the proxy.
		run -1 ping_ns prx 10 "$XF_H2_IP4" -I 198.18.4.1
		assert_equal "$(count "$host") $(count "$pod")" "10 10"
		assert_equal "$(rule lxprx "$XF_H2_IP4/32" packets)" 10
		run -0 xr redirect del dev lxprx all
	else
		run -1 --separate-stderr xr "${rd[@]}" mode peer-egress
		assert_output ""
		[[ $stderr == "Error: mode peer-egress needs BPF_F_EGRESS for bpf_redirect_peer(), and "*"; use mode ingress." ]]
		assert_equal "$(wc -l <<<"$stderr")" 1
		run -0 xr -j redirect show
		assert_output '{"rules":[]}'
		run -0 no_state lxprx
	fi
	echo=$(kstat "$XF_NS_H2" IcmpInEchos)
	reps=$(kstat "$XF_NS_PREFIX-pod" IcmpInEchoReps)
	h0=$(count "$host") p0=$(count "$pod")

	run -0 xr "${rd[@]}" mode ingress
	attach_is "$ATTACH"
	run -1 ping_ns prx 10 "$XF_H2_IP4" -I 198.18.4.1
	assert_output --partial "10 packets transmitted, 0 received"
	assert_equal "$(count "$host")" $((h0 + 10))
	assert_equal "$(count "$pod")" "$p0"
	assert_equal "$(rule lxprx "$XF_H2_IP4/32" packets)" 10
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" $((echo + 10))
	assert_equal "$(kstat "$XF_NS_PREFIX-pod" IcmpInEchoReps)" $((reps + 10))
}

# bats test_tags=guest
@test "seed 002: proxy traffic injected into a pod's datapath; peer-egress refused without the flag (tcx)" {
	proxy_inject tcx
}

@test "seed 002: proxy traffic injected into a pod's datapath; peer-egress refused without the flag (cls_bpf)" {
	proxy_inject cls_bpf
}

# --- 4. neigh ----------------------------------------------------------------------

# neigh_resolve tcx|cls_bpf: with every neighbour table flushed, mode neigh
# (IPv4 through the route, IPv6 through an explicit via) resolves h1 and
# h2 itself and delivers every packet, without r1's forwarding.
neigh_resolve() {
	local fwd4 fwd6 ns
	tc_mode "$1"
	run -0 xr redirect add dev veth1 match "$XF_H2_IP4/32" to veth2 mode neigh
	run -0 xr redirect add dev veth2 match "$XF_H1_IP4/32" to veth1 mode neigh
	run -0 xr redirect add dev veth1 match "$XF_H2_IP6/128" to veth2 mode neigh via "$XF_H2_IP6"
	run -0 xr redirect add dev veth2 match "$XF_H1_IP6/128" to veth1 mode neigh via "$XF_H1_IP6"
	attach_is "$ATTACH"
	assert_equal "$(rule veth1 "$XF_H2_IP6/128" via)" "$XF_H2_IP6"
	for ns in "$XF_NS_H1" "$XF_NS_R1" "$XF_NS_H2"; do
		ip -n "$ns" neigh flush all
		ip -n "$ns" -6 neigh flush all
	done
	run -0 ip -n "$XF_NS_R1" neigh show "$XF_H2_IP4"
	assert_output ""
	run -0 ip -n "$XF_NS_R1" -6 neigh show "$XF_H1_IP6"
	assert_output ""
	fwd4=$(kstat "$XF_NS_R1" IpForwDatagrams)
	fwd6=$(kstat "$XF_NS_R1" Ip6OutForwDatagrams)
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	run -0 ping6 5 "$XF_H2_IP6" -q
	assert_output --partial "5 packets transmitted, 5 received"
	run -0 ip -n "$XF_NS_R1" neigh show "$XF_H2_IP4" dev veth2
	assert_output --partial "lladdr $(mac "$XF_NS_H2" veth0)"
	run -0 ip -n "$XF_NS_R1" neigh show "$XF_H1_IP4" dev veth1
	assert_output --partial "lladdr $(mac "$XF_NS_H1" veth0)"
	run -0 ip -n "$XF_NS_R1" -6 neigh show "$XF_H2_IP6" dev veth2
	assert_output --partial "lladdr $(mac "$XF_NS_H2" veth0)"
	assert_equal "$(rule veth1 "$XF_H2_IP4/32" packets)" 5
	assert_equal "$(rule veth2 "$XF_H1_IP4/32" packets)" 5
	assert_equal "$(rule veth1 "$XF_H2_IP6/128" packets)" 5
	assert_equal "$(rule veth2 "$XF_H1_IP6/128" packets)" 5
	assert_equal "$(kstat "$XF_NS_R1" IpForwDatagrams)" "$fwd4"
	assert_equal "$(kstat "$XF_NS_R1" Ip6OutForwDatagrams)" "$fwd6"
}

@test "mode neigh resolves flushed neighbours and delivers, both families (tcx)" {
	neigh_resolve tcx
}

@test "mode neigh resolves flushed neighbours and delivers, both families (cls_bpf)" {
	neigh_resolve cls_bpf
}

# --- 5. mirror -----------------------------------------------------------------------

# mirror_copy tcx|cls_bpf: copies of h1's echo requests to h2 from veth1's
# ingress (as h1 sent them) and from veth2's egress (as r1 forwards them)
# arrive on a monitor port, byte for byte, while the originals reach h2.
mirror_copy() {
	local n=5 dir=$BATS_TEST_TMPDIR echo pid
	tc_mode "$1"
	monitor mon mon0
	run -0 xr redirect add dev veth1 match "$XF_H2_IP4/32" to mon0 mode mirror
	run -0 xr redirect add dev veth2 egress match "$XF_H2_IP4/32" to mon0 mode mirror
	attach_is "$ATTACH"
	run -0 ping4 1 "$XF_H2_IP4"	# neighbours, and one copy each
	echo=$(kstat "$XF_NS_H2" IcmpInEchos)
	capture mon eth0 $((2 * n)) "$dir/mon"
	capture h2 veth0 $n "$dir/h2"
	in_h1 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/mirror.py" send veth0 \
		"$(mac "$XF_NS_R1" veth1)" "$XF_H1_IP4" "$XF_H2_IP4" $n "$dir/sent"
	for pid in "${BG_PIDS[@]}"; do
		wait "$pid"
	done
	BG_PIDS=()
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" $((echo + n))
	# TTL 64: the ingress copies; 63: the egress copies, after r1.
	run -0 grep -c . "$dir/mon"
	assert_output $((2 * n))
	assert_equal "$(awk 'substr($0, 45, 2) == "40"' "$dir/mon")" "$(cat "$dir/sent")"
	assert_equal "$(awk 'substr($0, 45, 2) == "3f"' "$dir/mon")" "$(cat "$dir/h2")"
	assert_equal "$(rule veth1 "$XF_H2_IP4/32" packets)" $((n + 1))
	assert_equal "$(rule veth2 egress "$XF_H2_IP4/32" packets)" $((n + 1))
	assert_equal "$(rx mon eth0)" $((2 * (n + 1)))
}

@test "mode mirror: a byte-for-byte copy on the monitor port, the original delivered (tcx)" {
	mirror_copy tcx
}

@test "mode mirror: a byte-for-byte copy on the monitor port, the original delivered (cls_bpf)" {
	mirror_copy cls_bpf
}

# --- 6. rules --------------------------------------------------------------------------

# lpm_rules tcx|cls_bpf: on veth1, a /32 (mode neigh to h2) inside a /24
# (to the sink snk0) and a catch-all (a mirror to mon0: the rest goes on
# to r1's stack). h1 -- r1 is quiet but for the test's pings: permanent
# neighbours, no IPv6 on h1. Then the /24 comes and goes while h1 pings
# 198.18.2.9 every 10 ms: each ping is either eaten by it or delivered.
lpm_rules() {
	local echo lost got sent progs snk mon out=$BATS_TEST_TMPDIR/ping.out
	# Long enough for the add and del below, however slow they are.
	sent=$(vm_slow 300)
	tc_mode "$1"
	monitor snk snk0
	monitor mon mon0
	far_prefix
	ip -n "$XF_NS_H2" addr add 198.18.2.9/24 dev veth0
	in_h1 sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1
	ip -n "$XF_NS_H1" neigh replace "$XF_R1_IP4A" lladdr "$(mac "$XF_NS_R1" veth1)" \
		dev veth0 nud permanent
	ip -n "$XF_NS_R1" neigh replace "$XF_H1_IP4" lladdr "$(mac "$XF_NS_H1" veth0)" \
		dev veth1 nud permanent
	run -0 xr redirect add dev veth1 to mon0 mode mirror
	run -0 xr redirect add dev veth1 match 198.18.2.7/24 to snk0
	run -0 xr redirect add dev veth1 match "$XF_H2_IP4/32" to veth2 mode neigh
	attach_is "$ATTACH"
	# The host bits of 198.18.2.7/24 are not part of the rule.
	assert_equal "$(rule veth1 198.18.2.0/24 to)" snk0

	# The most specific prefix wins: the /32 delivers.
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	# The /24 takes the rest of its prefix, away from h2.
	echo=$(kstat "$XF_NS_H2" IcmpInEchos)
	run -1 ping4 5 198.18.2.9 -q
	assert_output --partial "5 packets transmitted, 0 received"
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$echo"
	# The catch-all takes what no prefix matches; r1 forwards the original.
	run -0 ping4 5 "$XF_H2_FAR4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	assert_equal "$(rule veth1 "$XF_H2_IP4/32" packets) $(rule veth1 "$XF_H2_IP4/32" bytes)" "5 490"
	assert_equal "$(rule veth1 198.18.2.0/24 packets) $(rule veth1 198.18.2.0/24 bytes)" "5 490"
	assert_equal "$(rule veth1 all packets) $(rule veth1 all bytes)" "5 490"
	assert_equal "$(rx snk eth0) $(rx mon eth0)" "5 5"

	# Deleted, the /24 no longer applies: the catch-all has 198.18.2.9.
	run -0 xr redirect del dev veth1 match 198.18.2.0/24
	run -0 ping4 2 198.18.2.9 -q
	assert_output --partial "2 packets transmitted, 2 received"
	assert_equal "$(rule veth1 all packets)" 7

	# Mid-traffic: added, the /24 eats every ping from the next one on;
	# deleted, they get through again. Nothing is reloaded.
	progs=$(tc_progs veth1)
	snk=$(rx snk eth0)
	mon=$(rx mon eth0)
	in_h1 ping -c $sent -i 0.01 -W 1 -q 198.18.2.9 >"$out" 2>&1 3>&- &
	BG_PIDS+=($!)
	wait_until 5 rule_ge veth1 all packets 27
	run -0 xr redirect add dev veth1 match 198.18.2.0/24 to snk0
	wait_until 5 rule_ge veth1 198.18.2.0/24 packets 1
	echo=$(kstat "$XF_NS_H2" IcmpInEchos)
	wait_until 5 rule_ge veth1 198.18.2.0/24 packets 20
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$echo"
	run -0 xr redirect del dev veth1 match 198.18.2.0/24
	wait_until 5 kstat_ge "$XF_NS_H2" IcmpInEchos $((echo + 20))
	wait "${BG_PIDS[0]}" || true
	BG_PIDS=()
	got=$(sed -n "s/^$sent packets transmitted, \([0-9]*\) received.*/\1/p" "$out")
	[[ -n $got ]] || fail "$(cat "$out")"
	lost=$((sent - got))
	((lost >= 20 && got >= 40))
	# Exact: every ping the /24 did not eat went through the catch-all.
	assert_equal "$(rx snk eth0)" $((snk + lost))
	assert_equal "$(rule veth1 all packets)" $((7 + got))
	assert_equal "$(rx mon eth0)" $((mon + got))
	assert_equal "$(tc_progs veth1)" "$progs"
}

@test "rules: longest prefix wins, catch-all takes the rest, add/del mid-traffic, exact counters (tcx)" {
	lpm_rules tcx
}

@test "rules: longest prefix wins, catch-all takes the rest, add/del mid-traffic, exact counters (cls_bpf)" {
	lpm_rules cls_bpf
}

@test "rules: IPv6 prefixes, longest wins, and IPv4 rules do not catch IPv6" {
	monitor snk snk0
	ip -n "$XF_NS_H2" addr add 2001:2:0:2::9/64 dev veth0 nodad
	run -0 xr redirect add dev veth1 match 2001:2:0:2::/64 to snk0
	run -0 xr redirect add dev veth1 match "$XF_H2_IP6/128" to veth2 mode neigh
	run -0 xr redirect add dev veth1 match 198.18.0.0/15 to snk0
	run -0 ping6 5 "$XF_H2_IP6" -q
	assert_output --partial "5 packets transmitted, 5 received"
	run -1 ping6 5 2001:2:0:2::9 -q
	assert_output --partial "5 packets transmitted, 0 received"
	assert_equal "$(rule veth1 "$XF_H2_IP6/128" packets) $(rule veth1 "$XF_H2_IP6/128" bytes)" "5 590"
	assert_equal "$(rule veth1 2001:2:0:2::/64 packets)" 5
	assert_equal "$(rule veth1 198.18.0.0/15 packets)" 0
	# ... and IPv6 rules do not catch IPv4.
	run -1 ping4 2 "$XF_H2_IP4" -q
	assert_equal "$(rule veth1 198.18.0.0/15 packets)" 2
	assert_equal "$(rule veth1 2001:2:0:2::/64 packets)" 5
}

# --- 7. the two tc attachment paths -------------------------------------------------------

@test "cls_bpf: the clsact qdisc xfwd made goes with its last rule, one that was there stays" {
	export XFWD_TC_MODE=clsact
	in_r1 tc qdisc add dev veth2 clsact
	run -0 --separate-stderr xr redirect add dev veth1 match 198.18.9.0/24 to veth2
	run -0 --separate-stderr xr redirect add dev veth1 egress match 198.18.9.0/24 to veth2
	assert_equal "$stderr" ""
	run -0 --separate-stderr xr redirect add dev veth2 match 198.18.9.0/24 to veth1
	assert_equal "$stderr" ""
	attach_is cls_bpf
	run -0 in_r1 tc qdisc show dev veth1
	assert_output --partial "qdisc clsact"
	# One direction goes: the other's filter keeps the qdisc.
	run -0 xr redirect del dev veth1 ingress all
	run -0 in_r1 tc qdisc show dev veth1
	assert_output --partial "qdisc clsact"
	run -0 in_r1 tc filter show dev veth1 egress
	assert_output --partial "xf_rd_egress"
	attach_is cls_bpf
	run -0 xr redirect del dev veth1 egress match 198.18.9.0/24
	run -0 in_r1 tc qdisc show dev veth1
	refute_output --partial "clsact"
	run -0 xr redirect del dev veth2 all
	run -0 in_r1 tc qdisc show dev veth2
	assert_output --partial "qdisc clsact"
	run -0 in_r1 tc filter show dev veth2 ingress
	assert_output ""
	[[ ! -e $PIN_DIR ]]
}

@test "tcx: a foreign tcx program coexists, show names it, del leaves it" {
	local id map
	if kernel_lacks tcx; then
		# No tcx to share: the rules go on cls_bpf by themselves.
		run -0 --separate-stderr xr redirect add dev veth1 to veth2
		assert_equal "$stderr" ""
		attach_is cls_bpf
		return
	fi
	TOOL_PIN=/sys/fs/bpf/xfwd-test-$BATS_ROOT_PID-$BATS_TEST_NUMBER
	[[ -e $XF_TOP/build/test/progs/tc_count.bpf.o ]] || fail "make check builds test/progs"
	bpffs_ready
	bpftool prog loadall "$XF_TOP/build/test/progs/tc_count.bpf.o" "$TOOL_PIN"
	# nsenter, not "ip netns exec": the pin must stay in sight.
	nsenter --net="/run/netns/$XF_NS_R1" bpftool net attach tcx_ingress \
		pinned "$TOOL_PIN/xf_tc_count" dev veth1
	id=$(bpftool -j prog show pinned "$TOOL_PIN/xf_tc_count" | jq -er .id)
	map=$(bpftool -j prog show id "$id" | jq -er '.map_ids[0]')
	rm -rf "$TOOL_PIN"
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	run -0 xr redirect add dev veth1 match 198.18.1.9/32 to veth2
	run -0 xr redirect add dev veth1 to veth2
	run -0 xr redirect add dev veth2 to veth1
	run -0 ping4 5 198.18.1.9 -q
	assert_output --partial "5 packets transmitted, 5 received"
	# Both ran: the foreign program first (it was there first), then xfwd's.
	assert_equal "$(count "$map")" 5
	assert_equal "$(rule veth1 198.18.1.9/32 packets)" 5
	assert_equal "$(rule veth1 198.18.1.9/32 foreign)" "$id xf_tc_count"
	assert_equal "$(rule veth1 all foreign)" "$id xf_tc_count"
	run -0 xr -j redirect show dev veth2
	run -0 jq -e '.rules[0] | has("foreign") | not' <<<"$output"
	run -0 xr redirect del dev veth1 all
	run -0 tc_progs veth1
	assert_output "$id"
}

# --- 8. XDP ---------------------------------------------------------------------------

# xdp_refused: on a kernel that does not report XDP features (6.1), hook
# xdp cannot tell whether a target takes XDP frames: refused with the
# reason, nothing changes.
xdp_refused() {
	run -1 --separate-stderr xr redirect add dev veth1 to veth2 hook xdp
	assert_output ""
	assert_equal "$stderr" "Error: hook xdp needs the kernel to report XDP features (Linux 6.3) to tell whether veth2 takes XDP frames; this kernel does not."
	run -0 no_state veth1 veth2
	run -0 xr -j redirect show
	assert_output '{"rules":[]}'
}

@test "hook xdp: mode egress cables veth1 and veth2 through a device map" {
	local in4
	if kernel_lacks xdp_features; then
		xdp_refused
		return
	fi
	# The targets' peers need GRO to take XDP frames (environment.md).
	in_h1 ethtool -K veth0 gro on >/dev/null
	in_h2 ethtool -K veth0 gro on >/dev/null
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	run -0 xr redirect add dev veth1 match 198.18.1.9/32 to veth2 hook xdp
	run -0 xr redirect add dev veth1 to veth2 hook xdp
	run -0 xr redirect add dev veth2 to veth1 hook xdp
	attach_is xdp
	run -0 ip -n "$XF_NS_R1" -d link show dev veth1
	assert_output --partial "prog/xdp"
	run -0 tc_progs veth1
	assert_output ""
	in4=$(kstat "$XF_NS_R1" IpInReceives)
	run -0 ping4 10 198.18.1.9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(rule veth1 198.18.1.9/32 packets) $(rule veth1 198.18.1.9/32 bytes)" "10 980"
	# The replies and ARP both ways.
	(($(rule veth2 all packets) >= 11))
	assert_equal "$(kstat "$XF_NS_R1" IpInReceives)" "$in4"
	run -0 xr redirect del dev veth1 all
	run -0 xr redirect del dev veth2 all
	run -0 no_state veth1 veth2
}

# bats test_tags=guest
@test "hook xdp: a target that cannot take XDP frames is refused, nothing changes" {
	if kernel_lacks xdp_features; then
		xdp_refused
		return
	fi
	run -1 --separate-stderr xr redirect add dev veth1 to veth2 hook xdp
	assert_output ""
	assert_equal "$stderr" "Error: veth2 cannot take XDP frames now (no ndo_xmit: its peer needs an XDP program or GRO); the kernel would drop them."
	run -0 no_state veth1 veth2
	run -0 xr -j redirect show
	assert_output '{"rules":[]}'
	# Nor is a device without XDP transmit at all (a bridge).
	ip -n "$XF_NS_R1" link add rdbr0 type bridge
	run -1 --separate-stderr xr redirect add dev veth1 to rdbr0 hook xdp
	assert_equal "$stderr" "Error: rdbr0 cannot take XDP frames now (no ndo_xmit); the kernel would drop them."
	run -0 no_state veth1
	# With GRO on h2's end, veth2 can.
	in_h2 ethtool -K veth0 gro on >/dev/null
	run -0 xr redirect add dev veth1 to veth2 hook xdp
}

# --- 9. bad input -----------------------------------------------------------------------

# state: everything a refused command must leave as it was.
state() {
	local dev
	xr -j redirect show
	for dev in veth1 veth2; do
		ip -n "$XF_NS_R1" -d link show dev "$dev"
		in_r1 tc qdisc show dev "$dev"
		in_r1 bpftool net show dev "$dev"
	done
	find "$PIN_DIR" | sort
}

# refused EXIT MESSAGE ARGS...: "xfwd redirect ARGS" exits EXIT with the one
# line MESSAGE on stderr, nothing on stdout, and changes nothing.
refused() {
	local code=$1 msg=$2
	shift 2
	run "-$code" --separate-stderr xr redirect "$@"
	assert_output ""
	assert_equal "$stderr" "$msg"
	assert_equal "$(state)" "$BEFORE"
}

@test "bad input is refused with the reason, and nothing changes" {
	ip -n "$XF_NS_R1" link add rdbr0 type bridge
	in_h2 ethtool -K veth0 gro on >/dev/null
	run -0 xr redirect add dev veth1 match 198.18.2.0/24 to veth2 mode neigh
	run -0 ping4 2 "$XF_H2_IP4" -q
	BEFORE=$(state)
	refused 1 'Error: target device "nosuch0" does not exist.' \
		add dev veth1 to nosuch0
	refused 1 'Error: device "nosuch0" does not exist.' \
		add dev nosuch0 to veth2
	refused 2 'Error: mode peer needs a veth or netkit target; lo is not one.' \
		add dev veth1 to lo mode peer
	refused 2 'Error: mode peer needs a veth or netkit target; rdbr0 is bridge.' \
		add dev veth1 to rdbr0 mode peer
	refused 2 'Error: mode peer-egress needs a veth or netkit target; rdbr0 is bridge.' \
		add dev veth1 to rdbr0 mode peer-egress
	refused 2 'Error: mode peer works only on ingress.' \
		add dev veth1 egress to veth2 mode peer
	refused 2 'Error: mode mirror is for hook tc; XDP redirects only out of a device (mode egress).' \
		add dev veth2 to veth1 mode mirror hook xdp
	refused 2 'Error: mode peer is for hook tc; XDP redirects only out of a device (mode egress).' \
		add dev veth2 to veth1 mode peer hook xdp
	refused 2 'Error: mode ingress is for hook tc; XDP redirects only out of a device (mode egress).' \
		add dev veth2 to veth1 mode ingress hook xdp
	refused 2 'Error: hook xdp sees only ingress.' \
		add dev veth2 egress to veth1 hook xdp
	if kernel_lacks xdp_features; then
		refused 1 'Error: hook xdp needs the kernel to report XDP features (Linux 6.3) to tell whether veth2 takes XDP frames; this kernel does not.' \
			add dev veth1 match 198.18.3.0/24 to veth2 hook xdp
	else
		refused 2 'Error: veth1 ingress has rules on hook tc; delete them to change hook.' \
			add dev veth1 match 198.18.3.0/24 to veth2 hook xdp
	fi
	refused 2 'Error: veth1 ingress already has a rule for 198.18.2.0/24; delete it first.' \
		add dev veth1 match 198.18.2.0/24 to veth2
	refused 2 'Error: veth1 ingress already has a rule for 198.18.2.0/24; delete it first.' \
		add dev veth1 match 198.18.2.77/24 to rdbr0 mode mirror
	refused 2 'Error: invalid value "198.18.0.0/33" for PREFIX; try "xfwd redirect help".' \
		add dev veth1 match 198.18.0.0/33 to veth2
	refused 2 'Error: invalid value "2001:2::/129" for PREFIX; try "xfwd redirect help".' \
		add dev veth1 match 2001:2::/129 to veth2
	refused 2 'Error: invalid value "198.18.2.300/32" for PREFIX; try "xfwd redirect help".' \
		add dev veth1 match 198.18.2.300/32 to veth2
	refused 2 'Error: match ::/0 overlaps ::ffff:0:0/96, where IPv4 rules live; give IPv4 prefixes, or no match for everything.' \
		add dev veth1 match ::/0 to veth2
	refused 2 'Error: match ::ffff:198.18.2.0/120 overlaps ::ffff:0:0/96, where IPv4 rules live; give IPv4 prefixes, or no match for everything.' \
		add dev veth1 match ::ffff:198.18.2.0/120 to veth2
	refused 2 'Error: unexpected "via"; try "xfwd redirect help".' \
		add dev veth1 to veth2 mode egress via 198.18.2.1
	refused 1 'Error: veth1 ingress has no rule for 198.18.9.0/24.' \
		del dev veth1 match 198.18.9.0/24
	refused 1 'Error: veth1 egress has no rule for everything.' \
		del dev veth1 egress
	refused 1 'Error: veth2 has no redirect rules.' \
		del dev veth2 all
	# The rule that was there still works and kept its counters.
	assert_equal "$(rule veth1 198.18.2.0/24 packets)" 2
}

# --- 10. netkit ---------------------------------------------------------------------------

# netkit_pod NS N: a pod NS behind a netkit pair in l3 mode, nkh0 in r1 and
# eth0 in NS, made by xfwd's own netlink code (build/tools/netkit-pair:
# bookworm's ip cannot set the mode); 198.18.N.1 in the pod, its default
# route through nkh0's 198.18.N.254.
netkit_pod() {
	local ns=$1 n=$2
	[[ -x $XF_TOP/build/tools/netkit-pair ]] || fail "make check builds build/tools/netkit-pair"
	RD_DEVS+=(nkh0)
	run -0 "$XF_TOP/build/tools/netkit-pair" "$XF_NS_R1" nkh0 nkp0 l3
	run -0 ip -n "$XF_NS_R1" -j -d link show dev nkh0
	run -0 jq -er '.[0].linkinfo.info_data.mode // "l3"' <<<"$output"
	assert_output l3
	ip -n "$XF_NS_R1" link set nkp0 netns "$ns" name eth0
	ip -n "$XF_NS_R1" addr add "198.18.$n.254/24" dev nkh0
	ip -n "$ns" addr add "198.18.$n.1/24" dev eth0
	ip -n "$XF_NS_R1" link set nkh0 up
	ip -n "$ns" link set eth0 up
	ip -n "$ns" route add default via "198.18.$n.254"
}

# netkit_refused: on a kernel without netkit, the probe says so and xfwd's
# own netlink code is refused with the reason.
netkit_refused() {
	run -0 xfwd -j feature
	assert_equal "$(jq -r .kernel.netkit.supported <<<"$output")" false
	[[ $(jq -r .kernel.netkit.detail <<<"$output") == *EOPNOTSUPP* ]]
	run -1 --separate-stderr "$XF_TOP/build/tools/netkit-pair" "$XF_NS_R1" nkh0 nkp0 l3
	# The kernel's own reason (extended ACK), then ours.
	assert_equal "${stderr_lines[-1]}" "Error: cannot create netkit nkh0: Operation not supported."
	[[ $(grep -vc '^Error: ' <<<"$stderr") -eq 0 ]]
}

# bats test_tags=guest
@test "mode peer into a netkit pod, past r1's stack (netkit)" {
	local in4 echo fwd ns
	if kernel_lacks netkit; then
		netkit_refused
		return
	fi
	new_ns nk
	ns=$NS
	netkit_pod "$ns" 6
	run -0 ping4 1 198.18.6.1
	run -0 xr redirect add dev veth1 match 198.18.6.1/32 to nkh0 mode peer
	attach_is tcx
	in4=$(kstat "$XF_NS_R1" IpInReceives)
	fwd=$(kstat "$XF_NS_R1" IpForwDatagrams)
	echo=$(kstat "$ns" IcmpInEchos)
	run -0 ping4 10 198.18.6.1 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(kstat "$ns" IcmpInEchos)" $((echo + 10))
	assert_equal "$(rule veth1 198.18.6.1/32 packets)" 10
	# Only the replies went through r1's stack.
	assert_equal "$(kstat "$XF_NS_R1" IpInReceives)" $((in4 + 10))
	assert_equal "$(kstat "$XF_NS_R1" IpForwDatagrams)" $((fwd + 10))
}

# bats test_tags=guest
@test "route to a netkit device: h1's pings reach the pod on the fast path (netkit)" {
	local echo fwd ns
	if kernel_lacks netkit; then
		netkit_refused
		return
	fi
	new_ns nk
	ns=$NS
	netkit_pod "$ns" 6
	run -0 ping4 1 198.18.6.1
	run -0 xr route attach dev veth1 dev nkh0
	run -0 xr -j route show dev nkh0
	assert_equal "$(jq -r '.interfaces[0].hook' <<<"$output")" tc
	fwd=$(kstat "$XF_NS_R1" IpForwDatagrams)
	echo=$(kstat "$ns" IcmpInEchos)
	run -0 ping4 10 198.18.6.1 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(kstat "$ns" IcmpInEchos)" $((echo + 10))
	# The requests were forwarded by xfwd on veth1, not by r1's stack.
	assert_equal "$(ctr veth1 forwarded)" 10
	(($(kstat "$XF_NS_R1" IpForwDatagrams) <= fwd + 10))
	run -0 xr route detach all
}

# --- show, del all, usage ---------------------------------------------------------------

@test "redirect show -j: pure JSON with the documented keys; the table has them too" {
	local json if1 if2
	run -0 --separate-stderr xr -j redirect show
	assert_equal "$output" '{"rules":[]}'
	run -0 xr redirect add dev veth1 match 198.18.2.0/24 to veth2 mode neigh via "$XF_H2_IP4"
	run -0 xr redirect add dev veth2 egress match 2001:2:0:1::/64 to veth1 mode mirror
	run -0 ping4 3 "$XF_H2_IP4" -q
	run -0 xr redirect add dev veth1 to veth2
	run -0 --separate-stderr xr -j redirect show
	assert_equal "$stderr" ""
	json=$output
	# In the order of the man page; match and via only where there are.
	run -0 jq -r '[.rules[] | keys_unsorted | join(" ")] | sort | .[]' <<<"$json"
	assert_output "dev ifindex dir attach match mode to packets bytes
dev ifindex dir attach match mode to via packets bytes
dev ifindex dir attach mode to packets bytes"
	if1=$(ip -n "$XF_NS_R1" -j link show veth1 | jq .[0].ifindex)
	if2=$(ip -n "$XF_NS_R1" -j link show veth2 | jq .[0].ifindex)
	run -0 jq -r '[.rules[] | "\(.dev) \(.ifindex) \(.dir) \(.attach) \(.match) \(.mode) \(.to) \(.via)"] | sort | .[]' <<<"$json"
	assert_output "veth1 $if1 ingress $TC_AUTO 198.18.2.0/24 neigh veth2 $XF_H2_IP4
veth1 $if1 ingress $TC_AUTO null egress veth2 null
veth2 $if2 egress $TC_AUTO 2001:2:0:1::/64 mirror veth1 null"
	run -0 jq -e '[.rules[] | .packets, .bytes | numbers] | length == 6' <<<"$json"
	assert_equal "$(rule veth1 198.18.2.0/24 packets) $(rule veth1 198.18.2.0/24 bytes)" "3 294"
	run -0 xr -j redirect show dev veth2
	run -0 jq -r '[.rules[].dev] | join(" ")' <<<"$output"
	assert_output veth2
	run -0 xr redirect show
	assert_line --index 0 --regexp '^DEV +IFINDEX +DIR +ATTACH +MATCH +MODE +TO +VIA +PACKETS +BYTES$'
	assert_line --regexp "^veth1 +[0-9]+ +ingress +$TC_AUTO +all +egress +veth2 +- +[0-9]+ +[0-9]+\$"
	assert_line --regexp '^veth1 +[0-9]+ +ingress +'"$TC_AUTO"' +198\.18\.2\.0/24 +neigh +veth2 +198\.18\.2\.1 +3 +294$'
	run -1 --separate-stderr xr redirect show dev nosuch0
	assert_equal "$stderr" 'Error: device "nosuch0" does not exist.'
}

@test "del all takes every rule, program, qdisc and pin away, on every path" {
	local dev
	if kernel_lacks xdp_features; then
		xdp_refused
		return
	fi
	in_h2 ethtool -K veth0 gro on >/dev/null
	monitor mon mon0
	run -0 xr redirect add dev veth1 to veth2 hook xdp
	run -0 xr redirect add dev veth1 egress to mon0 mode mirror
	XFWD_TC_MODE=clsact run -0 xr redirect add dev veth2 to veth1
	XFWD_TC_MODE=clsact run -0 xr redirect add dev veth2 egress match 198.18.1.0/24 to mon0 mode mirror
	run -0 xr redirect add dev mon0 match 2001:2::/48 to veth2 mode ingress
	run -0 xr -j redirect show
	run -0 jq -r '[.rules[] | "\(.dev) \(.dir) \(.attach)"] | sort | .[]' <<<"$output"
	assert_output "mon0 ingress $TC_AUTO
veth1 egress $TC_AUTO
veth1 ingress xdp
veth2 egress cls_bpf
veth2 ingress cls_bpf"
	[[ -d $PIN_DIR/redirect ]]
	for dev in veth1 veth2 mon0; do
		run -0 xr redirect del dev "$dev" all
	done
	run -0 no_state veth1 veth2 mon0
	run -0 xr -j redirect show
	assert_output '{"rules":[]}'
	# And again from nothing.
	run -0 xr redirect add dev veth1 to veth2
	run -0 xr redirect del dev veth1 all
	run -0 no_state veth1
}

# Each usage error: exit 2, nothing on stdout, exactly one Error: line.
usage_error() {
	run -2 --separate-stderr xr redirect "$@"
	assert_equal "$output" ""
	assert_equal "$(grep -c '^Error: ' <<<"$stderr")" 1
	assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "redirect usage errors exit 2 with one Error line" {
	usage_error add dev veth1
	usage_error add to veth2
	usage_error add dev veth1 to veth2 mode bogus
	usage_error add dev veth1 to veth2 hook bogus
	usage_error add dev veth1 to veth2 to veth1
	usage_error add dev veth1 dev veth2 to veth1
	usage_error add dev veth1 ingress egress to veth2
	usage_error add dev veth1 match 198.18.1.0/24 match 198.18.2.0/24 to veth2
	usage_error add dev veth1 match to veth2
	usage_error add dev veth1 to veth2 mode neigh via 198.18.2
	usage_error add dev veth1 to veth2 mode
	usage_error add dev veth1 to veth2 sideways
	usage_error del
	usage_error del dev veth1 all match 198.18.1.0/24
	usage_error del dev veth1 match 198.18.1.0/24 all
	usage_error del dev veth1 match bogus
	usage_error show bogus
	usage_error show dev
	run -0 no_state veth1 veth2
}
