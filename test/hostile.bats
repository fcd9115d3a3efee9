#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Hostile packets: the corpus of test/fixtures/corpus.py (malformed and
# unusual frames plus well-formed controls) sent from h1 through r1 to h2
# three times: kernel forwarding only, route attach hook xdp, hook tc. What
# arrives at h2 must be the same frames, byte for byte, every time, and the
# fast path's counters must show it forwarded the controls only.
#
# To make the runs comparable, everything that could differ between them is
# fixed first: MACs and MTUs are set, every neighbour entry is permanent (no
# ARP/ND while sending, no unresolved first packet), GRO is on at both hosts
# in all three runs (hook xdp needs it on veth, and it must not be the only
# difference), h2 does not own the corpus destination and does not forward,
# so it answers nothing, and r1's ICMP rate limits are off. r1's own frames
# that reach h2 are kept apart: ARP/ND/MLD are left out, ICMP errors that r1
# makes are compared separately with the IPv4 ID masked (the kernel takes a
# new one per message).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/hostile
load helpers/vlan

setup_file() {
	_need_root
	_common_setup
	hostile_topo
	PIN_DIR=$(pin_dir)
	export PIN_DIR
	CORPUS=$BATS_FILE_TMPDIR/corpus.txt
	export CORPUS
	gen_corpus "$CORPUS"
}

teardown_file() {
	xfwd -n "$XF_NS_R1" route detach all >/dev/null 2>&1 || true
	topo_destroy
}

setup() {
	_common_setup
}

teardown() {
	[[ -z ${CAP_PID:-} ]] || kill "$CAP_PID" 2>/dev/null || true
	xr route detach all >/dev/null 2>&1 || true
	ip -n "$XF_NS_R1" link del veth1.100 2>/dev/null || true
	ip -n "$XF_NS_R1" link del tun0 2>/dev/null || true
	# What detach all leaves (pins outlive the namespace, run state
	# stays in /run) fails the test.
	left_behind "$PIN_DIR" "/run/xfwd/${PIN_DIR##*/}"
}

@test "the corpus: deterministic, over 200 frames, every category there" {
	local again=$BATS_TEST_TMPDIR/again.txt kind
	gen_corpus "$again"
	run -0 cmp "$CORPUS" "$again"
	run -0 wc -l <"$CORPUS"
	((output >= 200))
	for kind in ctl4 ctl6 trunc- ip4-totlen ip4-ihl ip6-plen udp4-len ip4-csum \
		ip4-opt frag4 frag6 ttl4-0 ttl4-1 hlim6-0 hlim6-1 ext6-hbh ext6-rh ip6-version \
		ext6-long vlan- qinq big4 big6 l2-bcast l2-mcast l3-dst martian4-src \
		martian6-src; do
		grep -q " $kind" "$CORPUS" || fail "no $kind frame in the corpus"
	done
	echo "# corpus: $(wc -l <"$CORPUS") frames: $(count fast) fast," \
		"$(count kernel) kernel, $(count early) early, $(count wire) wire" >&3
}

@test "kernel forwarding only: every well-formed control arrives as forwarding makes it" {
	kernel_reference
	local d=$BATS_FILE_TMPDIR
	# Every frame the fast path would forward, the kernel forwards too, as
	# forwarding makes it (the "fast" label is that claim); some others it
	# forwards as well (IPv4 options, hop-by-hop, VLAN 0, fragments of what
	# is too big), and nothing is left of the rest.
	run -0 corpus expect "$CORPUS" "$d/expect" $R1B_MAC $H2_MAC
	run -0 env LC_ALL=C comm -23 "$d/expect" "$d/kernel.fwd"
	assert_output ""
	run -0 wc -l <"$d/kernel.fwd"
	((output > $(count fast)))
}

@test "hook xdp: the same frames at h2 as kernel forwarding, byte for byte" {
	hostile_hook xdp
}

@test "hook tc: the same frames at h2 as kernel forwarding, byte for byte" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	hostile_hook tc
}

# With a VLAN device for id 100 on r1's veth1 (in the guests: this machine
# has no 802.1Q), the corpus's frames tagged 100 are r1's to forward: the
# kernel forwards them, and so does the fast path with veth1.100 in the set;
# every other tag (none, QinQ, VLAN 0, 4095, truncated after the tag) still
# goes to the kernel. h1's addresses route back through veth1.100, as the
# fast path asks of a tagged source where it cannot read the device's
# state. On hook xdp every passed tagged frame goes to the kernel with its
# bytes as they came, the tag moved back where it was.
vlan_corpus() {
	local hook=$1 n l2
	need_vlan
	if [[ $hook == tc ]] && kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	vlan_dev "$XF_NS_R1" veth1 100
	ip -n "$XF_NS_R1" route add "$XF_H1_IP4/32" dev veth1.100
	ip -n "$XF_NS_R1" -6 route add "$XF_H1_IP6/128" dev veth1.100
	if [[ ! -s $BATS_FILE_TMPDIR/kernel_vlan.fwd ]]; then
		send_corpus kernel_vlan
		assert_equal "$FWD $PASSED" "0 0"
	fi
	# h1 sends raw frames (the tags in them); txvlan off only satisfies
	# attach's check for what h1's VLAN devices would send.
	ip netns exec "$XF_NS_H1" ethtool -K veth0 txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -0 xr route attach dev veth1 dev veth1.100 dev veth2 hook "$hook"
	send_corpus "${hook}_vlan"
	same_as_kernel_as kernel_vlan "${hook}_vlan"
	n=$(grep -c '^kernel vlan-100-' "$CORPUS")
	assert_equal "$n" 2
	assert_equal "$(($(ctr veth1.100 forwarded)))" "$n"
	fast_went_fast
	l2=$(corpus reasons "$CORPUS" $R1A_MAC "$hook")
	read -ra l2 <<<"$l2"
	assert_equal "$L2" "vlan $((l2[1] - n)) not_ip ${l2[3]} other_host ${l2[5]}"
}

# bats test_tags=guest
@test "hook tc, a VLAN device in the set: the tagged frames too, byte for byte" {
	vlan_corpus tc
}

# bats test_tags=guest
@test "hook xdp, a VLAN device in the set: the tagged frames too, byte for byte" {
	vlan_corpus xdp
}

# A layer 3 device's packets start at their IP header: the corpus's IP
# packets, without their Ethernet headers, arrive on r1's tun device as a
# tunnel's decapsulated packets do, h1's addresses routed back through it.
# What the kernel forwards to h2 (and what r1 answers there) is the
# reference; hook tc with tun0 in the set must give the same bytes, having
# forwarded at least the controls and the end marker itself.
@test "hook tc, a layer 3 device in the set: the corpus's IP packets through tun, byte for byte" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	local ref
	ip -n "$XF_NS_R1" tuntap add dev tun0 mode tun
	ip -n "$XF_NS_R1" link set tun0 up
	ip -n "$XF_NS_R1" route add "$XF_H1_IP4/32" dev tun0
	ip -n "$XF_NS_R1" -6 route add "$XF_H1_IP6/128" dev tun0
	export HOSTILE_TUN=tun0
	send_corpus kernel_tun
	assert_equal "$FWD $PASSED" "0 0"
	ref=$SENT
	run -0 xr route attach dev tun0 dev veth2 hook tc
	send_corpus tc_tun
	assert_equal "$SENT" "$ref"
	same_as_kernel_as kernel_tun tc_tun
	((FWD >= $(count fast) + 1)) || fail "forwarded $FWD < $(count fast) + 1"
}
