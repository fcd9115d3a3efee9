#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route and netfilter, h1 -- r1 -- h2: the fast path forwards around
# netfilter, so route attach refuses where a chain on the forwarding path
# of r1 would act (nftables, iptables-nft, iptables-legacy, ip6tables),
# unless "netfilter bypass"; show then says what is bypassed, and a chain
# that comes later gets a Warning from the next command that reads state.
# Which hooks each fast path hook skips is measured with counters on every
# hook.
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

nft_r1() { in_r1 nft "$@"; }

# refused WHAT...: route attach (hook ANY_HOOK) fails with one Error line
# that names each WHAT and both ways out, and nothing changes.
refused() {
	local w
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK"
	assert_output ""
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_regex "$stderr" '^Error: the fast path would bypass netfilter: '
	for w in "$@"; do
		[[ $stderr == *"$w"* ]] || fail "\"$w\" not in: $stderr"
	done
	[[ $stderr == *'"lookup flowtable"'* && $stderr == *'"netfilter bypass"'* ]] ||
		fail "no way out named: $stderr"
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# attached_and_forwarding: route attach succeeds and the fast path forwards.
attached_and_forwarding() {
	warm_up
	run -0 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK"
	assert_equal "$stderr" ""
	run -0 ping4 3 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 3
}

@test "netfilter: an nft forward-chain drop rule is refused, naming it" {
	nft_r1 add table ip filter
	nft_r1 add chain ip filter forward '{ type filter hook forward priority 0; }'
	nft_r1 add rule ip filter forward ip daddr 198.18.2.0/24 drop
	refused "nftables table ip filter chain forward (hook forward, 1 rule, policy accept)"
}

@test "netfilter: an iptables-nft MASQUERADE rule as a container host has it is refused" {
	in_r1 iptables-nft -t nat -N DOCKER
	in_r1 iptables-nft -t nat -A POSTROUTING -s 198.18.1.0/24 ! -o veth1 -j MASQUERADE
	refused "nftables table ip nat chain POSTROUTING (hook postrouting, 1 rule, policy accept)"
}

@test "netfilter: an iptables-legacy FORWARD rule is refused" {
	in_r1 iptables-legacy -A FORWARD -i veth1 -j ACCEPT
	refused "iptables-legacy table filter chain FORWARD (hook forward, 1 rule, policy accept)"
}

@test "netfilter: an ip6tables rule and a drop policy are refused, and only for IPv6" {
	in_r1 ip6tables -A FORWARD -p udp -j DROP
	in_r1 ip6tables-legacy -P FORWARD DROP
	refused "nftables table ip6 filter chain FORWARD (hook forward, 1 rule, policy accept)" \
		"ip6tables-legacy table filter chain FORWARD (hook forward, 0 rules, policy drop)"
	# The IPv4 fast path bypasses neither.
	run -0 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK" family inet
	assert_equal "$stderr" ""
}

@test "netfilter: a netdev ingress chain is refused on its device only" {
	nft_r1 add table netdev t
	nft_r1 add chain netdev t in "{ type filter hook ingress device veth2 priority 0; policy drop; }"
	refused "nftables table netdev t chain in (hook ingress on veth2, 0 rules, policy drop)"
	run -0 --separate-stderr xr route attach dev veth1 hook "$ANY_HOOK"
	assert_equal "$stderr" ""
}

@test "netfilter: Debian's default nftables.conf is no refusal" {
	nft_r1 -f /etc/nftables.conf
	run -0 nft_r1 list chain inet filter forward
	attached_and_forwarding
}

@test "netfilter: an empty ruleset and empty legacy tables are no refusal" {
	nft_r1 flush ruleset
	in_r1 iptables-legacy -L FORWARD -n >/dev/null
	in_r1 ip6tables-legacy -t nat -L -n >/dev/null
	attached_and_forwarding
}

@test "netfilter: rules on input and output only are no refusal" {
	nft_r1 add table inet host
	nft_r1 add chain inet host in '{ type filter hook input priority 0; policy drop; }'
	nft_r1 add rule inet host in meta l4proto '{ icmp, ipv6-icmp }' accept
	nft_r1 add chain inet host out '{ type filter hook output priority 0; }'
	nft_r1 add rule inet host out counter
	in_r1 iptables-legacy -A INPUT -p tcp --dport 22 -j ACCEPT
	attached_and_forwarding
}

@test "netfilter: a dormant table is no refusal" {
	nft_r1 add table ip off '{ flags dormant; }'
	nft_r1 add chain ip off f '{ type filter hook forward priority 0; policy drop; }'
	attached_and_forwarding
}

# A counter for ICMP on every hook of the forwarding path of r1.
counters_everywhere() {
	nft_r1 -f - <<-EOF
	table netdev nd {
		chain c_ingress { type filter hook ingress device veth1 priority 0; meta l4proto icmp counter; }
		chain c_egress { type filter hook egress device veth2 priority 0; meta l4proto icmp counter; }
	}
	table inet t {
		chain c_prerouting { type filter hook prerouting priority 0; meta l4proto icmp counter; }
		chain c_forward { type filter hook forward priority 0; meta l4proto icmp counter; }
		chain c_postrouting { type filter hook postrouting priority 0; meta l4proto icmp counter; }
	}
	EOF
}

# counts: each counter's packets, "chain=N" on one line, in a fixed order.
counts() {
	nft_r1 -j list ruleset | jq -r '[.nftables[] | select(.rule) |
		"\(.rule.chain)=\(.rule.expr[-1].counter.packets)"] | sort | join(" ")'
}

