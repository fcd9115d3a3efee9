# SPDX-License-Identifier: GPL-2.0
# Helpers of test/redirect.bats: extra namespaces around r1 (pods, a proxy,
# monitor ports), rule counters from "redirect show -j", the attachment
# path under test, tc counter programs. Loaded after helpers/route.

# Namespaces and r1 devices a test made beyond h1 -- r1 -- h2; teardown
# deletes every rule of each device in RD_DEVS and every namespace.
EXTRA_NS=()
RD_DEVS=(veth1 veth2)
BG_PIDS=()

# new_ns NAME: the namespace $XF_NS_PREFIX-NAME, lo up, no DAD. Its name
# is left in NS.
new_ns() {
	NS=$XF_NS_PREFIX-$1
	EXTRA_NS+=("$NS")
	ip netns add "$NS"
	ip -n "$NS" link set lo up
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
}

# in_ns NAME CMD...: CMD in $XF_NS_PREFIX-NAME.
in_ns() {
	local ns=$XF_NS_PREFIX-$1
	shift
	ip netns exec "$ns" "$@"
}

# pod NAME HOSTDEV N: a container namespace NAME whose eth0 is cabled to
# HOSTDEV in r1: 198.18.N.1/24 and 2001:2:0:N::1/64 in the pod,
# 198.18.N.254 and 2001:2:0:N::fe on HOSTDEV, the pod's default routes
# through r1.
pod() {
	local name=$1 host=$2 n=$3
	new_ns "$name"
	RD_DEVS+=("$host")
	ip -n "$XF_NS_R1" link add "$host" type veth peer name eth0 netns "$NS"
	ip -n "$XF_NS_R1" addr add "198.18.$n.254/24" dev "$host"
	ip -n "$XF_NS_R1" addr add "2001:2:0:$n::fe/64" dev "$host" nodad
	ip -n "$NS" addr add "198.18.$n.1/24" dev eth0
	ip -n "$NS" addr add "2001:2:0:$n::1/64" dev eth0 nodad
	ip -n "$XF_NS_R1" link set "$host" up
	ip -n "$NS" link set eth0 up
	ip -n "$NS" route add default via "198.18.$n.254"
	ip -n "$NS" -6 route add default via "2001:2:0:$n::fe"
	wait_until 3 _ll_ready "$NS" eth0
	wait_until 3 _ll_ready "$XF_NS_R1" "$host"
}

# A link-local address: IPv6 neighbour discovery works from then on.
_ll_ready() {
	ip -n "$1" -6 addr show dev "$2" scope link | grep -q 'inet6 fe80'
}

# monitor NAME HOSTDEV: a port HOSTDEV in r1 whose far end is eth0 of
# namespace NAME, without addresses and without IPv6 on either end, so
# that eth0 receives only what redirect rules send through HOSTDEV, and
# sends nothing of its own.
monitor() {
	local name=$1 host=$2
	new_ns "$name"
	RD_DEVS+=("$host")
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$XF_NS_R1" link add "$host" type veth peer name eth0 netns "$NS"
	# r1 would send MLD reports through it.
	in_r1 sysctl -qw "net.ipv6.conf.$host.disable_ipv6=1"
	ip -n "$XF_NS_R1" link set "$host" up
	ip -n "$NS" link set eth0 up
}

# rx NAME DEV: frames DEV of namespace $XF_NS_PREFIX-NAME received.
rx() {
	ip -n "$XF_NS_PREFIX-$1" -s -j link show dev "$2" | jq -er '.[0].stats64.rx.packets'
}

# tc_mode tcx|cls_bpf: the attachment path xfwd takes from now on, and
# what "redirect show" must say (ATTACH).
# Where the kernel has no tcx (before 6.6) xfwd falls back to cls_bpf by
# itself: that is what "tcx" then means.
tc_mode() {
	ATTACH=$1
	[[ $1 != tcx ]] || ATTACH=$TC_AUTO
	if [[ $1 == cls_bpf ]]; then
		export XFWD_TC_MODE=clsact
	else
		unset XFWD_TC_MODE
	fi
}

