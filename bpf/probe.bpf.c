/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Tiny programs behind xfwd's run-time probes (lib/probe.c); none of them
 * ever sees a real packet: they are attached in a throwaway namespace or
 * only run through BPF_PROG_RUN. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xfwd_compat.h"

#define XF_AF_INET 2

/* bpf_redirect_peer() needs some ifindex; nothing is redirected by a
 * BPF_PROG_RUN, so loopback's 1 will do. */
const volatile __u32 xf_peer_ifindex = 1;

/* Writable between runs through the skeleton's .data/.bss, so one load
 * serves every flag probed. */
__u64 xf_peer_flags = BPF_F_EGRESS;
__u32 xf_fib_flags;
int xf_fib_rc;

/* Attach probes: the smallest programs an XDP or tc hook will take. */
SEC("xdp")
int xf_xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("tc")
int xf_tc_pass(struct __sk_buff *skb)
{
	return TC_ACT_OK;
}

/* A kernel that knows a redirect_peer flag returns TC_ACT_REDIRECT; one that
 * does not returns TC_ACT_SHOT, the packet would be dropped. */
SEC("tc")
int xf_peer_egress(struct __sk_buff *skb)
{
	return bpf_redirect_peer(xf_peer_ifindex, xf_peer_flags);
}

/* bpf_fib_lookup() refuses flags it does not know with -EINVAL before it
 * looks anything up; any other result means the flag is known. */
SEC("xdp")
int xf_fib(struct xdp_md *ctx)
{
	struct bpf_fib_lookup p = {};

	p.family = XF_AF_INET;
	p.ifindex = ctx->ingress_ifindex;
	p.ipv4_dst = bpf_htonl(0x7f000001);
	xf_fib_rc = bpf_fib_lookup(ctx, &p, sizeof(p), xf_fib_flags);
	return XDP_PASS;
}

/* The freplace probe's target: a global function (verified on its own, with
 * BTF) that bpf/probe_ext.bpf.c tries to replace. It reads the context so
 * the compiler cannot drop the call. */
__noinline int xf_fr_func(struct xdp_md *ctx)
{
	return ctx->data_end > ctx->data ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int xf_fr_target(struct xdp_md *ctx)
{
	return xf_fr_func(ctx);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
