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

# bridge_rule RULE UNRULE: with m0 a bridge of veth1, h1's way in; RULE (run
# in r1 by eval) is a port rule that stops h1's frames before the bridge
# hands them up to m0, and UNRULE takes it back. With the kernel alone and
# then with m0 and veth2 on hook tc, no echo of five reaches h2, and the
# program on m0 sees none of them; taken back, h1 reaches h2 again, on the
# fast path. The bridge device is the member: it runs after the port's
# rules, as the kernel's forwarding does.
bridge_rule() {
	local pass base seen
	warm_up
	for pass in kernel fast; do
		[[ $pass == kernel ]] || run -0 xr route attach dev m0 dev veth2 hook tc
		base=$(kstat "$XF_NS_H2" IcmpInEchos)
		eval "$1"
		# From here on h1's frames (its neighbour probes too) stop.
		[[ $pass == kernel ]] || seen=$(m0_seen)
		run -1 ping4 5 "$XF_H2_IP4" -q
		assert_output --partial "5 packets transmitted, 0 received"
		assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$base"
		[[ $pass == kernel ]] || assert_equal "$(m0_seen)" "$seen"
		eval "$2"
		wait_until 10 m0_ready
	done
	# r1's entry for h2, unused while h1 was stopped, confirmed first.
	in_r1 ping -c 1 -W 1 -q "$XF_H2_IP4" >/dev/null
	fast_pings "$XF_H2_IP4" - m0 veth2
}

# m0_seen: every IP packet the program on m0 has counted, forwarded or
# not (not ARP, which no IP rule stops).
m0_seen() {
	xr -j route show dev m0 | jq '.interfaces[0] | .forwarded +
		([.pass_reasons[] | select(.reason != "not_ip") | .packets] | add // 0)'
}

@test "devices hook tc: a bridge port's state (disabled) stops h1 before the bridge device, with the kernel alone and with the fast path alike" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	master bridge
	bridge_rule "in_r1 bridge link set dev veth1 state 0" \
		"in_r1 bridge link set dev veth1 state 3"
}

# bats test_tags=guest
@test "devices hook tc: a bridge's VLAN filtering (no PVID on the port) stops h1's untagged frames before the bridge device, with the kernel alone and with the fast path alike" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	ip -n "$XF_NS_R1" link add m1 type bridge vlan_filtering 1 2>/dev/null ||
		skip "this kernel's bridge has no VLAN filtering (CONFIG_BRIDGE_VLAN_FILTERING): the guests test it"
	ip -n "$XF_NS_R1" link del m1
	master bridge vlan_filtering 1
	bridge_rule "in_r1 bridge vlan del dev veth1 vid 1" \
		"in_r1 bridge vlan add dev veth1 vid 1 pvid untagged"
}

@test "devices hook tc: a locked bridge port stops h1 until its address is in the FDB, with the kernel alone and with the fast path alike" {
	local h1mac
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	h1mac=$(mac "$XF_NS_H1" veth0)
	master bridge
	bridge_rule "in_r1 bridge link set dev veth1 locked on
		in_r1 bridge fdb del $h1mac dev veth1 master" \
		"in_r1 bridge fdb add $h1mac dev veth1 master static"
}

