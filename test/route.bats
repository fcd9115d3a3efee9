#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route: the forwarding fast path with real traffic h1 -- r1 -- h2, on
# both hooks. Each test builds its own topology (scripts/topo.bash) and
# takes the fast path and the namespaces down again in teardown.
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
	[[ -z ${TOOL_PIN:-} ]] || rm -rf "$TOOL_PIN"
	route_teardown
}

# --- 1. ping through the fast path -----------------------------------------

# fast_ping HOOK 4|6: every echo request and reply crosses r1 on the fast
# path, and the kernel forwards only those passed for the neighbours'
# upkeep: the first to each, then at most one each half second.
fast_ping() {
	local hook=$1 v=$2 n=20 dst before
	if no_tcx "$hook"; then tcx_refused; return; fi
	[[ $v == 4 ]] && dst=$XF_H2_IP4 || dst=$XF_H2_IP6
	warm_up
	run -0 attach "$hook"
	before=$(kfwd_mark veth1 veth2)
	run -0 "ping$v" "$n" "$dst" -q
	assert_output --partial "$n packets transmitted, $n received"
	assert_equal "$(ctr veth1 forwarded)" $n
	assert_equal "$(ctr veth2 forwarded)" $n
	(($(ctr veth1 fast) >= n - 10 && $(ctr veth2 fast) >= n - 10))
	kfwd_is "$before" 0 veth1 veth2
}

# bats test_tags=guest
@test "hook xdp: IPv4 ping h1 -> h2 is forwarded by the fast path, not the kernel" {
	fast_ping xdp 4
}

@test "hook xdp: IPv6 ping h1 -> h2 is forwarded by the fast path, not the kernel" {
	fast_ping xdp 6
}

# bats test_tags=guest
@test "hook tc: IPv4 ping h1 -> h2 is forwarded by the fast path, not the kernel" {
	fast_ping tc 4
}

@test "hook tc: IPv6 ping h1 -> h2 is forwarded by the fast path, not the kernel" {
	fast_ping tc 6
}

@test "hook xdp: a veth whose peer has neither XDP nor GRO gets no redirects (no_xmit)" {
	warm_up
	tx_off
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	before=$(kstat "$XF_NS_R1" IpForwDatagrams)
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	if kernel_lacks xdp_features; then
		# No native XDP known: generic mode, whose redirects reach a
		# veth whatever its peer has.
		run -0 xr -j route show dev veth1
		assert_equal "$(jq -r '.interfaces[0].mode' <<<"$output")" generic
		assert_equal "$(ctr veth1 forwarded) $(ctr veth2 forwarded)" "5 5"
		return
	fi
	assert_equal "$(ctr veth1 no_xmit)" 5
	assert_equal "$(ctr veth2 no_xmit)" 5
	assert_equal "$(ctr veth1 forwarded)" 0
	assert_equal "$(kstat "$XF_NS_R1" IpForwDatagrams)" $((before + 10))
	# Whether a member takes XDP frames is read when the set changes
	# (attach or detach): with GRO on the peers, redirects work from then on.
	xdp_ready
	run -0 xr route detach dev veth2
	run -0 xr route attach dev veth2 hook xdp
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 5
}

# --- 2. TTL ------------------------------------------------------------------

@test "TTL and hop limit 1 still get time exceeded from r1, counted as ttl" {
	warm_up
	per_hook() {
		local hook=$1
		run -1 ping4 1 "$XF_H2_IP4" -t 1
		assert_output --partial "From $XF_R1_IP4A icmp_seq=1 Time to live exceeded"
		run -1 ping6 1 "$XF_H2_IP6" -t 1
		assert_output --partial "From $XF_R1_IP6A icmp_seq=1 Time exceeded: Hop limit"
		assert_equal "$(ctr veth1 ttl)" 2
		assert_equal "$(ctr veth1 forwarded)" 0
		# One more hop is enough to reach h2, on the fast path.
		run -0 ping4 1 "$XF_H2_IP4" -t 2
		run -0 ping6 1 "$XF_H2_IP6" -t 2
		assert_equal "$(ctr veth1 forwarded)" 2
	}
	each_hook per_hook
}

# --- 3. MTU and path MTU discovery -------------------------------------------

# pmtu HOOK: r1's egress MTU 1280; h1's oversized DF packets get the ICMP
# error from r1, h1 learns the path MTU, and then ping and TCP get through.
pmtu() {
	local hook=$1 fwd
	if no_tcx "$1"; then tcx_refused; return; fi
	far_prefix
	warm_up
	# One MTU on the whole r1 -- h2 link: a veth drops what is larger
	# than its own MTU on receive.
	ip -n "$XF_NS_R1" link set veth2 mtu 1280
	ip -n "$XF_NS_H2" link set veth0 mtu 1280
	run -0 attach "$hook"
	run -1 ping4 1 "$XF_H2_IP4" -M "do" -s 1400
	assert_output --partial "From $XF_R1_IP4A icmp_seq=1 Frag needed and DF set (mtu = 1280)"
	run -1 ping6 1 "$XF_H2_IP6" -M "do" -s 1400
	assert_output --partial "From $XF_R1_IP6A icmp_seq=1 Packet too big: mtu=1280"
	assert_equal "$(ctr veth1 mtu)" 2
	assert_equal "$(ctr veth1 forwarded)" 0
	run -0 ip -n "$XF_NS_H1" route get "$XF_H2_IP4"
	assert_output --partial " mtu 1280"
	run -0 ip -n "$XF_NS_H1" -6 route get "$XF_H2_IP6"
	assert_output --partial " mtu 1280"
	# h1 now fragments: 2 fragments per request, on the fast path.
	run -0 ping4 3 "$XF_H2_IP4" -s 1400 -q
	assert_output --partial "3 packets transmitted, 3 received"
	run -0 ping6 3 "$XF_H2_IP6" -s 1400 -q
	assert_output --partial "3 packets transmitted, 3 received"
	assert_equal "$(ctr veth1 forwarded)" 12
	assert_equal "$(ctr veth1 mtu)" 2
	# TCP to a destination h1 knows nothing about yet. With h2 at 1500
	# again it offers MSS 1460, and h1's full-sized segments (its ACKs are
	# small) bounce off r1 until PMTU discovery has shrunk them. (hook
	# xdp: attach turned the senders' checksum offload off.)
	ip -n "$XF_NS_H2" link set veth0 mtu 1500
	for dst in "$XF_H2_FAR4" "$XF_H2_FAR6"; do
		fwd=$(ctr veth1 forwarded_bytes)
		iperf_server
		# One second: with -n, iperf3 ends before the data is across.
		run -0 in_h1 timeout 20 iperf3 -c "$dst" -t 1
		iperf_server_done
		run -0 ip -n "$XF_NS_H1" route get "$dst"
		assert_output --partial " mtu 1280"
		(($(ctr veth1 forwarded_bytes) > fwd + 4 * 1024 * 1024))
	done
	(($(ctr veth1 mtu) > 2))
}

