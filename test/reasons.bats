#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Pass reasons with real frames: h1 sends hand-made frames (fixtures/
# frames.py) through r1's fast path on each hook, and the reason's counter
# on veth1 moves by exactly what was sent, while forwarded does not move.
# The topology is hostile.bats's (helpers/hostile): fixed MACs and every
# neighbour permanent, so no ARP (not_ip) crosses the link on its own.
#
# Not here, because the program cannot reach them (see the report of the
# commit that added this file): no_src_addr (bpf_fib_lookup returns it only
# with BPF_FIB_LOOKUP_SRC, which route.bpf.c never sets) and fib_error (a
# negative return: flags the kernel refuses, which only BPF_FIB_LOOKUP_MARK
# before Linux 6.10 would be, and hook tc needs tcx, 6.6; an ifindex or
# family the kernel does not know, which the program never passes).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/hostile

FRAMES_PY="$BATS_TEST_DIRNAME/fixtures/frames.py"
# Behind h2, routed by r1 with a lightweight tunnel encap (encap ip/ip6:
# tunnel metadata, which a plain veth ignores, so the kernel still
# forwards to h2).
LWT4=198.18.4.1 LWT6=2001:2:0:4::1
N=5

setup_file() {
	_need_root
	_common_setup
	hostile_topo
	PIN_DIR=$(pin_dir)
	export PIN_DIR
	ip -n "$XF_NS_R1" route add 198.18.4.0/24 encap ip id 5 dst 198.18.200.9 \
		via "$XF_H2_IP4" dev veth2
	ip -n "$XF_NS_R1" -6 route add 2001:2:0:4::/64 encap ip6 id 5 dst 2001:2:0:200::9 \
		via "$XF_H2_IP6" dev veth2
}

teardown_file() {
	xfwd -n "$XF_NS_R1" route detach all >/dev/null 2>&1 || true
	topo_destroy
}

setup() {
	_common_setup
}

# What detach all leaves (pins outlive the namespace, run state stays in
# /run) fails the test.
teardown() {
	xr route detach all >/dev/null 2>&1 || true
	left_behind "$PIN_DIR" "/run/xfwd/${PIN_DIR##*/}"
}

# send DST4 DST6 KIND...: N frames of each KIND from h1 to r1's veth1.
send() {
	run -0 in_h1 /usr/bin/python3 "$FRAMES_PY" veth0 $R1A_MAC "$XF_H1_IP4" "$1" \
		"$XF_H1_IP6" "$2" "$N" "${@:3}"
}

# moves HOOK REASON DST4 DST6 KIND...: on HOOK, N frames of each KIND move
# REASON on veth1 by exactly N times the kinds, and forwarded not at all.
# On a kernel without tcx, hook tc is refused and that is checked instead.
moves() {
	local hook=$1 reason=$2 r0 f0 kinds=$((${#@} - 4))
	if no_tcx "$hook"; then
		tcx_refused
		return
	fi
	run -0 xr route attach dev veth1 dev veth2 hook "$hook"
	r0=$(ctr veth1 "$reason")
	f0=$(ctr veth1 forwarded)
	send "${@:3}"
	# veth runs XDP in its NAPI poll, after the send returned: wait for
	# the count, then it must be exact.
	wait_until 3 ctr_ge veth1 "$reason" $((r0 + N * kinds)) || true
	assert_equal "$hook $reason $(ctr veth1 "$reason")" "$hook $reason $((r0 + N * kinds))"
	assert_equal "$hook forwarded $(ctr veth1 forwarded)" "$hook forwarded $f0"
	run -0 xr route detach all
}

@test "not_ip: frames of another Ethertype, on xdp and tc" {
	moves xdp not_ip "$XF_H2_FAR4" "$XF_H2_FAR6" notip
	moves tc not_ip "$XF_H2_FAR4" "$XF_H2_FAR6" notip
}

@test "vlan_unknown: 802.1Q and QinQ frames no VLAN device of the set has the outer tag of, on xdp and tc" {
	moves xdp vlan_unknown 198.18.3.1 2001:2:0:3::1 vlan4 vlan6 qinq4
	moves tc vlan_unknown 198.18.3.1 2001:2:0:3::1 vlan4 vlan6 qinq4
}

@test "other_host: frames for another MAC, on xdp (by MAC) and tc (by pkt_type)" {
	moves xdp other_host 198.18.3.1 2001:2:0:3::1 other4 other6
	moves tc other_host 198.18.3.1 2001:2:0:3::1 other4 other6
}

@test "lwt: a route with a tunnel encap, both families, on xdp and tc" {
	moves xdp lwt "$LWT4" "$LWT6" echo4 echo6
	moves tc lwt "$LWT4" "$LWT6" echo4 echo6
}

@test "control: the same echo frames to a plain route are forwarded, no reason moves" {
	local hook f0
	for hook in xdp tc; do
		no_tcx "$hook" && continue
		run -0 xr route attach dev veth1 dev veth2 hook "$hook"
		f0=$(ctr veth1 forwarded)
		send 198.18.3.1 2001:2:0:3::1 echo4 echo6
		wait_until 3 ctr_ge veth1 forwarded $((f0 + 2 * N)) || true
		assert_equal "$hook $(ctr veth1 forwarded)" "$hook $((f0 + 2 * N))"
		assert_equal "$hook $(ctr veth1 lwt) $(ctr veth1 other_host) $(ctr veth1 vlan)" "$hook 0 0 0"
		run -0 xr route detach all
	done
}
