#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route on a real NIC driver (issue 45): the guests of make
# check-kernels have six virtio-net NICs, wired in pairs by qemu hubs
# (test/vm/run). These tests move them into h1, r1 and h2 in place of the
# veths; on a machine without them (this one) they are skipped, naming why.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/nic
load helpers/chain

setup_file() {
	_need_root
	_need_progs drop_udp
}

setup() {
	route_setup
	BG_PIDS=()
}

# The redirect tests' rules and the chain go first, so that route_teardown
# finds no pin of theirs left.
teardown() {
	local dev
	kill_bg
	for dev in nic1 nic2 veth2; do
		xr redirect del dev "$dev" all >/dev/null 2>&1 || true
	done
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	route_teardown
}

# nic_bond2 [MODE]: h2's link to r1 is a bond (balance-xor unless MODE)
# of hubs 1 and 2 on each end: r1 bond0 (nic2, nic4) -- h2 bond0 (nic3,
# nic5). 802.3ad aggregates only full-duplex ports of a known speed,
# which virtio-net reports once told. active-backup prefers hub 2 (nic4,
# nic5), which nic_failover takes down.
nic_bond2() {
	local ns d mode=${1:-balance-xor} opts=()
	[[ $mode != 802.3ad ]] || opts=(lacp_rate fast)
	ip -n "$XF_NS_H2" link del veth0
	for ns in "$XF_NS_R1" "$XF_NS_H2"; do
		ip -n "$ns" link add bond0 type bond mode "$mode" miimon 10 "${opts[@]}"
	done
	nic_move 01:01 "$XF_NS_R1" nic2
	nic_move 02:01 "$XF_NS_R1" nic4
	nic_move 01:02 "$XF_NS_H2" nic3
	nic_move 02:02 "$XF_NS_H2" nic5
	for ns in "$XF_NS_R1:nic2 nic4" "$XF_NS_H2:nic3 nic5"; do
		for d in ${ns#*:}; do
			ip -n "${ns%%:*}" link set "$d" down
			ip netns exec "${ns%%:*}" ethtool -s "$d" speed 10000 duplex full
			ip -n "${ns%%:*}" link set "$d" master bond0
		done
		[[ $mode != active-backup ]] ||
			ip -n "${ns%%:*}" link set bond0 type bond primary "${ns##* }"
		ip -n "${ns%%:*}" link set bond0 up
	done
	nic_addrs "$XF_NS_R1" bond0 "$XF_R1_IP4B" "$XF_R1_IP6B"
	nic_addrs "$XF_NS_H2" bond0 "$XF_H2_IP4" "$XF_H2_IP6" "$XF_R1_IP4B" "$XF_R1_IP6B"
}

# nic_lacp NS PORTS: NS's bond0 has an active aggregator of PORTS ports
# (LACP has agreed with the other end).
nic_lacp() {
	nsenter --net="/run/netns/$1" cat /proc/net/bonding/bond0 |
		awk '/^Active Aggregator Info/ { a = 1 } a && /Number of ports:/ { print $NF; exit }' |
		grep -qx "$2"
}

# nic_reach: h1 reaches h2, both families (the links' carriers and the
# bonds' slaves come up moments after they are set up).
nic_reach() {
	ping4 1 "$XF_H2_IP4" -q >/dev/null && ping6 1 "$XF_H2_IP6" -q >/dev/null
}

# bats test_tags=guest
@test "nic: feature shows virtio-net's XDP as the kernel reports it, and hook auto takes xdp, mode native, where it can" {
	need_nics
	nic_side1
	nic_side2
	run -0 xr -j feature show dev nic1
	if kernel_lacks xdp_features; then
		# Nothing tells what the driver runs natively before 6.3.
		assert_equal "$(jq -c '.interfaces[0] | [.kind, .xdp_native, .xdp_generic]' <<<"$output")" '["device",false,true]'
		wait_until 10 nic_reach
		run -0 xr route attach dev nic1 dev nic2
		assert_equal "$(xr -j route show dev nic1 | jq -c '.interfaces[0] | [.hook, .mode]')" '["xdp","generic"]'
		return
	fi
	assert_equal "$(jq -c '.interfaces[0] | [.kind, .xdp_native, .xdp_generic]' <<<"$output")" '["device",true,true]'
	assert_equal "$(jq -r '.interfaces[0].xdp_features | split(",") | index("basic") != null' <<<"$output")" true
	wait_until 10 nic_reach
	run -0 xr route attach dev nic1 dev nic2
	assert_equal "$(xr -j route show dev nic1 | jq -c '.interfaces[0] | [.hook, .mode, .why]')" \
		'["xdp","native","auto: the driver runs XDP natively"]'
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" nic1 nic2
}

# bats test_tags=guest
@test "nic hook xdp mode native: both families both ways between virtio-net NICs on the fast path" {
	need_nics
	if kernel_lacks xdp_features; then skip "mode native needs XDP features (6.3)"; fi
	nic_side1
	nic_side2
	wait_until 10 nic_reach
	run -0 xr route attach dev nic1 dev nic2 hook xdp mode native
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" nic1 nic2
}

# Jumbo frames on virtio-net in mode native: XDP attaches at MTU 9000
# (xf_route_xdp is xdp.frags; virtio-net's mergeable receive buffers take
# multi-buffer XDP). A 9000-byte frame arrives in several buffers; where
# the egress NIC cannot send such a frame from XDP (no NDO_XMIT_SG among
# its XDP features) it is passed (no_xmit_sg) and the kernel forwards it
# whole, else the fast path does.
# bats test_tags=guest
@test "nic hook xdp mode native: virtio-net at MTU 9000 takes the program; 9000-byte pings forward, on the fast path where the egress sends multi-buffer XDP frames, else passed as no_xmit_sg" {
	local d before sg
	need_nics
	if kernel_lacks xdp_features; then skip "mode native needs XDP features (6.3)"; fi
	nic_side1
	nic_side2
	for d in "$XF_NS_H1:nic0" "$XF_NS_R1:nic1" "$XF_NS_R1:nic2" "$XF_NS_H2:nic3"; do
		ip -n "${d%%:*}" link set dev "${d##*:}" mtu 9000
	done
	wait_until 10 nic_reach
	run -0 xr route attach dev nic1 dev nic2 hook xdp mode native
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" nic1 nic2
	sg=$(xr -j feature | jq -r '.interfaces[] | select(.dev == "nic2") | .xdp_features')
	echo "# nic2's XDP features: $sg" >&3
	before=$(kfwd_mark nic1 nic2)
	run -0 ping4 3 "$XF_H2_IP4" -s 8972 -M do -q
	assert_output --partial "3 packets transmitted, 3 received"
	if [[ $sg == *ndo_xmit_sg* ]]; then
		assert_equal "$(ctr nic1 forwarded)" 23
		kfwd_is "$before" 0 nic1 nic2
	else
		assert_equal "$(ctr nic1 no_xmit_sg)" 3
		assert_equal "$(ctr nic2 no_xmit_sg)" 3
		kfwd_is "$before" 6 nic1 nic2
	fi
}

# bats test_tags=guest
@test "nic hook tc: both families both ways between virtio-net NICs on the fast path" {
	need_nics
	nic_side1
	nic_side2
	wait_until 10 nic_reach
	if kernel_lacks tcx; then
		run -1 --separate-stderr xr route attach dev nic1 dev nic2 hook tc
		assert_equal "$stderr" "Error: hook tc needs tcx (Linux 6.6 or later), which this kernel lacks; use hook xdp."
		return
	fi
	run -0 xr route attach dev nic1 dev nic2 hook tc
	fast_pings "$XF_H2_IP4" "$XF_H2_IP6" nic1 nic2
}

# bats test_tags=guest
@test "nic: a virtio-net NIC on hook xdp and one on hook tc: both ways exact, a frame the tc NIC cannot take from XDP passed with its reason" {
	need_nics
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	nic_side1
	nic_side2
	wait_until 10 nic_reach
	run -0 xr route attach dev nic1 hook xdp
	run -0 xr route attach dev nic2 hook tc
	run -0 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 10 received"
	run -0 ping6 10 "$XF_H2_IP6" -q
	assert_output --partial "10 packets transmitted, 10 received"
	# Replies: tc redirects into nic1, which runs XDP.
	assert_equal "$(ctr nic2 forwarded)" 20
	# Requests: forwarded where nic2 takes XDP frames, else passed.
	assert_equal $(($(ctr nic1 forwarded) + $(ctr nic1 no_xmit))) 20
	echo "# nic1: $(ctr nic1 fast) forwarded, $(ctr nic1 no_xmit) no_xmit" >&3
}

# nic_failover MODE [HOOK]: the bonds of nic_bond2 MODE, h1 on hub 0; 200
# echo requests at 100 a second, the bonds' hub-2 slaves taken down at
# both ends a second in, with the kernel alone and then on the fast path
# of HOOK (tc unless given). Until the bond sees a slave down (miimon 10
# ms, later when the guest is busy) it sends on it, and loses what it
# sends: with the kernel alone as with the fast path, a number that
# depends on timing (0 to 13 of 200 either way in seven runs, 10 more on
# the fast path in one beside a full make check). The fast path may answer
# up to 20 fewer (0.2 s of this traffic), and forwards the rest.
# On hook xdp (mode auto) the bond runs natively on its slaves, which
# then take XDP frames too: both ways on the fast path. Before Linux 6.3
# (no XDP features) it runs generic on the bond itself, as nic1 does, and
# generic redirects reach any device: both ways too.
nic_failover() {
	local got=() base pass hook=${2:-tc} mode=native
	nic_side1
	nic_bond2 "$1"
	nic_ready "$1"
	for pass in kernel fast; do
		if [[ $pass == fast ]]; then
			ip -n "$XF_NS_R1" link set nic4 up
			ip -n "$XF_NS_H2" link set nic5 up
			nic_ready "$1"
			run -0 xr route attach dev nic1 dev bond0 hook "$hook"
			if [[ $hook == xdp ]]; then
				! kernel_lacks xdp_features || mode=generic
				assert_equal "$(xr -j route show dev bond0 | jq -r '.interfaces[0].mode')" "$mode"
			fi
			fast_pings "$XF_H2_IP4" "$XF_H2_IP6" nic1 bond0
		fi
		base=$(kstat "$XF_NS_H2" IcmpInEchos)
		in_h1 ping -c 200 -i 0.01 -W 1 -q "$XF_H2_IP4" >"$BATS_TEST_TMPDIR/$pass" 2>&1 &
		BG_PID=$!
		wait_until "$(vm_slow 5)" kstat_ge "$XF_NS_H2" IcmpInEchos $((base + 50))
		ip -n "$XF_NS_R1" link set nic4 down
		ip -n "$XF_NS_H2" link set nic5 down
		wait "$BG_PID" || true
		BG_PID=
		got+=("$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$BATS_TEST_TMPDIR/$pass")")
	done
	echo "# $1 on hook $hook, answered of 200: kernel ${got[0]}, fast path ${got[1]}" >&3
	((got[0] >= 150 && got[1] >= got[0] - 20)) ||
		fail "the fast path had ${got[1]} of 200 answered, the kernel ${got[0]}"
	# After the event too, on the fast path: its 20 before, and most of
	# the 200 requests (the replies come back on bond0).
	(($(ctr nic1 fast) >= 20 + 150)) || fail "nic1 forwarded $(ctr nic1 fast)"
	(($(ctr bond0 fast) >= 20 + 150)) || fail "bond0 forwarded $(ctr bond0 fast)"
}

# nic_ready MODE: h1 reaches h2; for 802.3ad, once both ends aggregate
# both slaves (else the frames of an individual port are dropped).
nic_ready() {
	if [[ $1 == 802.3ad ]]; then
		wait_until "$(vm_slow 10)" nic_lacp "$XF_NS_R1" 2
		wait_until "$(vm_slow 10)" nic_lacp "$XF_NS_H2" 2
	fi
	wait_until 10 nic_reach
}

# bats test_tags=guest
@test "nic: a balance-xor bond of two virtio-net NICs forwards both ways on hook tc; a slave taken down under traffic loses no more than the kernel does" {
	need_nics
	if kernel_lacks tcx; then skip "a bond is a member on hook tc only, which needs tcx"; fi
	nic_failover balance-xor
}

# In make check-kernels only: balance-xor stands for bonds in the CI subset.
@test "nic: an 802.3ad bond (LACP) of two virtio-net NICs forwards both ways on hook tc; a slave taken down under traffic loses no more than the kernel does" {
	need_nics
	if kernel_lacks tcx; then skip "a bond is a member on hook tc only, which needs tcx"; fi
	nic_failover 802.3ad
}

# bats test_tags=guest
@test "nic: a balance-xor bond of two virtio-net NICs on hook xdp (natively on its slaves, where it can) forwards both ways; a slave taken down under traffic loses no more than the kernel does" {
	need_nics
	nic_failover balance-xor xdp
}

# In make check-kernels only, as on hook tc.
@test "nic: an 802.3ad bond (LACP) of two virtio-net NICs on hook xdp (natively on its slaves, where it can) forwards both ways; a slave taken down under traffic loses no more than the kernel does" {
	need_nics
	nic_failover 802.3ad xdp
}

# active-backup: what the backup receives is the bond's to drop; the
# program reads which slave is active at each frame. In make
# check-kernels only.
@test "nic: an active-backup bond of two virtio-net NICs on hook xdp (natively on its slaves, where it can) forwards both ways; the backup taken over under traffic loses no more than the kernel does" {
	need_nics
	nic_failover active-backup xdp
}

# A bond takes XDP frames (its own ndo_xdp_xmit picks the slave) only
# while every slave does, and a virtio-net NIC does only while it runs an
# XDP program itself: with the bond on hook tc, what nic1's XDP would send
# into it is passed (no_xmit) and the kernel forwards it; the replies come
# out of the bond on tc into nic1, on the fast path. In make check-kernels
# only.
@test "nic: a NIC on hook xdp with a balance-xor bond as its egress: what XDP would send into the bond is passed (no_xmit), the replies forwarded" {
	local before
	need_nics
	if kernel_lacks tcx; then skip "a bond is a member on hook tc only, which needs tcx"; fi
	nic_side1
	nic_bond2
	nic_ready balance-xor
	run -0 xr route attach dev nic1 hook xdp
	run -0 xr route attach dev bond0
	before=$(kfwd_mark nic1 bond0)
	run -0 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 10 received"
	run -0 ping6 10 "$XF_H2_IP6" -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(ctr bond0 forwarded)" 20
	assert_equal "$(ctr nic1 no_xmit)" 20
	assert_equal "$(ctr nic1 fast)" 0
	kfwd_is "$before" 20 nic1 bond0
}

# nic_cable A B: xfwd redirect cables r1's A and B both ways (the NICs
# among them promiscuous: a cable carries frames for h2's MAC, which a
# NIC's unicast filter, qemu's virtio-net as a real one, drops), h2 has
# an address in h1's subnet, and h1 reaches it through the cable with r1's
# stack seeing nothing.
nic_cable() {
	local in4 d
	for d in "$1" "$2"; do
		[[ $d != nic* ]] || ip -n "$XF_NS_R1" link set "$d" promisc on
	done
	run -0 xr redirect add dev "$1" to "$2"
	run -0 xr redirect add dev "$2" to "$1"
	in4=$(kstat "$XF_NS_R1" IpInReceives)
	run -0 ping4 10 198.18.1.9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(kstat "$XF_NS_R1" IpInReceives)" "$in4"
	run -0 xr redirect del dev "$1" all
	run -0 xr redirect del dev "$2" all
}

# bats test_tags=guest
@test "nic: redirect cables a virtio-net NIC and a veth both ways; r1's stack sees nothing" {
	need_nics
	nic_side1
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	nic_cable nic1 veth2
}

# bats test_tags=guest
@test "nic: redirect cables two virtio-net NICs both ways; r1's stack sees nothing" {
	need_nics
	nic_side1
	nic_side2
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev nic3
	nic_cable nic1 nic2
}

# bats test_tags=guest
@test "nic: chain on a virtio-net NIC: a filter before route drops what it names, route forwards the rest on the fast path" {
	need_nics
	nic_as_veths
	wait_until 10 nic_reach
	IF_PIN=$PIN_DIR/$(ifindex "$XF_NS_R1" veth1)
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	if ! kernel_lacks xdp_features; then
		assert_equal "$(xr -j route show dev veth1 | jq -r '.interfaces[0].mode')" native
	fi
	filter_before_route
	run -0 xr route detach all
	assert_equal "$(members)" "filter"
	udp 20
	assert_equal "$(rx received)" 0
	run -0 xr chain del dev veth1 all
}
