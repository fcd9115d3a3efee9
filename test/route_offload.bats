#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# hook xdp and the veth peers' transmit offloads. A peer that leaves its TCP
# and UDP checksums to the device hands them on unfinished; the kernel's
# forwarding finishes them, XDP cannot, and the receiver drops what the
# fast path forwarded. A peer with tx-vlan offload hands a tag on in skb
# metadata, which XDP does not see: the kernel takes the frame for its
# VLAN's, the fast path for untagged. route attach hook xdp refuses such a
# peer unless -force, and route show warns when one turns either on later.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

setup_file() {
	_need_root
}

setup() {
	route_setup
	in_h1 ethtool -K veth0 gro on >/dev/null
	in_h2 ethtool -K veth0 gro on >/dev/null
	warm_up
}

teardown() {
	route_teardown
}

# udp_to_h2 COUNT: COUNT datagrams from a socket of h1 to one of h2; prints
# how many h2's socket received.
udp_to_h2() {
	local d=$BATS_TEST_TMPDIR/udp
	mkdir -p "$d"
	rm -f "$d"/*
	ip netns exec "$XF_NS_H2" /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/udpseq.py" \
		recv "$XF_H2_IP4" 7000 5 "$d" 3>&- &
	BG_PID=$!
	wait_until 5 test -e "$d/ready"
	in_h1 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/udpseq.py" send "$XF_H2_IP4" 7000 \
		"$1" 500 >/dev/null
	wait "$BG_PID" || true
	BG_PID=
	jq -r '.received' "$d/rx.json"
}

@test "hook xdp refuses a peer with tx checksum or tx-vlan offload on, names it, changes nothing" {
	# The veth defaults: both on.
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_output ""
	assert_equal "$stderr" "Error: veth1's peer veth0 (netns $XF_NS_H1) has tx checksum and tx-vlan offload on: XDP would forward its TCP and UDP with unfinished checksums and its tagged frames as untagged ones; run \"ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off\" in its namespace, use hook tc, or -force."
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	# Each alone is refused too.
	in_h1 ethtool -K veth0 tx off >/dev/null
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "$stderr" "Error: veth1's peer veth0 (netns $XF_NS_H1) has tx-vlan offload on, and XDP would forward its tagged frames as untagged ones; run \"ethtool -K veth0 txvlan off tx-vlan-stag-hw-insert off\" in its namespace, use hook tc, or -force."
	in_h1 ethtool -K veth0 tx on txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "$stderr" "Error: veth1's peer veth0 (netns $XF_NS_H1) has tx checksum offload on, and XDP would forward its TCP and UDP with unfinished checksums; run \"ethtool -K veth0 tx off\" in its namespace, use hook tc, or -force."
	# One peer off is not enough: veth2's peer is named next.
	in_h1 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "${stderr%%: XDP*}" "Error: veth2's peer veth0 (netns $XF_NS_H2) has tx checksum and tx-vlan offload on"
	run -0 no_hooks veth1 veth2
	# hook tc keeps the offload: nothing to refuse.
	run -0 xr route attach dev veth1 dev veth2 hook tc
}

@test "hook xdp with the peers' offload off: TCP and UDP sockets on the fast path" {
	tx_off
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	run -0 xr -j route show
	assert_equal "$(jq '[.interfaces[] | select(has("warning"))] | length' <<<"$output")" 0
	run -0 udp_to_h2 200
	assert_output 200
	(($(ctr veth1 forwarded) >= 200))
	fwd=$(ctr veth1 forwarded_bytes)
	iperf_server
	json=$(in_h1 timeout 20 iperf3 -c "$XF_H2_IP4" -t 1 -J)
	iperf_server_done
	# A megabyte at least, all of it through the fast path.
	(($(jq '.end.sum_received.bytes' <<<"$json") > 1000000))
	(($(ctr veth1 forwarded_bytes) > fwd + 1000000))
}

@test "-force attaches anyway; the datagrams it forwards never reach the socket, show warns" {
	local before u
	in_h2 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -0 xr -force route attach dev veth1 dev veth2 hook xdp
	run -0 xr -j route show dev veth1
	assert_equal "$(jq -r '.interfaces[0].warning' <<<"$output")" \
		"peer veth0 (netns $XF_NS_H1) has tx checksum offload on: its TCP and UDP leave the fast path with unfinished checksums"
	run -0 xr -j route show dev veth2
	assert_equal "$(jq '.interfaces[0] | has("warning")' <<<"$output")" false
	# Why attach refuses: forwarded, every one, and dropped at h2; but
	# for those passed for the neighbour's upkeep, which the kernel
	# sends with their checksums finished.
	before=$(ctr veth1 forwarded) u=$(ctr veth1 neigh_upkeep)
	run -0 udp_to_h2 50
	assert_output $(($(ctr veth1 neigh_upkeep) - u))
	(($(ctr veth1 forwarded) >= before + 50))
	run -0 xr route show dev veth1
	assert_output --partial "has tx checksum offload on"
}

@test "route show warns when a peer turns the offload on after the attach" {
	tx_off
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	in_h2 ethtool -K veth0 tx on >/dev/null
	run -0 xr -j route show
	assert_equal "$(jq -r '[.interfaces[] | select(has("warning")) | .dev] | join(" ")' <<<"$output")" veth2
	in_h2 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -0 xr -j route show
	assert_equal "$(jq '[.interfaces[] | select(has("warning"))] | length' <<<"$output")" 0
}

# tagged_pings HOOK: 5 pings from h1 whose IPv4 packets h1's tc egress
# tags with VLAN 100 (test/progs/vlan_push.bpf.c); prints how many came
# back. r1 has no VLAN device: the kernel takes them for VLAN 100's and
# drops them.
tagged_pings() {
	ip netns exec "$XF_NS_R1" ping -c 1 -W 1 -q "$XF_H2_IP4" >/dev/null
	in_h1 tc qdisc add dev veth0 clsact
	in_h1 tc filter add dev veth0 egress bpf da obj "$XF_TOP/build/test/progs/vlan_push.bpf.o" sec tc
	in_h1 ping -c 5 -i 0.1 -W 1 -q "$XF_H2_IP4" | sed -n 's/.* \([0-9]*\) received.*/\1/p'
	in_h1 tc qdisc del dev veth0 clsact
}

@test "a tag in skb metadata: the kernel drops what -force would forward; with txvlan off both drop it" {
	local u n
	tx_off
	in_h1 ethtool -K veth0 txvlan on >/dev/null
	assert_equal "$(tagged_pings)" 0
	# What the refusal is for: XDP sees no tag and forwards.
	run -0 xr -force route attach dev veth1 dev veth2 hook xdp
	run -0 xr -j route show dev veth1
	assert_equal "$(jq -r '.interfaces[0].warning' <<<"$output")" \
		"peer veth0 (netns $XF_NS_H1) has tx-vlan offload on: its tagged frames look untagged to the fast path"
	# All five, but for those passed for the neighbour's upkeep, which
	# the kernel drops.
	u=$(ctr veth1 neigh_upkeep)
	n=$(tagged_pings)
	assert_equal "$n" $((5 - ($(ctr veth1 neigh_upkeep) - u)))
	run -0 xr route detach all
	# The tag in the frame: passed (no VLAN device of the set has id
	# 100), and dropped as by the kernel.
	in_h1 ethtool -K veth0 txvlan off >/dev/null
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "$(tagged_pings)" 0
	(($(ctr veth1 vlan_unknown) >= 5)) || fail "not passed as vlan_unknown: $(ctr veth1 vlan_unknown)"
}
