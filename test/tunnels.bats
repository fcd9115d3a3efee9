#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route with a tunnel as a member (issue 45): r1 reaches h2 through a
# tunnel over their veth pair, tn0 at both ends (198.18.3.0/24,
# 2001:2:0:3::/64), and h2 routes h1's prefixes back into it, so that both
# directions cross the tunnel. An Ethernet tunnel (VXLAN, gretap) and a
# point-to-point layer 3 one (GRE, ipip, sit, ip6tnl, WireGuard, tun: no
# Ethernet header) are members on hook tc; hook xdp refuses the layer 3
# ones. This machine's kernel has VXLAN and tun but no GRE, ipip, sit,
# ip6tnl or WireGuard: the guests test those (test/vm/run loads vxlan,
# ip_gre, ip6_gre, ipip, sit, ip6_tunnel and wireguard).
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
	local kind=$1 ns lo re lo6 re6 args fams
	if [[ $kind == wireguard ]]; then
		wg_pair
	fi
	for ns in "$XF_NS_R1 $XF_R1_IP4B $XF_H2_IP4 $XF_R1_IP6B $XF_H2_IP6" \
		  "$XF_NS_H2 $XF_H2_IP4 $XF_R1_IP4B $XF_H2_IP6 $XF_R1_IP6B"; do
		read -r ns lo re lo6 re6 <<<"$ns"
		# ip6gre and ip6tnl run over IPv6.
		[[ $kind != ip6gre && $kind != ip6tnl ]] || { lo=$lo6 re=$re6; }
		if [[ $kind != wireguard ]]; then
			args=(local "$lo" remote "$re")
			[[ $kind != vxlan ]] || args+=(id 42 dstport 4789 dev "$(tn_underlay "$ns")")
			# ip6tnl carries IPv6 alone unless told both.
			[[ $kind != ip6tnl ]] || args+=(mode any)
			ip -n "$ns" link add tn0 type "$kind" "${args[@]}"
		fi
		ip -n "$ns" link set tn0 up
	done
	# ipip carries IPv4 alone, sit IPv6 alone.
	fams=46
	[[ $kind != ipip ]] || fams=4
	[[ $kind != sit ]] || fams=6
	if [[ $fams == *4* ]]; then
		ip -n "$XF_NS_R1" addr add "$TN_R1_IP4/24" dev tn0
		ip -n "$XF_NS_H2" addr add "$TN_H2_IP4/24" dev tn0
		ip -n "$XF_NS_H2" route add "${XF_H1_IP4%.*}.0/24" via "$TN_R1_IP4"
	fi
	if [[ $fams == *6* ]]; then
		ip -n "$XF_NS_R1" addr add "$TN_R1_IP6/64" dev tn0 nodad
		ip -n "$XF_NS_H2" addr add "$TN_H2_IP6/64" dev tn0 nodad
		ip -n "$XF_NS_H2" -6 route add "${XF_H1_IP6%::*}::/64" via "$TN_R1_IP6"
	fi
	wait_until 10 tn_reach "$fams"
}

# wg_pair: tn0 a WireGuard device in r1 and in h2, each the other's only
# peer (keys from wg genkey) at its veth address, UDP port 51820, every
# address allowed through it.
wg_pair() {
	local d=$BATS_TEST_TMPDIR ns peer ep
	wg genkey >"$d/r1.key"
	wg genkey >"$d/h2.key"
	wg pubkey <"$d/r1.key" >"$d/r1.pub"
	wg pubkey <"$d/h2.key" >"$d/h2.pub"
	for ns in "$XF_NS_R1:r1:h2:$XF_H2_IP4" "$XF_NS_H2:h2:r1:$XF_R1_IP4B"; do
		IFS=: read -r ns me peer ep <<<"$ns"
		ip -n "$ns" link add tn0 type wireguard
		ip netns exec "$ns" wg set tn0 private-key "$d/$me.key" listen-port 51820 \
			peer "$(cat "$d/$peer.pub")" endpoint "$ep:51820" allowed-ips 0.0.0.0/0,::/0
	done
}

