/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route, hook tc: the commonest packets on paths of their own (a part of
 * route.bpf.c, for xf_route_tc()), as route_xdp_fast.h has them for
 * hook xdp: they skip the general path's decision state and the checks
 * that only rare frames fail.
 *
 * They forward only what xf_rt_decide() and the rest of xf_route_tc()
 * would forward with the same bytes, counter and verdict: an untraced
 * frame to this host's MAC (PACKET_HOST) of exactly the length its IP
 * header gives (no padding to trim), on an interface of the set that
 * forwards the family; the FIB answers with a neighbour on another
 * interface of the set. Tagged, the ingress is the tag's VLAN device when
 * xf_rt_fast_vlan() maps it and reads the device up (its configuration
 * from the tag's entry), and the tag goes as the general path pops it.
 * Anything else, or any other answer, returns 0 before the packet is
 * touched, and the general path starts from the beginning and counts its
 * reason.
 *
 * IPv4: its header, and for a protocol with ports the first four bytes
 * after it (a TCP header for a GSO packet), in the linear data; a 20-byte
 * header whose checksum holds, a TTL above 1, no multicast, broadcast or
 * martian address; a GSO packet only with TCP, whose segment length the
 * FIB checks as the general path has it. The destination is none of the
 * namespace's addresses (xf_rt_src4's buckets: such a packet is passed
 * here, counted as the general path counts it, so traffic to this host
 * pays for three map lookups and a counter), and the source needs no
 * check (XF_RTIF_SRC_ANY, read at the packet) or passes the quick one
 * from xf_rt_src4 while its generation is the kernel's; not a tagged
 * frame's (its VLAN device's settings are not read); and no route's own
 * MTU is below the packet (xf_rt_mtu4_ok()). The lookup takes the general path's
 * flags (lookup direct, or the mark).
 * IPv6: a linear frame of at most 1280 bytes of IP (the tot_len 0 of
 * xf_rt_decide(); a GSO packet too, whose segments are no longer, checked
 * per segment against the device by the helper, where the general path
 * is stricter with UDP GSO), no extension header first, no martian
 * address, while xf_rt_loc6 is the local table and the destination is not
 * in it (then "lookup direct" and a mark change nothing: no policy rule);
 * the main table alone is looked up.
 * Both need xf_rt_src4 or xf_rt_loc6: the kctx build only (XF_RT_TC_FAST4
 * and XF_RT_TC_FAST6, route.bpf.c). */
#ifndef XF_ROUTE_TC_FAST_H
#define XF_ROUTE_TC_FAST_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ip_parse.h"
#include "route_defs.h"
#include "route_fast.h"
#include "route_maps.h"
#include "route_nbr.h"
#include "route_path.h"
#include "route_vlan.h"
#include "xfwd_bpf.h"

#if XF_RT_TC_FAST
/* The FIB's answer fib (egress configuration ocfg) for a checked packet of
 * len bytes counted on slot: the tag popped as vlan_do_receive() would
 * (priority vprio), TTL and MACs rewritten, and sent as xf_route_tc()
 * sends it; v4 with the header's tos for the priority ip_forward() sets
 * where net says so. 1 with *verdict (passed, for the neighbour's upkeep,
 * when due); 0 with the packet untouched. */
