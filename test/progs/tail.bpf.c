// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member that makes a tail call through xf_jmp[0] and passes the
 * packet when the slot is empty. xf_tail_drop, in the same object, is a
 * target for the slot: inside a chain its XDP_DROP becomes the member's
 * verdict, since a tail call replaces the member's frame. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} xf_jmp SEC(".maps");

SEC("xdp")
int xf_tail(struct xdp_md *ctx)
{
	bpf_tail_call(ctx, &xf_jmp, 0);
	return XDP_PASS;
}

SEC("xdp")
int xf_tail_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
