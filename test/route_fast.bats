#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route: the fast path's shortcuts and their guards, with real traffic
# h1 -- r1 -- h2. Hook tc delivers into the egress veth's peer with
# bpf_redirect_peer() only where the kernel's way out of the veth would do
# nothing the shortcut skips (lib/route_fast.c); everywhere else it sends
# through the egress device as before. Traffic addressed to r1 is passed
# before the FIB lookup when r1's addresses say so. Each guard has a test
# in which the shortcut without the guard gives another result than the
# kernel.
#
# Which way a forwarded packet went shows on veth2's tx counter: a packet
# sent through veth2 counts there, one delivered into its peer does not.
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

# txp: packets veth2 of r1 has sent.
txp() {
	ip -n "$XF_NS_R1" -j -s link show dev veth2 | jq -er '.[0].stats64.tx.packets'
}

# through_peer N: N pings h1 -> h2 answered, forwarded by the fast path,
# and not sent through veth2: delivered into its peer. r1's own frames on
# veth2 (ARP, neighbour discovery) may count there, a few, not N.
through_peer() {
	local before
	before=$(txp)
	run -0 ping4 "$1" "$XF_H2_IP4" -q
	assert_output --partial "$1 packets transmitted, $1 received"
	assert_equal "$(ctr veth1 forwarded)" "$1"
	(( $(txp) - before < $1 / 2 ))
}

# through_egress N: N pings h1 -> h2 answered, forwarded by the fast path,
# each sent through veth2.
through_egress() {
	local before
	before=$(txp)
	run -0 ping4 "$1" "$XF_H2_IP4" -q
	assert_output --partial "$1 packets transmitted, $1 received"
	assert_equal "$(ctr veth1 forwarded)" "$1"
	(( $(txp) - before >= $1 ))
}

# lost_both N ARGS...: N pings h1 -> h2 get no answer from the kernel, and
# none from the fast path either (which forwards them all the same).
lost_both() {
	local n=$1
	shift
	run -1 ping4 "$n" "$XF_H2_IP4" -q "$@"
	assert_output --partial "$n packets transmitted, 0 received"
	run -0 attach tc
	run -1 ping4 "$n" "$XF_H2_IP4" -q "$@"
	assert_output --partial "$n packets transmitted, 0 received"
	assert_equal "$(ctr veth1 forwarded)" "$n"
}

# h1_pins_r1: h1's neighbour entries for r1 permanent, so that no unicast
# probe of r1 (ARP, neighbour solicitation) falls among a test's frames
# and counts beside them.
h1_pins_r1() {
	local m
	m=$(mac "$XF_NS_R1" veth1)
	in_h1 ip neigh replace "$XF_R1_IP4A" lladdr "$m" dev veth0 nud permanent
	in_h1 ip -6 neigh replace "$XF_R1_IP6A" lladdr "$m" dev veth0 nud permanent
}

tc_or_skip() {
	if kernel_lacks tcx; then skip "no tcx before Linux 6.6"; fi
}

@test "hook tc: a veth egress whose peer is up in another namespace takes redirect_peer" {
	tc_or_skip
	warm_up
	run -0 attach tc
	through_peer 10
	run -0 ping6 5 "$XF_H2_IP6" -q
	assert_output --partial "5 packets transmitted, 5 received"
}

# rx_stamp: one datagram h1 -> h2:4000, read by h2 only after it has been
# forwarded; prints when h2's kernel timestamp was taken ("arrival" or
# "read", test/fixtures/rxstamp.py).
rx_stamp() {
	local d=$BATS_TEST_TMPDIR/stamp pid n
	rm -rf "$d"
	mkdir -p "$d"
	mkfifo "$d/in"
	n=$(kstat "$XF_NS_H2" IpInDelivers)
	ip netns exec "$XF_NS_H2" /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/rxstamp.py" \
		"$XF_H2_IP4" 4000 <"$d/in" >"$d/out" 3>&- &
	pid=$!
	BG_PID=$pid
	exec 5>"$d/in"
	# The reader opens out only once it has in (a FIFO): until then
	# grep finds no file, and says nothing (-s) into the test's output.
	wait_until 5 grep -qs ready "$d/out"
	in_h1 bash -c "echo x >/dev/udp/$XF_H2_IP4/4000"
	wait_until 3 kstat_ge "$XF_NS_H2" IpInDelivers $((n + 1))
	echo go >&5
	exec 5>&-
	wait "$pid" || true
	BG_PID=
	tail -n 1 "$d/out"
}

@test "hook tc: redirect_peer keeps the receive timestamp, as the kernel's way gives one on arrival" {
	tc_or_skip
	warm_up
	run -0 rx_stamp
	assert_output arrival
	run -0 attach tc
	# The way forwarded packets take here: into veth2's peer.
	through_peer 10
	run -0 rx_stamp
	assert_output arrival
	assert_equal "$(ctr veth1 forwarded)" 11
}

@test "hook tc: a qdisc on the egress (here one that drops all) keeps the egress way" {
	tc_or_skip
	warm_up
	ip -n "$XF_NS_R1" link set dev veth2 txqueuelen 0
	tc -n "$XF_NS_R1" qdisc add dev veth2 root pfifo limit 0
	lost_both 3
}

