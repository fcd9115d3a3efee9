# SPDX-License-Identifier: GPL-2.0
# 64-byte UDP floods h1 -> r1 -> h2 as make bench sends them, for the
# tools that watch one route attach on live traffic (bench/hotlines,
# bench/ab). Needs scripts/topo.bash sourced, build/bench/xfgen, and the
# caller's cleanup to end what flood_pids holds.

flood_pids=()

# flood_topo: h1 -- r1 -- h2 with the neighbours resolved and, as in make
# bench, GRO on where XDP frames arrive (xfgen's on r1's veth1, the fast
# path's on h2's veth0) and the hosts' transmit checksum offload off, so
# that hook xdp attaches.
flood_topo() {
	topo_create
	ip netns exec "$XF_NS_H1" ping -c 1 -W 1 "$XF_H2_IP4" >/dev/null
	ip netns exec "$XF_NS_H1" ping -6 -c 1 -W 1 "$XF_H2_IP6" >/dev/null
	ip netns exec "$XF_NS_R1" ethtool -K veth1 gro on >/dev/null
	ip netns exec "$XF_NS_H2" ethtool -K veth0 gro on tx off txvlan off \
		tx-vlan-stag-hw-insert off >/dev/null
	ip netns exec "$XF_NS_H1" ethtool -K veth0 tx off txvlan off \
		tx-vlan-stag-hw-insert off >/dev/null
}

# flood_prog: the id of the program on r1's veth1 (XDP first, then tcx).
flood_prog() {
	ip netns exec "$XF_NS_R1" bpftool -j net show dev veth1 |
		jq -r '[.[0].xdp[]?.id, .[0].tc[]?.prog_id] | map(select(. != null)) | .[0] // empty'
}

# flood FAMILY SECS DIR [CMD...]: xfgen sends 64-byte UDP h1 -> h2 (inet
# or inet6) for SECS seconds, counted and dropped by xfgen's sink at h2's
# tc ingress; CMD, if given, runs from the flood's second second while it
# lasts. Leaves xfgen's reports in DIR/send and DIR/sink; prints the
# frames per second that reached h2.
flood() {
	local fam=$1 secs=$2 dir=$3 src=$XF_H1_IP4 dst=$XF_H2_IP4 r1mac sink g
	shift 3
	[[ $fam == inet6 ]] && src=$XF_H1_IP6 dst=$XF_H2_IP6
	r1mac=$(ip -n "$XF_NS_R1" -j link show veth1 | jq -r '.[0].address')
	ip netns exec "$XF_NS_H2" build/bench/xfgen sink dev veth0 hook tc \
		duration $((secs + 30)) >"$dir/sink" &
	sink=$!
	flood_pids+=("$sink")
	for _ in $(seq 3000); do grep -q ready "$dir/sink" && break; sleep 0.02; done
	grep -q ready "$dir/sink" || { echo "Error: the sink did not start." >&2; return 1; }
	ip netns exec "$XF_NS_H1" build/bench/xfgen send dev veth0 dmac "$r1mac" src "$src" \
		dst "$dst" size 64 duration "$secs" >"$dir/send" &
	g=$!
	flood_pids+=("$g")
	if (($#)); then
		sleep 1
		"$@"
	fi
	wait "$g"
	sleep 0.05
	kill -TERM "$sink" 2>/dev/null || true
	wait "$sink" || true
	jq -n --slurpfile s "$dir/send" --slurpfile r "$dir/sink" '$r[1].received / $s[0].seconds'
}
