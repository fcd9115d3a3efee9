// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member with a global (non-static) function: the verifier checks it
 * on its own when the program is loaded alone; linked into a chain it is an
 * ordinary subprogram, checked in its caller's context (the chain's BTF
 * declares every function static). Drops frames shorter than an Ethernet
 * header plus xf_min_payload bytes, passes the rest. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

__u8 xf_min_payload = 0;

__attribute__((noinline)) int xf_frame_ok(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (!ctx)
		return 0;
	return data + ETH_HLEN + xf_min_payload <= end;
}

SEC("xdp")
int xf_global_fn(struct xdp_md *ctx)
{
	return xf_frame_ok(ctx) ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
