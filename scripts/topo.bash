# SPDX-License-Identifier: GPL-2.0
# The h1 -- r1 -- h2 topology of seed 000 in uniquely named namespaces,
# shared by the tests, the demo and the benchmarks. Addresses come from
# 198.18.0.0/15 and 2001:2::/48 only.

# Names come from XF_NS_PREFIX (default: xf<pid>), so runs can overlap.
_topo_names() {
	XF_NS_PREFIX=${XF_NS_PREFIX:-xf$$}
	XF_NS_H1="$XF_NS_PREFIX-h1"
	XF_NS_R1="$XF_NS_PREFIX-r1"
	XF_NS_H2="$XF_NS_PREFIX-h2"
	export XF_NS_PREFIX XF_NS_H1 XF_NS_R1 XF_NS_H2
	# h1 veth0 <-> r1 veth1, r1 veth2 <-> h2 veth0
	export XF_H1_IP4=198.18.1.1 XF_R1_IP4A=198.18.1.254
	export XF_R1_IP4B=198.18.2.254 XF_H2_IP4=198.18.2.1
	export XF_H1_IP6=2001:2:0:1::1 XF_R1_IP6A=2001:2:0:1::fe
	export XF_R1_IP6B=2001:2:0:2::fe XF_H2_IP6=2001:2:0:2::1
}

# Build h1 -- r1 -- h2; r1 forwards with the kernel. Fails loudly.
topo_create() {
	_topo_names
	topo_destroy
	local ns
	for ns in "$XF_NS_H1" "$XF_NS_R1" "$XF_NS_H2"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		# No DAD: link-local addresses stay tentative for about 2 s
		# otherwise, and IPv6 neighbour discovery waits for them.
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip -n "$XF_NS_H1" link add veth0 type veth peer name veth1 netns "$XF_NS_R1"
	ip -n "$XF_NS_R1" link add veth2 type veth peer name veth0 netns "$XF_NS_H2"
	ip -n "$XF_NS_H1" addr add "$XF_H1_IP4/24" dev veth0
	ip -n "$XF_NS_H1" addr add "$XF_H1_IP6/64" dev veth0 nodad
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP4A/24" dev veth1
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP6A/64" dev veth1 nodad
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP4B/24" dev veth2
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP6B/64" dev veth2 nodad
	ip -n "$XF_NS_H2" addr add "$XF_H2_IP4/24" dev veth0
	ip -n "$XF_NS_H2" addr add "$XF_H2_IP6/64" dev veth0 nodad
	ip -n "$XF_NS_H1" link set veth0 up
	ip -n "$XF_NS_R1" link set veth1 up
	ip -n "$XF_NS_R1" link set veth2 up
	ip -n "$XF_NS_H2" link set veth0 up
	ip -n "$XF_NS_H1" route add default via "$XF_R1_IP4A"
	ip -n "$XF_NS_H1" -6 route add default via "$XF_R1_IP6A"
	ip -n "$XF_NS_H2" route add default via "$XF_R1_IP4B"
	ip -n "$XF_NS_H2" -6 route add default via "$XF_R1_IP6B"
	ip netns exec "$XF_NS_R1" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1
	# IPv6 works once each veth has its link-local address, which
	# addrconf adds when the carrier is seen, up to a second later.
	wait_until 3 _topo_ipv6_ready
}

_topo_ipv6_ready() {
	local ns n=0
	for ns in "$XF_NS_H1" "$XF_NS_R1" "$XF_NS_H2"; do
		n=$((n + $(ip -n "$ns" -6 addr show scope link | grep -c 'inet6 fe80')))
	done
	((n == 4))
}

# For TCP measurements: h1 and h2 keep no tcp_metrics, so each transfer
# starts as the first instead of inheriting the last one's ssthresh, cwnd
# and reordering (from another configuration, in a benchmark).
topo_tcp_fresh() {
	ip netns exec "$XF_NS_H1" sysctl -qw net.ipv4.tcp_no_metrics_save=1
	ip netns exec "$XF_NS_H2" sysctl -qw net.ipv4.tcp_no_metrics_save=1
}

# Remove what topo_create made; safe when nothing was made.
topo_destroy() {
	_topo_names
	local ns
	for ns in "$XF_NS_H1" "$XF_NS_R1" "$XF_NS_H2"; do
		ip netns del "$ns" 2>/dev/null || true
	done
}

# wait_until SECONDS CMD...: poll CMD every 50 ms until it succeeds.
wait_until() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}

# bpffs_ready: /sys/fs/bpf a bpffs, mounted as xfwd mounts it
# (xf_bpffs_ensure()) where nothing has yet: bpftool cannot make a pin's
# directory in the sysfs beneath, as on a machine just booted.
bpffs_ready() {
	[[ $(stat -f -c %T /sys/fs/bpf 2>/dev/null) == bpf_fs ]] ||
		mount -t bpf -o mode=0700 bpffs /sys/fs/bpf
}

# A caller that sets XF_NS_PREFIX before sourcing this file has the names
# at once, so that its cleanup can name them before topo_create has run.
[[ -z ${XF_NS_PREFIX:-} ]] || _topo_names