@test "hook tc: a tc egress filter on the egress keeps the egress way" {
	tc_or_skip
	warm_up
	tc -n "$XF_NS_R1" qdisc add dev veth2 clsact
	tc -n "$XF_NS_R1" filter add dev veth2 egress bpf da \
		obj "$XF_TOP/build/test/progs/tc_count.bpf.o" sec tc
	run -0 attach tc
	through_egress 5
}

@test "hook tc: an XDP program on the peer keeps the egress way" {
	tc_or_skip
	warm_up
	ip -n "$XF_NS_H2" link set dev veth0 xdp obj "$XF_TOP/build/test/progs/pass.bpf.o" sec xdp
	run -0 attach tc
	through_egress 5
}

@test "hook tc: a peer MTU below the egress's keeps the egress way (too big is dropped)" {
	tc_or_skip
	warm_up
	ip -n "$XF_NS_H2" link set dev veth0 mtu 1400
	lost_both 3 -s 1450 -M dont
	run -0 ping4 3 "$XF_H2_IP4" -q -s 1300
	assert_output --partial "3 packets transmitted, 3 received"
}

@test "hook tc: a neighbour MAC that is not the peer's keeps the egress way (other host)" {
	tc_or_skip
	warm_up
	ip -n "$XF_NS_R1" neigh replace "$XF_H2_IP4" lladdr 02:00:5e:00:53:01 dev veth2 nud permanent
	lost_both 3
}

@test "hook tc: egress without TSO or tx checksumming keeps the egress way" {
	tc_or_skip
	warm_up
	in_r1 ethtool -K veth2 tx off >/dev/null
	run -0 attach tc
	through_egress 5
	xr route detach all
	in_r1 ethtool -K veth2 tx on tso off >/dev/null
	run -0 attach tc
	through_egress 5
}

@test "hook tc: a change after the attach counts from the next refresh" {
	tc_or_skip
	warm_up
	run -0 attach tc
	through_peer 10
	ip -n "$XF_NS_H2" link set dev veth0 xdp obj "$XF_TOP/build/test/progs/pass.bpf.o" sec xdp
	# Read again on the next refresh (route refresh; attach, detach).
	run -0 xr route refresh
	local before
	before=$(txp)
	run -0 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 10 received"
	(( $(txp) - before >= 10 ))
}

# --- traffic addressed to r1 ----------------------------------------------

# local_pass HOOK: pings to both of r1's addresses are answered, passed as
# not_forwarded, and forwarded traffic still is.
local_pass() {
	if no_tcx "$1"; then tcx_refused; return; fi
	warm_up
	run -0 attach "$1"
	run -0 ping4 4 "$XF_R1_IP4A" -q
	assert_output --partial "4 packets transmitted, 4 received"
	run -0 ping4 4 "$XF_R1_IP4B" -q
	assert_output --partial "4 packets transmitted, 4 received"
	run -0 ping6 4 "$XF_R1_IP6B" -q
	assert_output --partial "4 packets transmitted, 4 received"
	assert_equal "$(ctr veth1 not_forwarded)" 12
	run -0 ping4 4 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 4
}

@test "hook xdp: traffic to r1's own addresses is passed, counted not_forwarded" {
	local_pass xdp
}

@test "hook tc: traffic to r1's own addresses is passed, counted not_forwarded" {
	local_pass tc
}

@test "local hint: an address in the slot of one of r1's is still forwarded" {
	local a
	tc_or_skip
	warm_up
	# Both share 198.18.2.254's slot of xf_rt_local (XF_RT_LOCAL_SLOT,
	# the plain build's hint) and its bit of xf_rt_src4's header (the
	# kctx build's): .126 also its bucket, .190 the one 64 away.
	for a in 198.18.2.126 198.18.2.190; do
		ip -n "$XF_NS_H2" addr add $a/32 dev veth0
		run -0 ping4 1 $a -q
	done
	run -0 attach tc
	for a in 198.18.2.126 198.18.2.190; do
		run -0 ping4 4 $a -q
		assert_output --partial "4 packets transmitted, 4 received"
	done
	assert_equal "$(ctr veth1 forwarded)" 8
	assert_equal "$(ctr veth1 not_forwarded)" 0
}

@test "local hint: a stale address (moved to h2 after the attach) is only passed" {
	tc_or_skip
	warm_up
	ip -n "$XF_NS_R1" addr add 198.18.2.77/32 dev lo
	run -0 attach tc
	ip -n "$XF_NS_R1" addr del 198.18.2.77/32 dev lo
	ip -n "$XF_NS_H2" addr add 198.18.2.77/32 dev lo
	run -0 ping4 4 198.18.2.77 -q
	assert_output --partial "4 packets transmitted, 4 received"
	# Passed on the stale hint, forwarded by the kernel; after a refresh
	# the fast path forwards it.
	assert_equal "$(ctr veth1 not_forwarded)" 4
	assert_equal "$(ctr veth1 forwarded)" 0
	xr route detach all
	run -0 attach tc
	run -0 ping4 4 198.18.2.77 -q
	assert_output --partial "4 packets transmitted, 4 received"
	assert_equal "$(ctr veth1 forwarded)" 4
}