@test "hook xdp: a smaller egress MTU gets frag needed / packet too big, PMTUD works" {
	pmtu xdp
}

@test "hook tc: a smaller egress MTU gets frag needed / packet too big, PMTUD works" {
	pmtu tc
}

# --- 4. a route deleted mid-traffic -------------------------------------------

# route_churn HOOK 4|6: pings to h2's far prefix; r1's route to it goes away
# and comes back while they run.
route_churn() {
	local v=$2 dst prefix via fam="" f1 f2 msg out
	if [[ $v == 4 ]]; then
		dst=$XF_H2_FAR4 prefix=198.18.3.0/24 via=$XF_H2_IP4
		msg="Destination Net Unreachable"
	else
		dst=$XF_H2_FAR6 prefix=2001:2:0:3::/64 via=$XF_H2_IP6 fam=-6
		msg="Destination unreachable: No route"
	fi
	out=$BATS_TEST_TMPDIR/ping.out
	ip netns exec "$XF_NS_H1" ping "-$v" -c 400 -i 0.02 -W 1 "$dst" >"$out" 2>&1 3>&- &
	BG_PID=$!
	wait_until 5 ctr_ge veth1 forwarded 10
	ip -n "$XF_NS_R1" $fam route del "$prefix"
	wait_until 5 ctr_ge veth1 not_forwarded 3
	f1=$(ctr veth1 forwarded)
	wait_until 5 ctr_ge veth1 not_forwarded 10
	f2=$(ctr veth1 forwarded)
	assert_equal "$f2" "$f1"
	ip -n "$XF_NS_R1" $fam route add "$prefix" via "$via"
	wait_until 5 ctr_ge veth1 forwarded $((f2 + 10))
	kill -INT "$BG_PID"
	wait "$BG_PID" || true
	BG_PID=
	run -0 grep -c "$msg" "$out"
	# ICMP errors are rate limited: a few for the many passed.
	((output >= 1))
	# Ten replies before the route went, ten after it came back.
	run -0 sed -n 's/.* \([0-9]*\) received.*/\1/p' "$out"
	((output >= 15))
}

@test "hook xdp: a route deleted mid-traffic goes to the kernel, re-added it is fast again" {
	far_prefix
	warm_up
	run -0 attach xdp
	route_churn xdp 4
	run -0 xr route detach all
	run -0 attach xdp
	route_churn xdp 6
}

@test "hook tc: a route deleted mid-traffic goes to the kernel, re-added it is fast again" {
	if no_tcx tc; then tcx_refused; return; fi
	far_prefix
	warm_up
	run -0 attach tc
	route_churn tc 4
	run -0 xr route detach all
	run -0 attach tc
	route_churn tc 6
}

# --- 5. neighbour resolution --------------------------------------------------

# neigh HOOK: with r1's neighbour table flushed, the first packets go to
# the kernel (which resolves), the rest take the fast path.
neigh() {
	if no_tcx "$1"; then tcx_refused; return; fi
	warm_up
	run -0 attach "$1"
	ip -n "$XF_NS_R1" neigh flush all
	run -0 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 10 received"
	local nn fwd
	nn=$(ctr veth1 no_neigh) fwd=$(ctr veth1 forwarded)
	((nn >= 1 && nn <= 2))
	assert_equal $((nn + fwd)) 10
	run -0 ping6 10 "$XF_H2_IP6" -q
	assert_output --partial "10 packets transmitted, 10 received"
	nn=$(($(ctr veth1 no_neigh) - nn)) fwd=$(($(ctr veth1 forwarded) - fwd))
	((nn >= 1 && nn <= 2))
	assert_equal $((nn + fwd)) 10
	run -0 ip -n "$XF_NS_R1" neigh show "$XF_H2_IP4"
	assert_output --regexp 'REACHABLE|STALE|DELAY'
}

@test "hook xdp: the first packet to an unresolved neighbour is passed, then fast" {
	neigh xdp
}

@test "hook tc: the first packet to an unresolved neighbour is passed, then fast" {
	neigh tc
}

# --- 6. policy routing ------------------------------------------------------

