# SPDX-License-Identifier: GPL-2.0
# Helpers of test/hostile.bats: the h1 -- r1 -- h2 topology made
# deterministic for the corpus of test/fixtures/corpus.py, and its runs.
# Needs scripts/topo.bash and test/helpers/route.bash loaded.

H1_MAC=02:00:00:00:01:01 R1A_MAC=02:00:00:00:01:fe
R1B_MAC=02:00:00:00:02:fe H2_MAC=02:00:00:00:02:01
XF_CORPUS_PY=${XF_CORPUS_PY:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)/corpus.py}

corpus() { /usr/bin/python3 "$XF_CORPUS_PY" "$@"; }

# hostile_topo [nic]: topo_create (with nic, on the guests' NICs in place of
# the veths: test/helpers/nic.bash), then fix what could differ between
# runs: MACs,
# MTUs (h1 may send up to 3000, r1 takes up to 2000, 1500 onwards), every
# neighbour permanent, GRO on at both hosts, r1's ICMP not rate limited.
# The corpus goes past h2 to a prefix r1 routes through it; h2 drops it
# silently (forwarding off, not its address), so h2 answers nothing.
hostile_topo() {
	local ns dev ip lladdr
	topo_create
	if [[ ${1:-} == nic ]]; then
		nic_as_veths
		export HOSTILE_NIC=1
	fi
	ip -n "$XF_NS_H1" link set veth0 address $H1_MAC mtu 3000
	ip -n "$XF_NS_R1" link set veth1 address $R1A_MAC mtu 2000
	ip -n "$XF_NS_R1" link set veth2 address $R1B_MAC
	ip -n "$XF_NS_H2" link set veth0 address $H2_MAC
	ip -n "$XF_NS_R1" route add 198.18.3.0/24 via "$XF_H2_IP4"
	ip -n "$XF_NS_R1" -6 route add 2001:2:0:3::/64 via "$XF_H2_IP6"
	while read -r ns dev ip lladdr; do
		ip -n "$ns" neigh replace "$ip" lladdr "$lladdr" dev "$dev" nud permanent
	done <<-EOF
		$XF_NS_R1 veth1 $XF_H1_IP4 $H1_MAC
		$XF_NS_R1 veth1 $XF_H1_IP6 $H1_MAC
		$XF_NS_R1 veth2 $XF_H2_IP4 $H2_MAC
		$XF_NS_R1 veth2 $XF_H2_IP6 $H2_MAC
		$XF_NS_H1 veth0 $XF_R1_IP4A $R1A_MAC
		$XF_NS_H1 veth0 $XF_R1_IP6A $R1A_MAC
		$XF_NS_H2 veth0 $XF_R1_IP4B $R1B_MAC
		$XF_NS_H2 veth0 $XF_R1_IP6B $R1B_MAC
	EOF
	ip netns exec "$XF_NS_R1" sysctl -qw net.ipv4.icmp_ratelimit=0 \
		net.ipv4.icmp_msgs_per_sec=100000 net.ipv4.icmp_msgs_burst=100000 \
		net.ipv6.icmp.ratelimit=0
	# tx off: what the hosts send is never left with a partial checksum
	# (environment.md), which hook xdp refuses to forward; here frames
	# are raw, and it holds in all three runs alike.
	# The NICs have no checksum offload on qemu's hubs, nor tx-vlan.
	[[ ${1:-} == nic ]] && return
	ip netns exec "$XF_NS_H1" ethtool -K veth0 gro on tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	ip netns exec "$XF_NS_H2" ethtool -K veth0 gro on tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
}

# gen_corpus FILE
gen_corpus() {
	local table=1
	# Labels only (bench/run has no kernel_lacks, and counts no labels).
	if declare -F kernel_lacks >/dev/null && kernel_lacks kern_ctx; then table=0; fi
	XF_SRC_TABLE=$table corpus gen "$1" $H1_MAC $R1A_MAC "$XF_H1_IP4" 198.18.3.1 "$XF_H1_IP6" \
		2001:2:0:3::1 "$XF_R1_IP4A" "$XF_R1_IP4B" "$XF_R1_IP6A" "$XF_R1_IP6B"
}

