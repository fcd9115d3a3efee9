#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route with a tunnel as a member (issue 45): r1 reaches h2 through a
# tunnel over their veth pair, tn0 at both ends (198.18.3.0/24,
# 2001:2:0:3::/64), and h2 routes h1's prefixes back into it, so that both
# directions cross the tunnel. An Ethernet tunnel (VXLAN, gretap) is a
# member on hook tc; a layer 3 one (GRE, ipip) is refused. This machine's
# kernel has VXLAN but no GRE or ipip: the guests test those (test/vm/run
# loads vxlan, ip_gre and ipip).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

setup_file() {
	_need_root
}

setup() {
	route_setup
}

teardown() {
	route_teardown
}

TN_R1_IP4=198.18.3.254 TN_H2_IP4=198.18.3.1
TN_R1_IP6=2001:2:0:3::fe TN_H2_IP6=2001:2:0:3::1

# tunnel KIND: tn0 of KIND in r1 and h2 over their veth pair, addressed,
# with h2's way back to h1 through it; waits until h1 reaches h2 through it.
tunnel() {
	local kind=$1 ns lo re args
	for ns in "$XF_NS_R1:$XF_R1_IP4B:$XF_H2_IP4" "$XF_NS_H2:$XF_H2_IP4:$XF_R1_IP4B"; do
		IFS=: read -r ns lo re <<<"$ns"
		args=(local "$lo" remote "$re")
		[[ $kind != vxlan ]] || args+=(id 42 dstport 4789 dev "$(tn_underlay "$ns")")
		ip -n "$ns" link add tn0 type "$kind" "${args[@]}"
		ip -n "$ns" link set tn0 up
	done
	ip -n "$XF_NS_R1" addr add "$TN_R1_IP4/24" dev tn0
	ip -n "$XF_NS_H2" addr add "$TN_H2_IP4/24" dev tn0
	ip -n "$XF_NS_R1" addr add "$TN_R1_IP6/64" dev tn0 nodad
	ip -n "$XF_NS_H2" addr add "$TN_H2_IP6/64" dev tn0 nodad
	ip -n "$XF_NS_H2" route add "${XF_H1_IP4%.*}.0/24" via "$TN_R1_IP4"
	ip -n "$XF_NS_H2" -6 route add "${XF_H1_IP6%::*}::/64" via "$TN_R1_IP6"
	wait_until 10 tn_reach
}

# tn_underlay NS: the device under the tunnel in NS (r1's veth2, h2's veth0).
need_gre() {
	if kernel_lacks gre; then
		skip "this kernel has no GRE or ipip (modules ip_gre, ipip): the guests test them"
	fi
}

tn_underlay() {
	[[ $1 == "$XF_NS_R1" ]] && echo veth2 || echo veth0
}

tn_reach() {
	ping4 1 "$TN_H2_IP4" -q >/dev/null && ping6 1 "$TN_H2_IP6" -q >/dev/null
}

# tn_fast: 10 pings of each family from h1 to h2 through tn0, all
# answered, with veth1 and tn0 the set on hook tc: each way on the fast
# path, the kernel's forwarding flat but for the neighbours' upkeep.
tn_fast() {
	run -0 xr route attach dev veth1 dev tn0
	assert_equal "$(xr -j route show dev tn0 | jq -c '.interfaces[0] | [.hook, .why]')" \
		'["tc","auto: the driver has no native XDP"]'
	fast_pings "$TN_H2_IP4" "$TN_H2_IP6" veth1 tn0
}

# bats test_tags=guest
@test "tunnels hook tc: a VXLAN device is a member (hook auto picks tc), both families both ways on the fast path" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	tunnel vxlan
	tn_fast
}

# bats test_tags=guest
@test "tunnels hook tc: a gretap device is a member (hook auto picks tc), both families both ways on the fast path" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	need_gre
	tunnel gretap
	tn_fast
}

# VXLAN has no native XDP and no ndo_xdp_xmit: hook xdp runs on it in
# generic mode and passes what would leave through it (no_xmit), which
# the kernel forwards; what comes out of it is forwarded. Before Linux 6.3
# (no XDP features) every member is generic and reaches any device.
@test "tunnels hook xdp: VXLAN runs generic; what comes out of it is forwarded, what would go into it is passed (no_xmit)" {
	xdp_ready
	tunnel vxlan
	run -0 xr route attach dev veth1 dev tn0 hook xdp
	generic_pings "$TN_H2_IP4" tn0 veth1
}

# bats test_tags=guest
@test "tunnels: GRE and ipip (no Ethernet header) are refused on both hooks, naming the kind; nothing changed" {
	local kind hook hooks=(xdp)
	need_gre
	kernel_lacks tcx || hooks+=(tc)
	for kind in gre ipip; do
		ip -n "$XF_NS_R1" link add "t$kind" type "$kind" local "$XF_R1_IP4B" remote "$XF_H2_IP4"
		ip -n "$XF_NS_R1" link set "t$kind" up
		for hook in "${hooks[@]}"; do
			run -1 --separate-stderr xr route attach dev veth1 dev "t$kind" hook "$hook"
			assert_equal "$stderr" "Error: t$kind is a layer 3 device ($kind, no Ethernet header), which the fast path does not parse; leave it to the kernel."
		done
		run -0 xr -j route show
		assert_output '{"interfaces":[]}'
		run -0 no_hooks "t$kind"
		run -0 no_hooks veth1
	done
}