static __always_inline int xf_rt_tc_fast_out(struct __sk_buff *skb, struct net___xf *net,
					     const struct bpf_fib_lookup *fib,
					     const struct xf_route_ifcfg *ocfg, int tagged,
					     __u32 vprio, __u32 slot, __u32 len, int v4, __u8 tos,
					     long *verdict)
{
	void *data, *data_end;
	__s64 diff;

	/* The neighbour's use by the kernel (route_nbr.h). */
	if (XF_BENCH_ON(NBR) && xf_rt_nbr_due(fib)) {
		xf_rt_count(slot, XF_RR_NEIGH_UPKEEP, len);
		*verdict = TC_ACT_UNSPEC;
		return 1;
	}
	if (tagged && XF_BENCH_ON(VLANPOP)) {
		/* As the general path: what vlan_do_receive() does. Popping a
		 * tag in skb metadata does not fail; had it, the general path
		 * pops again and passes. */
		if (bpf_skb_vlan_pop(skb))
			return 0;
		skb->priority = vprio;
	}
	if (XF_BENCH_ON(WRITE)) {
		data = (void *)(long)skb->data;
		data_end = (void *)(long)skb->data_end;
		diff = xf_rt_rewrite(data, data_end, fib, 1);
		if (diff < 0)
			return 0;	/* cannot happen: checked by the caller */
		if (diff)
			bpf_csum_update(skb, (__u32)diff);
	}
	xf_rt_count(slot, XF_RR_FORWARDED, len);
	if (xf_rt_to_peer(ocfg->flags, fib->dmac, ocfg->peer_mac)) {
		/* As the general path's peer delivery. */
		skb->mark = 0;
		skb->priority = 0;
		*verdict = bpf_redirect_peer(fib->ifindex, 0);
		return 1;
	}
	if (v4 && xf_rt_vlan_fwd_prio(net))
		skb->priority = xf_tos2prio(tos);
	*verdict = bpf_redirect(fib->ifindex, 0);
	return 1;
}
#endif

#if XF_RT_TC_FAST4
/* From the ingress on: net the ingress device's namespace, iif (the VLAN
 * device when tagged) and its configuration cfg, vprio its priority. */
static __always_inline int xf_rt_tc_fast4_on(struct __sk_buff *skb, long *verdict,
					     struct net___xf *net, __u32 iif,
					     const struct xf_route_ifcfg *cfg, int tagged,
					     __u32 vprio)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	__u32 len = skb->len, gso = skb->gso_size, flags, cfl;
	struct iphdr *iph = data + ETH_HLEN;
	struct xf_route_ifcfg *ocfg;
	struct bpf_fib_lookup fib = {};
	struct xf_route_src4 *h;
	int local;
	void *l4 = iph + 1;

	if ((void *)(iph + 1) > data_end)
		return 0;
	if (!(cfg->flags & XF_RTIF_INET))
		return 0;
	cfl = cfg->flags;
	local = xf_rt_fast4_local(iph, cfg->slot, len, &h);
	if (local) {
		*verdict = TC_ACT_UNSPEC;
		return local > 0;
	}
	if (!xf_rt_fast4_in(iph, data_end, len - ETH_HLEN, iif, &fib))
		return 0;
	if (gso) {
		/* xf_rt_l4()'s segment length; other GSO, its check. */
		struct tcphdr *th = l4;

		if (iph->protocol != IPPROTO_TCP || (void *)(th + 1) > data_end)
			return 0;
		fib.tot_len = xf_rt_tcp_seglen(th, sizeof(*iph), gso);
	}
	flags = xf_rt_lookup_flags(cfl, skb->mark, &fib);
	/* Within every route's own MTU (the lookup writes over tot_len). */
	if (!xf_rt_mtu4_ok(net, fib.tot_len, 0))
		return 0;
	if (bpf_fib_lookup(skb, &fib, sizeof(fib), flags) != BPF_FIB_LKUP_RET_SUCCESS ||
	    fib.ifindex == iif)
		return 0;
	/* Every entry has XF_RTIF_IN_SET (lib/route/attach.c). */
	ocfg = xf_rt_cfg(fib.ifindex);
	if (!ocfg)
		return 0;
	if (!xf_rt_fast4_src(net, xf_kctx_dev(skb, 0), iif, skb->mark, h, iph->saddr))
		return 0;
	return xf_rt_tc_fast_out(skb, net, &fib, ocfg, tagged, vprio, cfg->slot, len, 1, iph->tos,
				 verdict);
}
#endif