@test "ip rule: lookup full forwards by policy routes, lookup direct does not" {
	# h2's far prefix only in table 100, used for packets from h1.
	ip -n "$XF_NS_H2" addr add "$XF_H2_FAR4/32" dev lo
	ip -n "$XF_NS_H2" addr add "$XF_H2_FAR6/128" dev lo
	ip -n "$XF_NS_R1" route add 198.18.3.0/24 via "$XF_H2_IP4" table 100
	ip -n "$XF_NS_R1" -6 route add 2001:2:0:3::/64 via "$XF_H2_IP6" table 100
	ip -n "$XF_NS_R1" rule add from "$XF_H1_IP4" lookup 100 pref 100
	ip -n "$XF_NS_R1" -6 rule add from "$XF_H1_IP6" lookup 100 pref 100
	warm_up
	run -0 attach xdp
	run -0 ping4 5 "$XF_H2_FAR4" -q
	run -0 ping6 5 "$XF_H2_FAR6" -q
	assert_equal "$(ctr veth1 forwarded)" 10
	run -0 xr -j route get "$XF_H2_FAR4" iif veth1 from "$XF_H1_IP4"
	run -0 jq -r '"\(.reason) \(.oif) \(.via)"' <<<"$output"
	assert_output "forwarded veth2 $XF_H2_IP4"
	run -0 xr -j route get "$XF_H2_FAR6" iif veth1 from "$XF_H1_IP6"
	run -0 jq -r '"\(.reason) \(.oif) \(.via)"' <<<"$output"
	assert_output "forwarded veth2 $XF_H2_IP6"
	# Another source matches no rule: main has no route.
	run -0 xr -j route get "$XF_H2_FAR4" iif veth1 from 198.18.1.9
	run -0 jq -r .reason <<<"$output"
	assert_output not_forwarded

	# lookup direct: main table only, the rule is not seen. The kernel
	# still forwards, the fast path passes.
	run -0 xr route detach all
	run -0 attach xdp lookup direct
	run -0 xr -j route show dev veth1
	run -0 jq -r '.interfaces[0].lookup' <<<"$output"
	assert_output direct
	run -0 xr -j route get "$XF_H2_FAR4" iif veth1 from "$XF_H1_IP4"
	run -0 jq -r .reason <<<"$output"
	assert_output not_forwarded
	run -0 ping4 3 "$XF_H2_FAR4" -q
	assert_output --partial "3 packets transmitted, 3 received"
	assert_equal "$(ctr veth1 forwarded)" 0
	assert_equal "$(ctr veth1 not_forwarded)" 3
}

@test "ip rule prohibit: the fast path passes (prohibit), the kernel answers" {
	if no_tcx tc; then tcx_refused; return; fi
	ip -n "$XF_NS_R1" rule add from "$XF_H1_IP4" to "$XF_H2_IP4" prohibit pref 100
	ip -n "$XF_NS_R1" -6 rule add from "$XF_H1_IP6" to "$XF_H2_IP6" prohibit pref 100
	run -0 attach tc
	run -1 ping4 2 "$XF_H2_IP4"
	assert_output --partial "Packet filtered"
	run -1 ping6 2 "$XF_H2_IP6"
	assert_output --partial "Administratively prohibited"
	# bpf_fib_lookup() says "prohibit" for an IPv4 rule only; for an IPv6
	# rule's -EACCES it says "not forwarded". Passed either way.
	assert_equal "$(ctr veth1 prohibit)" 2
	assert_equal "$(ctr veth1 not_forwarded)" 2
	assert_equal "$(ctr veth1 forwarded)" 0
	run -0 xr -j route get "$XF_H2_IP4" iif veth1 from "$XF_H1_IP4"
	run -0 jq -r '"\(.verdict) \(.reason)"' <<<"$output"
	assert_output "TC_ACT_UNSPEC prohibit"
}

# --- 7. rp_filter -------------------------------------------------------------

@test "rp_filter 1: spoofed sources are not forwarded, on either hook" {
	local e4 rpf
	warm_up
	# Read at attach time: set before.
	in_r1 sysctl -qw net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.veth1.rp_filter=1
	per_hook() {
		local hook=$1
		e4=$(kstat "$XF_NS_H2" IcmpInEchos)
		rpf=$(kstat "$XF_NS_R1" TcpExtIPReversePathFilter)
		# h2's subnet as the source, from h1's side.
		SRC4=198.18.2.77 run -0 frames 5 echo4
		assert_equal "$(ctr veth1 rp_filter)" 5
		assert_equal "$(ctr veth1 forwarded)" 0
		# The kernel got them and dropped them as spoofed.
		wait_until 2 kstat_ge "$XF_NS_R1" TcpExtIPReversePathFilter $((rpf + 5))
		assert_equal "$(kstat "$XF_NS_R1" TcpExtIPReversePathFilter)" $((rpf + 5))
		# The same frames with h1's address do arrive, and only they.
		run -0 frames 5 echo4
		assert_equal "$(ctr veth1 forwarded)" 5
		wait_until 2 kstat_ge "$XF_NS_H2" IcmpInEchos $((e4 + 5))
		assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" $((e4 + 5))
	}
	each_hook per_hook
}

# --- 8. TCP bulk --------------------------------------------------------------

