# SPDX-License-Identifier: GPL-2.0
# Helpers of test/route.bats: commands in the three namespaces, xfwd in r1,
# the fast path's counters and the kernel's.

in_h1() { ip netns exec "$XF_NS_H1" "$@"; }
in_r1() { ip netns exec "$XF_NS_R1" "$@"; }
in_h2() { ip netns exec "$XF_NS_H2" "$@"; }

# xfwd in r1. Never through "ip netns exec": that mounts a fresh sysfs, and
# pins made on the bpffs xfwd would mount there vanish with the command.
xr() { xfwd -n "$XF_NS_R1" "$@"; }

# Bounded pings from h1: ping4/ping6 COUNT DST [ARGS...].
ping4() { in_h1 ping -c "$1" -i 0.05 -W 1 "${@:3}" "$2"; }
ping6() { in_h1 ping -6 -c "$1" -i 0.05 -W 1 "${@:3}" "$2"; }

# df_ping FAMILY PAYLOAD: one ping with DF and PAYLOAD bytes of data from
# h1 to h2, h1's learned path MTUs forgotten first; prints the MTU a
# router answered with ("mtu N"), "through", or "lost".
df_ping() {
	local out
	ip -n "$XF_NS_H1" "-$1" route flush cache
	if [[ $1 == 6 ]]; then
		out=$(ping6 1 "$XF_H2_IP6" -s "$2" -M do 2>&1) || true
	else
		out=$(ping4 1 "$XF_H2_IP4" -s "$2" -M do 2>&1) || true
	fi
	if [[ $out =~ mtu\ ?=\ ?([0-9]+) ]]; then
		echo "mtu ${BASH_REMATCH[1]}"
	elif [[ $out == *" 1 received"* ]]; then
		echo through
	else
		echo lost
	fi
}

# Kernel forwarding, both families, both ways, so that every neighbour is
# resolved before the fast path is attached.
warm_up() {
	ping4 1 "$XF_H2_IP4" -q >/dev/null
	ping6 1 "$XF_H2_IP6" -q >/dev/null
}

# hook xdp on the hosts' veths: GRO on, as a veth takes XDP redirects only
# while its peer has XDP or GRO on (shared/environment.md), and transmit
# checksum and tx-vlan offload off, without which route attach refuses
# hook xdp (XDP would forward their TCP and UDP with unfinished checksums,
# and take their tags, sent in skb metadata, for untagged frames).
xdp_ready() {
	in_h1 ethtool -K veth0 gro on tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	in_h2 ethtool -K veth0 gro on tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
}

# tx_off: only the checksum offload, for hook xdp without GRO.
tx_off() {
	in_h1 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	in_h2 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
}

# iperf_server: one iperf3 server run in h2, in the background (BG_PID,
# which route_teardown ends if the test does not get to iperf_server_done).
iperf_server() {
	ip netns exec "$XF_NS_H2" iperf3 -s -1 >"$BATS_TEST_TMPDIR/iperf-s.out" 2>&1 3>&- &
	BG_PID=$!
	wait_until 5 bash -c "ip netns exec $XF_NS_H2 ss -Hltn | grep -q ':5201 '"
}

iperf_server_done() {
	wait "$BG_PID"
	BG_PID=
}

# attach HOOK [ARGS...]: veth1 and veth2 of r1 on HOOK (GRO first for xdp).
attach() {
	local hook=$1
	shift
	[[ $hook != xdp ]] || xdp_ready
	xr route attach dev veth1 dev veth2 hook "$hook" "$@"
}

