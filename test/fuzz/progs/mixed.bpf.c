// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Hostile member for chain add: programs of three types, one of them XDP,
 * sharing a map. chain add takes the XDP one and must not load the others. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xf_mixed_cnt SEC(".maps");

static __always_inline void bump(void)
{
	__u32 key = 0;
	__u64 *n = bpf_map_lookup_elem(&xf_mixed_cnt, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("tc")
int xf_mixed_tc(struct __sk_buff *skb)
{
	bump();
	return TC_ACT_OK;
}

SEC("socket")
int xf_mixed_sock(struct __sk_buff *skb)
{
	return 0;
}

SEC("xdp")
int xf_mixed_xdp(struct xdp_md *ctx)
{
	bump();
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