# iperf_run: 3 s of TCP h1 -> h2, without errors; gbps := Gbit/s received.
iperf_run() {
	local json
	iperf_server
	json=$(in_h1 timeout 20 iperf3 -c "$XF_H2_IP4" -t 3 -J)
	iperf_server_done
	gbps=$(jq -er 'if .error then error(.error) else
		.end.sum_received.bits_per_second / 1e9 * 100 | round / 100 end' <<<"$json")
}

@test "iperf3 TCP h1 -> h2 completes over hook tc (kernel forwarding for comparison)" {
	local kernel fast kfwd gbps
	if no_tcx tc; then tcx_refused; return; fi
	warm_up
	iperf_run
	kernel=$gbps
	run -0 attach tc
	kfwd=$(kfwd_mark veth1 veth2)
	iperf_run
	fast=$gbps
	(($(ctr veth1 fast) > 1000))
	(($(ctr veth2 fast) > 1000))
	kfwd_is "$kfwd" 0 veth1 veth2
	echo "# iperf3 h1 -> h2, 3 s: kernel forwarding $kernel Gbit/s, xfwd hook tc $fast Gbit/s" >&3
}

# --- 9. route get ---------------------------------------------------------------

# get_is EXPECTED ARGS...: "verdict reason" of "xfwd -j route get ARGS".
get_is() {
	local want=$1
	shift
	run -0 --separate-stderr xr -j route get "$@"
	[[ -z $stderr ]]
	run -0 jq -r '"\(.verdict) \(.reason)"' <<<"$output"
	assert_output "$want"
}

@test "route get: a forwarded packet on both hooks, with oif, next hop, MACs, TTL" {
	local smac dmac hook verdict
	warm_up
	smac=$(mac "$XF_NS_R1" veth2) dmac=$(mac "$XF_NS_H2" veth0)
	for hook in xdp tc; do
		verdict=XDP_REDIRECT
		[[ $hook == xdp ]] || verdict=TC_ACT_REDIRECT
		if no_tcx $hook; then tcx_refused; continue; fi
		run -0 attach $hook
		run -0 --separate-stderr xr -j route get "$XF_H2_IP4" iif veth1
		run -0 jq -r '[.hook, .verdict, .reason, .iif, .oif, .via, .src_mac,
			.dst_mac, .ttl, .from, .mtu] | join(" ")' <<<"$output"
		assert_output "$hook $verdict forwarded veth1 veth2 $XF_H2_IP4 $smac $dmac 63 $XF_H1_IP4 1500"
		run -0 --separate-stderr xr -j route get "$XF_H2_IP6" iif veth1 from "$XF_H1_IP6" ttl 9
		run -0 jq -r '[.verdict, .reason, .oif, .via, .src_mac, .dst_mac, .ttl] |
			join(" ")' <<<"$output"
		assert_output "$verdict forwarded veth2 $XF_H2_IP6 $smac $dmac 8"
		# The other way, and the table form.
		run -0 xr route get "$XF_H1_IP4" iif veth2 proto tcp
		assert_line --regexp "^verdict: +$verdict\$"
		assert_line --regexp "^oif: +veth1\$"
		# route get runs are not counted.
		assert_equal "$(ctr veth1 forwarded)" 0
		assert_equal "$(ctr veth2 forwarded)" 0
		run -0 xr route detach all
	done
}

@test "route get: pass reasons ttl, not_forwarded, multicast, link_local, mtu, no_neigh, hairpin, unreachable" {
	warm_up
	ip -n "$XF_NS_R1" route add unreachable 198.18.5.0/24
	ip -n "$XF_NS_R1" route add blackhole 198.18.6.0/24
	run -0 attach xdp
	get_is "XDP_PASS ttl" "$XF_H2_IP4" iif veth1 ttl 1
	get_is "XDP_PASS ttl" "$XF_H2_IP6" iif veth1 ttl 1
	get_is "XDP_PASS not_forwarded" "$XF_R1_IP4B" iif veth1
	get_is "XDP_PASS not_forwarded" 198.18.9.1 iif veth1
	get_is "XDP_PASS multicast" 224.0.0.5 iif veth1
	get_is "XDP_PASS multicast" ff02::1 iif veth1
	get_is "XDP_PASS link_local" fe80::1 iif veth1
	get_is "XDP_PASS link_local" "$XF_H2_IP6" iif veth1 from fe80::1
	get_is "XDP_PASS unreachable" 198.18.5.1 iif veth1
	get_is "XDP_PASS blackhole" 198.18.6.1 iif veth1
	get_is "XDP_PASS hairpin" 198.18.1.7 iif veth1
	get_is "XDP_PASS martian" "$XF_H2_IP4" iif veth1 from 127.0.0.1
	# The plain build, which cannot read route MTUs, passes what is
	# over 1280 bytes (xfwd-route(8), STATE THE FAST PATH READS).
	if kernel_lacks kern_ctx; then
		get_is "XDP_PASS mtu" "$XF_H2_IP4" iif veth1 len 1500
		get_is "XDP_REDIRECT forwarded" "$XF_H2_IP4" iif veth1 len 1280
	else
		get_is "XDP_REDIRECT forwarded" "$XF_H2_IP4" iif veth1 len 1500
	fi
	ip -n "$XF_NS_R1" link set veth2 mtu 1280
	get_is "XDP_PASS mtu" "$XF_H2_IP4" iif veth1 len 1400
	run -0 jq -r .mtu <<<"$(xr -j route get "$XF_H2_IP4" iif veth1 len 1400)"
	assert_output 1280
	get_is "XDP_PASS mtu" "$XF_H2_IP6" iif veth1 len 1400
	get_is "XDP_REDIRECT forwarded" "$XF_H2_IP4" iif veth1 len 1280
	ip -n "$XF_NS_R1" neigh flush all
	get_is "XDP_PASS no_neigh" "$XF_H2_IP4" iif veth1
	run -0 jq -r '"\(.oif) \(.via)"' <<<"$(xr -j route get "$XF_H2_IP4" iif veth1)"
	assert_output "veth2 $XF_H2_IP4"
	get_is "XDP_PASS no_neigh" "$XF_H2_IP6" iif veth1
	in_r1 sysctl -qw net.ipv4.conf.veth1.forwarding=0
	get_is "XDP_PASS fwd_disabled" "$XF_H2_IP4" iif veth1
}

