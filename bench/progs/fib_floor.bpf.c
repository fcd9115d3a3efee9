// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fib_floor: the least an XDP forwarder decided by the FIB can cost, for
 * bench/stages to put beside the route program. It reads Ethernet and the
 * IP header, refuses what has no business being looked up (TTL <= 1, IPv4
 * options), makes one bpf_fib_lookup() (two for IPv4 with
 * XF_FLOOR_SOURCE4: the reverse lookup of the source that exactness costs,
 * see route.bpf.c) and redirects through a devmap (XDP) or into the
 * egress veth's peer (tc, xf_fib_floor_tc). XF_FLOOR_DIRECT looks up the
 * main table alone (BPF_FIB_LOOKUP_DIRECT), as route.bpf.c does for IPv6
 * where xf_rt_loc6 stands for the local table. It writes nothing, so
 * BPF_PROG_RUN repeats see the same bytes, as the stages variants do. It
 * checks almost nothing the kernel checks: a floor, not a forwarder.
 *
 * xf_fib_floor_fwd is the same floor on tc made to carry real traffic, for
 * make bench's "tc-floor" configuration, the ceiling of route hook tc:
 * one lookup of the main table (DIRECT) with tot_len 0 (the helper checks
 * the skb against the egress device's MTU, GSO segments included, so
 * iperf3's GSO frames stay on it), then the MAC addresses, the TTL or hop
 * limit (and the IPv4 header checksum) and bpf_redirect_peer(). No local
 * address, source, martian or multicast check: what route hook tc spends
 * beyond this is the price of being exact. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef XF_FLOOR_SOURCE4
#define XF_FLOOR_SOURCE4 0
#endif
#ifndef XF_FLOOR_DIRECT
#define XF_FLOOR_DIRECT 0
#endif
/* tc: tot_len 0, so that the helper checks the skb against the egress
 * device's MTU instead of computing the route's (ip6_mtu_from_fib6() for
 * IPv6): what that part of the helper costs. */
#ifndef XF_FLOOR_NOMTU
#define XF_FLOOR_NOMTU 0
#endif

/* bench/stages loads this with the route instance's devmap. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 255);
	__type(key, __u32);
	__type(value, __u32);
} xf_tx_ports SEC(".maps");

/* The lookup of one frame: 1 with fib's answer, 0 when the floor would
 * pass it. nomtu: tot_len 0 (see XF_FLOOR_NOMTU). */
static __always_inline int xf_floor(void *ctx, void *data, void *data_end, __u32 iif,
				    struct bpf_fib_lookup *fib, int nomtu, int direct)
{
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return 0;
	fib->ifindex = iif;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = (void *)(eth + 1);

		if ((void *)(iph + 1) > data_end || iph->ihl != 5 || iph->ttl <= 1)
			return 0;
		fib->family = 2;
		fib->tos = iph->tos;
		fib->l4_protocol = iph->protocol;
		fib->tot_len = bpf_ntohs(iph->tot_len);
		fib->ipv4_src = iph->saddr;
		fib->ipv4_dst = iph->daddr;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if ((void *)(ip6h + 1) > data_end || ip6h->hop_limit <= 1)
			return 0;
		fib->family = 10;
		fib->flowinfo = *(__be32 *)ip6h & bpf_htonl(0x0fffffff);
		fib->l4_protocol = ip6h->nexthdr;
		fib->tot_len = bpf_ntohs(ip6h->payload_len);
		__builtin_memcpy(fib->ipv6_src, &ip6h->saddr, 16);
		__builtin_memcpy(fib->ipv6_dst, &ip6h->daddr, 16);
	} else {
		return 0;
	}
	if (nomtu)
		fib->tot_len = 0;
	if (XF_FLOOR_SOURCE4 && fib->family == 2) {
		struct bpf_fib_lookup rp = {};

		rp.family = 2;
		rp.tos = fib->tos;
		rp.tot_len = 1;
		rp.ifindex = fib->ifindex;
		rp.ipv4_src = fib->ipv4_dst;
		rp.ipv4_dst = fib->ipv4_src;
		if (bpf_fib_lookup(ctx, &rp, sizeof(rp), 0) == BPF_FIB_LKUP_RET_NOT_FWDED)
			return 0;
	}
	return bpf_fib_lookup(ctx, fib, sizeof(*fib),
			      direct ? BPF_FIB_LOOKUP_DIRECT : 0) ==
	       BPF_FIB_LKUP_RET_SUCCESS;
}

SEC("xdp")
int xf_fib_floor(struct xdp_md *ctx)
{
	struct bpf_fib_lookup fib = {};

	if (!xf_floor(ctx, (void *)(long)ctx->data, (void *)(long)ctx->data_end,
		      ctx->ingress_ifindex, &fib, 0, XF_FLOOR_DIRECT))
		return XDP_PASS;
	return bpf_redirect_map(&xf_tx_ports, fib.ifindex, XDP_PASS);
}

SEC("tc")
int xf_fib_floor_tc(struct __sk_buff *skb)
{
	struct bpf_fib_lookup fib = {};

	if (!xf_floor(skb, (void *)(long)skb->data, (void *)(long)skb->data_end,
		      skb->ifindex, &fib, XF_FLOOR_NOMTU, XF_FLOOR_DIRECT))
		return TC_ACT_UNSPEC;
	return bpf_redirect_peer(fib.ifindex, 0);
}

SEC("tc")
int xf_fib_floor_fwd(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	struct bpf_fib_lookup fib = {};
	struct ethhdr *eth = data;

	if (!xf_floor(skb, data, data_end, skb->ifindex, &fib, 1, 1))
		return TC_ACT_UNSPEC;
	/* xf_floor() read both headers through these bounds already; the
	 * verifier wants them again after the helper call. */
	if ((void *)(eth + 1) > data_end)
		return TC_ACT_UNSPEC;
	if (fib.family == 2) {
		struct iphdr *iph = (void *)(eth + 1);
		__u32 sum;

		if ((void *)(iph + 1) > data_end)
			return TC_ACT_UNSPEC;
		/* TTL is the high byte of its 16-bit word: one less there is
		 * 0x0100 more in the one's complement sum. */
		iph->ttl--;
		sum = iph->check + bpf_htons(0x0100);
		iph->check = (__u16)(sum + (sum >= 0xffff));
	} else {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if ((void *)(ip6h + 1) > data_end)
			return TC_ACT_UNSPEC;
		ip6h->hop_limit--;
	}
	__builtin_memcpy(eth->h_dest, fib.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, fib.smac, ETH_ALEN);
	return bpf_redirect_peer(fib.ifindex, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
