#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Jumbo frames: h1 -- r1 -- h2 at MTU 9000. On hook xdp a frame over a
# page comes in several buffers (xdp.frags); the fast path forwards it
# whole, counts its whole length, checks the egress MTU against it as the
# kernel does, and where XDP cannot take the MTU the Error says why.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

PROGS="$BATS_TEST_DIRNAME/../build/test/progs"

setup_file() {
	_need_root
}

setup() {
	route_setup
}

teardown() {
	route_teardown
}

# mtu_all MTU [MTU2]: the MTU of h1's link (both ends), and of h2's link
# (MTU2, default the same).
mtu_all() {
	local b=${2:-$1}
	in_h1 ip link set dev veth0 mtu "$1"
	in_r1 ip link set dev veth1 mtu "$1"
	in_r1 ip link set dev veth2 mtu "$b"
	in_h2 ip link set dev veth0 mtu "$b"
}

# IPv4 and IPv6 pings of 9000-byte packets: the payloads that fill them.
BIG4=8972
BIG6=8952

# big_went DEV N: DEV's N big packets went the fast path; on the plain
# build, which cannot read route MTUs and passes what is over 1280 bytes,
# the kernel's way (reason mtu) instead.
big_went() {
	if kernel_lacks kern_ctx; then
		assert_equal "$(ctr "$1" mtu)" "$2"
		assert_equal "$(ctr "$1" fast)" 0
	else
		assert_equal "$(ctr "$1" forwarded)" "$2"
	fi
}

# jumbo_ping: 3 pings of 9000 bytes each way h1 -> h2, both families,
# with DF: all answered.
jumbo_ping() {
	ping4 3 "$XF_H2_IP4" -s "$BIG4" -M do -q
	ping6 3 "$XF_H2_IP6" -s "$BIG6" -M do -q
}

# bats test_tags=guest
@test "jumbo: 9000-byte pings, both families, on each hook: forwarded whole on the fast path, counted at their length (the plain build: passed, mtu)" {
	local hook
	mtu_all 9000
	warm_up
	run -0 jumbo_ping
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		run -0 jumbo_ping
		# 3 + 3 requests on veth1, 3 + 3 replies on veth2: all on the
		# fast path, each its whole frame's bytes.
		big_went veth1 6
		big_went veth2 6
		kernel_lacks kern_ctx ||
			assert_equal "$(ctr veth1 forwarded_bytes)" $((3 * 9014 + 3 * 9014))
		run -0 xr route detach all
	done
}

@test "jumbo: UDP and TCP at MTU 9000 on each hook reach h2 whole, on the fast path" {
	local hook port=5201 fwd rcvbuf
	mtu_all 9000
	warm_up
	in_h2 iperf3 -s -D -p "$port" -I "$BATS_TEST_TMPDIR/iperf.pid" >/dev/null
	wait_until 5 test -s "$BATS_TEST_TMPDIR/iperf.pid"
	BG_PID=$(<"$BATS_TEST_TMPDIR/iperf.pid")	# route_teardown ends it
	wait_until 5 bash -c "ip netns exec $XF_NS_H2 ss -ltn | grep -q :$port"
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		# UDP datagrams of 8,900 bytes, 200 of them at 20 Mbit/s. All
		# reach h2; the only ones its server may miss are those its
		# socket had no room for (about 13 such datagrams fit in the
		# default buffer: a busy machine delays the server that long).
		rcvbuf=$(kstat "$XF_NS_H2" UdpRcvbufErrors)
		run -0 in_h1 timeout 20 iperf3 -c "$XF_H2_IP4" -p "$port" -u -l 8900 -b 20M \
			-k 200 -J
		assert_equal "$(jq -r '.end.sum.lost_packets' <<<"$output")" \
			$(($(kstat "$XF_NS_H2" UdpRcvbufErrors) - rcvbuf))
		assert_equal "$(jq -r '.end.sum.packets' <<<"$output")" 200
		fwd=$(ctr veth1 forwarded)
		if kernel_lacks kern_ctx; then
			(($(ctr veth1 mtu) >= 200))
		else
			((fwd >= 200))
		fi
		# TCP: 8 MB, in segments of the MTU, all sent and acknowledged
		# (iperf3's received sum leaves out its last interval). -n stops
		# at the first write that reaches it: after a short write under
		# load, one block more (8519680 in one clean run), never less.
		run -0 in_h1 timeout 20 iperf3 -c "$XF_H2_IP4" -p "$port" -n 8M -J
		(($(jq -r '.end.sum_sent.bytes' <<<"$output") >= 8 * 1024 * 1024))
		assert_equal "$(jq -r '.end.sum_sent.retransmits' <<<"$output")" 0
		kernel_lacks kern_ctx || (($(ctr veth1 forwarded) > fwd + 500))
		run -0 xr route detach all
	done
}

# big_answer FAMILY: a 9000-byte packet with DF from h1 to h2 (df_ping).
big_answer() {
	if [[ $1 == 6 ]]; then df_ping 6 "$BIG6"; else df_ping 4 "$BIG4"; fi
}

@test "jumbo: a 9000 -> 1500 hop answers fragmentation needed and packet too big as the kernel does, on each hook" {
	local hook
	mtu_all 9000 1500
	warm_up
	run -0 big_answer 4
	assert_output "mtu 1500"
	run -0 big_answer 6
	assert_output "mtu 1500"
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		run -0 big_answer 4
		assert_output "mtu 1500"
		run -0 big_answer 6
		assert_output "mtu 1500"
		# Passed for the kernel's answer, none forwarded.
		assert_equal "$(ctr veth1 mtu)" 2
		assert_equal "$(ctr veth1 fast)" 0
		run -0 xr route detach all
	done
}

@test "jumbo: where XDP cannot take the MTU (a program of the chain is not xdp.frags), the Error says so and nothing changes" {
	local before
	mtu_all 9000
	before=$(in_r1 ip -d link show dev veth1)
	run -1 --separate-stderr xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name pass
	assert_equal "${#lines[@]}" 0
	assert_equal "$stderr" "Error: cannot attach the chain to veth1: its driver takes no XDP program at MTU 9000 (or at its peer's): frames over a page need every program of the chain to be xdp.frags, and a driver with multi-buffer XDP; lower the MTU, or use hook tc."
	assert_equal "$(in_r1 ip -d link show dev veth1)" "$before"
	run -0 xr chain show dev veth1
	assert_output ""
}