@test "route get: pass reasons rp_filter, family, not_in_set, no_xmit on the tc and xdp hooks" {
	warm_up
	in_r1 sysctl -qw net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.veth1.rp_filter=1
	# A third interface of r1, with a neighbour, outside the set.
	ip -n "$XF_NS_R1" link add veth3 type veth peer name veth4
	ip -n "$XF_NS_R1" addr add 198.18.4.254/24 dev veth3
	ip -n "$XF_NS_R1" addr add 2001:2:0:4::fe/64 dev veth3 nodad
	ip -n "$XF_NS_R1" link set veth3 up
	ip -n "$XF_NS_R1" link set veth4 up
	ip -n "$XF_NS_R1" neigh add 198.18.4.1 lladdr 02:00:00:00:00:04 dev veth3
	ip -n "$XF_NS_R1" neigh add 2001:2:0:4::1 lladdr 02:00:00:00:00:04 dev veth3
	if no_tcx tc; then
		tcx_refused
	else
	run -0 attach tc family inet
	get_is "TC_ACT_UNSPEC rp_filter" "$XF_H2_IP4" iif veth1 from 198.18.2.77
	get_is "TC_ACT_UNSPEC rp_filter" "$XF_H2_IP4" iif veth1 from 198.18.8.1
	get_is "TC_ACT_REDIRECT forwarded" "$XF_H2_IP4" iif veth1 from "$XF_H1_IP4"
	get_is "TC_ACT_UNSPEC family" "$XF_H2_IP6" iif veth1
	get_is "TC_ACT_UNSPEC not_in_set" 198.18.4.1 iif veth1
	get_is "TC_ACT_UNSPEC not_in_set" 198.18.4.2 iif veth1
	run -0 xr route detach all
	fi
	# No GRO on the hosts: veth2 cannot take XDP frames.
	tx_off
	run -0 xr route attach dev veth1 dev veth2 hook xdp family inet6
	if kernel_lacks xdp_features; then
		# Generic mode (no native XDP known): any member takes frames.
		get_is "XDP_REDIRECT forwarded" "$XF_H2_IP6" iif veth1
	else
		get_is "XDP_PASS no_xmit" "$XF_H2_IP6" iif veth1
	fi
	get_is "XDP_PASS family" "$XF_H2_IP4" iif veth1
	# Resolved: the redirect into the device map is what fails.
	get_is "XDP_PASS not_in_set" 2001:2:0:4::1 iif veth1
	get_is "XDP_PASS not_in_set" 2001:2:0:4::2 iif veth1
}

@test "route get: on an interface without the fast path, it says so" {
	# -force: on hook xdp (kernels without tcx) the hosts' checksum
	# offload is not what this test is about.
	run -0 xr -force route attach dev veth1 hook "$ANY_HOOK"
	run -1 --separate-stderr xr route get "$XF_H1_IP4" iif veth2
	assert_equal "$stderr" "Error: xfwd route is not attached to veth2: the kernel forwards its packets."
	# The only member is the default iif.
	run -0 xr -j route get "$XF_H2_IP4"
	run -0 jq -r .iif <<<"$output"
	assert_output veth1
	run -0 xr route detach all
	run -1 --separate-stderr xr route get "$XF_H2_IP4"
	assert_equal "$stderr" "Error: xfwd route is not attached in this namespace."
}

# --- 10. malformed frames --------------------------------------------------------

# malformed HOOK: frames the kernel drops are passed (never forwarded) with
# their reason; frames the kernel forwards itself (options, hop-by-hop) are
# passed to it and arrive at h2 through it.
malformed() {
	local e4 e6 k
	if no_tcx "$1"; then tcx_refused; return; fi
	warm_up
	run -0 attach "$1"
	e4=$(kstat "$XF_NS_H2" IcmpInEchos) e6=$(kstat "$XF_NS_H2" Icmp6InEchos)
	k=$(kfwd_mark veth1 veth2)
	run -0 frames 3 trunc4 ihl4 ver4 len4 csum4 trunc6 len6
	assert_equal "$(ctr veth1 bad_len)" 18
	assert_equal "$(ctr veth1 bad_csum)" 3
	run -0 frames 3 opts4 hbh6
	assert_equal "$(ctr veth1 ipv4_options)" 3
	assert_equal "$(ctr veth1 ipv6_ext)" 3
	assert_equal "$(ctr veth1 forwarded)" 0
	# Well formed, and with Ethernet padding (cut): the fast path.
	run -0 frames 3 echo4 pad4 echo6
	assert_equal "$(ctr veth1 forwarded)" 9
	# h2 got the options and hop-by-hop packets from the kernel, the good
	# ones from the fast path, and nothing else.
	wait_until 2 kstat_ge "$XF_NS_H2" IcmpInEchos $((e4 + 9))
	wait_until 2 kstat_ge "$XF_NS_H2" Icmp6InEchos $((e6 + 6))
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" $((e4 + 9))
	assert_equal "$(kstat "$XF_NS_H2" Icmp6InEchos)" $((e6 + 6))
	kfwd_is "$k" 6 veth1 veth2
}

@test "hook xdp: malformed frames are never forwarded by the fast path" {
	malformed xdp
}

@test "hook tc: malformed frames are never forwarded by the fast path" {
	malformed tc
}

# --- 11. other programs on the interface -----------------------------------------

@test "a foreign XDP program is refused, named, and left attached" {
	local obj id
	obj=$(compgen -G '/usr/lib/*/bpf/xdpdump_xdp.o' | head -n1)
	[[ -n $obj ]] || skip "xdp-tools' xdpdump_xdp.o is not installed"
	ip -n "$XF_NS_R1" link set veth2 xdpgeneric obj "$obj" sec xdp
	id=$(ip -n "$XF_NS_R1" -j link show veth2 | jq -er '.[0].xdp.prog.id')
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "$stderr" "Error: veth2 already has an XDP program $id (xdpdump) that xfwd did not attach; detach it first."
	run -0 ip -n "$XF_NS_R1" -j link show veth2
	run -0 jq -r '.[0].xdp.prog.id' <<<"$output"
	assert_output "$id"
	run -0 no_hooks veth1
	[[ ! -e $PIN_DIR ]]
}