# l2_reasons: "vlan N not_ip N other_host N", the packets of these pass
# reasons on r1's veth1 (all 0 when not attached), as corpus.py reasons
# prints them. The fast path tells tags apart (vlan_unknown, vlan_prio0,
# vlan_qinq, vlan_source, vlan_down, vlan_qos): summed as "vlan".
l2_reasons() {
	xr -j route show dev veth1 2>/dev/null | jq 2>/dev/null -er '.interfaces[0] |
		[.pass_reasons[] | {(.reason): .packets}] | add // {} |
		"vlan \((.vlan // 0) + (.vlan_unknown // 0) + (.vlan_prio0 // 0) +
			(.vlan_qinq // 0) + (.vlan_source // 0) + (.vlan_down // 0) +
			(.vlan_qos // 0)) not_ip \(.not_ip // 0) other_host \(.other_host // 0)"' ||
		echo "vlan 0 not_ip 0 other_host 0"
}

# fwd_pass: "FORWARDED PASSED" on r1's ingress, veth1 or HOSTILE_TUN (0 0
# when not attached).
fwd_pass() {
	xr -j route show dev "${HOSTILE_TUN:-veth1}" 2>/dev/null |
		jq 2>/dev/null -er '.interfaces[0] |
			([.pass_reasons[] | select(.reason == "neigh_upkeep") | .packets] | add // 0) as $u |
			"\(.forwarded + $u) \([.pass_reasons[].packets] | add // 0 | . - $u)"' ||
		echo "0 0"
}

# send_corpus NAME: the corpus from h1 (or, with HOSTILE_TUN set, its IP
# packets into r1's tun device of that name) with whatever r1 runs now; h2's
# capture into $BATS_FILE_TMPDIR/NAME.{fwd,own}, the fast path's counter
# deltas into FWD and PASSED, and of the pass reasons the Ethernet header
# decides into L2 ("vlan N not_ip N other_host N").
send_corpus() {
	local dir=$BATS_FILE_TMPDIR name=$1 before after rc l2a l2b k
	rm -f "$dir/$name.ready"
	ip netns exec "$XF_NS_H2" /usr/bin/python3 "$XF_CORPUS_PY" capture veth0 \
		"$dir/$name.cap" "$dir/$name.ready" 20 3>&- &
	CAP_PID=$!
	wait_until 5 test -e "$dir/$name.ready"
	before=$(fwd_pass)
	read -ra l2b <<<"$(l2_reasons)"
	if [[ -n ${HOSTILE_TUN:-} ]]; then
		run -0 ip netns exec "$XF_NS_R1" /usr/bin/python3 "$XF_CORPUS_PY" \
			sendtun "$HOSTILE_TUN" "$CORPUS"
		SENT=$output
	else
		run -0 ip netns exec "$XF_NS_H1" /usr/bin/python3 "$XF_CORPUS_PY" \
			send veth0 "$CORPUS"
		SENT=$output
		# h1 could not send the frames the veth refuses (over r1's
		# MTU), and only those; a NIC puts them on the wire
		# (HOSTILE_NIC: hostile_topo nic), and r1's receive decides.
		local wire
		wire=$(count wire)
		[[ -z ${HOSTILE_NIC:-} ]] || wire=0
		assert_output "sent $(($(wc -l <"$CORPUS") - wire)) failed $wire"
	fi
	rc=0
	wait "$CAP_PID" || rc=$?
	CAP_PID=
	assert_equal "capture exit $rc" "capture exit 0"
	after=$(fwd_pass)
	FWD=$((${after% *} - ${before% *}))
	PASSED=$((${after#* } - ${before#* }))
	read -ra l2a <<<"$(l2_reasons)"
	L2=
	for k in 1 3 5; do
		L2+="${L2:+ }${l2a[k - 1]} $((l2a[k] - l2b[k]))"
	done
	run -0 corpus split "$dir/$name.cap" "$dir/$name.fwd" "$dir/$name.own" \
		"$XF_R1_IP4A" "$XF_R1_IP4B" "$XF_R1_IP6A" "$XF_R1_IP6B"
	echo "# $name: $SENT; at h2 $output; fast path forwarded $FWD passed $PASSED ($L2)" >&3
}

count() { grep -c "^$1 " "$CORPUS" || true; }

# The kernel's run is the reference; the first test that needs it makes it.
kernel_reference() {
	[[ -s $BATS_FILE_TMPDIR/kernel.fwd ]] && return
	send_corpus kernel
	assert_equal "$FWD $PASSED" "0 0"
}

# same_as_kernel NAME: NAME's frames at h2 are the kernel's, byte for byte.
same_as_kernel() {
	same_as_kernel_as kernel "$1"
}

# same_as_kernel_as REF NAME: the same against the kernel's run REF.
same_as_kernel_as() {
	local d=$BATS_FILE_TMPDIR
	run diff "$d/$1.fwd" "$d/$2.fwd"
	assert_success
	run diff "$d/$1.own" "$d/$2.own"
	assert_success
}

# fast_went_fast: the fast path forwarded (FWD) the frames labelled "fast"
# and the end marker. The plain build passes what it cannot know exactly
# (route MTUs past 1280 bytes, the source check's settings): fewer frames
# on the fast path there, and the same ones at h2 (same_as_kernel).
fast_went_fast() {
	if kernel_lacks kern_ctx; then
		((FWD > 0 && FWD <= $(count fast) + 1)) || fail "forwarded $FWD of $(count fast) + 1"
	else
		assert_equal "$FWD" $(($(count fast) + 1))
	fi
}

# hostile_hook HOOK [ATTACH...]: the corpus through r1 with veth1 and veth2
# attached on HOOK (ATTACH: more words for the attach), the same frames at
# h2 as the kernel's run, the controls and the end marker on the fast path
# and every other frame passed, each under its reason.
hostile_hook() {
	local hook=$1
	shift
	kernel_reference
	run -0 xr route attach dev veth1 dev veth2 hook "$hook" "$@"
	send_corpus "$hook"
	same_as_kernel "$hook"
	# The controls and the end marker went the fast path, nothing else;
	# every other frame was passed to the kernel (h1's own IPv6 chatter,
	# MLD and router solicitations, may add to that). On hook tc the
	# early frames never arrive: the kernel drops them before.
	fast_went_fast
	# A NIC's own filters (qemu's virtio-net, as a real NIC, drops tags it
	# was not told of and unicast for other hosts) take frames before any
	# program sees them: fewer are passed, and the same reach h2.
	[[ -z ${HOSTILE_NIC:-} ]] || return 0
	if [[ $hook == xdp ]]; then
		(($(count kernel) + $(count early) <= PASSED)) ||
			fail "passed $PASSED < $(count kernel) + $(count early)"
	else
		(($(count kernel) <= PASSED)) || fail "passed $PASSED < $(count kernel)"
	fi
	# Every VLAN and QinQ frame, every other type and every frame for
	# another host, each under its own reason, exactly.
	assert_equal "$L2" "$(corpus reasons "$CORPUS" $R1A_MAC "$hook")"
}
