#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The kernel state that route attach and refresh used to copy, changed
# after the attach with no refresh: rp_filter, accept_local, a realm, an
# address, route MTUs. Each test runs its sequence with the kernel alone
# first, then on each hook, and the outcome must be the kernel's from the
# next packet on. h1 -- r1 -- h2 as in test/route.bats.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

setup_file() {
	_need_root
}

setup() {
	route_setup
	in_h2 nft -f - <<-'EOF'
		table inet xft {
			chain pre {
				type filter hook prerouting priority -300; policy accept;
			}
		}
	EOF
	warm_up
}

teardown() {
	route_teardown
}

# counted SRC: h2 counts the echo requests from SRC before routing.
counted() {
	in_h2 nft add rule inet xft pre ip saddr "$1" icmp type echo-request counter comment "\"$1\""
}

# seen SRC: how many of them h2 has counted.
seen() {
	in_h2 nft -j list chain inet xft pre | jq -er --arg s "$1" '[.nftables[].rule? |
		select(.comment == $s) | .expr[] | .counter? | select(.) | .packets] | add'
}

seen_ge() {
	local n
	n=$(seen "$1") && ((n >= $2))
}

# outcome SRC: 5 echo requests from SRC to h2 through r1, then 5 from h1's
# own address, from one socket on one CPU so that r1 takes them in order:
# once the latter are at h2, the former are through r1 or dropped there.
# Prints "arrive" (all 5 at h2), "drop" (none) or "partial N". With a
# hook attached (SEQ_HOOK), also notes in $BATS_TEST_TMPDIR/fast whether
# the fast path forwarded the 5 itself, as STEP:fast, or left them to the
# kernel, STEP:kernel. The margin allows for the packets the neighbour
# upkeep passes (one per next hop per interval) among the ten.
outcome() {
	local src=$1 s0 b0 s1 f0=0
	s0=$(seen "$src")
	b0=$(seen "$XF_H1_IP4")
	[[ -z ${SEQ_HOOK:-} ]] || f0=$(ctr veth1 forwarded)
	in_h1 taskset -c 0 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/echo4.py" veth0 \
		"$(mac "$XF_NS_R1" veth1)" "$XF_H2_IP4" 5 "$src" "$XF_H1_IP4"
	wait_until 5 seen_ge "$XF_H1_IP4" $((b0 + 5))
	s1=$(seen "$src")
	# The 5 from h1's own address are forwarded by the fast path too.
	if [[ -n ${SEQ_HOOK:-} ]]; then
		f0=$(($(ctr veth1 forwarded) - f0 - 5))
		if ((f0 >= 3)); then
			echo -n "$STEP:fast "
		elif ((f0 <= 0)); then
			echo -n "$STEP:kernel "
		else
			echo -n "$STEP:unclear$f0 "
		fi >>"$BATS_TEST_TMPDIR/fast"
	fi
	case $((s1 - s0)) in
	5) echo arrive ;;
	0) echo drop ;;
	*) echo "partial $((s1 - s0))" ;;
	esac
}

# sequence FN [FAST]: FN (which prints one line of outcomes) with the
# kernel alone, then with each hook attached; every run's line must be
# the kernel's. FN restores its own starting state first. FAST: what the
# fast path of the build that reads kernel state forwards itself, as
# outcome notes it, on each hook (where it need not pass a packet to be
# exact, it does not).
sequence() {
	local fn=$1 fast=${2:-} kernel hook
	counted "$XF_H1_IP4"
	kernel=$("$fn")
	echo "kernel: $kernel" >&3
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		rm -f "$BATS_TEST_TMPDIR/fast"
		SEQ_HOOK=$hook run -0 "$fn"
		assert_output "$kernel"
		if [[ -n $fast ]] && ! kernel_lacks kern_ctx; then
			assert_equal "$(<"$BATS_TEST_TMPDIR/fast")" "$fast"
		fi
		run -0 xr route detach all
	done
}

r1_sysctl() {
	in_r1 sysctl -qw "$@"
}

# --- rp_filter ------------------------------------------------------------------

# 198.18.5.5 has no route back on r1; 198.18.2.77 has one, through veth2.
rp_steps() {
	local v line=""
	for v in 0 1 2 0; do
		r1_sysctl net.ipv4.conf.veth1.rp_filter=$v
		STEP=rp$v
		line+="rp$v $(outcome 198.18.5.5) $(outcome 198.18.2.77); "
	done
	echo "$line"
}

# bats test_tags=guest
@test "rp_filter 0 -> 1 -> 2 -> 0 on the ingress after the attach: the kernel's outcome" {
	counted 198.18.5.5
	counted 198.18.2.77
	sequence rp_steps "rp0:fast rp0:fast rp1:kernel rp1:kernel rp2:kernel rp2:fast rp0:fast rp0:fast "
	# What the kernel does, so that the comparison means something.
	run -0 rp_steps
	assert_output "rp0 arrive arrive; rp1 drop drop; rp2 drop arrive; rp0 arrive arrive; "
}

# --- accept_local ---------------------------------------------------------------

