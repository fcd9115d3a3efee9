// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* peer_floor: the least a tc redirect into a veth's peer can cost, for
 * make bench's "peer-floor" configuration, the ceiling of xfwd redirect
 * mode peer. It reads nothing of the packet and checks nothing: every skb
 * goes to bpf_redirect_peer() of one interface, whose index bench/run
 * writes into xf_peer_ifindex after the load (bpftool cannot set .rodata
 * before it; a .data global is one load from the map's value, no helper
 * call). What xfwd's redirect spends beyond this is its rule lookup,
 * counters and checks. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

__u32 xf_peer_ifindex SEC(".data.peer") = 0;

SEC("tc")
int xf_peer_floor(struct __sk_buff *skb)
{
	(void)skb;
	return bpf_redirect_peer(xf_peer_ifindex, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
