#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The fast path keeps r1's neighbour entries as alive as the kernel's own
# forwarding does (route_nbr.h), h1 -- r1 -- h2, state changed under
# traffic, the kernel alone first, then each hook: h2 takes a new MAC
# without telling anyone, h2 goes away, and unicast probes keep flowing
# under steady traffic. r1's timers on veth2 are short (timers below), so
# that the kernel's recovery takes seconds; each bound is the kernel's
# worst case from those timers, plus one second. Without the upkeep, hook
# xdp never reaches h2 again: r1's entry stays STALE at the old MAC. Last,
# the upkeep's sets as another build's clock would leave them.
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

# timers: r1's neighbour timers on veth2, both families: reachable for
# 1-3 s (base 2000 ms), DELAY 1 s, 3 unicast and 3 multicast probes 1 s
# apart (the defaults, set so that a host's own do not count).
timers() {
	local f
	for f in ipv4 ipv6; do
		in_r1 sysctl -qw "net.$f.neigh.veth2.base_reachable_time_ms=2000" \
			"net.$f.neigh.veth2.delay_first_probe_time=1" \
			"net.$f.neigh.veth2.retrans_time_ms=1000" \
			"net.$f.neigh.veth2.ucast_solicit=3" \
			"net.$f.neigh.veth2.mcast_solicit=3"
	done
}

# The kernel's longest way from a change at h2 to its answer, in ms, with
# those timers: the rest of REACHABLE (3000), DELAY (1000), the unicast
# probes (3000), the multicast ones (3000); and one second more.
BOUND_MS=11000

# on HOOK: the fast path on HOOK in r1, or nothing for "kernel". Hook tc
# delivers into h2's namespace with redirect_peer, which takes the frame
# whatever its MAC (the skb's packet type was settled on r1): TSO off on
# veth2 turns that off (lib/route/fast.c), so that tc sends as a NIC
# would and a stale MAC is lost as it would be on the wire.
on() {
	warm_up
	[[ $1 == kernel ]] && return
	[[ $1 == tc ]] && in_r1 ethtool -K veth2 tso off
	run -0 attach "$1"
}

# upkept HOOK: the fast path passed packets for the neighbours' upkeep
# (nothing to check for the kernel alone).
upkept() {
	[[ $1 == kernel ]] && return
	(($(ctr veth1 neigh_upkeep) > 0))
}

# recover_ms 4|6: after h2's silent change, the ms until a ping from h1 is
# answered again (one ping at a time, each waiting 100 ms), or a failure
# past BOUND_MS.
recover_ms() {
	local v=$1 dst t0 now
	[[ $v == 4 ]] && dst=$XF_H2_IP4 || dst=$XF_H2_IP6
	t0=$(date +%s%3N)
	until in_h1 ping "-$v" -c 1 -W 0.1 -q "$dst" >/dev/null; do
		now=$(date +%s%3N)
		((now - t0 <= BOUND_MS)) || {
			echo "h2 ($dst) not answering $((now - t0)) ms after its MAC changed" >&2
			return 1
		}
	done
	echo $(($(date +%s%3N) - t0))
}

# new_mac HOOK: h2's MAC changes with no gratuitous ARP or unsolicited NA;
# h1 reaches it again within the bound, both families.
new_mac() {
	local ms4 ms6
	timers
	on "$1"
	in_h1 ping -c 3 -i 0.2 -q "$XF_H2_IP4" >/dev/null
	in_h1 ping -6 -c 3 -i 0.2 -q "$XF_H2_IP6" >/dev/null
	in_h2 ip link set veth0 address 02:00:5e:10:00:02
	ms4=$(recover_ms 4)
	ms6=$(recover_ms 6)
	upkept "$1"
	echo "# $1: h2 answered again after $ms4 ms (IPv4), $ms6 ms (IPv6)" >&3
}

@test "h2 changes its MAC silently: the kernel alone finds it again" {
	new_mac kernel
}

# bats test_tags=guest
@test "h2 changes its MAC silently: hook xdp finds it again as fast as the kernel" {
	new_mac xdp
}

# bats test_tags=guest
@test "h2 changes its MAC silently: hook tc finds it again as fast as the kernel" {
	if no_tcx tc; then tcx_refused; return; fi
	new_mac tc
}

# gone HOOK: h2's addresses go, its link stays up (a host that died
# behind a switch): h1 hears "unreachable" from r1 within the bound,
# both families.
gone() {
	local out
	timers
	on "$1"
	in_h1 ping -c 3 -i 0.2 -q "$XF_H2_IP4" >/dev/null
	in_h1 ping -6 -c 3 -i 0.2 -q "$XF_H2_IP6" >/dev/null
	in_h2 ip addr flush dev veth0 scope global
	out=$(in_h1 ping -c 100 -i 0.1 -w $((BOUND_MS / 1000 + 1)) "$XF_H2_IP4" 2>&1) || true
	[[ $out == *"From $XF_R1_IP4A"*"Destination Host Unreachable"* ]] ||
		fail "no host unreachable from r1 within the bound: $out"
	out=$(in_h1 ping -6 -c 100 -i 0.1 -w $((BOUND_MS / 1000 + 1)) "$XF_H2_IP6" 2>&1) || true
	[[ $out == *"From $XF_R1_IP6A"*"Address unreachable"* ]] ||
		fail "no address unreachable from r1 within the bound: $out"
	upkept "$1"
}

@test "h2 goes away: the kernel alone answers host and address unreachable" {
	gone kernel
}

# bats test_tags=guest
@test "h2 goes away: hook xdp answers host and address unreachable as the kernel does" {
	gone xdp
}