# r1's own address on veth2 as the source, arriving on veth1; on at the
# attach (the test sets it before), so that a copy would skip the check.
local_steps() {
	local v line=""
	for v in 1 0 1; do
		r1_sysctl net.ipv4.conf.veth1.accept_local=$v
		STEP=al$v
		line+="al$v $(outcome "$XF_R1_IP4B"); "
	done
	echo "$line"
}

# bats test_tags=guest
@test "accept_local on and off after the attach: the kernel's outcome" {
	r1_sysctl net.ipv4.conf.veth1.accept_local=1
	counted "$XF_R1_IP4B"
	sequence local_steps "al1:fast al0:kernel al1:fast "
	run -0 local_steps
	assert_output "al1 arrive; al0 drop; al1 arrive; "
}

# --- realms ---------------------------------------------------------------------

# With accept_local on and no realm, the kernel checks no source at all;
# a route with a realm makes it check every source, and veth2's subnet
# broadcast address is then refused as one.
realm_steps() {
	local line
	ip -n "$XF_NS_R1" route del 198.18.9.0/24 2>/dev/null || true
	STEP=none
	line="none $(outcome 198.18.2.255); "
	ip -n "$XF_NS_R1" route add 198.18.9.0/24 dev veth2 realm 7
	STEP=realm
	line+="realm $(outcome 198.18.2.255); "
	ip -n "$XF_NS_R1" route del 198.18.9.0/24
	STEP=none
	line+="none $(outcome 198.18.2.255); "
	echo "$line"
}

# bats test_tags=guest
@test "a route with a realm added after the attach: the kernel's outcome" {
	r1_sysctl net.ipv4.conf.veth1.accept_local=1
	counted 198.18.2.255
	sequence realm_steps "none:fast realm:kernel none:fast "
	run -0 realm_steps
	assert_output "none arrive; realm drop; none arrive; "
}

# --- an address -----------------------------------------------------------------

# A source that becomes one of r1's addresses, and stops being one.
addr_steps() {
	local line
	ip -n "$XF_NS_R1" addr del 198.18.5.5/32 dev lo 2>/dev/null || true
	STEP=none
	line="none $(outcome 198.18.5.5); "
	ip -n "$XF_NS_R1" addr add 198.18.5.5/32 dev lo
	STEP=added
	line+="added $(outcome 198.18.5.5); "
	ip -n "$XF_NS_R1" addr del 198.18.5.5/32 dev lo
	STEP=removed
	line+="removed $(outcome 198.18.5.5); "
	echo "$line"
}

# bats test_tags=guest
@test "an address added and removed after the attach, as a source: the kernel's outcome" {
	counted 198.18.5.5
	# Removed, the address table is stale until a refresh: the reverse
	# lookup finds no route back to the source, and passes it.
	sequence addr_steps "none:fast added:kernel removed:kernel "
	run -0 addr_steps
	assert_output "none arrive; added drop; removed arrive; "
}

# --- route MTUs -----------------------------------------------------------------

# big FAMILY: a 1400-byte packet with DF from h1 to h2 (df_ping).
big() {
	if [[ $1 == 6 ]]; then df_ping 6 1352; else df_ping 4 1372; fi
}

# mtu_steps FAMILY ROUTE...: a 1400-byte ping before and after r1 gets
# ROUTE (ip route add ... to h2 itself), and after it is gone.
mtu_steps() {
	local fam=$1 line
	shift
	ip -n "$XF_NS_R1" "-$fam" route del "$@" 2>/dev/null || true
	line="none $(big "$fam"); "
	ip -n "$XF_NS_R1" "-$fam" route add "$@"
	line+="route $(big "$fam"); "
	ip -n "$XF_NS_R1" "-$fam" route del "$@"
	line+="none $(big "$fam"); "
	echo "$line"
}

mtu6_unlocked() { mtu_steps 6 "$XF_H2_IP6/128" dev veth2 mtu 1300; }
mtu4_unlocked() { mtu_steps 4 "$XF_H2_IP4/32" dev veth2 mtu 1300; }
mtu4_locked() { mtu_steps 4 "$XF_H2_IP4/32" dev veth2 mtu lock 1300; }

# bats test_tags=guest
@test "an IPv6 route with an unlocked MTU added after the attach: packet too big as from the kernel" {
	sequence mtu6_unlocked
	run -0 mtu6_unlocked
	assert_output "none through; route mtu 1300; none through; "
}

# bats test_tags=guest
@test "an IPv4 route with an unlocked MTU added after the attach: frag needed as from the kernel" {
	sequence mtu4_unlocked
	run -0 mtu4_unlocked
	assert_output "none through; route mtu 1300; none through; "
}

# bats test_tags=guest
@test "an IPv4 route with a locked MTU added after the attach: frag needed as from the kernel" {
	sequence mtu4_locked
	run -0 mtu4_locked
	assert_output "none through; route mtu 1300; none through; "
}