@test "a foreign tc program is refused, named, and left attached" {
	if no_tcx tc; then tcx_refused; return; fi
	in_r1 tc qdisc add dev veth2 clsact
	in_r1 tc filter add dev veth2 ingress bpf da obj "$XF_TOP/build/probe.bpf.o" sec tc
	run -0 in_r1 tc -j filter show dev veth2 ingress
	id=$(jq -er '.[] | select(.options.prog.id) | .options.prog.id' <<<"$output")
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook tc
	assert_equal "$stderr" "Error: veth2 already has a tc ingress filter (probe.bpf.o:[tc], id $id) that xfwd did not attach; remove it first."
	run -0 in_r1 tc -j filter show dev veth2 ingress
	assert_output --partial "\"id\":$id"
	run -0 no_hooks veth1
	[[ ! -e $PIN_DIR ]]
}

@test "a foreign tcx program is refused, named, and left attached" {
	if no_tcx tc; then tcx_refused; return; fi
	TOOL_PIN=/sys/fs/bpf/xfwd-test-$BATS_ROOT_PID-$BATS_TEST_NUMBER
	bpffs_ready
	bpftool prog loadall "$XF_TOP/build/probe.bpf.o" "$TOOL_PIN" ||
		skip "bpftool cannot load the probe object"
	# nsenter, not "ip netns exec": the pin must stay in sight.
	nsenter --net="/run/netns/$XF_NS_R1" bpftool net attach tcx_ingress \
		pinned "$TOOL_PIN/xf_tc_pass" dev veth2
	id=$(bpftool -j prog show pinned "$TOOL_PIN/xf_tc_pass" | jq -er .id)
	rm -rf "$TOOL_PIN"
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook tc
	assert_equal "$stderr" "Error: veth2 already has a tcx program $id (xf_tc_pass) that xfwd did not attach; detach it first."
	run -0 in_r1 bpftool -j net show dev veth2
	assert_output --partial "\"prog_id\":$id"
	run -0 no_hooks veth1
	[[ ! -e $PIN_DIR ]]
}

@test "xfwd's own redirect on a tcx hook: refused as its, with the way out, and left attached" {
	if no_tcx tc; then tcx_refused; return; fi
	run -0 xr redirect add dev veth2 to veth1
	id=$(in_r1 bpftool -j net show dev veth2 |
		jq -er '[.[].tc[] | select(.kind == "tcx/ingress")][0].prog_id')
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook tc
	assert_equal "$stderr" "Error: veth2 runs xfwd's redirect on its tcx ingress (program $id), and route takes a tcx hook only alone; \"xfwd redirect del dev veth2 ingress all\" first."
	run -0 in_r1 bpftool -j net show dev veth2
	assert_output --partial "\"prog_id\":$id"
	run -0 no_hooks veth1
	# The way out it names works.
	run -0 xr redirect del dev veth2 ingress all
	run -0 xr route attach dev veth1 dev veth2 hook tc
	run -0 xr route detach all
}

# --- 12. all or nothing, detach -------------------------------------------------

@test "attach over two devices where the second does not exist leaves the first untouched" {
	run -1 --separate-stderr xr route attach dev veth1 dev nosuch0 hook xdp
	assert_output ""
	assert_equal "$stderr" 'Error: device "nosuch0" does not exist.'
	run -0 no_hooks veth1
	[[ ! -e $PIN_DIR ]]
	run -0 --separate-stderr xr -j route show
	assert_output '{"interfaces":[]}'
	run -1 --separate-stderr xr route detach dev nosuch0
	assert_equal "$stderr" 'Error: device "nosuch0" does not exist.'
}

# bats test_tags=guest
@test "attach that fails in the kernel at its last step, after both devices, takes back both" {
	local out n
	tx_off
	if kernel_lacks xdp_features; then
		# No native XDP without XDP features (6.1): refused up front.
		run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp mode native
		assert_equal "$stderr" "Error: mode native needs the kernel to report XDP features (Linux 6.3); this kernel does not: use mode generic."
		run -0 no_hooks veth1 veth2
		return
	fi
	# The kernel refuses the last of the attach's calls (XFWD_FAULT,
	# counted first), after both devices are in: a veth here refuses XDP
	# no other way since route's program is xdp.frags (the peer's MTU
	# did). txn.bats fails every call in turn.
	out=$(XFWD_FAULT=count xr route attach dev veth1 dev veth2 hook xdp mode native 2>&1)
	[[ $out =~ fault:\ ([0-9]+)\ kernel\ calls ]]
	n=${BASH_REMATCH[1]}
	run -0 xr route detach all
	XFWD_FAULT=fail:$n run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp \
		mode native
	assert_output ""
	[[ $stderr == *$'\nError: '* ]]
	run -0 no_hooks veth1 veth2
	[[ ! -e $PIN_DIR ]]
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	# Nothing half-made stands in the way of the next attach.
	run -0 attach xdp
}

@test "detach restores the state before attach, on both hooks" {
	local before after dev hook
	before=$(for dev in veth1 veth2; do
		ip -n "$XF_NS_R1" -d link show dev "$dev"
		in_r1 tc qdisc show dev "$dev"
		in_r1 bpftool net show dev "$dev"
	done)
	for hook in xdp tc; do
		if no_tcx $hook; then tcx_refused; continue; fi
		run -0 attach $hook
		run ! no_hooks veth1
		run ! no_hooks veth2
		[[ -e $PIN_DIR/route ]]
		run -0 xr route detach dev veth1 dev veth2
		after=$(for dev in veth1 veth2; do
			ip -n "$XF_NS_R1" -d link show dev "$dev"
			in_r1 tc qdisc show dev "$dev"
			in_r1 bpftool net show dev "$dev"
		done)
		assert_equal "$after" "$before"
		[[ ! -e $PIN_DIR ]]
		run -0 xr -j route show
		assert_output '{"interfaces":[]}'
	done
}

