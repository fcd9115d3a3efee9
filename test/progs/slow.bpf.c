// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member: deliberately slow, a bounded loop of dependent steps that
 * the compiler cannot fold (the bound is read from the packet's length),
 * then passes. chain profile must name it as the costly one. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SLOW_STEPS 2000

SEC("xdp")
int xf_slow(struct xdp_md *ctx)
{
	__u64 h = ctx->data_end - ctx->data;
	int i;

	for (i = 0; i < SLOW_STEPS; i++)
		h = h * 6364136223846793005ULL + 1442695040888963407ULL;
	/* h is never 1 for real packets: a branch the compiler must keep. */
	return h == 1 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
