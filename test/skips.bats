#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What a forwarded packet would skip on the fast path beyond netfilter
# (netfilter.bats), h1 -- r1 -- h2, each case against the kernel alone
# first: IPsec (xfrm) policies and states, which the build that reads
# kernel state follows from the next packet and the other build refuses;
# on hook xdp the egress queueing of the set's other devices (qdiscs that
# are not the kernel's defaults, tc egress), refused unless "qdisc
# bypass", and the tc ingress that XDP runs before, refused. What comes
# after the attach gets a Warning from route show, stats show and feature
# show.
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

# udp_burst N: N datagrams of 1000 bytes from h1 to a closed port of h2,
# one a millisecond (8 Mbit/s).
udp_burst() {
	in_h1 /usr/bin/python3 -c 'import socket, sys, time
n, dst = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = time.monotonic()
for i in range(n):
    s.sendto(b"x" * 1000, (dst, 9))
    t += 0.001
    d = t - time.monotonic()
    if d > 0:
        time.sleep(d)' "$1" "$XF_H2_IP4"
}

# drained DEV: r1's qdiscs on DEV hold nothing.
drained() {
	[[ $(tc -n "$XF_NS_R1" -j -s qdisc show dev "$1" |
		jq '[.[].qlen // 0] | add') == 0 ]]
}

# delivered N: how many of N datagrams of udp_burst reach h2 (UdpNoPorts),
# once veth2's queue has drained.
delivered() {
	local before after
	before=$(kstat "$XF_NS_H2" UdpNoPorts)
	udp_burst "$1"
	wait_until 5 drained veth2
	after=$(kstat "$XF_NS_H2" UdpNoPorts)
	echo $((after - before))
}

