#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route and VLAN devices (issue 17): real 802.1Q devices on the links
# of h1 -- r1 -- h2. This machine's kernel has no 802.1Q: here the first
# test checks that feature says so and the others are skipped, naming it;
# they run in the guests of make check-kernels (8021q.ko is loaded there).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/vlan

setup_file() {
	_need_root
}

setup() {
	route_setup
}

teardown() {
	route_teardown
}

@test "vlan: xfwd feature says whether this kernel has 802.1Q, and why not" {
	run -0 xfwd -j feature
	if kernel_lacks vlan; then
		assert_equal "$(jq -r .kernel.vlan.supported <<<"$output")" false
		assert_equal "$(jq -r .kernel.vlan.detail <<<"$output")" \
			"no vlan device type in this kernel (802.1Q: CONFIG_VLAN_8021Q, module 8021q): EOPNOTSUPP"
	else
		assert_equal "$(jq -r .kernel.vlan.supported <<<"$output")" true
	fi
}

# tagged_ping 4|6: h1 tagged 100 -> r1 -> h2 untagged, on the fast path
# both ways, the kernel's forwarding counter flat.
tagged_ping() {
	local v=$1 dst kname n=20 before
	need_vlan
	vlan_h1 100
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	if [[ $v == 4 ]]; then dst=$XF_H2_IP4 kname=IpForwDatagrams; else dst=$XF_H2_IP6 kname=Ip6OutForwDatagrams; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth2 hook tc
	before=$(kstat "$XF_NS_R1" "$kname")
	run -0 "ping$v" "$n" "$dst" -q
	assert_output --partial "$n packets transmitted, $n received"
	assert_equal "$(ctr veth1.100 forwarded)" $n
	assert_equal "$(ctr veth2 forwarded)" $n
	assert_equal "$(kstat "$XF_NS_R1" "$kname")" "$before"
}

@test "vlan hook tc: IPv4 ping tagged h1 -> untagged h2 is forwarded by the fast path" {
	tagged_ping 4
}

@test "vlan hook tc: IPv6 ping tagged h1 -> untagged h2 is forwarded by the fast path" {
	tagged_ping 6
}

@test "vlan hook tc: tagged <-> tagged on another parent, both families" {
	local before
	need_vlan
	vlan_h1 100
	vlan_h2 200
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth2.200 hook tc
	before=$(kfwd)
	vlan_pings 10
	assert_equal "$(ctr veth1.100 forwarded)" 20
	assert_equal "$(ctr veth2.200 forwarded)" 20
	assert_equal "$(kfwd)" "$before"
}

@test "vlan hook tc: router on a stick, two VLANs of one trunk, both families" {
	local before
	need_vlan
	vlan_h1 100
	vlan_stick 300
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth1.300 hook tc
	before=$(kfwd)
	vlan_pings 10
	assert_equal "$(ctr veth1.100 forwarded)" 20
	assert_equal "$(ctr veth1.300 forwarded)" 20
	assert_equal "$(kfwd)" "$before"
}

@test "vlan: route show lists a VLAN member with its parent and id; the trunk shares its program" {
	need_vlan
	vlan_h1 100
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth2
	run -0 xr -j route show
	assert_equal "$(jq -c '.interfaces[] | select(.dev == "veth1.100") |
		[.hook, .vlan.parent, .vlan.parent_ifindex, .vlan.id, .vlan.protocol]' <<<"$output")" \
		"[\"tc\",\"veth1\",$(ip -n "$XF_NS_R1" -j link show veth1 | jq '.[0].ifindex'),100,\"802.1Q\"]"
	assert_equal "$(jq -c '.interfaces[] | select(.dev == "veth2") | .vlan' <<<"$output")" null
	run -0 xr route show dev veth1.100
	assert_output --partial "id 100 on veth1"
	# The trunk joins on the same tcx link; detaching it keeps the VLAN.
	run -0 xr route attach dev veth1 hook tc
	run -0 in_r1 bpftool net show dev veth1
	assert_equal "$(grep -c xf_route_tc <<<"$output")" 1
	run -0 xr route detach dev veth1
	vlan_pings 2
	assert_equal "$(ctr veth1.100 forwarded)" 4
	# The last user of the parent's link gone, the program leaves it.
	run -0 xr route detach dev veth1.100
	run -0 no_hooks veth1
}