@test "h2 goes away: hook tc answers host and address unreachable as the kernel does" {
	if no_tcx tc; then tcx_refused; return; fi
	gone tc
}

# probes: under 10 s of pings h1 -> h2 (20 a second, both families),
# the unicast ARP requests and neighbour solicitations that reach h2,
# "ARP IPv6" (nft counters in h2).
probes() {
	in_h2 nft delete table netdev probes 2>/dev/null || true
	in_h2 nft -f - <<-'EOF'
	table netdev probes {
		chain in {
			type filter hook ingress device veth0 priority 0;
			meta pkttype host arp operation request counter
			meta pkttype host icmpv6 type nd-neighbor-solicit counter
		}
	}
	EOF
	in_h1 ping -c 200 -i 0.05 -q "$XF_H2_IP4" >/dev/null &
	in_h1 ping -6 -c 200 -i 0.05 -q "$XF_H2_IP6" >/dev/null
	wait $!
	in_h2 nft -j list table netdev probes |
		jq -r '[.nftables[] | .rule? // empty | .expr[] | .counter? // empty | .packets] | join(" ")'
}

# steady HOOK: the probes h2 sees under the fast path, as the kernel sends
# them (its counts shown for comparison): unicast ARP requests, at least
# one; neighbour solicitations no fewer than the kernel's but one (here
# the IPv6 entry stays confirmed under traffic, and the kernel sends one
# in 10 s, or none).
steady() {
	local k f ka kn a n
	timers
	on kernel
	k=$(probes)
	on "$1"
	f=$(probes)
	echo "# unicast probes at h2 in 10 s (ARP NS): kernel $k, hook $1 $f" >&3
	read -r ka kn <<<"$k"
	read -r a n <<<"$f"
	((a > 0)) || fail "hook $1: no unicast ARP probes at h2 ($f; the kernel sent $k)"
	((n >= kn - 1)) || fail "hook $1: $n unicast NS probes at h2, the kernel sent $kn"
	upkept "$1"
}

# bats test_tags=guest
@test "under steady traffic on hook xdp, h2 gets unicast probes as from the kernel" {
	steady xdp
}

@test "under steady traffic on hook tc, h2 gets unicast probes as from the kernel" {
	if no_tcx tc; then tcx_refused; return; fi
	steady tc
}

# neigh_is STATE: route get from h1 to h2 names STATE as the state of
# r1's entry for h2, in the table and in JSON, and the verdict is the
# fast path's.
neigh_is() {
	run -0 xr -j route get "$XF_H2_IP4" iif veth1 from "$XF_H1_IP4"
	assert_equal "$(jq -r '"\(.reason) \(.neigh)"' <<<"$output")" "forwarded $1"
	run -0 xr route get "$XF_H2_IP4" iif veth1 from "$XF_H1_IP4"
	assert_line --regexp "^neigh: +$1\$"
}

@test "route get names the state of the neighbour entry the packet meets" {
	local mac
	warm_up
	run -0 attach "$ANY_HOOK"
	mac=$(in_h2 cat /sys/class/net/veth0/address)
	in_r1 ip neigh replace "$XF_H2_IP4" dev veth2 lladdr "$mac" nud stale
	neigh_is stale
	in_r1 ip neigh replace "$XF_H2_IP4" dev veth2 lladdr "$mac" nud permanent
	neigh_is permanent
	# No entry: the lookup says no_neigh, and so does route get.
	in_r1 ip neigh del "$XF_H2_IP4" dev veth2
	run -0 xr -j route get "$XF_H2_IP4" iif veth1 from "$XF_H1_IP4"
	assert_equal "$(jq -r '"\(.reason) \(.neigh)"' <<<"$output")" "no_neigh none"
	# Route get's runs are never passed for the upkeep, nor counted.
	assert_equal "$(ctr veth1 neigh_upkeep)" 0
}

# far_ahead: every taken way of r1's neighbour upkeep (xf_rt_nbr: sets of
# two 32-byte ways, the due time in the last 8 bytes of each) set due at
# 2^62, a time no clock of the programs reaches: what a set left by a
# build on the other clock looks like (ns against jiffies). Prints how
# many ways it moved.
far_ahead() {
	local pin
	pin=$(pin_dir)/route/xf_rt_nbr
	bpftool -j map dump pinned "$pin" | python3 -c '
import json, sys
n, out = 0, []
for e in json.load(sys.stdin):
    v = [int(b, 16) for b in e["value"]]
    hit = False
    for w in (0, 32):
        if any(v[w:w + 4]):
            v[w + 24:w + 32] = list((1 << 62).to_bytes(8, "little"))
            hit = True
            n += 1
    if hit:
        out.append("map update pinned %s key %s value %s" % (sys.argv[1],
                   " ".join(e["key"]), " ".join(str(b) for b in v)))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print(n)' "$pin" "$BATS_TEST_TMPDIR/far.batch"
	bpftool batch file "$BATS_TEST_TMPDIR/far.batch" >/dev/null
}

@test "a neighbour way due far ahead (left by a build on another clock) is due at once: the upkeep goes on" {
	local n before
	warm_up
	run -0 attach "$ANY_HOOK"
	ping4 2 "$XF_H2_IP4" -q >/dev/null
	wait_until 3 ctr_ge veth1 neigh_upkeep 1
	n=$(far_ahead)
	((n >= 1))
	before=$(ctr veth1 neigh_upkeep)
	ping4 1 "$XF_H2_IP4" -q >/dev/null
	assert_equal "$(ctr veth1 neigh_upkeep)" $((before + 1))
}