# nothing_attached: route show is empty and r1's devices run nothing.
nothing_attached() {
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# nothing_attached_xdp: route show is empty and no XDP program runs on
# r1's devices (which have tc filters of the test's own).
nothing_attached_xdp() {
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
	run -0 ip -n "$XF_NS_R1" -d link show
	refute_output --partial "prog/xdp"
}

# xdp_refused REGEX: route attach of veth1 and veth2 on hook xdp fails with
# one Error line matching REGEX, and nothing changes.
xdp_refused() {
	xdp_ready
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_output ""
	assert_regex "$stderr" "$1"
	nothing_attached_xdp
}

# probe_filter DEV DIR: probe.bpf.o's tc program as a classic filter on
# DEV's DIR (ingress, egress).
probe_filter() {
	in_r1 tc qdisc add dev "$1" clsact
	in_r1 tc filter add dev "$1" "$2" bpf da obj "$XF_TOP/build/probe.bpf.o" sec tc
}

# xfrm_refused HOOK: the build that cannot see xfrm refuses the attach
# with one Error line naming "IPsec", and nothing changes.
xfrm_refused() {
	run -1 --separate-stderr attach "$1"
	assert_output ""
	assert_regex "$stderr" '^Error: the fast path would bypass IPsec: xfrm (dir fwd |default policy fwd block)'
	nothing_attached
}

# xfrm_each FN: FN HOOK for hook xdp, then tc, each attached first and
# detached after; where the build cannot see xfrm, its refusal is checked
# instead, and hook tc is left out where the kernel has no tcx.
xfrm_each() {
	local hook
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		if kernel_lacks kern_ctx; then
			xfrm_refused $hook
			continue
		fi
		run -0 attach $hook
		"$1" $hook
		run -0 xr route detach all
	done
}

# none_through: 3 pings from h1 do not reach h2; none was forwarded.
none_through() {
	run -1 ping4 3 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 0
}

# xfrm_passed: route show lists only xfrm, as passed.
xfrm_passed() {
	none_through
	run -0 --separate-stderr xr -j route show dev veth1
	run -0 jq -ce '[.interfaces[0].skips.items[] | [.kind, .handling]] | unique' <<<"$output"
	assert_output '[["xfrm","passed"]]'
}

# xfrm_counted: the pings were passed under the reason xfrm.
xfrm_counted() {
	none_through
	assert_equal "$(ctr veth1 xfrm)" 3
}

@test "qdisc: a tbf on the egress shapes as the kernel's on hook tc; hook xdp is refused naming it, or with qdisc bypass forwards unshaped" {
	local kernel tc bypass
	warm_up
	in_r1 tc qdisc add dev veth2 root tbf rate 1mbit burst 8kb latency 50ms
	kernel=$(delivered 400)
	((kernel > 20 && kernel < 200)) || fail "the kernel delivered $kernel of 400 through the tbf"

	xdp_refused '^Error: hook xdp would bypass egress queueing: qdisc tbf [0-9a-f]+: root on veth2; use hook tc, which keeps it, or "qdisc bypass" to bypass it knowingly\.$'

	if ! no_tcx tc; then
		run -0 xr route attach dev veth1 dev veth2 hook tc
		tc=$(delivered 400)
		ctr_ge veth1 forwarded 400 || fail "the fast path did not forward them: $(ctr veth1 forwarded)"
		((tc * 4 >= kernel * 3 && tc * 4 <= kernel * 5 + 20)) ||
			fail "hook tc delivered $tc, the kernel $kernel"
		run -0 xr route detach all
	fi

	run -0 xr route attach dev veth1 dev veth2 hook xdp qdisc bypass
	bypass=$(delivered 400)
	((bypass >= 390)) || fail "qdisc bypass delivered $bypass of 400"
	run -0 --separate-stderr xr -j route show dev veth1
	assert_equal "$stderr" ""
	run -0 jq -ce '.interfaces[0].skips | [.qdisc_bypass, (.items[] | [.kind, .dev, .handling])]' <<<"$output"
	assert_output '[true,["qdisc","veth2","accepted"]]'
}

@test "qdisc: an htb and a tc egress filter are refused on hook xdp, both named" {
	in_r1 tc qdisc add dev veth2 root handle 1: htb default 1
	probe_filter veth1 egress
	xdp_refused '^Error: hook xdp would bypass egress queueing: tc egress filter probe\.bpf\.o:\[tc\] \(prio [0-9]+\) on veth1; qdisc htb 1: root on veth2; use hook tc'
}

# qdisc_or_skip KIND: r1 can make a KIND qdisc (sch_KIND: in the guests'
# kernels, not in every host's).
qdisc_or_skip() {
	in_r1 tc qdisc add dev veth2 root "$@" 2>/dev/null ||
		skip "this kernel has no $1 qdisc"
}

# bats test_tags=guest
@test "qdisc: a netem is refused on hook xdp, named" {
	qdisc_or_skip netem delay 1ms
	xdp_refused '^Error: hook xdp would bypass egress queueing: qdisc netem [0-9a-f]+: root on veth2; use hook tc'
}

# mq_pair KIND: a third member for r1, mq0 (its peer mq1 in r1 too), with
# two transmit queues: mq at its root and a KIND child on each, as a NIC's
# defaults are.
mq_pair() {
	ip -n "$XF_NS_R1" link add name mq0 numtxqueues 2 numrxqueues 2 type veth \
		peer name mq1 numtxqueues 2 numrxqueues 2
	ip -n "$XF_NS_R1" link set mq0 up
	ip -n "$XF_NS_R1" link set mq1 up
	in_r1 ethtool -K mq1 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	in_r1 tc qdisc add dev mq0 root handle 1: mq
	in_r1 tc qdisc add dev mq0 parent 1:1 "$1"
	in_r1 tc qdisc add dev mq0 parent 1:2 "$1"
}

@test "qdisc: pfifo_fast, and mq with pfifo_fast children, as a NIC has them by default, are not refused" {
	in_r1 tc qdisc add dev veth1 root pfifo_fast
	in_r1 tc qdisc add dev veth2 root pfifo_fast
	mq_pair pfifo_fast
	xdp_ready
	warm_up
	run -0 xr route attach dev veth1 dev veth2 dev mq0 hook xdp
	run -0 ping4 3 "$XF_H2_IP4" -q
	assert_equal "$(ctr veth1 forwarded)" 3
	run -0 --separate-stderr xr -j route show
	assert_equal "$stderr" ""
	run -0 jq -ce '[.interfaces[].skips.items[]]' <<<"$output"
	assert_output '[]'
}

# bats test_tags=guest
@test "qdisc: fq_codel with its defaults, also as mq's children, is not refused; with its own limit it is" {
	qdisc_or_skip fq_codel
	mq_pair fq_codel
	xdp_ready
	run -0 xr route attach dev veth1 dev veth2 dev mq0 hook xdp
	run -0 xr route detach all
	in_r1 tc qdisc change dev veth2 root fq_codel limit 100
	xdp_refused '^Error: hook xdp would bypass egress queueing: qdisc fq_codel [0-9a-f]+: root on veth2; '
}

@test "tc ingress: a classic filter and a foreign tcx program are refused on hook xdp too" {
	local id
	probe_filter veth1 ingress
	xdp_refused '^Error: hook xdp would bypass the tc ingress of veth1: tc ingress filter probe\.bpf\.o:\[tc\] \(prio [0-9]+\) on veth1; remove it first\.$'
	in_r1 tc qdisc del dev veth1 clsact
	# A kernel without tcx (6.1) has no such program to refuse.
	if kernel_lacks tcx; then return; fi

	TOOL_PIN=/sys/fs/bpf/xfwd-test-$BATS_ROOT_PID-$BATS_TEST_NUMBER
	bpffs_ready
	bpftool prog loadall "$XF_TOP/build/probe.bpf.o" "$TOOL_PIN"
	nsenter --net="/run/netns/$XF_NS_R1" bpftool net attach tcx_ingress \
		pinned "$TOOL_PIN/xf_tc_pass" dev veth2
	id=$(bpftool -j prog show pinned "$TOOL_PIN/xf_tc_pass" | jq -er .id)
	rm -rf "$TOOL_PIN"
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "$stderr" "Error: hook xdp would bypass the tc ingress of veth2: tcx ingress program xf_tc_pass (id $id) on veth2; remove it first."
	nothing_attached_xdp
	run -0 in_r1 bpftool -j net show dev veth2
	assert_output --partial "\"prog_id\":$id"
}

@test "later additions: a qdisc and a tc ingress filter after the attach get the Warning from route show, stats show and feature show, and show in JSON" {
	local cmd warn
	xdp_ready
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	run -0 --separate-stderr xr route show
	assert_equal "$stderr" ""
	in_r1 tc qdisc add dev veth2 root tbf rate 1mbit burst 8kb latency 50ms
	probe_filter veth1 ingress
	warn='^Warning: the fast path on veth1 bypasses what was not there at its attach: qdisc tbf [0-9a-f]+: root on veth2; tc ingress filter probe\.bpf\.o:\[tc\] \(prio [0-9]+\) on veth1; detach it, use hook tc, or attach it again with "qdisc bypass"\.$'
	for cmd in "route show" "stats show" "feature show"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr xr $cmd
		assert_regex "$stderr" "$warn"
	done
	run -0 --separate-stderr xr -j route show
	run -0 jq -ce '[.interfaces[] | [.dev, (.skips.items[] | [.kind, .dev, .handling])]]' <<<"$output"
	assert_output '[["veth1",["qdisc","veth2","bypassed"],["tc ingress","veth1","bypassed"]],["veth2"]]'
}

@test "xfrm: a fwd block policy: nothing gets through the kernel, nor either hook" {
	local k0
	warm_up
	in_r1 ip xfrm policy add src 198.18.1.0/24 dst 198.18.2.0/24 dir fwd action block
	k0=$(kstat "$XF_NS_H2" IcmpInEchos)
	run -1 ping4 3 "$XF_H2_IP4" -q
	xfrm_each xfrm_counted
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$k0"
}

@test "xfrm: an ESP tunnel policy without a state (IKE not done yet): nothing reaches h2 in plaintext on either hook" {
	local k0
	warm_up
	in_r1 ip xfrm policy add src 198.18.1.0/24 dst 198.18.2.0/24 dir out \
		tmpl src "$XF_R1_IP4B" dst "$XF_H2_IP4" proto esp mode tunnel
	in_r1 ip xfrm policy add src 198.18.1.0/24 dst 198.18.2.0/24 dir fwd \
		tmpl src "$XF_R1_IP4B" dst "$XF_H2_IP4" proto esp mode tunnel level use
	k0=$(kstat "$XF_NS_H2" IcmpInEchos)
	run -1 ping4 3 "$XF_H2_IP4" -q
	xfrm_each xfrm_passed
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$k0"
}

@test "xfrm: a default policy that blocks forwarding (setdefault fwd block) is followed on both hooks" {
	warm_up
	in_r1 ip xfrm policy setdefault fwd block 2>/dev/null ||
		skip "this ip cannot set xfrm default policies"
	run -1 ping4 3 "$XF_H2_IP4" -q
	xfrm_each xfrm_counted
}

@test "xfrm: a policy added after the attach takes the next packet, a removed one frees it, with no command run" {
	local hook
	if kernel_lacks kern_ctx; then skip "the plain build cannot see xfrm: refused (above)"; fi
	warm_up
	for hook in xdp tc; do
		if no_tcx $hook; then continue; fi
		run -0 attach $hook
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(ctr veth1 forwarded)" 3
		in_r1 ip xfrm policy add src 198.18.1.0/24 dst 198.18.2.0/24 dir fwd action block
		run -1 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(ctr veth1 forwarded)" 3
		assert_equal "$(ctr veth1 xfrm)" 3
		run -0 xr route get "$XF_H2_IP4" iif veth1
		assert_line --regexp '^reason: +xfrm$'
		in_r1 ip xfrm policy flush
		run -0 ping4 3 "$XF_H2_IP4" -q
		assert_equal "$(ctr veth1 forwarded)" 6
		run -0 xr route detach all
	done
}

@test "xfrm: IPv6 policies are followed too" {
	warm_up
	in_r1 ip -6 xfrm policy add src 2001:2:0:1::/64 dst 2001:2:0:2::/64 dir fwd action block
	if no_tcx tc; then ANY=xdp; else ANY=tc; fi
	if kernel_lacks kern_ctx; then
		xfrm_refused $ANY
		return
	fi
	run -0 attach $ANY
	run -1 ping6 3 "$XF_H2_IP6" -q
	assert_equal "$(ctr veth1 xfrm)" 3
}

# esp_tunnel: the kernel's IPsec from r1 to h2 for h1 -> h2 (ESP in tunnel
# mode, a static key): r1 encrypts, h2 decrypts and takes nothing in
# plaintext from h1's prefix (a policy with a required template).
esp_tunnel() {
	local key=0x0123456789abcdef0123456789abcdef01234567 ns alg
	alg=(aead 'rfc4106(gcm(aes))' "$key" 128)
	for ns in "$XF_NS_R1" "$XF_NS_H2"; do
		ip -n "$ns" xfrm state add src "$XF_R1_IP4B" dst "$XF_H2_IP4" proto esp \
			spi 0x4242 reqid 7 mode tunnel "${alg[@]}" ||
			skip "this kernel has no ESP with rfc4106(gcm(aes))"
	done
	in_r1 ip xfrm policy add src 198.18.1.0/24 dst 198.18.2.0/24 dir out \
		tmpl src "$XF_R1_IP4B" dst "$XF_H2_IP4" proto esp reqid 7 mode tunnel
	in_h2 ip xfrm policy add src 198.18.1.0/24 dst 198.18.2.0/24 dir in \
		tmpl src "$XF_R1_IP4B" dst "$XF_H2_IP4" proto esp reqid 7 mode tunnel
}

# esp_in: packets h2's security association has decrypted.
esp_in() {
	in_h2 ip -s xfrm state list | awk '/lifetime current:/ { getline
		sub(/\(packets\)/, "", $2); print $2; f = 1; exit } END { exit !f }'
}

# bats test_tags=guest
@test "xfrm: a real ESP tunnel r1 -> h2: h2 decrypts every ping and sees none in plaintext, kernel and both hooks" {
	local n0 n1
	warm_up
	esp_tunnel
	n0=$(esp_in)
	run -0 ping4 3 "$XF_H2_IP4" -q
	n1=$(esp_in)
	assert_equal "$((n1 - n0))" 3
	ESP_N=$n1
	xfrm_each esp_decrypted
}

# esp_decrypted: 3 pings reach h2 through r1's ESP tunnel, none forwarded
# by the fast path (ESP_N: h2's count of decrypted packets so far).
esp_decrypted() {
	local n
	run -0 ping4 3 "$XF_H2_IP4" -q
	n=$(esp_in)
	assert_equal "$((n - ESP_N))" 3
	ESP_N=$n
	assert_equal "$(ctr veth1 forwarded)" 0
	ctr_ge veth1 xfrm 3 || fail "xfrm passes: $(ctr veth1 xfrm)"
}
