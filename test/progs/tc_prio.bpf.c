// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test tc program: counts the IPv4 packets it sees by skb->priority, in
 * xf_prio[priority] (16 for any priority above 15), and lets every packet
 * go on (TC_ACT_UNSPEC). On a tc egress hook it shows the priority the
 * kernel's forwarding, or the fast path, gave a packet, which nothing on
 * a veth would show otherwise. A shared (not per-CPU) array, so bpftool
 * shows one number per priority. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XF_PRIO_OVER 16

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XF_PRIO_OVER + 1);
	__type(key, __u32);
	__type(value, __u64);
} xf_prio SEC(".maps");

SEC("tc")
int xf_tc_prio(struct __sk_buff *skb)
{
	__u32 key = skb->priority;
	__u64 *n;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_UNSPEC;
	if (key > XF_PRIO_OVER)
		key = XF_PRIO_OVER;
	n = bpf_map_lookup_elem(&xf_prio, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