# plus COUNTS U1 U2: COUNTS (as counts prints them) with the packets the
# kernel forwarded for the neighbours' upkeep: U1 from veth1 (ingress,
# egress and the inet hooks), U2 from veth2 (the inet hooks).
plus() {
	local c out=() u1=$2 u2=$3
	for c in $1; do
		case ${c%=*} in
		c_ingress | c_egress) out+=("${c%=*}=$((${c#*=} + u1))") ;;
		*) out+=("${c%=*}=$((${c#*=} + u1 + u2))") ;;
		esac
	done
	echo "${out[*]}"
}

# bypassed_everywhere HOOK: with the fast path on HOOK, forwarded pings move
# no counter but by the packets passed for the neighbours' upkeep; the
# kernel's own forwarding moves every one of them.
bypassed_everywhere() {
	local hook=$1 before
	counters_everywhere
	warm_up
	before=$(counts)
	run -0 attach "$hook" netfilter bypass
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	assert_equal "$(ctr veth1 forwarded)" 5
	assert_equal "$(counts)" "$(plus "$before" "$(ctr veth1 neigh_upkeep)" "$(ctr veth2 neigh_upkeep)")"
	run -0 --separate-stderr xr -j route show dev veth1
	assert_equal "$(jq -r '[.interfaces[0].netfilter.bypassed[].chain] | sort | join(" ")' <<<"$output")" \
		"c_forward c_ingress c_postrouting c_prerouting"
	xr route detach all
	run -0 ping4 5 "$XF_H2_IP4" -q
	all_moved "$before" "$(counts)"
}