# With the MTUs read at the attach and nothing changed since, the
# reading build takes a packet within every route's MTU on the fast path
# and passes the rest; the other build passes whatever is over 1280 bytes.
# bats test_tags=guest
@test "route MTUs there at the attach: 1400 bytes pass where a route says 1300, forwarded elsewhere" {
	local hook fwd
	ip -n "$XF_NS_R1" route add "$XF_H2_IP4/32" dev veth2 mtu 1300
	ip -n "$XF_NS_R1" -6 route add "$XF_H2_IP6/128" dev veth2 mtu 1300
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		run -0 big 4
		assert_output "mtu 1300"
		run -0 big 6
		assert_output "mtu 1300"
		run -0 ctr veth1 mtu
		((output >= 2))
		run -0 xr route detach all
	done
	ip -n "$XF_NS_R1" route del "$XF_H2_IP4/32"
	ip -n "$XF_NS_R1" -6 route del "$XF_H2_IP6/128"
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		run -0 big 4
		assert_output through
		run -0 big 6
		assert_output through
		fwd=$(ctr veth1 forwarded)
		if kernel_lacks kern_ctx; then
			assert_equal "$fwd" 0
		else
			assert_equal "$fwd" 2
		fi
		run -0 xr route detach all
	done
}

# traced CMD...: xfwd CMD in r1 under strace, its netlink requests kept
# for route_dumps (helpers/route.bash).
traced() {
	strace -f -qq -e trace=sendto,sendmsg -o "$BATS_TEST_TMPDIR/st" xfwd -n "$XF_NS_R1" "$@"
}

# attach_two HOOK N: veth1 then veth2 on HOOK, the first attach dumping N
# route tables, the second none.
attach_two() {
	[[ $1 != xdp ]] || xdp_ready
	traced route attach dev veth1 hook "$1"
	assert_equal "$(route_dumps)" "$2"
	traced route attach dev veth2 hook "$1"
	assert_equal "$(route_dumps)" 0
}

# Attach and detach dump the routes (every table: a walk as long as the
# FIB) only where the kernel's counter of that family moved since the
# tables were written, and route refresh always does; what they keep is
# exact, as the MTUs of routes added in between show. The build that
# reads no kernel state keeps no such table and dumps nothing.
# bats test_tags=guest
@test "attach and detach dump the routes only after the FIB changed; route refresh always" {
	local hook one=1 both=2
	if kernel_lacks kern_ctx; then one=0 both=0; fi
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		attach_two $hook $both
		run -0 big 4
		assert_output through
		# One family's counter moves: its dump alone, then none.
		ip -n "$XF_NS_R1" route add "$XF_H2_IP4/32" dev veth2 mtu 1300
		traced route detach dev veth2
		assert_equal "$(route_dumps)" $one
		traced route attach dev veth2 hook $hook
		assert_equal "$(route_dumps)" 0
		run -0 big 4
		assert_output "mtu 1300"
		ip -n "$XF_NS_R1" -6 route add "$XF_H2_IP6/128" dev veth2 mtu 1300
		traced route detach dev veth2
		assert_equal "$(route_dumps)" $one
		traced route attach dev veth2 hook $hook
		assert_equal "$(route_dumps)" 0
		run -0 big 6
		assert_output "mtu 1300"
		traced route refresh
		assert_equal "$(route_dumps)" $both
		run -0 big 4
		assert_output "mtu 1300"
		run -0 xr route detach all
		ip -n "$XF_NS_R1" route del "$XF_H2_IP4/32"
		ip -n "$XF_NS_R1" -6 route del "$XF_H2_IP6/128"
	done
}

# A FIB of 40,000 routes (20,000 a family, to h2's own addresses among
# others): the first attach reads it, the next ones do not, and what the
# fast path forwards to those routes it forwards as the kernel would
# route it, the kernel's forwarding counter flat.
# bats test_tags=guest
@test "a FIB of 40,000 routes: read once, and forwarded on the fast path as the kernel routes it" {
	local hook before both=2
	if kernel_lacks kern_ctx; then both=0; fi
	seq 20000 | awk -v h4="$XF_H2_IP4" -v h6="$XF_H2_IP6" '{
		printf "route add 198.19.%d.%d/32 via %s\n", int($1 / 256), $1 % 256, h4
		printf "route add 2001:2:0:7::%x/128 via %s\n", $1, h6 }' >"$BATS_TEST_TMPDIR/routes"
	ip -n "$XF_NS_R1" -batch "$BATS_TEST_TMPDIR/routes"
	ip -n "$XF_NS_H2" addr add 198.19.0.7/32 dev lo
	ip -n "$XF_NS_H2" addr add 2001:2:0:7::7/128 dev lo nodad
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		attach_two $hook $both
		before=$(kfwd_mark veth1 veth2)
		run -0 ping4 5 198.19.0.7 -q
		assert_output --partial "5 packets transmitted, 5 received"
		run -0 ping6 5 2001:2:0:7::7 -q
		assert_output --partial "5 packets transmitted, 5 received"
		assert_equal "$(ctr veth1 forwarded) $(ctr veth2 forwarded)" "10 10"
		kfwd_is "$before" 0 veth1 veth2
		run -0 xr route detach all
	done
}