# br_netfilter (bridge-nf-call-iptables, -ip6tables) runs iptables' and
# ip6tables' PREROUTING in the bridge, before it hands a frame up to the
# bridge device (and not again in ip_rcv()): a drop there of all that
# comes in on m0 (h1's link-local IPv6 chatter too) stops h1's packets
# before the program on m0, although the rule came after the attach. Without br_netfilter that rule would run after tc ingress, and
# the fast path would skip it (test/netfilter.bats).
@test "devices hook tc: with br_netfilter a PREROUTING drop runs in the bridge, before the bridge device: h1 stopped with the kernel alone and with the fast path alike" {
	local nf=net.bridge.bridge-nf-call
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	master bridge
	in_r1 sysctl -qw "$nf-iptables=1" "$nf-ip6tables=1" 2>/dev/null ||
		skip "this kernel has no br_netfilter (CONFIG_BRIDGE_NETFILTER)"
	bridge_rule "in_r1 iptables -t raw -A PREROUTING -i m0 -j DROP
		in_r1 ip6tables -t raw -A PREROUTING -i m0 -j DROP" \
		"in_r1 iptables -t raw -D PREROUTING -i m0 -j DROP
		in_r1 ip6tables -t raw -D PREROUTING -i m0 -j DROP"
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

# A broadcast bond runs no XDP program natively (bond_xdp_check()): it
# reports no native XDP.
# bats test_tags=guest
@test "devices: a bond's slave is refused, naming the bond; mode native on a bond that cannot run it is refused, naming why; nothing changed" {
	local why="which it reports it cannot do (its mode or transmit hash policy, or a slave without native XDP)"
	need_bond
	xdp_ready
	master bond mode broadcast
	refused_port "a slave of bond"
	run -1 --separate-stderr xr route attach dev m0 dev veth2 hook xdp mode native
	! kernel_lacks xdp_features || why="which needs the kernel to report XDP features (Linux 6.3)"
	assert_equal "$stderr" "Error: mode native on bond m0 runs the program on its slaves, $why; use mode generic, which runs on the bond itself."
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	run -0 no_hooks m0
	run -0 no_hooks veth1
}

# bond_xdp MODE: m0 a balance-xor bond of veth1 on hook xdp in MODE (with
# veth2), both families both ways on the fast path. What goes into m0 is a
# redirect to the bond, whose ndo_xdp_xmit picks the slave (veth1, which
# takes XDP frames: h1's veth0 has GRO on). Generic runs on the bond
# itself, native on its slave, counted as the bond's.
bond_xdp() {
	xdp_ready
	master bond mode balance-xor
	warm_up
	run -0 xr route attach dev m0 dev veth2 hook xdp mode "$1"
	assert_equal "$(xr -j route show dev m0 | jq -c '.interfaces[0] | [.hook, .mode]')" \
		"[\"xdp\",\"$1\"]"
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" m0 veth2
}

# bats test_tags=guest
@test "devices hook xdp mode generic: a balance-xor bond runs on itself and forwards both ways on the fast path, both families" {
	need_bond
	bond_xdp generic
	run -0 no_hooks veth1
}

# need_bond_native: the kernel lets hook xdp run natively on a bond's
# slaves (XDP features, 6.3) and the program read their state (kern_ctx).
need_bond_native() {
	need_bond
	if kernel_lacks xdp_features || kernel_lacks kern_ctx; then
		skip "mode native on a bond needs XDP features (6.3) and kern_ctx (6.2)"
	fi
}

# bats test_tags=guest
@test "devices hook xdp mode native: a balance-xor bond runs on its slave, counted as the bond's, and forwards both ways on the fast path, both families" {
	need_bond_native
	bond_xdp native
}

# backup_pair: r1's bond m0 (active-backup) gets a second slave, veth1b,
# the backup, on a new pair to h1 (veth0b, GRO on), which sends through
# it: the bond drops what its backup receives.
backup_pair() {
	ip -n "$XF_NS_H1" link add veth0b type veth peer name veth1b netns "$XF_NS_R1"
	in_h1 ethtool -K veth0b gro on tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	ip -n "$XF_NS_H1" link set veth0b up
	ip -n "$XF_NS_R1" link set veth1b master m0
	ip -n "$XF_NS_R1" link set veth1b up
	wait_until 10 up_in "$XF_NS_R1" veth1b
}

# active_is SLAVE: m0's active slave is SLAVE.
active_is() {
	[[ $(ip -n "$XF_NS_R1" -d -j link show dev m0 |
		jq -r '.[0].linkinfo.info_data.active_slave') == "$1" ]]
}

# up_in NS DEV: DEV's carrier is up.
up_in() {
	[[ $(ip -n "$1" -j link show dev "$2" | jq -r '.[0].operstate') == UP ]]
}

# echoes_via N: N echo requests from h1 through veth0b, as frames for
# m0's MAC; how many reached h2.
echoes_via() {
	local base
	base=$(kstat "$XF_NS_H2" IcmpInEchos)
	in_h1 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/frames.py" veth0b \
		"$(mac "$XF_NS_R1" m0)" "$XF_H1_IP4" "$XF_H2_IP4" "$XF_H1_IP6" "$XF_H2_IP6" "$1" echo4
	echo $(($(kstat "$XF_NS_H2" IcmpInEchos) - base))
}

# The bond's own choice, read at each frame: the backup's frames are
# passed (bond_inactive) and dropped by the kernel, as with the kernel
# alone; after a failover (veth1 down) the same frames are the bond's and
# forward on the fast path, with no command run.
# bats test_tags=guest
@test "devices hook xdp mode native: an active-backup bond: its backup's frames are passed and dropped as by the kernel; after a failover under the program they forward" {
	local before
	need_bond_native
	xdp_ready
	master bond mode active-backup miimon 10 primary_reselect always
	backup_pair
	ip -n "$XF_NS_R1" link set m0 type bond primary veth1
	wait_until 10 active_is veth1
	warm_up
	assert_equal "$(echoes_via 10)" 0
	run -0 xr route attach dev m0 dev veth2 hook xdp mode native
	assert_equal "$(xr -j route show dev m0 | jq -r '.interfaces[0].mode')" native
	before=$(ctr m0 bond_inactive)
	assert_equal "$(echoes_via 10)" 0
	# The ten, and any chatter of h1's on that link.
	(($(ctr m0 bond_inactive) >= before + 10)) || fail "bond_inactive: $(ctr m0 bond_inactive)"
	assert_equal "$(ctr m0 forwarded)" 0
	ip -n "$XF_NS_R1" link set veth1 down
	wait_until 10 active_is veth1b
	before=$(ctr m0 bond_inactive)
	assert_equal "$(echoes_via 10)" 10
	assert_equal "$(ctr m0 forwarded)" 10
	assert_equal "$(ctr m0 bond_inactive)" "$before"
}

# A slave added after the attach runs the bond's program at once, outside
# the set until route refresh gives it an entry: passed (not_in_set, in
# route show's row "*"), then forwarded.
# bats test_tags=guest
@test "devices hook xdp mode native: a slave added to the bond is passed until route refresh, then forwards" {
	need_bond_native
	xdp_ready
	master bond mode balance-xor
	warm_up
	run -0 xr route attach dev m0 dev veth2 hook xdp mode native
	backup_pair
	assert_equal "$(echoes_via 5)" 5
	(($(outside_ctr not_in_set) >= 5)) || fail "not_in_set: $(outside_ctr not_in_set)"
	assert_equal "$(ctr m0 forwarded)" 0
	run -0 xr route refresh
	assert_equal "$(echoes_via 5)" 5
	assert_equal "$(ctr m0 forwarded)" 5
}

# outside_ctr REASON: route show's row "*" (frames on devices outside the
# set), its packets passed for REASON.
outside_ctr() {
	xr -j route show | jq --arg r "$1" '[.interfaces[] | select(.dev == "*") |
		.pass_reasons[] | select(.reason == $r) | .packets] | add // 0'
}

# bats test_tags=guest
@test "devices hook tc: a balance-xor bond forwards both ways on the fast path, both families (hook auto picks tc)" {
	need_bond
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	master bond mode balance-xor
	fast_both ""
	run -0 xr -j route show dev m0
	assert_equal "$(jq -r '.interfaces[0].why' <<<"$output")" "auto: a bond, on which XDP runs in generic mode only"
}

# What hook xdp sends into a bond leaves through a slave, past the slave's
# queueing: a qdisc there is refused as the bond's own would be.
# bats test_tags=guest
@test "devices hook xdp: a bond whose slave has a tbf qdisc is refused as an egress, naming the slave's qdisc; nothing changed" {
	need_bond
	xdp_ready
	master bond mode balance-xor
	in_r1 tc qdisc add dev veth1 root tbf rate 10mbit burst 16kb latency 50ms
	run -1 --separate-stderr xr route attach dev m0 dev veth2 hook xdp
	assert_regex "$stderr" '^Error: hook xdp would bypass egress queueing: qdisc tbf [0-9a-f]+: root on veth1; use hook tc'
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	run -0 no_hooks m0 veth1 veth2
}