@test "vlan: a VLAN id without a device in the set, and VLAN 0, are passed with their reasons" {
	need_vlan
	if kernel_lacks tcx; then skip "hook tc needs tcx (tested above: the refusal)"; fi
	vlan_dev "$XF_NS_H1" veth0 200
	vlan_dev "$XF_NS_R1" veth1 100
	ip -n "$XF_NS_H1" addr add 198.18.5.1/24 dev veth0.200
	ip -n "$XF_NS_H1" neigh add 198.18.5.254 lladdr "$(mac "$XF_NS_R1" veth1)" dev veth0.200
	wait_until 5 vlan_ready
	warm_up
	run -0 --separate-stderr xr route attach dev veth1 dev veth1.100 dev veth2 hook tc
	# h1 tags 200, which r1 has no device for: the kernel drops them.
	run -1 in_h1 ping -c 3 -i 0.05 -W 1 -q 198.18.5.254
	# The echo requests, and h1's IPv6 chatter on veth0.200.
	(($(ctr veth1 vlan_unknown) >= 3))
	assert_equal "$(ctr veth1 forwarded)" 0
	# VLAN 0 (priority tag): the kernel routes it as veth1's own.
	ip -n "$XF_NS_H1" link del veth0.200
	ip -n "$XF_NS_H1" addr flush dev veth0 scope global
	vlan_dev "$XF_NS_H1" veth0 0
	vlan_addrs "$XF_NS_H1" veth0.0 "$XF_H1_IP4" "$XF_H1_IP6"
	ip -n "$XF_NS_H1" route replace default via "$XF_R1_IP4A"
	# Answers come back untagged to veth0: neighbours fixed both ways.
	ip -n "$XF_NS_H1" neigh replace "$XF_R1_IP4A" lladdr "$(mac "$XF_NS_R1" veth1)" dev veth0.0
	ip -n "$XF_NS_R1" neigh replace "$XF_H1_IP4" lladdr "$(mac "$XF_NS_H1" veth0)" dev veth1
	wait_until 5 vlan_ready
	run -0 ping4 4 "$XF_H2_IP4" -q
	assert_output --partial "4 packets transmitted, 4 received"
	# The echo requests, and h1's IPv6 chatter on veth0.0 (MLD, RS).
	(($(ctr veth1 vlan_prio0) >= 4))
	assert_equal "$(ctr veth1 forwarded)" 0
}

# stale CHANGE: r1's VLAN device changes behind xfwd's back (no xfwd
# command runs): what the fast path forwards after it is what the kernel
# forwards; h2's echo requests count what reached it.
stale() {
	local before before6
	need_vlan
	vlan_h1 100
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth2 hook tc
	vlan_pings 2
	assert_equal "$(ctr veth1.100 forwarded)" 4
	before=$(kstat "$XF_NS_H2" IcmpInEchos)
	before6=$(kstat "$XF_NS_H2" Icmp6InEchos)
	case $1 in
	delete)
		ip -n "$XF_NS_R1" link del veth1.100
		run -1 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$before"
		;;
	down)
		ip -n "$XF_NS_R1" link set veth1.100 down
		run -1 ping4 3 "$XF_H2_IP4" -q
		run -1 ping6 3 "$XF_H2_IP6" -q
		assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$before"
		assert_equal "$(kstat "$XF_NS_H2" Icmp6InEchos)" "$before6"
		assert_equal "$(ctr veth1.100 forwarded)" 4
		# IPv4's own source check finds no route back first (martian,
		# as for a local source); IPv6 has only the VLAN check.
		(($(ctr veth1.100 martian) + $(ctr veth1.100 vlan_source) >= 6))
		(($(ctr veth1.100 vlan_source) >= 3))
		# Up again (its addresses and routes back): forwarded again.
		ip -n "$XF_NS_R1" link set veth1.100 up
		wait_until 5 vlan_ready
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(ctr veth1.100 forwarded)" 7
		;;
	rename)
		ip -n "$XF_NS_R1" link set veth1.100 name trunk.100
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" $((before + 3))
		assert_equal "$(ctr trunk.100 forwarded)" 7
		;;
	esac
}