@test "detach of one device takes it out of the set, the other stays" {
	warm_up
	run -0 attach xdp
	run -0 xr route detach dev veth2
	# veth2 has left the set: traffic to it goes to the kernel.
	run -0 ping4 3 "$XF_H2_IP4" -q
	assert_output --partial "3 packets transmitted, 3 received"
	assert_equal "$(ctr veth1 forwarded)" 0
	assert_equal "$(ctr veth1 not_in_set)" 3
	run -0 xr -j route show
	run -0 jq -r '[.interfaces[].dev] | join(" ")' <<<"$output"
	assert_output veth1
	run -0 no_hooks veth2
	run -1 --separate-stderr xr route detach dev veth2
	assert_equal "$stderr" "Error: veth2 is not in the forwarding set."
}

# loads PROG: how many times the command traced into $BATS_TEST_TMPDIR/st
# loaded a program named PROG.
loads() { grep -c "BPF_PROG_LOAD.*prog_name=\"$1\"" "$BATS_TEST_TMPDIR/st" || true; }

# The kernel verifies route's XDP program once per command: the first
# chain the command builds loads it, the others take its instructions
# from there (they loaded a copy each, and the instance a third one that
# nothing ran). Hook tc loads no XDP program, and a set all on hook xdp
# no tc program (the instance verified one that nothing ran): the first
# member on hook tc adds it to the instance. A new member's counters
# start from 0 in a slot another left.
@test "route's programs are loaded once per command, however many interfaces" {
	local dev
	if ! no_tcx tc; then
		strace -f -qq -e trace=bpf -o "$BATS_TEST_TMPDIR/st" \
			xfwd -n "$XF_NS_R1" route attach dev veth1 dev veth2 hook tc
		assert_equal "$(loads xf_route_tc)" 1
		assert_equal "$(loads xf_route_xdp)" 0
		run -0 xr route detach all
	fi
	warm_up
	xdp_ready
	strace -f -qq -e trace=bpf -o "$BATS_TEST_TMPDIR/st" \
		xfwd -n "$XF_NS_R1" route attach dev veth1 dev veth2 hook xdp
	assert_equal "$(loads xf_route_xdp)" 1
	assert_equal "$(loads xf_chain)" 2
	assert_equal "$(loads xf_route_tc)" 0
	[[ -e $PIN_DIR/route/xf_rt_ifcfg && ! -e $PIN_DIR/route/prog_tc ]]
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 5
	assert_equal "$(ctr veth2 forwarded)" 5
	# With the instance there (veth2 keeps it), one copy for both chains.
	run -0 xr route detach dev veth1
	ip -n "$XF_NS_R1" link add veth3 type veth peer name veth4
	ip -n "$XF_NS_R1" link add veth5 type veth peer name veth6
	for dev in veth4 veth6; do
		in_r1 ethtool -K "$dev" tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	done
	strace -f -qq -e trace=bpf -o "$BATS_TEST_TMPDIR/st" \
		xfwd -n "$XF_NS_R1" route attach dev veth3 dev veth5 hook xdp
	assert_equal "$(loads xf_route_xdp)" 1
	assert_equal "$(loads xf_chain)" 2
	run -0 xr -j route show
	run -0 jq -r '[.interfaces[] | "\(.dev):\(.hook)"] | join(" ")' <<<"$output"
	assert_output "veth2:xdp veth3:xdp veth5:xdp"
	# veth3 took the slot veth1 left, whose counters start again from 0.
	assert_equal "$(ctr veth3 forwarded)" 0
	assert_equal "$(loads xf_route_tc)" 0
	[[ ! -e $PIN_DIR/route/prog_tc ]]
	if no_tcx tc; then return; fi
	# The first member on hook tc adds xf_route_tc, once, to the set
	# that the members on hook xdp keep using.
	strace -f -qq -e trace=bpf -o "$BATS_TEST_TMPDIR/st" \
		xfwd -n "$XF_NS_R1" route attach dev veth1 hook tc
	assert_equal "$(loads xf_route_tc)" 1
	assert_equal "$(loads xf_route_xdp)" 0
	[[ -e $PIN_DIR/route/prog_tc ]]
	run -0 xr -j route show
	run -0 jq -r '[.interfaces[] | "\(.dev):\(.hook)"] | join(" ")' <<<"$output"
	assert_output "veth1:tc veth2:xdp veth3:xdp veth5:xdp"
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 5
	assert_equal "$(ctr veth2 forwarded)" 10
}

# links_by_name DEV: how many link requests (RTM_GETLINK, 18) naming DEV
# (IFLA_IFNAME) the command traced into $BATS_TEST_TMPDIR/st sent. strace
# names no type of a socket opened in another namespace than its own,
# hence the numbers; -xx writes every byte in hex.
links_by_name() {
	local b pat='\x03\x00'
	for b in $(printf '%s' "$1" | od -An -tx1); do pat+="\\x$b"; done
	grep -E 'nlmsg_type=(RTM_GETLINK|0x12)[ ,]' "$BATS_TEST_TMPDIR/st" |
		grep -cF "$pat\\x00" || true
}

# An attach reads each device it is given once, by its name, and hands
# what it read down to the chain it joins on hook xdp (which read it three
# times more).
@test "route attach reads each device once" {
	local hook
	warm_up
	xdp_ready
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		strace -f -qq -xx -s 256 -e trace=sendto,sendmsg -o "$BATS_TEST_TMPDIR/st" \
			xfwd -n "$XF_NS_R1" route attach dev veth1 dev veth2 hook $hook
		assert_equal "$(links_by_name veth1) $(links_by_name veth2)" "1 1"
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(ctr veth1 forwarded)" 3
		run -0 xr route detach all
	done
}