@test "route get still shows the FIB's answer for r1's own address" {
	tc_or_skip
	warm_up
	run -0 attach tc
	run -0 xr route get "$XF_R1_IP4B" from "$XF_H1_IP4" iif veth1
	assert_output --partial not_forwarded
	# The lookup ran: its own answer, not the hint's.
	assert_output --partial "fib_rc:  4"
}

# --- no reverse lookup where the kernel checks no source -------------------

# spoofed_delivered SRC: 5 echo frames h1 -> h2 with source SRC, then 5
# with h1's own; prints how many of the first 5 h2 received by the time
# the other 5 arrived.
spoofed_delivered() {
	local e
	e=$(kstat "$XF_NS_H2" IcmpInEchos)
	SRC4=$1 frames 5 echo4 >/dev/null
	frames 5 echo4 >/dev/null
	wait_until 3 kstat_ge "$XF_NS_H2" IcmpInEchos $((e + 5))
	echo $(($(kstat "$XF_NS_H2" IcmpInEchos) - e - 5))
}

# Two sources that only a source check refuses: r1's own address on veth2
# (fib_validate_source()'s quick check) and the broadcast address of
# veth2's subnet (only its full check, a reverse lookup, sees that).
BCAST4=198.18.2.255

@test "accept_local on: the sources the kernel leaves unchecked are forwarded, without a reverse lookup" {
	warm_up
	in_r1 sysctl -qw net.ipv4.conf.all.accept_local=1
	# The kernel alone forwards both.
	assert_equal "$(spoofed_delivered "$XF_R1_IP4B")" 5
	assert_equal "$(spoofed_delivered $BCAST4)" 5
	per_hook() {
		local hook=$1
		assert_equal "$(spoofed_delivered "$XF_R1_IP4B")" 5
		assert_equal "$(spoofed_delivered $BCAST4)" 5
		assert_equal "$(ctr veth1 forwarded)" 20
		assert_equal "$(ctr veth1 martian)" 0
		# route get skips the lookup the same way: no reverse answer.
		run -0 xr -j route get "$XF_H2_IP4" iif veth1 from "$XF_R1_IP4B"
		assert_equal "$(jq -r .reason <<<"$output")" forwarded
	}
	each_hook per_hook
}

@test "accept_local off: a source that is r1's own address is passed; the kernel drops it" {
	warm_up
	assert_equal "$(spoofed_delivered "$XF_R1_IP4B")" 0
	per_hook() {
		local hook=$1
		assert_equal "$(spoofed_delivered "$XF_R1_IP4B")" 0
		assert_equal "$(ctr veth1 martian)" 5
		assert_equal "$(ctr veth1 forwarded)" 5
	}
	each_hook per_hook
}

@test "accept_local on with rp_filter on: sources are still looked up" {
	warm_up
	in_r1 sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=1
	# h2's subnet as the source, from h1's side.
	assert_equal "$(spoofed_delivered 198.18.2.77)" 0
	per_hook() {
		local hook=$1
		assert_equal "$(spoofed_delivered 198.18.2.77)" 0
		assert_equal "$(ctr veth1 rp_filter)" 5
	}
	each_hook per_hook
}

@test "accept_local on with a realm on a route: sources are still looked up" {
	warm_up
	in_r1 sysctl -qw net.ipv4.conf.all.accept_local=1
	ip -n "$XF_NS_R1" route add 198.18.99.0/24 dev veth2 realm 7
	if [[ $(ip -n "$XF_NS_R1" route show 198.18.99.0/24) != *realm* ]]; then
		skip "this kernel keeps no realms (CONFIG_IP_ROUTE_CLASSID)"
	fi
	# With a realm the kernel looks every source up: a broadcast one is
	# refused.
	assert_equal "$(spoofed_delivered $BCAST4)" 0
	per_hook() {
		local hook=$1
		assert_equal "$(spoofed_delivered $BCAST4)" 0
		assert_equal "$(ctr veth1 martian)" 5
	}
	each_hook per_hook
}

# --- the IPv4 source by r1's addresses, without a reverse lookup ---------


# prog_ids: the members' program ids, which a refresh leaves alone.
prog_ids() {
	xr -j route show | jq -c '[.interfaces[].prog_id]'
}


# passed_by_lookup SRC: on both hooks, 5 frames from SRC are looked up
# backwards, passed as martian, and none reaches h2 (the kernel drops them).
passed_by_lookup() {
	local src=$1
	per_hook() {
		assert_equal "$(spoofed_delivered "$src")" 0
		assert_equal "$(ctr veth1 martian)" 5
		assert_equal "$(source_check "$src")" lookup
	}
	each_hook per_hook
}

