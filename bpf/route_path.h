/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: the pieces the general path (route.bpf.c) and the common paths
 * (route_fast.h) are both built from: the lookup's flags, a TCP GSO
 * segment's length, the rewrite of a forwarded frame, its counter or
 * trace record, and tc's delivery choices. Included by BPF programs
 * only. */
#ifndef XF_ROUTE_PATH_H
#define XF_ROUTE_PATH_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ip_parse.h"
#include "route_defs.h"
#include "route_maps.h"
#include "route_vlan.h"
#include "xfwd_bpf.h"

/* The length of one segment of a TCP GSO packet, as the FIB's MTU check
 * must see it: l3hdr bytes of IP header, th's header, gso_size of
 * payload. */
static __always_inline __u32 xf_rt_tcp_seglen(const struct tcphdr *th, __u32 l3hdr,
					      __u32 gso_size)
{
	return l3hdr + th->doff * 4 + gso_size;
}

/* The lookup's flags from the ingress interface's configuration cfl and
 * the packet's mark (tc; 0 on xdp): the main table alone for lookup
 * direct, else the mark, which the input route lookup uses (fib->mark;
 * kernels before 6.10 refuse the flag: fib_error, passed). */
static __always_inline __u32 xf_rt_lookup_flags(__u32 cfl, __u32 mark,
						struct bpf_fib_lookup *fib)
{
	if (cfl & XF_RTIF_DIRECT)
		return BPF_FIB_LOOKUP_DIRECT;
	if (!mark)
		return 0;
	fib->mark = mark;
	return BPF_FIB_LOOKUP_MARK;
}

/*
 * Decrement TTL/hop limit (ip_parse.h) and, when macs is set, write the
 * FIB's MACs. Returns the one's complement change of the IPv6 header (for
 * CHECKSUM_COMPLETE on tc), 0 for IPv4, -1 when the headers are not there
 * (cannot happen after xf_rt_decide()).
 */
static __always_inline __s64 xf_rt_rewrite(void *data, void *data_end,
					   const struct bpf_fib_lookup *fib, int macs)
{
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return -1;
	if (xf_eth_proto(eth) == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = data + ETH_HLEN;

		if ((void *)(iph + 1) > data_end)
			return -1;
		xf_ipv4_ttl_dec(iph);
	} else {
		struct ipv6hdr *ip6h = data + ETH_HLEN;
		__u16 old;

		if ((void *)(ip6h + 1) > data_end)
			return -1;
		old = xf_ipv6_hop_dec(ip6h);
		if (macs) {
			xf_mac_copy(eth->h_dest, fib->dmac);
			xf_mac_copy(eth->h_source, fib->smac);
		}
		return xf_ipv6_hop_diff(old);
	}
	if (macs) {
		xf_mac_copy(eth->h_dest, fib->dmac);
		xf_mac_copy(eth->h_source, fib->smac);
	}
	return 0;
}

/* One packet of len bytes on the ingress counter slot, for reason. */
static __always_inline void xf_rt_count(__u32 slot, __u32 reason, __u32 len)
{
	struct xf_route_stat *st;
	__u32 key;

	if (!XF_BENCH_ON(STATS))
		return;
	if (slot >= XF_RT_MAX_IF)
		slot = XF_RT_SLOT_NONE;
	key = XF_RT_STATS_KEY(slot, reason);
	st = bpf_map_lookup_elem(&xf_rt_stats, &key);
	if (st) {
		st->packets++;
		st->bytes += len;
	}
}

static __always_inline void xf_rt_done(const struct xf_rt_md *md, __u32 slot,
				       __u32 reason, int trace, __u32 cookie)
{
	__u32 key = 0;

	if (trace) {
		struct xf_route_trace *t = bpf_map_lookup_elem(&xf_rt_trace, &key);

		if (!t)
			return;
		t->cookie = cookie;
		t->reason = reason;
		t->flags = md->tflags;
		t->iif = md->iif;
		t->fib_rc = md->fib_rc;
		t->oif = 0;
		t->mtu = 0;
		t->nh_family = 0;
		__builtin_memset(t->nh, 0, sizeof(t->nh));
		__builtin_memset(t->smac, 0, sizeof(t->smac));
		__builtin_memset(t->dmac, 0, sizeof(t->dmac));
		t->rp_rc = md->rp_rc;
		t->rp_oif = md->rp_oif;
		if (!(md->tflags & XF_RTT_FIB))
			return;
		if (md->fib_rc == BPF_FIB_LKUP_RET_SUCCESS ||
		    md->fib_rc == BPF_FIB_LKUP_RET_FRAG_NEEDED)
			t->mtu = md->fib.mtu_result;
		if (md->fib_rc == BPF_FIB_LKUP_RET_SUCCESS ||
		    md->fib_rc == BPF_FIB_LKUP_RET_NO_NEIGH) {
			t->oif = md->fib.ifindex;
			t->nh_family = md->fib.family;
			if (md->fib.family == XF_AF_INET)
				t->nh[0] = md->fib.ipv4_dst;
			else
				__builtin_memcpy(t->nh, md->fib.ipv6_dst, 16);
		}
		if (md->fib_rc == BPF_FIB_LKUP_RET_SUCCESS) {
			__builtin_memcpy(t->smac, md->fib.smac, ETH_ALEN);
			__builtin_memcpy(t->dmac, md->fib.dmac, ETH_ALEN);
		}
		return;
	}
	xf_rt_count(slot, reason, md->len);
}

/* ip_forward() gives skb->priority the TOS's band unless
 * net.ipv4.ip_forward_update_priority is 0; without the field (or kernel
 * state), as the kernels before the sysctl always did. */
static __always_inline int xf_rt_fwd_update_prio(const struct xf_rt_md *md)
{
#if XF_KCTX
	return xf_rt_vlan_fwd_prio(md->net) != 0;
#else
	return 1;
#endif
}

/* tc: the FIB's next hop is the egress veth's peer itself (ocfl has
 * XF_RTIF_PEER, peer_mac its address), so bpf_redirect_peer() delivers
 * the frame where the veth would. */
static __always_inline int xf_rt_to_peer(__u32 ocfl, const __u8 *dmac, const void *peer_mac)
{
	return (ocfl & XF_RTIF_PEER) && xf_mac_eq(dmac, peer_mac);
}

/* tc: the tag a route get run carries in its trace record (cb[3]
 * XF_RT_TRACE_VLAN | TCI, cb[4] the protocol): 1 with *proto and *tci,
 * else 0 and both untouched. volatile: clang would otherwise load from a
 * ctx pointer chosen between two fields, which the verifier refuses. */
static __always_inline int xf_rt_trace_tag(struct __sk_buff *skb, __u32 *proto, __u32 *tci)
{
	__u32 c3 = *(volatile __u32 *)&skb->cb[3];

	if (!(c3 & XF_RT_TRACE_VLAN))
		return 0;
	*tci = c3 & 0xffff;
	*proto = *(volatile __u32 *)&skb->cb[4];
	return 1;
}

#endif