# rule DEV [DIR] MATCH KEY: a rule's field from "redirect show -j" (KEY
# packets, bytes, attach, mode, to, via, foreign); MATCH "all" for the
# rule without match.
rule() {
	local dev=$1 dir=ingress
	shift
	[[ $1 == ingress || $1 == egress ]] && dir=$1 && shift
	xr -j redirect show dev "$dev" | jq -er --arg d "$dir" --arg m "$1" --arg k "$2" '
		[.rules[] | select(.dir == $d and (.match // "all") == $m)] |
		if length == 1 then .[0][$k] else error("no such rule") end'
}

# rule_ge DEV [DIR] MATCH KEY N: the field has reached N (for wait_until).
rule_ge() {
	local n
	n=$(rule "${@:1:$#-1}") && ((n >= ${!#}))
}

# attach_is PATH: every rule of r1 is attached that way (tcx, cls_bpf, xdp).
attach_is() {
	run -0 xr -j redirect show
	run -0 jq -r '[.rules[].attach] | unique | join(" ")' <<<"$output"
	assert_output "$1"
}

# ping_ns NAME COUNT DST [ARGS...]: bounded pings from namespace NAME.
ping_ns() {
	in_ns "$1" ping -c "$2" -i 0.05 -W 1 "${@:4}" "$3"
}

# tc_count NS DEV DIR: test/progs/tc_count (counts IPv4 packets, lets all
# go on) as a cls_bpf filter on DEV of NS; its map id is left in MAP.
tc_count() {
	local obj=$XF_TOP/build/test/progs/tc_count.bpf.o prog
	[[ -e $obj ]] || fail "$obj is missing: make check builds it"
	ip netns exec "$1" tc qdisc replace dev "$2" clsact
	ip netns exec "$1" tc filter add dev "$2" "$3" bpf da obj "$obj" sec tc
	prog=$(ip netns exec "$1" tc -j filter show dev "$2" "$3" |
		jq -er '[.[] | select(.options.prog.name == "xf_tc_count")][0].options.prog.id')
	MAP=$(bpftool -j prog show id "$prog" | jq -er '.map_ids[0]')
}

# count MAP: what a tc_count program has counted.
count() {
	bpftool -j map lookup id "$1" key 0 0 0 0 | jq -er '.formatted.value'
}

# tc_progs DEV: the ids of the tc programs (tcx or cls_bpf) on r1's DEV.
tc_progs() {
	in_r1 bpftool -j net show dev "$1" | jq -r '[.[0].tc[] | .prog_id // .id] | join(" ")'
}

# no_state DEV...: nothing of xfwd's left on r1's DEVs (no tc program, no
# XDP, no clsact) and no pins for r1's namespace.
no_state() {
	local dev
	for dev in "$@"; do
		[[ -z $(tc_progs "$dev") ]] || return
		[[ $(ip -n "$XF_NS_R1" -d link show dev "$dev") != *prog/xdp* ]] || return
		[[ $(in_r1 tc qdisc show dev "$dev") != *clsact* ]] || return
	done
	[[ ! -e $PIN_DIR ]]
}

# capture NAME DEV COUNT FILE: mirror.py capture in the background; returns
# once it is listening.
capture() {
	# The bound covers the sender's start too (python and scapy, seconds
	# on a busy machine); the capture ends as soon as it has COUNT.
	in_ns "$1" /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/mirror.py" capture \
		"$2" "$3" "$(vm_slow 30)" "$4" 3>&- &
	BG_PIDS+=($!)
	wait_until "$(vm_slow 5)" test -e "$4.ready"
}

# The tc attachment xfwd picks by itself on this kernel.
TC_AUTO=tcx
if kernel_lacks tcx; then
	TC_AUTO=cls_bpf
fi