@test "source by addresses: an address added after the attach is looked up until a refresh, and passed" {
	warm_up
	per_hook() {
		local hook=$1
		assert_equal "$(source_check "$XF_H1_IP4")" "$(table_check)"
		# r1 gains an address: the table no longer counts (dev_addr_genid
		# moved). The kernel drops the source; so would the table's stale
		# answer be "forward".
		in_r1 ip addr add 198.18.2.200/32 dev lo
		assert_equal "$(spoofed_delivered 198.18.2.200)" 0
		assert_equal "$(ctr veth1 martian)" 5
		assert_equal "$(source_check 198.18.2.200)" lookup
		# A refresh writes the table again, with the new address in it,
		# and leaves the programs and their counters as they are.
		progs=$(prog_ids)
		run -0 xr route refresh
		assert_equal "$(prog_ids)" "$progs"
		assert_equal "$(source_check 198.18.2.200)" "$(table_check)"
		assert_equal "$(spoofed_delivered 198.18.2.200)" 0
		assert_equal "$(ctr veth1 martian)" 10
		in_r1 ip addr del 198.18.2.200/32 dev lo
	}
	each_hook per_hook
}

@test "source by addresses: a subnet broadcast source is forwarded as the kernel does, until a policy rule" {
	warm_up
	# rp_filter off and no rule: the kernel checks only its own addresses.
	assert_equal "$(spoofed_delivered $BCAST4)" 5
	per_hook() {
		local hook=$1
		assert_equal "$(spoofed_delivered $BCAST4)" 5
		if kernel_lacks kern_ctx; then
			# The reverse lookup passes it; the kernel forwards it.
			assert_equal "$(ctr veth1 martian)" 5
		else
			assert_equal "$(ctr veth1 forwarded)" 10
		fi
	}
	each_hook per_hook
	# A policy rule sends the kernel to its full check, which drops it;
	# the fast path looks it up again, on the same packet.
	in_r1 ip rule add from 198.18.3.0/24 table 100
	assert_equal "$(spoofed_delivered $BCAST4)" 0
	passed_by_lookup $BCAST4
}

@test "source by addresses: a local route of the operator's own brings the lookup back" {
	warm_up
	# A local route r1 holds no address for: the kernel's quick check
	# would miss it, so the kernel makes the full one and drops it.
	in_r1 ip route add local 198.18.2.201/32 dev lo
	assert_equal "$(spoofed_delivered 198.18.2.201)" 0
	passed_by_lookup 198.18.2.201
}

# --- IPv6: the local table by r1's addresses, the main table alone --------

# local_table DST: how route get's run of h1 -> DST reached IPv6's tables:
# "addresses" (xf_rt_loc6, then the main table alone), "lookup" (both
# searched by the kernel), or empty (no lookup).
local_table() {
	xr -j route get "$1" iif veth1 from "$XF_H1_IP6" | jq -r '.local_table // empty'
}

# An IPv6 prefix routed to h2 in r1's main table, and an address in it.
NET9=2001:2:0:9::/64
DST9=2001:2:0:9::7

@test "IPv6 local table by addresses: forwarded by the main table alone, r1's own and anycast addresses passed, a route change looked up until a refresh" {
	local before
	warm_up
	in_r1 ip -6 route add $NET9 via "$XF_H2_IP6"
	# h2's ::3e shares the bucket of r1's ::fe (XF_RT_LOC6_BUCKET).
	ip -n "$XF_NS_H2" addr add 2001:2:0:2::3e/128 dev veth0 nodad
	run -0 ping6 1 2001:2:0:2::3e -q
	per_hook() {
		local hook=$1
		assert_equal "$(local_table "$XF_H2_IP6")" "$(table_check)"
		run -0 xr -j route get 2001:2:0:2::3e iif veth1 from "$XF_H1_IP6"
		assert_equal "$(jq -r .reason <<<"$output")" forwarded
		before=$(ctr veth1 forwarded)
		run -0 ping6 5 "$XF_H2_IP6" -q
		assert_output --partial "5 packets transmitted, 5 received"
		(($(ctr veth1 forwarded) >= before + 5)) || fail "not forwarded on $hook"
		# r1's own address and veth2's subnet-router anycast address:
		# the local table's answer, not forwarded.
		run -0 xr -j route get "$XF_R1_IP6B" iif veth1 from "$XF_H1_IP6"
		assert_equal "$(jq -r .reason <<<"$output")" not_forwarded
		run -0 xr -j route get 2001:2:0:2:: iif veth1 from "$XF_H1_IP6"
		assert_equal "$(jq -r .reason <<<"$output")" not_forwarded
		# Any IPv6 route change (fib6_sernum) stops the table until a
		# refresh; the packets still go through, by both tables.
		in_r1 ip -6 route add 2001:2:0:8::/64 via "$XF_H2_IP6"
		assert_equal "$(local_table "$XF_H2_IP6")" lookup
		run -0 ping6 3 "$XF_H2_IP6" -q
		assert_output --partial "3 packets transmitted, 3 received"
		run -0 xr route refresh
		assert_equal "$(local_table "$XF_H2_IP6")" "$(table_check)"
		in_r1 ip -6 route del 2001:2:0:8::/64
	}
	each_hook per_hook
}

