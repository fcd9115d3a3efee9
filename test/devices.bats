#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route on devices that are not a plain veth (issue 45): r1's link to
# h1 becomes a bridge (host) or a bond (guests: this machine's kernel has
# no bonding) with veth1 under it. The master is what the kernel routes
# on: it is a member on hook tc; its port or slave is refused by name.
# r1's link to h2 may also be a macvlan on veth2, a member on hook tc.
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

# master KIND [ARGS...]: r1's veth1 under a new device m0 of KIND, which
# takes veth1's MAC (h1's neighbour entry stays right) and its addresses.
master() {
	local kind=$1 addr
	shift
	addr=$(mac "$XF_NS_R1" veth1)
	ip -n "$XF_NS_R1" addr flush dev veth1 scope global
	ip -n "$XF_NS_R1" link add m0 address "$addr" type "$kind" "$@"
	[[ $kind != bond ]] || ip -n "$XF_NS_R1" link set veth1 down
	ip -n "$XF_NS_R1" link set veth1 master m0
	ip -n "$XF_NS_R1" link set veth1 up
	ip -n "$XF_NS_R1" link set m0 up
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP4A/24" dev m0
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP6A/64" dev m0 nodad
	wait_until 10 m0_ready
}

# m0_ready: m0 forwards (a bridge's port is forwarding, a bond's slave is
# up) and answers h1.
m0_ready() {
	ping4 1 "$XF_R1_IP4A" -q >/dev/null && ping6 1 "$XF_R1_IP6A" -q >/dev/null
}

need_bond() {
	if kernel_lacks bond; then
		skip "this kernel has no bonding (CONFIG_BONDING, module bonding): the guests test bonds"
	fi
}

# refused_port WHAT: attaching veth1, m0's port, is refused with the Error
# that names m0; nothing is attached.
refused_port() {
	run -1 --separate-stderr xr route attach dev veth1 dev veth2
	assert_equal "$stderr" "Error: veth1 is $1 m0, whose own receive handling the fast path on veth1 would skip; name m0 instead."
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# fast_both HOOK: both families both ways between h1 and h2, with m0 and
# veth2 the set on HOOK: every echo on the fast path, the kernel's
# forwarding counter flat but for the neighbours' upkeep.
fast_both() {
	warm_up
	run -0 xr route attach dev m0 dev veth2 ${1:+hook "$1"}
	assert_equal "$(xr -j route show dev m0 | jq -r '.interfaces[0].hook')" tc
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" m0 veth2
}

@test "devices: a bridge port is refused, naming the bridge; nothing changed" {
	master bridge
	refused_port "a port of bridge"
}

@test "devices: a member made a bridge port after the attach: route show warns, naming the bridge" {
	local hook=tc
	if kernel_lacks tcx; then hook=xdp; xdp_ready; fi
	run -0 xr route attach dev veth1 dev veth2 hook "$hook"
	assert_equal "$(xr -j route show dev veth1 | jq -r '.interfaces[0].warning')" null
	master bridge
	assert_equal "$(xr -j route show dev veth1 | jq -r '.interfaces[0].warning')" \
		"veth1 is now a port of bridge m0, whose receive handling its fast path skips; detach it"
	assert_equal "$(xr -j route show dev veth2 | jq -r '.interfaces[0].warning')" null
}

@test "devices hook tc: a bridge forwards both ways on the fast path, both families (hook auto picks tc)" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	master bridge
	fast_both ""
	run -0 xr -j route show dev m0
	assert_equal "$(jq -r '.interfaces[0].why' <<<"$output")" "auto: the driver has no native XDP"
}

# The bridge has no ndo_xdp_xmit: hook xdp runs on it in generic mode and
# passes what would leave through it (no_xmit), which the kernel forwards.
# Before Linux 6.3 (no XDP features) every member is in generic mode, whose
# redirects reach any device: the bridge too.
@test "devices hook xdp: a bridge forwards what enters it; what would leave through it is passed (no_xmit)" {
	master bridge
	xdp_ready
	warm_up
	run -0 xr route attach dev m0 dev veth2 hook xdp
	generic_pings "$XF_H2_IP4" m0 veth2
}

