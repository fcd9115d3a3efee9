// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member: passes every packet; the cheapest possible chain step. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xf_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