# need_gre: the IP tunnels (GRE, ipip, sit, ip6tnl), which the kernels
# tested have or lack together: kernel_lacks names them gre.
need_gre() {
	if kernel_lacks gre; then
		skip "this kernel has no GRE, ipip, sit or ip6tnl (modules ip_gre, ip6_gre, ipip, sit, ip6_tunnel): the guests test them"
	fi
}

# tn_underlay NS: the device under the tunnel in NS (r1's veth2, h2's veth0).
tn_underlay() {
	[[ $1 == "$XF_NS_R1" ]] && echo veth2 || echo veth0
}

# tn_reach FAMILIES: h1 reaches h2 through tn0 in each of FAMILIES (4, 6
# or 46).
tn_reach() {
	[[ $1 != *4* ]] || ping4 1 "$TN_H2_IP4" -q >/dev/null || return
	[[ $1 != *6* ]] || ping6 1 "$TN_H2_IP6" -q >/dev/null
}

# tn_fast [WHY]: 10 pings of each family from h1 to h2 through tn0, all
# answered, with veth1 and tn0 the set on hook tc (hook auto's reason WHY):
# each way on the fast path, the kernel's forwarding flat but for the
# neighbours' upkeep.
tn_fast() {
	run -0 xr route attach dev veth1 dev tn0
	assert_equal "$(xr -j route show dev tn0 | jq -r '.interfaces[0] | "\(.hook) \(.why)"')" \
		"tc ${1:-auto: the driver has no native XDP}"
	fast_pings "$TN_H2_IP4" "$TN_H2_IP6" veth1 tn0
}

L3_WHY="auto: a layer 3 device (no Ethernet header), which XDP cannot take"

# l3_refused DEV KIND: hook xdp (and lookup flowtable, which is XDP, where
# the kernel has it) will not take the layer 3 device DEV, naming it;
# nothing changed.
l3_refused() {
	local how hows=("hook xdp")
	kernel_lacks xdp_flowtable || hows+=("lookup flowtable")
	for how in "${hows[@]}"; do
		# shellcheck disable=SC2086 # two words
		run -1 --separate-stderr xr route attach dev veth1 dev "$1" $how
		assert_equal "$stderr" "Error: $1 is a layer 3 device ($2, no Ethernet header), which XDP cannot take; use hook tc."
	done
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	run -0 no_hooks "$1"
	run -0 no_hooks veth1
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
@test "tunnels hook tc: a GRE device (layer 3) is a member, both families both ways on the fast path; hook xdp refused" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	need_gre
	tunnel gre
	l3_refused tn0 gre
	tn_fast "$L3_WHY"
}

# bats test_tags=guest
@test "tunnels hook tc: an ip6gre device (layer 3, over IPv6) is a member, both families both ways on the fast path; hook xdp refused" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	need_gre
	tunnel ip6gre
	l3_refused tn0 ip6gre
	tn_fast "$L3_WHY"
}

# tn_one KIND FAMILY: a KIND tunnel, which carries one family (4 or 6),
# refused on hook xdp; on hook tc both ways on the fast path.
tn_one() {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	need_gre
	tunnel "$1"
	l3_refused tn0 "$1"
	run -0 xr route attach dev veth1 dev tn0
	if [[ $2 == 4 ]]; then
		fast_pings "$TN_H2_IP4" - veth1 tn0
	else
		fast_pings - "$TN_H2_IP6" veth1 tn0
	fi
}

# bats test_tags=guest
@test "tunnels hook tc: an ipip device (layer 3) is a member, both ways on the fast path; hook xdp refused" {
	tn_one ipip 4
}

# bats test_tags=guest
@test "tunnels hook tc: a sit device (layer 3, IPv6 over IPv4) is a member, both ways on the fast path; hook xdp refused" {
	tn_one sit 6
}

# bats test_tags=guest
@test "tunnels hook tc: an ip6tnl device (layer 3, over IPv6) is a member, both families both ways on the fast path; hook xdp refused" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	need_gre
	tunnel ip6tnl
	l3_refused tn0 ip6tnl
	tn_fast "$L3_WHY"
}

