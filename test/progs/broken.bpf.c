// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member the verifier rejects although clang compiles it: it reads a
 * packet byte without checking it against data_end. Adding it must fail
 * and leave the running chain as it was. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xf_broken(struct xdp_md *ctx)
{
	volatile unsigned char *data = (void *)(long)ctx->data;

	/* No "data + 13 > data_end" check: invalid access to packet. */
	return data[12] == 0xff ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