#if XF_RT_TC_FAST6
static __always_inline int xf_rt_tc_fast6_on(struct __sk_buff *skb, long *verdict,
					     struct net___xf *net, __u32 iif,
					     const struct xf_route_ifcfg *cfg, int tagged,
					     __u32 vprio)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	struct ipv6hdr *ip6h = data + ETH_HLEN;
	struct xf_route_ifcfg *ocfg;
	struct bpf_fib_lookup fib = {};
	__u32 len = skb->len, l3len;

	if (data_end - data != len)
		return 0;
	if (!(cfg->flags & XF_RTIF_INET6))
		return 0;
	if (!xf_rt_fast6_in(ip6h, data_end, len, 1280, iif, net, &fib, &l3len))
		return 0;
	if (bpf_fib_lookup(skb, &fib, sizeof(fib), BPF_FIB_LOOKUP_DIRECT) !=
	    BPF_FIB_LKUP_RET_SUCCESS || fib.ifindex == iif)
		return 0;
	ocfg = xf_rt_cfg(fib.ifindex);
	if (!ocfg)
		return 0;
	return xf_rt_tc_fast_out(skb, net, &fib, ocfg, tagged, vprio, cfg->slot, len, 0, 0,
				 verdict);
}
#endif

#if XF_RT_TC_FAST
/* The path for the frame's family, with its ingress iif (configuration
 * cfg) and tag. */
static __always_inline int xf_rt_tc_fast_fam(struct __sk_buff *skb, long *verdict, __u16 proto,
					     struct net___xf *net, __u32 iif,
					     const struct xf_route_ifcfg *cfg, int tagged,
					     __u32 vprio)
{
#if XF_RT_TC_FAST4
	if (proto == bpf_htons(ETH_P_IP))
		return xf_rt_tc_fast4_on(skb, verdict, net, iif, cfg, tagged, vprio);
#endif
#if XF_RT_TC_FAST6
	if (proto == bpf_htons(ETH_P_IPV6))
		return xf_rt_tc_fast6_on(skb, verdict, net, iif, cfg, tagged, vprio);
#endif
	return 0;
}

/* 1 with *verdict when a path of its own took the packet, else 0. */
static __always_inline int xf_rt_tc_fast(struct __sk_buff *skb, long *verdict)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	__u32 iif = skb->ifindex, vprio = 0, vproto = 0, vtci = 0;
	struct xf_route_ifcfg *cfg, vcfg;
	struct ethhdr *eth = data;
	struct net___xf *net;
	__u16 proto;
	int tagged;

	if ((void *)(eth + 1) > data_end)
		return 0;
	/* The rest leave first (at tc a tag is in skb metadata: this is
	 * the inner protocol, or a second tag). */
	proto = xf_eth_proto(eth);
	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6))
		return 0;
	if (skb->pkt_type != PACKET_HOST)
		return 0;
	tagged = skb->vlan_present;
	if (tagged) {
		vproto = skb->vlan_proto;
		vtci = skb->vlan_tci;
	}
	/* route get's trace record: the general path. */
	if (skb->cb[0] == XF_RT_TRACE_MAGIC0 &&
	    !XF_BENCH_TRACE_TAG(skb, &vproto, &vtci, &tagged))
		return 0;
	net = xf_kctx_net(skb, 0);
	if (!tagged) {
		cfg = xf_rt_cfg(iif);
		/* A layer 3 device's packet has no Ethernet header: the
		 * general path parses it. */
		if (!cfg || (cfg->flags & XF_RTIF_L3))
			return 0;
		return xf_rt_tc_fast_fam(skb, verdict, proto, net, iif, cfg, 0, 0);
	}
	if (!xf_rt_fast_vlan(skb, XF_RT_TC, net, vproto, vtci, &iif, &vprio, &vcfg))
		return 0;
	return xf_rt_tc_fast_fam(skb, verdict, proto, net, iif, &vcfg, 1, vprio);
}
#endif

#endif
