// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test tc program: counts the IPv4 packets it sees in xf_cnt[0] and lets
 * every packet go on (TC_ACT_UNSPEC: the next tcx program or cls_bpf
 * filter, then the stack), so it coexists with whatever else is on the
 * hook. IPv4 only: ARP and the IPv6 a namespace sends by itself (router
 * solicitations, MLD) do not disturb the count. A shared (not per-CPU)
 * counter, so `bpftool map dump` shows one number. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xf_cnt SEC(".maps");

SEC("tc")
int xf_tc_count(struct __sk_buff *skb)
{
	__u32 key = 0;
	__u64 *n;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_UNSPEC;
	n = bpf_map_lookup_elem(&xf_cnt, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