# macvlan_h2: r1's addresses toward h2 move from veth2 to mv0, a macvlan
# on it (mode bridge), so that r1 talks to h2 through mv0. veth2 keeps
# the frames for its own MAC, and answers no ARP for mv0's address
# (arp_ignore 1): h2 learns mv0's MAC.
macvlan_h2() {
	ip netns exec "$XF_NS_R1" sysctl -qw net.ipv4.conf.veth2.arp_ignore=1
	ip -n "$XF_NS_R1" addr flush dev veth2 scope global
	ip -n "$XF_NS_R1" link add mv0 link veth2 type macvlan mode bridge
	ip -n "$XF_NS_R1" link set mv0 up
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP4B/24" dev mv0
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP6B/64" dev mv0 nodad
	ip -n "$XF_NS_H2" neigh flush all
	wait_until 10 warm_up
}

@test "devices hook tc: a macvlan forwards both ways on the fast path, both families (hook auto picks tc)" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	macvlan_h2
	run -0 xr route attach dev veth1 dev mv0
	assert_equal "$(xr -j route show dev mv0 | jq -c '.interfaces[0] | [.hook, .why]')" \
		'["tc","auto: the driver has no native XDP"]'
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" veth1 mv0
}

# A macvlan has no native XDP and no ndo_xdp_xmit, as a bridge (above).
@test "devices hook xdp: a macvlan forwards what comes out of it; what would go into it is passed (no_xmit)" {
	xdp_ready
	macvlan_h2
	run -0 xr route attach dev veth1 dev mv0 hook xdp
	generic_pings "$XF_H2_IP4" mv0 veth1
}

# A layer 3 device (tun here; ipip, sit, GRE and WireGuard alike) hands
# the program a packet that starts at its IP header: hook tc parses it
# from there (test/tunnels.bats), hook xdp cannot take it, and without tcx
# (Linux 6.1) hook auto has nothing to pick.
@test "devices: a layer 3 device (tun) is refused on hook xdp, and where there is no tcx on hook auto, naming why; nothing changed" {
	ip -n "$XF_NS_R1" tuntap add dev tn0 mode tun
	ip -n "$XF_NS_R1" link set tn0 up
	run -1 --separate-stderr xr route attach dev veth2 dev tn0 hook xdp
	assert_equal "$stderr" "Error: tn0 is a layer 3 device (tun, no Ethernet header), which XDP cannot take; use hook tc."
	if kernel_lacks tcx; then
		run -1 --separate-stderr xr route attach dev veth2 dev tn0
		assert_equal "$stderr" "Error: tn0 is a layer 3 device (tun), which only hook tc takes, and hook tc needs tcx (Linux 6.6 or later), which this kernel lacks."
	fi
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	run -0 no_hooks tn0
	run -0 no_hooks veth2
}

# bats test_tags=guest
@test "devices: a bond's slave is refused, naming the bond; hook xdp on the bond is refused; nothing changed" {
	need_bond
	master bond mode balance-xor
	refused_port "a slave of bond"
	run -1 --separate-stderr xr route attach dev m0 dev veth2 hook xdp
	if kernel_lacks tcx; then
		assert_equal "$stderr" "Error: m0 is a bond, whose XDP program runs on its slaves with their own ifindex, outside the set; hook tc, which runs on the bond itself, needs tcx (Linux 6.6 or later)."
	else
		assert_equal "$stderr" "Error: m0 is a bond, whose XDP program runs on its slaves with their own ifindex, outside the set; use hook tc, which runs on the bond itself."
	fi
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# bats test_tags=guest
@test "devices hook tc: a balance-xor bond forwards both ways on the fast path, both families (hook auto picks tc)" {
	need_bond
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	master bond mode balance-xor
	fast_both ""
	run -0 xr -j route show dev m0
	assert_equal "$(jq -r '.interfaces[0].why' <<<"$output")" "auto: a bond, whose XDP would run on its slaves"
}