# bats test_tags=guest
@test "tunnels hook tc: a WireGuard device (layer 3) is a member, both families both ways on the fast path; hook xdp refused" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	if kernel_lacks wireguard; then skip "this kernel has no WireGuard (module wireguard): the 7.2 guest tests it"; fi
	tunnel wireguard
	l3_refused tn0 wireguard
	tn_fast "$L3_WHY"
}

# A tunnel without a fixed remote sends where the route or the neighbour
# entry says (NBMA GRE builds its outer header from the entry): a redirect
# carries neither.
# bats test_tags=guest
@test "tunnels: a layer 3 tunnel that is not point-to-point (GRE without a remote) is refused on both hooks, naming it; nothing changed" {
	local hook hooks=(xdp)
	need_gre
	kernel_lacks tcx || hooks+=(tc)
	ip -n "$XF_NS_R1" link add tnbma type gre local "$XF_R1_IP4B"
	ip -n "$XF_NS_R1" link set tnbma up
	for hook in "${hooks[@]}"; do
		run -1 --separate-stderr xr route attach dev veth1 dev tnbma hook "$hook"
		assert_equal "$stderr" "Error: tnbma is a layer 3 device (gre, link type 778) that is not point-to-point; only a tunnel with a fixed remote, WireGuard or tun can be a member: leave it to the kernel."
	done
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	run -0 no_hooks tnbma
	run -0 no_hooks veth1
}

TUNPEER="$BATS_TEST_DIRNAME/fixtures/tunpeer.py"
TP_IP4=198.18.5.1 TP_IP6=2001:2:0:5::1

# tun_peer COUNT: COUNT echo requests of each family from the host behind
# r1's tun0 (test/fixtures/tunpeer.py) to h2; prints "ipv4 N ipv6 M", the
# replies that came back through tun0.
tun_peer() {
	in_r1 /usr/bin/python3 "$TUNPEER" tun0 "$TP_IP4" "$XF_H2_IP4" "$TP_IP6" "$XF_H2_IP6" "$1"
}

tun_reach() {
	[[ $(tun_peer 1) == "ipv4 1 ipv6 1" ]]
}

# A tun device is what a VPN daemon reads and writes: its packets start at
# the IP header, as a GRE or WireGuard device's do, and this machine has
# it. The replies go back into it: both ways, a layer 3 device.
@test "tunnels hook tc: a tun device (layer 3) is a member, both families both ways on the fast path, counted without an Ethernet header; hook xdp refused" {
	local before nn
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	ip -n "$XF_NS_R1" tuntap add dev tun0 mode tun
	ip -n "$XF_NS_R1" link set tun0 up
	ip -n "$XF_NS_R1" route add "$TP_IP4/32" dev tun0
	ip -n "$XF_NS_R1" -6 route add "$TP_IP6/128" dev tun0
	# The kernel alone answers all.
	wait_until 10 tun_reach
	run -0 tun_peer 10
	assert_output "ipv4 10 ipv6 10"
	l3_refused tun0 tun
	run -0 xr route attach dev tun0 dev veth2
	assert_equal "$(xr -j route show dev tun0 | jq -r '.interfaces[0] | "\(.hook) \(.why)"')" \
		"tc $L3_WHY"
	before=$(kfwd_mark tun0 veth2)
	run -0 tun_peer 10
	assert_output "ipv4 10 ipv6 10"
	assert_equal "$(ctr tun0 forwarded)" 20
	# tun's carrier comes and goes with its reader, and the kernel
	# flushes the device's neighbour entries with it: the first reply of
	# each family finds none (no_neigh), and the kernel's forwarding
	# makes it. Nothing else is passed.
	nn=$(ctr veth2 no_neigh)
	((nn <= 2)) || fail "no_neigh $nn"
	assert_equal "$(ctr veth2 forwarded)" $((20 - nn))
	kfwd_is "$before" "$nn" tun0 veth2
	# As they came: IP and ICMP, 56 bytes of data.
	assert_equal "$(ctr tun0 forwarded_bytes)" $((10 * 84 + 10 * 104))
	# route get from the tun device reads the same decision.
	run -0 xr -j route get "$XF_H2_IP4" from "$TP_IP4" iif tun0
	assert_equal "$(jq -r '"\(.reason) \(.oif)"' <<<"$output")" "forwarded veth2"
}