# ctr DEV KEY: the fast path's counter on DEV for KEY: "forwarded",
# "forwarded_bytes" or a pass reason's packets (0 when not listed).
# "forwarded" counts with it the packets passed for the neighbour's
# upkeep (neigh_upkeep: the first to a next hop, then one each half
# second, which the kernel forwards the same way); "fast" and "fast_bytes"
# do not.
ctr() {
	xr -j route show dev "$1" | jq -er --arg k "$2" '.interfaces[0] |
		([.pass_reasons[] | select(.reason == "neigh_upkeep")] | first) as $u |
		if $k == "forwarded" then .forwarded + ($u.packets // 0)
		elif $k == "forwarded_bytes" then .forwarded_bytes + ($u.bytes // 0)
		elif $k == "fast" then .forwarded
		elif $k == "fast_bytes" then .forwarded_bytes else
		[.pass_reasons[] | select(.reason == $k) | .packets] | add // 0 end'
}

# ctr_ge DEV KEY N: the counter has reached N (for wait_until).
ctr_ge() {
	local n
	n=$(ctr "$1" "$2") && ((n >= $3))
}

# kstat NS NAME: a kernel SNMP counter of NS as nstat names it
# (IpForwDatagrams, Ip6OutForwDatagrams, IcmpInEchos, ...), absolute.
kstat() {
	ip netns exec "$1" nstat -asz "$2" | awk -v n="$2" '$1 == n { print $2; f = 1 }
		END { exit !f }'
}

# kfwd_mark DEV...: what r1's kernel forwarded (IpForwDatagrams and
# Ip6OutForwDatagrams, summed) less what the fast path on DEVs passed for
# the neighbours' upkeep, which the kernel forwards too: the kernel's own
# share, for kfwd_is.
kfwd_mark() {
	local n d
	n=$(($(kstat "$XF_NS_R1" IpForwDatagrams) + $(kstat "$XF_NS_R1" Ip6OutForwDatagrams)))
	for d; do n=$((n - $(ctr "$d" neigh_upkeep))); done
	echo "$n"
}

# kfwd_is MARK N DEV...: the kernel's own share (kfwd_mark DEV...) grew
# by exactly N since MARK. Called as a command, never under run.
kfwd_is() {
	local m=$1 n=$2
	shift 2
	assert_equal "$(kfwd_mark "$@")" $((m + n))
}

# kstat_ge NS NAME N: the counter has reached N (for wait_until).
kstat_ge() {
	local n
	n=$(kstat "$1" "$2") && ((n >= $3))
}

# fast_pings IP4 IP6 A B: 10 pings of each family from h1 to IP4 and IP6
# (IP6 "-": IPv4 alone; IP4 "-": IPv6 alone), all answered, each way on the
# fast path of A (h1's side) and B, the kernel's forwarding counter flat but
# for the neighbours' upkeep.
fast_pings() {
	local before n=0
	before=$(kfwd_mark "$3" "$4")
	if [[ $1 != - ]]; then
		run -0 ping4 10 "$1" -q
		assert_output --partial "10 packets transmitted, 10 received"
		n=10
	fi
	if [[ $2 != - ]]; then
		run -0 ping6 10 "$2" -q
		assert_output --partial "10 packets transmitted, 10 received"
		n=$((n + 10))
	fi
	assert_equal "$(ctr "$3" forwarded)" "$n"
	assert_equal "$(ctr "$4" forwarded)" "$n"
	kfwd_is "$before" 0 "$3" "$4"
}

# generic_pings IP4 G O: with G (a device with no native XDP and no
# ndo_xdp_xmit, in generic mode) and O the set on hook xdp, 10 pings from
# h1 to IP4, all answered: what comes out of G is forwarded on the fast
# path; what would go into it is passed on O (no_xmit) and the kernel
# forwards it. Before Linux 6.3 (no XDP features) every member is generic
# and reaches any device: both ways on the fast path.
generic_pings() {
	local before
	assert_equal "$(xr -j route show dev "$2" | jq -r '.interfaces[0].mode')" generic
	before=$(kfwd_mark "$2" "$3")
	run -0 ping4 10 "$1" -q
	assert_output --partial "10 packets transmitted, 10 received"
	assert_equal "$(ctr "$2" forwarded)" 10
	if kernel_lacks xdp_features; then
		assert_equal "$(ctr "$3" forwarded)" 10
		kfwd_is "$before" 0 "$2" "$3"
	else
		assert_equal "$(ctr "$3" no_xmit)" 10
		assert_equal "$(ctr "$3" fast)" 0
		kfwd_is "$before" 10 "$2" "$3"
	fi
}

# mac NS DEV
mac() {
	ip -n "$1" -j link show dev "$2" | jq -er '.[0].address'
}

# frames COUNT KIND...: test/fixtures/frames.py from h1 to h2 through r1
# (SRC4, DST4: other IPv4 addresses).
frames() {
	in_h1 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/frames.py" veth0 \
		"$(mac "$XF_NS_R1" veth1)" "${SRC4:-$XF_H1_IP4}" "${DST4:-$XF_H2_IP4}" \
		"$XF_H1_IP6" "$XF_H2_IP6" "$@"
}

# The pin directory of r1's namespace (named by its netns cookie).
pin_dir() {
	local cookie
	cookie=$(in_r1 /usr/bin/python3 -c 'import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])') || return
	echo "/sys/fs/bpf/xfwd/ns$cookie"
}

# no_hooks DEV...: no XDP program and no tcx or tc ingress program on r1's
# DEVs, each of which exists. Two processes for all DEVs: the fault loops
# call this after every step, and a process costs more than the parsing.
no_hooks() {
	local links net dev line found
	links=$(ip -n "$XF_NS_R1" -d -o link show) || return
	net=$(in_r1 bpftool net show) || return
	# bpftool's "tc:" section, up to the blank line that ends it.
	net=${net#*$'\ntc:\n'}
	net=${net%%$'\n\n'*}
	for dev in "$@"; do
		found=0
		while read -r line; do
			[[ $line == [0-9]*": $dev"[@:]* ]] || continue
			found=1
			[[ $line != *prog/xdp* ]] || return
		done <<<"$links"
		((found)) || return
		[[ $'\n'$net != *$'\n'"$dev("* ]] || return
	done
}

# A third prefix behind h2 (on its loopback), routed by r1 through h2:
# 198.18.3.0/24 and 2001:2:0:3::/64.
XF_H2_FAR4=198.18.3.1
XF_H2_FAR6=2001:2:0:3::1
far_prefix() {
	ip -n "$XF_NS_H2" addr add "$XF_H2_FAR4/32" dev lo
	ip -n "$XF_NS_H2" addr add "$XF_H2_FAR6/128" dev lo
	ip -n "$XF_NS_R1" route add 198.18.3.0/24 via "$XF_H2_IP4"
	ip -n "$XF_NS_R1" -6 route add 2001:2:0:3::/64 via "$XF_H2_IP6"
}

# no_tcx HOOK: HOOK is tc and this kernel has no tcx (before Linux 6.6).
# A test of hook tc then checks the refusal (tcx_refused) and ends there:
#	if no_tcx tc; then tcx_refused; return; fi
no_tcx() {
	[[ $1 == tc ]] && kernel_lacks tcx
}

# tcx_refused: "route attach ... hook tc" is refused with the reason and
# nothing changes.
tcx_refused() {
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook tc
	assert_output ""
	assert_equal "$stderr" "Error: hook tc needs tcx (Linux 6.6 or later), which this kernel lacks; use hook xdp."
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# each_hook FN [ATTACH_ARG...]: FN HOOK for hook xdp, then tc, each with
# the fast path attached first ("attach HOOK ATTACH_ARGs") and detached
# after; where the kernel has no tcx, hook tc's refusal is checked instead.
each_hook() {
	local fn=$1 hook
	shift
	for hook in xdp tc; do
		if no_tcx $hook; then tcx_refused; continue; fi
		run -0 attach $hook "$@"
		"$fn" $hook
		run -0 xr route detach all
	done
}

# IPv6 route MTUs. ip6_finish_output() holds a forwarded packet to its
# route's MTU metric, locked or not, which bpf_fib_lookup() sees only when
# it is locked; with the local table by addresses, the program knows the
# smallest metric of any IPv6 route (xfwd_bpf.h) and passes what is longer.
mtu6_or_skip() {
	if kernel_lacks kern_ctx; then
		skip "route MTU metrics are seen with the local table by addresses (Linux 6.2)"
	fi
}

# big6 SIZE: a ping of SIZE bytes h1 -> h2 with DF, h1's learned path MTUs
# forgotten first (h1 would refuse to send it itself otherwise).
big6() {
	ip -n "$XF_NS_H1" -6 route flush cache
	ping6 1 "$XF_H2_IP6" -s "$1" -M do
}

# pmtu6_exception MTU: h2 tells r1 that a packet r1 sent it was too big
# for MTU; the kernel keeps an exception (a cached route with that mtu)
# for h2. r1's address is the one h2 reaches it by.
pmtu6_exception() {
	in_h2 /usr/bin/python3 -c 'import sys
from scapy.config import conf
from scapy.layers.inet6 import IPv6, ICMPv6PacketTooBig, ICMPv6EchoRequest
from scapy.packet import Raw
from scapy.sendrecv import send
conf.verb = 0
r1, h2, mtu = sys.argv[1:]
inner = IPv6(src=r1, dst=h2) / ICMPv6EchoRequest() / Raw(b"x" * 1400)
send(IPv6(src=h2, dst=r1) / ICMPv6PacketTooBig(mtu=int(mtu)) / bytes(inner)[:1232])' \
		"$XF_R1_IP6B" "$XF_H2_IP6" "$1"
	wait_until 3 bash -c "ip -n $XF_NS_R1 -6 route get $XF_H2_IP6 | grep -q 'mtu $1'"
}

# The hook of tests that need one but not a particular one.
ANY_HOOK=tc
if kernel_lacks tcx; then
	ANY_HOOK=xdp
fi

# The frame of the route suites (route, route_fast, route_offload): each
# test gets a fresh h1 -- r1 -- h2. Teardown ends the test's background
# process (BG_PID), detaches the fast path and fails the test for what
# detach all left behind: pins outlive the namespace, and so does the run
# state (/run/xfwd/ns<id>: route-netfilter, object copies).
route_setup() {
	_common_setup
	topo_create
	PIN_DIR=$(pin_dir)
}

route_teardown() {
	local left=0
	[[ -z ${BG_PID:-} ]] || kill "$BG_PID" 2>/dev/null || true
	xr route detach all >/dev/null 2>&1 || true
	left_behind "${PIN_DIR:-}" "${PIN_DIR:+/run/xfwd/${PIN_DIR##*/}}" || left=1
	topo_destroy
	((!left))
}

# route_dumps [4|6]: the route dumps (RTM_GETROUTE, 26, with NLM_F_DUMP)
# of that family (both without one) in the strace output
# $BATS_TEST_TMPDIR/st so far. strace names no type of a socket opened in
# another namespace than its own, hence the number.
route_dumps() {
	local fam='(02|0a)'
	[[ ${1:-} != 4 ]] || fam=02
	[[ ${1:-} != 6 ]] || fam=0a
	grep -cE 'nlmsg_type=(RTM_GETROUTE|0x1a)[ ,][^}]*nlmsg_flags=NLM_F_REQUEST[^}]*(NLM_F_DUMP|0x300)[^}]*\}, "\\x'"$fam"'\\x00' \
		"$BATS_TEST_TMPDIR/st" || true
}

# source_check SRC: how route get's run checked the source SRC of a packet
# h1 -> h2: "addresses" (xf_rt_src4), "lookup", or empty.
source_check() {
	xr -j route get "$XF_H2_IP4" iif veth1 from "$1" | jq -r '.source_check // empty'
}

# The check the fast path makes with a current address table.
table_check() {
	if kernel_lacks kern_ctx; then echo lookup; else echo addresses; fi
}
