// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test members with the verdicts no other test program returns, for IPv4
 * UDP datagrams to port 4242 (test/helpers/chain.bash's PORT); everything
 * else is passed. Two XDP programs in two sections, so that a chain add
 * must choose one with "sec" or "prog":
 *   xf_abort ("xdp"): XDP_ABORTED;
 *   xf_redir ("xdp.frags"): XDP_REDIRECT to ifindex 0, which no device
 *   has, so that a redirect the chain carries out is lost, and one a
 *   rule turns into a goto is not. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XF_VERDICT_PORT 4242

/* Whether the frame is an IPv4 UDP datagram to XF_VERDICT_PORT. */
static __always_inline int to_port(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;

	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->ihl < 5 || ip->protocol != IPPROTO_UDP ||
	    (ip->frag_off & bpf_htons(0x1fff)))
		return 0;
	udp = (void *)ip + ip->ihl * 4;
	if ((void *)(udp + 1) > end)
		return 0;
	return udp->dest == bpf_htons(XF_VERDICT_PORT);
}

SEC("xdp")
int xf_abort(struct xdp_md *ctx)
{
	return to_port(ctx) ? XDP_ABORTED : XDP_PASS;
}

SEC("xdp.frags")
int xf_redir(struct xdp_md *ctx)
{
	return to_port(ctx) ? bpf_redirect(0, 0) : XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