# all_moved BEFORE AFTER: every counter of counts has grown.
all_moved() {
	local b a
	read -ra b <<<"$1"
	read -ra a <<<"$2"
	assert_equal "${#a[@]}" 5
	for i in "${!b[@]}"; do
		((${a[i]#*=} > ${b[i]#*=})) || fail "${b[i]} did not move: $2"
	done
}

@test "netfilter: hook tc skips every hook of the forwarding path, netdev egress too" {
	if no_tcx tc; then tcx_refused; return; fi
	bypassed_everywhere tc
}

@test "netfilter: hook tc through the egress device (no redirect_peer) skips netdev egress too" {
	if no_tcx tc; then tcx_refused; return; fi
	# A qdisc on veth2 keeps the egress way (lib/route/fast.c).
	tc -n "$XF_NS_R1" qdisc add dev veth2 root pfifo
	bypassed_everywhere tc
}

@test "netfilter: hook xdp skips every hook of the forwarding path" {
	bypassed_everywhere xdp
}

@test "netfilter: with netfilter bypass, show reports the bypass; a later rule gets a Warning" {
	nft_r1 add table ip filter
	nft_r1 add chain ip filter forward '{ type filter hook forward priority 0; }'
	nft_r1 add rule ip filter forward counter
	warm_up
	run -0 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK" netfilter bypass
	assert_equal "$stderr" ""
	run -0 --separate-stderr xr -j route show dev veth1
	assert_equal "$stderr" ""
	run -0 jq -ce '.interfaces[0].netfilter' <<<"$output"
	assert_output '{"bypass":true,"bypassed":[{"source":"nftables","family":"ip","table":"filter","chain":"forward","hook":"forward","devices":[],"rules":1,"policy":"accept","accepted":true}]}'
	run -0 --separate-stderr xr route show
	assert_equal "$stderr" ""
	assert_output --partial "bypassed: nftables table ip filter chain forward (hook forward, 1 rule, policy accept)"
	# A second rule in the same chain and a new chain: one Warning line
	# from each command that reads state, naming what is new.
	nft_r1 add rule ip filter forward ip daddr 198.18.2.1 drop
	nft_r1 add chain ip filter post '{ type nat hook postrouting priority 100; }'
	nft_r1 add rule ip filter post masquerade
	local cmd
	for cmd in "route show" "stats show" "feature show"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr xr -j $cmd
		assert_equal "$(wc -l <<<"$stderr")" 1
		assert_regex "$stderr" '^Warning: the fast path on veth1, veth2 bypasses what was not there at its attach: '
		[[ $stderr == *"chain forward (hook forward, 2 rules, policy accept)"* ]] || fail "$stderr"
		[[ $stderr == *"chain post (hook postrouting, 1 rule, policy accept)"* ]] || fail "$stderr"
	done
	run -0 --separate-stderr xr -j route show dev veth2
	run -0 jq -ce '[.interfaces[0].netfilter.bypassed[] | [.chain, .accepted]]' <<<"$output"
	assert_output '[["forward",false],["post",false]]'
	run -0 --separate-stderr xr -j feature show
	run -0 jq -ce '.netfilter | [.forwarding_path, (.chains | length)]' <<<"$output"
	assert_output '[true,2]'
}

@test "netfilter: a rule added after a plain attach gets a Warning; detach forgets what was accepted" {
	warm_up
	run -0 --separate-stderr xr route attach dev veth1 dev veth2 hook "$ANY_HOOK"
	run -0 --separate-stderr xr route show
	assert_equal "$stderr" ""
	# NETFILTER and SKIPS, the last columns, are "-" on both (each row
	# found by its device: a row with passes is followed by its list).
	assert_line --index 0 --regexp ' NETFILTER  SKIPS$'
	assert_line --regexp '^veth1 .*  -  +-$'
	assert_line --regexp '^veth2 .*  -  +-$'
	in_r1 iptables-legacy -A FORWARD -j ACCEPT
	run -0 --separate-stderr xr route show
	assert_equal "$stderr" 'Warning: the fast path on veth1, veth2 bypasses what was not there at its attach: iptables-legacy table filter chain FORWARD (hook forward, 1 rule, policy accept); detach it, or attach it again with "netfilter bypass".'
	xr route detach all
	run -0 xr route attach dev veth1 dev veth2 hook "$ANY_HOOK" netfilter bypass
	run -0 --separate-stderr xr route show
	assert_equal "$stderr" ""
	xr route detach all
	[[ ! -e /run/xfwd/${PIN_DIR##*/} ]] || fail "run state left: $(find /run/xfwd/"${PIN_DIR##*/}")"
	refused "iptables-legacy table filter chain FORWARD"
}

@test "netfilter: bad words are usage errors" {
	run -2 --separate-stderr xr route attach dev veth1 netfilter maybe
	assert_regex "$stderr" '^Error: .*maybe'
	run -2 --separate-stderr xr route attach dev veth1 netfilter bypass netfilter check
	assert_regex "$stderr" '^Error: .*netfilter'
}
