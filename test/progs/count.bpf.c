// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member: counts every packet it sees in xf_cnt[0] and passes it.
 * A shared (not per-CPU) counter, so `bpftool map dump` shows one number. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xf_cnt SEC(".maps");

SEC("xdp")
int xf_count(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *n = bpf_map_lookup_elem(&xf_cnt, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