# header_bits MAP KEY A:B: the 64 bucket bits of MAP's header (its entry
# KEY, bytes A to B of the value; xfwd_bpf.h), as a number.
header_bits() {
	local hex
	hex=$(bpftool -j map lookup pinned "$(pin_dir)/route/$1" key "$2" 0 0 0 |
		jq -r ".value[$3] | reverse | map(ltrimstr(\"0x\")) | join(\"\")") || return
	echo $((16#$hex))
}

# src4_bits: xf_rt_src4's; bucket b (of 128) holds one of r1's IPv4
# addresses when bit b % 64 is set.
src4_bits() { header_bits xf_rt_src4 128 8:16; }

@test "IPv4 address table: 127.0.0.1 takes no bucket, and traffic to it is martian, as route get explains it" {
	warm_up
	run -0 in_r1 ip -4 addr show dev lo
	assert_output --partial "inet 127.0.0.1/8"
	per_hook() {
		local hook=$1
		# r1's two addresses only: 198.18.1.254 (bucket 43) and
		# 198.18.2.254 (40); 127.0.0.1's bucket 126 stays empty.
		if [[ $(table_check) == addresses ]]; then
			assert_equal "$(src4_bits)" $(((1 << 40) | (1 << 43)))
		fi
		DST4=127.0.0.1 run -0 frames 3 udp4
		wait_until 5 ctr_ge veth1 martian 3
		assert_equal "$hook $(ctr veth1 not_forwarded)" "$hook 0"
		run -0 xr -j route get 127.0.0.1 iif veth1 from "$XF_H1_IP4"
		assert_equal "$(jq -r .reason <<<"$output")" martian
		# r1's own addresses are still r1's.
		run -0 ping4 3 "$XF_R1_IP4B" -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$(ctr veth1 not_forwarded)" 3
	}
	each_hook per_hook
}

# loc6_bits: xf_rt_loc6's; bucket b holds an address of r1's local table
# when bit b is set.
loc6_bits() { header_bits xf_rt_loc6 64 16:24; }

@test "IPv6 local table by addresses: ::1 marks no bucket, so a destination ending in ::1 is answered from the header" {
	local bits
	[[ $(table_check) == addresses ]] || skip "no bpf_cast_to_kern_ctx(): no local table copy"
	warm_up
	# r1's local table holds ::1 (bucket 1, as h2's ...::1), its two
	# ...::fe (bucket 62) and the subnet-router anycast addresses
	# (bucket 0).
	run -0 in_r1 ip -6 route show table local ::1
	assert_output --partial "local ::1 dev lo"
	run -0 attach xdp
	bits=$(loc6_bits)
	# Bits 0 and 62 only: ::1, never forwarded (martian before any
	# lookup), takes no bucket, so h2's bucket is known empty.
	assert_equal "$bits" $(((1 << 0) | (1 << 62)))
	assert_equal "$(local_table "$XF_H2_IP6")" addresses
	run -0 ping6 3 "$XF_H2_IP6" -q
	assert_output --partial "3 packets transmitted, 3 received"
	run -0 xr -j route get ::1 iif veth1 from "$XF_H1_IP6"
	assert_equal "$(jq -r .reason <<<"$output")" martian
}

# delivered_to_r1: five echo requests from h1 to DST9 are answered (by r1,
# which holds DST9's prefix as local) and none reaches h2.
delivered_to_r1() {
	local e
	e=$(kstat "$XF_NS_H2" Icmp6InEchos)
	run -0 ping6 5 $DST9 -q
	assert_output --partial "5 packets transmitted, 5 received"
	assert_equal "$(kstat "$XF_NS_H2" Icmp6InEchos)" "$e"
}

@test "IPv6 local table by addresses: an operator's local prefix keeps both lookups, and its traffic reaches r1" {
	local hook
	warm_up
	# The main table sends DST9 to h2; the local table (searched first)
	# makes it r1's: the kernel answers it itself. The main table
	# alone would forward it.
	in_r1 ip -6 route add $NET9 via "$XF_H2_IP6"
	in_r1 ip -6 route add local $NET9 dev lo table local
	delivered_to_r1
	for hook in xdp tc; do
		if no_tcx $hook; then tcx_refused; continue; fi
		# Present at the attach: the table is refused.
		run -0 attach $hook
		assert_equal "$(local_table $DST9)" lookup
		delivered_to_r1
		run -0 xr route detach all
		# Added after it: the table stops with the route change.
		in_r1 ip -6 route del local $NET9 dev lo table local
		run -0 attach $hook
		assert_equal "$(local_table $DST9)" "$(table_check)"
		in_r1 ip -6 route add local $NET9 dev lo table local
		assert_equal "$(local_table $DST9)" lookup
		delivered_to_r1
		run -0 xr route detach all
	done
}

@test "IPv6 local table by addresses: a policy rule keeps both lookups" {
	warm_up
	in_r1 ip -6 rule add from 2001:2:0:7::/64 table 100
	per_hook() {
		local hook=$1
		assert_equal "$(local_table "$XF_H2_IP6")" lookup
		run -0 ping6 3 "$XF_H2_IP6" -q
		assert_output --partial "3 packets transmitted, 3 received"
	}
	each_hook per_hook
}

# IPv6 route MTUs (mtu6_or_skip, big6: helpers/route.bash).
@test "IPv6 route MTU: longer than a route's own MTU is passed, as the kernel holds it back, on both hooks" {
	local before
	mtu6_or_skip
	warm_up
	in_r1 ip -6 route replace "$XF_H2_IP6/128" via "$XF_H2_IP6" dev veth2 mtu 1300
	run -1 big6 1300
	assert_output --partial "Packet too big: mtu=1300"
	per_hook() {
		local hook=$1
		run -1 big6 1300
		assert_output --partial "Packet too big: mtu=1300"
		assert_equal "$(ctr veth1 mtu)" 1
		assert_equal "$(ctr veth1 forwarded)" 0
		# Within the route's MTU: forwarded.
		run -0 ping6 3 "$XF_H2_IP6" -s 1200 -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$(ctr veth1 forwarded)" 3
	}
	each_hook per_hook
}

@test "IPv6 on tc: a packet of at most 1280 bytes leaves the route's MTU to the device only while no route's MTU is below it" {
	tc_or_skip
	mtu6_or_skip
	warm_up
	in_r1 ip -6 route replace "$XF_H2_IP6/128" via "$XF_H2_IP6" dev veth2 mtu lock 1000
	run -0 attach tc
	run -1 big6 1100
	assert_output --partial "Packet too big: mtu=1000"
	assert_equal "$(ctr veth1 mtu)" 1
	assert_equal "$(ctr veth1 forwarded)" 0
}

@test "IPv6 on tc: longer than 1280 bytes, a PMTU exception of r1's still stops it" {
	tc_or_skip
	mtu6_or_skip
	warm_up
	pmtu6_exception 1300
	run -1 big6 1300
	assert_output --partial "Packet too big: mtu=1300"
	run -0 attach tc
	run -1 big6 1300
	assert_output --partial "Packet too big: mtu=1300"
	assert_equal "$(ctr veth1 mtu)" 1
	assert_equal "$(ctr veth1 forwarded)" 0
}

# --- IPv6 on tc and xdp: the common case's own paths (xf_rt_tc_fast6_on,
# xf_rt_xdp_fast6) -------------------------------------------------------------
# Their guards that the tests above and test/hostile.bats, test/reasons.bats
# and test/route.bats do not reach: without each, the path forwards a
# packet the general path passes, or delivers one the kernel does not.

@test "IPv6 on tc, the common path: a neighbour MAC that is not the peer's keeps the egress way (other host)" {
	tc_or_skip
	warm_up
	in_r1 ip -6 neigh replace "$XF_H2_IP6" lladdr 02:00:5e:00:53:01 dev veth2 nud permanent
	run -1 ping6 3 "$XF_H2_IP6" -q
	assert_output --partial "3 packets transmitted, 0 received"
	run -0 attach tc
	run -1 ping6 3 "$XF_H2_IP6" -q
	assert_output --partial "3 packets transmitted, 0 received"
	assert_equal "$(ctr veth1 forwarded)" 3
}

# Every IPv6 frame from h1 is passed for its family, so h1's own chatter
# of its first seconds (MLD reports, router solicitations) may count
# beside the echo requests.
@test "IPv6 on tc and xdp, the common paths: an interface attached family inet passes IPv6 (family)" {
	warm_up
	h1_pins_r1
	per_hook() {
		local hook=$1
		run -0 ping6 3 "$XF_H2_IP6" -q
		assert_output --partial "3 packets transmitted, 3 received"
		(($(ctr veth1 family) >= 3)) || fail "$hook: family $(ctr veth1 family), not 3 or more"
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook family inet
}

@test "IPv6 on tc and xdp, the common paths: a route back out of the ingress is passed (hairpin)" {
	warm_up
	# 2001:2:0:7::/64 is behind h1 for r1, behind r1 for h1: h1's echo
	# requests come back to it, and it drops them (it does not forward).
	in_r1 ip -6 route add 2001:2:0:7::/64 via "$XF_H1_IP6" dev veth1
	per_hook() {
		local hook=$1
		run -1 ping6 3 2001:2:0:7::1 -q
		assert_output --partial "3 packets transmitted, 0 received"
		assert_equal "$hook $(ctr veth1 hairpin)" "$hook 3"
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook
}

@test "IPv6 on tc and xdp, the common paths: r1's own address stays r1's, even with a neighbour entry for it" {
	local h2mac
	warm_up
	# The main table alone would send it to h2: the local table decides.
	h2mac=$(ip -n "$XF_NS_H2" -j link show veth0 | jq -r '.[0].address')
	in_r1 ip -6 neigh replace "$XF_R1_IP6B" lladdr "$h2mac" dev veth2 nud permanent
	per_hook() {
		local hook=$1
		run -0 ping6 3 "$XF_R1_IP6B" -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$hook $(ctr veth1 not_forwarded)" "$hook 3"
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook
}

@test "IPv6 on tc and xdp, the common paths: a version other than 6 behind the IPv6 Ethertype is passed (bad_len)" {
	warm_up
	per_hook() {
		local hook=$1
		run -0 frames 3 ver6
		wait_until 5 ctr_ge veth1 bad_len 3
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook
}

# --- IPv4 on tc and xdp: the common case's own paths (xf_rt_tc_fast4,
# xf_rt_xdp_fast4) ---------------------------------------------------------
# Their guards that live traffic in the tests above and in test/hostile.bats,
# test/reasons.bats and test/route.bats does not reach (route get's runs
# carry a trace record and take the general path): without each, the path
# forwards a packet the general path passes.

@test "IPv4 on tc and xdp, the common paths: an interface attached family inet6 passes IPv4 (family)" {
	warm_up
	per_hook() {
		local hook=$1
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$hook $(ctr veth1 family)" "$hook 3"
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook family inet6
}

@test "IPv4 on tc and xdp, the common paths: a route back out of the ingress is passed (hairpin)" {
	warm_up
	# 198.18.7.0/24 is behind h1 for r1, behind r1 for h1: h1's echo
	# requests come back to it, and it drops them (it does not forward).
	in_r1 ip route add 198.18.7.0/24 via "$XF_H1_IP4" dev veth1
	per_hook() {
		local hook=$1
		run -1 ping4 3 198.18.7.1 -q
		assert_output --partial "3 packets transmitted, 0 received"
		assert_equal "$hook $(ctr veth1 hairpin)" "$hook 3"
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook
}

@test "IPv4 on tc and xdp, the common paths: a policy rule on the destination port sees the port (prohibit)" {
	warm_up
	in_r1 ip rule add ipproto udp dport 9 prohibit pref 100
	# Any rule fails the source's quick check: with accept_local on
	# there is no check, and the path goes on to forward.
	in_r1 sysctl -qw net.ipv4.conf.all.accept_local=1
	per_hook() {
		local hook=$1
		run -0 frames 3 udp4
		wait_until 5 ctr_ge veth1 prohibit 3
		assert_equal "$hook $(ctr veth1 forwarded)" "$hook 0"
		# The rule is the port's: an echo to the same host is forwarded.
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$(ctr veth1 forwarded)" 3
	}
	each_hook per_hook
}

@test "IPv4 on tc and xdp, the common paths: lookup direct does not see a policy rule (not_forwarded)" {
	# h2's far prefix only in table 100, used for packets from h1; the
	# source unchecked (accept_local), as the rule would make it checked.
	ip -n "$XF_NS_H2" addr add "$XF_H2_FAR4/32" dev lo
	in_r1 ip route add 198.18.3.0/24 via "$XF_H2_IP4" table 100
	in_r1 ip rule add from "$XF_H1_IP4" lookup 100 pref 100
	in_r1 sysctl -qw net.ipv4.conf.all.accept_local=1
	warm_up
	per_hook() {
		local hook=$1
		run -0 ping4 3 "$XF_H2_FAR4" -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$hook $(ctr veth1 not_forwarded)" "$hook 3"
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook lookup direct
}

@test "IPv4 on tc and xdp, the common paths: what the header shows the kernel takes another way is passed" {
	# A default route would take all of these to h2.
	in_r1 ip route add default via "$XF_H2_IP4"
	warm_up
	h1_pins_r1
	per_hook() {
		local hook=$1
		run -0 frames 3 notip4 eol4 mcast4 bcast4
		wait_until 5 ctr_ge veth1 multicast 6
		assert_equal "$hook $(ctr veth1 not_ip)" "$hook 3"
		assert_equal "$(ctr veth1 ipv4_options)" 3
		assert_equal "$(ctr veth1 forwarded)" 0
	}
	each_hook per_hook
}

@test "IPv4 and IPv6 on tc and xdp: an egress taken out of the set is passed (not_in_set), and the kernel forwards" {
	local hook
	warm_up
	for hook in xdp tc; do
		if no_tcx $hook; then tcx_refused; continue; fi
		run -0 attach $hook
		run -0 xr route detach dev veth2
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_output --partial "3 packets transmitted, 3 received"
		run -0 ping6 3 "$XF_H2_IP6" -q
		assert_output --partial "3 packets transmitted, 3 received"
		assert_equal "$hook $(ctr veth1 not_in_set)" "$hook 6"
		assert_equal "$(ctr veth1 forwarded)" 0
		run -0 xr route detach all
	done
}

# prio N: IPv4 packets that r1's veth2 sent with skb->priority N, as its tc
# egress filter (test/progs/tc_prio.bpf.c) counts them.
prio() {
	local prog map
	prog=$(tc -n "$XF_NS_R1" -j filter show dev veth2 egress |
		jq -er '[.[] | .options.prog.id // empty][0]') &&
		map=$(bpftool -j prog show id "$prog" | jq -er '.map_ids[0]') &&
		bpftool -j map lookup id "$map" key "$1" 0 0 0 | jq -er '.formatted.value'
}

# tos_pings: 4 echo requests h1 -> h2 with TOS 0x10, whose priority is 6
# (TC_PRIO_INTERACTIVE) where ip_forward() sets one; prints how many
# veth2 sent with priority 0 and with 6.
tos_pings() {
	local p0 p6
	p0=$(prio 0) && p6=$(prio 6) || return
	ping4 4 "$XF_H2_IP4" -q -Q 0x10 >/dev/null || return
	echo "$(($(prio 0) - p0)) $(($(prio 6) - p6))"
}

@test "IPv4 on tc, the common path: the priority ip_forward() gives the TOS goes with it, as the sysctl says" {
	tc_or_skip
	warm_up
	# The egress filter also keeps the egress way, where the priority
	# stays on the packet (into the peer it is 0 either way).
	tc -n "$XF_NS_R1" qdisc add dev veth2 clsact
	tc -n "$XF_NS_R1" filter add dev veth2 egress bpf da \
		obj "$XF_TOP/build/test/progs/tc_prio.bpf.o" sec tc
	in_r1 sysctl -qw net.ipv4.ip_forward_update_priority=1
	run -0 tos_pings
	assert_output "0 4"
	in_r1 sysctl -qw net.ipv4.ip_forward_update_priority=0
	run -0 tos_pings
	assert_output "4 0"
	run -0 attach tc
	in_r1 sysctl -qw net.ipv4.ip_forward_update_priority=1
	run -0 tos_pings
	assert_output "0 4"
	in_r1 sysctl -qw net.ipv4.ip_forward_update_priority=0
	run -0 tos_pings
	assert_output "4 0"
	assert_equal "$(ctr veth1 forwarded)" 8
}

# vnet KIND DPORT: 3 frames of test/fixtures/vnet.py from h1 to h2's port
# DPORT, through r1; h2 has no socket there (UdpNoPorts counts them).
vnet() {
	in_h1 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/vnet.py" veth0 \
		"$(mac "$XF_NS_R1" veth1)" "$XF_H1_IP4" "$XF_H2_IP4" "$1" "$2" 3
}

@test "IPv4 on tc, the common path: UDP GSO whose segments exceed the egress MTU by less than a UDP header is passed (mtu)" {
	local ports frag
	tc_or_skip
	warm_up
	ports=$(kstat "$XF_NS_H2" UdpNoPorts)
	# One GSO packet each, that h2 takes in whole.
	run -0 vnet ugso 9999
	wait_until 5 kstat_ge "$XF_NS_H2" UdpNoPorts $((ports + 3))
	# 1408 bytes of IP a segment, DF: the kernel answers frag needed.
	ip -n "$XF_NS_R1" link set dev veth2 mtu 1400
	ports=$(kstat "$XF_NS_H2" UdpNoPorts) frag=$(kstat "$XF_NS_R1" IpFragFails)
	run -0 vnet ugso 9999
	wait_until 5 kstat_ge "$XF_NS_R1" IpFragFails $((frag + 3))
	run -0 attach tc
	run -0 vnet ugso 9999
	wait_until 5 kstat_ge "$XF_NS_R1" IpFragFails $((frag + 6))
	assert_equal "$(ctr veth1 mtu)" 3
	assert_equal "$(ctr veth1 forwarded)" 0
	assert_equal "$(kstat "$XF_NS_H2" UdpNoPorts)" "$ports"
}

@test "IPv4 on tc, the common path: a frame whose ports are not in the linear data still meets a rule on its port (prohibit)" {
	local ports unr dev
	tc_or_skip
	for dev in "$XF_NS_H1 veth0" "$XF_NS_R1 veth1" "$XF_NS_R1 veth2" "$XF_NS_H2 veth0"; do
		ip -n ${dev% *} link set dev ${dev#* } mtu 9000
	done
	in_r1 ip rule add ipproto udp dport 9 prohibit pref 100
	# Any rule fails the source's quick check: with accept_local on
	# there is no check, and the path goes on to the lookup.
	in_r1 sysctl -qw net.ipv4.conf.all.accept_local=1
	warm_up
	run -0 attach tc
	ports=$(kstat "$XF_NS_H2" UdpNoPorts) unr=$(kstat "$XF_NS_H1" IcmpInDestUnreachs)
	run -0 vnet big 10
	wait_until 5 kstat_ge "$XF_NS_H2" UdpNoPorts $((ports + 3))
	assert_equal "$(ctr veth1 forwarded)" 3
	run -0 vnet big 9
	wait_until 5 kstat_ge "$XF_NS_H1" IcmpInDestUnreachs $((unr + 3))
	assert_equal "$(ctr veth1 prohibit)" 3
	assert_equal "$(kstat "$XF_NS_H2" UdpNoPorts)" $((ports + 3))
}

@test "the arrays a packet reads are mmapable, so that no entry straddles two cache lines" {
	local m dir
	xr route attach dev veth1 dev veth2 hook tc
	dir=$(pin_dir)/route
	# BPF_F_MMAPABLE (0x400): values from a page boundary (route_maps.h).
	for m in xf_rt_ifc xf_rt_local xf_rt_src4 xf_rt_loc6 xf_rt_vlc; do
		run -0 bpftool -j map show pinned "$dir/$m"
		assert_equal "$m $(jq '.flags / 1024 | floor % 2' <<<"$output")" "$m 1"
	done
}
