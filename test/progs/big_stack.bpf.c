// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member that uses nearly all of the 512-byte BPF stack (480 bytes of
 * buffer): inlined, it fills the frame the chain's members share, so next
 * to a member whose own calls need stack, or one that makes tail calls, the
 * chain must run it in a frame of its own. Copies the first bytes of the
 * packet to the stack, sums them, passes the packet. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define XF_BUF 480

__u64 xf_sum;

SEC("xdp")
int xf_big_stack(struct xdp_md *ctx)
{
	volatile __u8 buf[XF_BUF];
	__u64 sum = 0;
	int i;

	if (bpf_xdp_load_bytes(ctx, 0, (void *)buf, 64))
		return XDP_PASS;
	for (i = 64; i < XF_BUF; i++)
		buf[i] = buf[i - 64] + 1;
	for (i = 0; i < XF_BUF; i += 32)
		sum += buf[i];
	xf_sum = sum;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