@test "vlan: a VLAN device deleted behind xfwd's back: nothing forwarded on stale data" {
	stale delete
}

@test "vlan: a VLAN device set down behind xfwd's back: passed (vlan_source), as the kernel drops" {
	stale down
}

@test "vlan: a VLAN device renamed behind xfwd's back keeps forwarding, as the kernel does" {
	stale rename
}

@test "vlan hook xdp: VLAN devices are refused with the reason; the parent's program is on tc" {
	need_vlan
	vlan_h1 100
	run -2 --separate-stderr xr route attach dev veth1.100 hook xdp
	assert_equal "$stderr" "Error: veth1.100 is a VLAN device, which hook xdp does not take yet; use hook tc."
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

@test "vlan hook tc: iperf3 TCP from a tagged h1 to an untagged h2 completes" {
	local fwd
	need_vlan
	vlan_h1 100
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth2 hook tc
	fwd=$(ctr veth1.100 forwarded_bytes)
	ip netns exec "$XF_NS_H2" iperf3 -s -1 >"$BATS_TEST_TMPDIR/iperf-s.out" 2>&1 3>&- &
	BG_PID=$!
	wait_until 5 bash -c "ip netns exec $XF_NS_H2 ss -Hltn | grep -q ':5201 '"
	run -0 in_h1 timeout "$(vm_slow 20)" iperf3 -c "$XF_H2_IP4" -t 2
	wait "$BG_PID"
	BG_PID=
	(($(ctr veth1.100 forwarded_bytes) > fwd + 1024 * 1024))
}

@test "vlan route get: vlan N explains a forwarded tagged packet and the VLAN pass reasons" {
	need_vlan
	vlan_h1 100
	wait_until 5 vlan_ready
	if kernel_lacks tcx; then vlan_refused veth1.100; return; fi
	warm_up
	run -0 xr route attach dev veth1.100 dev veth2 hook tc
	run -0 xr -j route get "$XF_H2_IP4" iif veth1 vlan 100
	assert_equal "$(jq -c '[.iif, .vlan, .vlan_dev, .reason, .oif, .verdict]' <<<"$output")" \
		'["veth1",100,"veth1.100","forwarded","veth2","TC_ACT_REDIRECT"]'
	# The sub-interface as iif: the same frame, tagged with its id.
	run -0 xr -j route get "$XF_H2_IP6" iif veth1.100
	assert_equal "$(jq -c '[.iif, .vlan, .vlan_dev, .reason]' <<<"$output")" \
		'["veth1",100,"veth1.100","forwarded"]'
	run -0 xr -j route get "$XF_H2_IP4" iif veth1 vlan 200 from "$XF_H1_IP4"
	assert_equal "$(jq -c '[.vlan, .vlan_dev, .reason, .verdict]' <<<"$output")" \
		'[200,null,"vlan_unknown","TC_ACT_UNSPEC"]'
	run -0 xr -j route get "$XF_H2_IP4" iif veth1 vlan 0 from "$XF_H1_IP4"
	assert_equal "$(jq -r .reason <<<"$output")" vlan_prio0
	# A source that does not route back through veth1.100 (IPv4's own
	# check already passes a source with no route: martian).
	run -0 xr -j route get "$XF_H2_IP6" iif veth1.100 from 2001:2:0:9::1
	assert_equal "$(jq -r .reason <<<"$output")" vlan_source
	run -0 xr -j route get "$XF_H2_IP4" iif veth1.100 ttl 1
	assert_equal "$(jq -r .reason <<<"$output")" ttl
	run -2 --separate-stderr xr route get "$XF_H2_IP4" iif veth1.100 vlan 7
	assert_equal "$stderr" "Error: veth1.100 has VLAN id 100, not 7."
}
