// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* gen: the packet generator's XDP program, run by BPF_PROG_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES. Live frames reuse their pages, and on a veth
 * a page travels on and is changed in place (TTL, MACs) by whoever
 * forwards it, so every run writes the whole header again from a template
 * before it transmits the frame out of the interface it was run on. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfwd_bpf.h"

/* Written by userspace before load: the first XF_GEN_HDR bytes of every
 * frame, and how many of them to copy (a multiple of 8). Not const: clang
 * folds copies from const volatile arrays to zeros. */
__u8 xf_gen_tmpl[XF_GEN_HDR] SEC(".data.tmpl");
__u32 xf_gen_hdr_len SEC(".data.tmpl") = 0;

SEC("xdp")
int xf_gen_tx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 *dst = data;
	__u64 *src = (__u64 *)xf_gen_tmpl;
	__u32 i, n = xf_gen_hdr_len / 8;

	if (data + XF_GEN_HDR > data_end)
		return XDP_ABORTED;
	for (i = 0; i < XF_GEN_HDR / 8; i++) {
		if (i >= n)
			break;
		dst[i] = src[i];
	}
	return XDP_TX;
}

/* The receiving end of a benchmark: count and drop. Having an XDP program
 * also lets the veth peer in front of it take XDP redirects. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xf_route_stat);
} xf_gen_count SEC(".maps");

SEC("xdp")
int xf_gen_sink(struct xdp_md *ctx)
{
	struct xf_route_stat *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&xf_gen_count, &key);
	if (st) {
		st->packets++;
		st->bytes += ctx->data_end - ctx->data;
	}
	return XDP_DROP;
}

/* The same on tc ingress, for the redirect benchmark: a peer redirect
 * hands its skb straight to the veth's ingress and skips the veth's XDP,
 * while every path, that one included, passes tc ingress. 2 is
 * TC_ACT_SHOT. */
SEC("tc")
int xf_gen_sink_tc(struct __sk_buff *skb)
{
	struct xf_route_stat *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&xf_gen_count, &key);
	if (st) {
		st->packets++;
		st->bytes += skb->len;
	}
	return 2;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