# gone_detach HOOK: veth3 attached with veth1 on HOOK, then deleted; detach
# all clears everything, the pins and the run directory's object copies.
gone_detach() {
	local ifindex
	ip -n "$XF_NS_R1" link add veth3 type veth peer name veth4
	# -force: as above, the peers' checksum offload under hook xdp.
	run -0 xr -force route attach dev veth1 dev veth3 hook "$1"
	ifindex=$(ip -n "$XF_NS_R1" -j link show veth3 | jq -er '.[0].ifindex')
	[[ -e $PIN_DIR/$ifindex/route ]]
	ip -n "$XF_NS_R1" link del veth3
	run -0 xr -j route show
	run -0 jq -r '.interfaces[] | "\(.dev) \(.ifindex)"' <<<"$output"
	assert_output "veth1 $(ip -n "$XF_NS_R1" -j link show veth1 | jq -r '.[0].ifindex')
- $ifindex"
	run -0 xr route show
	assert_output --partial "the interface has gone"
	run -0 --separate-stderr xr route detach all
	[[ ! -e $PIN_DIR ]]
	[[ ! -e /run/xfwd/${PIN_DIR##*/} ]] || fail "left: $(find "/run/xfwd/${PIN_DIR##*/}")"
	run -0 no_hooks veth1
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

@test "detach all clears pins whose interface has gone, on each hook" {
	gone_detach xdp
	if no_tcx tc; then return; fi
	gone_detach tc
}

# --- show / get output and usage ---------------------------------------------------

@test "route show and route get -j: pure JSON with the documented keys" {
	local json
	if no_tcx tc; then tcx_refused; return; fi
	warm_up
	run -0 attach tc
	run -0 ping4 2 "$XF_H2_IP4" -q
	run -1 ping4 1 "$XF_H2_IP4" -t 1
	run -0 --separate-stderr xr -j route show
	[[ -z $stderr ]]
	json=$output
	run -0 jq -e '.interfaces | length == 2' <<<"$json"
	run -0 jq -r '.interfaces[0] | keys_unsorted | join(" ")' <<<"$json"
	assert_output "dev ifindex hook mode family lookup prog_id forwarded forwarded_bytes passed passed_bytes why netfilter skips pass_reasons"
	run -0 jq -r '[.interfaces[].pass_reasons[] | keys_unsorted | join(" ")] | unique | .[]' <<<"$json"
	assert_output "reason packets bytes"
	run -0 jq -r '.interfaces[0].pass_reasons[] | "\(.reason) \(.packets)"' <<<"$json"
	assert_line "ttl 1"
	run -0 --separate-stderr xr -j route show dev veth2
	run -0 jq -r '.interfaces[] | "\(.dev) \(.hook) \(.mode) \(.family)"' <<<"$output"
	assert_output "veth2 tc tcx all"
	assert_equal "$(ctr veth2 forwarded) $(ctr veth2 forwarded_bytes)" "2 196"
	run -0 --separate-stderr xr -j route get "$XF_H2_IP4" iif veth1
	[[ -z $stderr ]]
	run -0 jq -r 'keys_unsorted | join(" ")' <<<"$output"
	assert_output "dst from iif hook prog_id verdict reason fib_rc source_check oif via neigh mtu src_mac dst_mac ttl"
	run -0 --separate-stderr xr -j route get 224.0.0.1 iif veth1
	run -0 jq -r 'keys_unsorted | join(" ")' <<<"$output"
	assert_output "dst from iif hook prog_id verdict reason"
	# The table names the hook choice for hook auto.
	run -0 xr route detach all
	run -0 xr route attach dev veth1
	run -0 xr route show dev veth1
	assert_output --partial "auto: veth, where XDP would turn off the peer's TSO"
}

# bats test_tags=guest
@test "hook auto on a veth: tc, or xdp where the kernel has no tcx; show says why" {
	if kernel_lacks tcx; then
		# auto takes xdp, which a peer with its offloads on refuses.
		run -1 --separate-stderr xr route attach dev veth1
		assert_equal "${stderr%%: XDP*}" "Error: veth1's peer veth0 (netns $XF_NS_H1) has tx checksum and tx-vlan offload on"
		tx_off
	fi
	run -0 xr route attach dev veth1
	run -0 xr -j route show dev veth1
	run -0 jq -r '.interfaces[0] | "\(.hook): \(.why)"' <<<"$output"
	if kernel_lacks tcx; then
		assert_output "xdp: auto: no tcx in this kernel"
	else
		assert_output "tc: auto: veth, where XDP would turn off the peer's TSO"
	fi
}

# Each usage error: exit 2, nothing on stdout, exactly one Error: line.
usage_error() {
	run -2 --separate-stderr xr route "$@"
	assert_equal "$output" ""
	assert_equal "$(grep -c '^Error: ' <<<"$stderr")" 1
	assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "route usage errors exit 2 with one Error line" {
	usage_error attach dev veth1 hook bogus
	usage_error attach hook tc
	usage_error attach dev veth1 hook tc hook xdp
	usage_error attach dev veth1 dev veth1
	usage_error attach dev veth1 hook tc mode native
	usage_error attach dev veth1 family ipx
	usage_error attach dev veth1 lookup sideways
	usage_error attach dev
	usage_error detach
	usage_error detach all dev veth1
	usage_error show bogus
	usage_error get
	usage_error get 198.18.2.300
	usage_error get 198.18.2.1 from 2001:2::1
	usage_error get 198.18.2.1 ttl 256
	usage_error get 198.18.2.1 proto sctp
	usage_error get 198.18.2.1 ttl 2 ttl 3
	usage_error get 198.18.2.1 len 10
	# Nothing was attached by any of them.
	run -0 no_hooks veth1
}
