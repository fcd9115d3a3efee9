// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Benchmark step of a tail-call chain: program xf_step_idx tail-calls slot
 * xf_step_idx + 1 of xf_step_jmp (one map shared by every step), and the
 * last step passes the packet. Both values are set in .rodata before load.
 * A tail call that fails returns XDP_ABORTED, so a broken chain shows. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 32);
	__type(key, __u32);
	__type(value, __u32);
} xf_step_jmp SEC(".maps");

const volatile __u32 xf_step_idx = 0;
const volatile __u32 xf_step_last = 1;

SEC("xdp")
int xf_tail_step(struct xdp_md *ctx)
{
	if (xf_step_last)
		return XDP_PASS;
	bpf_tail_call(ctx, &xf_step_jmp, xf_step_idx + 1);
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
