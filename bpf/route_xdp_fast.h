/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route, hook xdp: the commonest packets on paths of their own (a part
 * of route.bpf.c, for xf_route_xdp()).
 *
 * They skip the general path's decision state and the checks that only
 * rare frames fail (what that costs above a minimal forwarder:
 * bench/stages' floor). These paths take the common case of each
 * family, as route_tc_fast.h does on tc, and forward only what
 * xf_rt_decide() and the rest of xf_route_xdp() would forward with the
 * same bytes, counter and verdict: an untraced frame to the ingress
 * interface's own MAC of exactly the length its IP header gives (no
 * padding to trim), on an interface of the set that forwards the family;
 * the FIB answers with a neighbour on another interface of the set that
 * is no VLAN device (xf_rt_vlan_xdp_out()'s tag). A tagged frame takes
 * them too when xf_rt_fast_vlan() maps its one tag to a VLAN device of
 * the set read up: that device is the ingress (its configuration from
 * the tag's entry), and the tag goes as the general path drops it (the
 * rewrite 4 bytes in, then the head moved over the tag). Anything else,
 * or any other answer, returns 0 before the packet is touched, and the
 * general path starts from the beginning and counts its reason.
 *
 * IPv4: a 20-byte header whose checksum holds, a TTL above 1, no
 * multicast, broadcast or martian address; the destination is none of
 * the namespace's addresses (xf_rt_src4's buckets: such a packet is
 * passed here, counted as the general path counts it), and the source
 * needs no check (XF_RTIF_SRC_ANY, read at the packet) or passes the
 * quick one from xf_rt_src4 while its generation is the kernel's; not a
 * tagged frame's (its VLAN device's settings are not read); and no
 * route's own MTU is below the packet (xf_rt_mtu4_ok()).
 * IPv6: no extension header first, a hop limit above 1, no martian
 * address (multicast, link-local and loopback ones the helper itself
 * answers "not forwarded"), on an interface that looks up the full FIB,
 * while xf_rt_loc6 is the kernel's local table, the destination is not
 * in it and no route's MTU is below the packet; the main table alone is
 * looked up then.
 * Both need xf_rt_src4 or xf_rt_loc6: the kctx build only (XF_RT_XDP_FAST4
 * and XF_RT_XDP_FAST6, route.bpf.c). */
#ifndef XF_ROUTE_XDP_FAST_H
#define XF_ROUTE_XDP_FAST_H

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

#if XF_RT_XDP_FAST
/* Whether the ingress interface of configuration cfg forwards family (an
 * XF_RTIF_ flag) and the frame is addressed to its MAC. */
static __always_inline int xf_rt_xdp_fast_in(const struct xf_route_ifcfg *cfg,
					     const struct ethhdr *eth, __u32 family)
{
	return (cfg->flags & family) && xf_mac_eq(eth->h_dest, cfg->mac);
}

/* The FIB's answer fib, for a packet of len bytes (without its tag,
 * when tagged) counted on slot: sent as the general path sends it, 1 with
 * *verdict (passed, for the neighbour's upkeep, when due); 0, untouched,
 * when the egress is a VLAN device or not in the device map. */
static __always_inline int xf_rt_xdp_fast_out(struct xdp_md *ctx, const struct bpf_fib_lookup *fib,
					      void *data, void *data_end, int tagged, __u32 slot,
					      __u32 len, int *verdict)
{
	struct xf_route_ifcfg *ocfg = xf_rt_cfg(fib->ifindex);
	__u32 reason = XF_RR_FORWARDED;

	if (ocfg && (ocfg->flags & XF_RTIF_VLAN))
		return 0;
	/* Only records the target: a failure leaves nothing done. */
	if (bpf_redirect_map(&xf_tx_ports, fib->ifindex, 0) != XDP_REDIRECT)
		return 0;
	/* The neighbour's use by the kernel (route_nbr.h). */
	if (XF_BENCH_ON(NBR) && xf_rt_nbr_due(fib)) {
		xf_rt_count(slot, XF_RR_NEIGH_UPKEEP, len);
		*verdict = XDP_PASS;
		return 1;
	}
	*verdict = XDP_REDIRECT;
	if (XF_BENCH_ON(WRITE)) {
		/* Tagged: the untagged frame's header ends where the tag
		 * does (its EtherType is the inner one), then the tag goes.
		 * Neither can fail on a frame checked by the caller; the
		 * general path counts and passes the same way. */
		if (xf_rt_rewrite(data + (tagged ? 4 : 0), data_end, fib, 1) < 0 ||
		    (tagged && bpf_xdp_adjust_head(ctx, 4))) {
			reason = XF_RR_BAD_LEN;
			*verdict = XDP_PASS;
		}
	}
	xf_rt_count(slot, reason, len);
	return 1;
}
#endif

#if XF_RT_XDP_FAST4
/* From the ingress on: iif (the VLAN device when tagged) and its
 * configuration cfg, the IP header after the tag when tagged, net the
 * namespace when tagged (read for the tag; untagged, it is read where
 * needed: not for traffic to this host). Apart, so that each case
 * compiles with constants. */
static __always_inline int xf_rt_xdp_fast4(struct xdp_md *ctx, void *data, void *data_end,
					   struct net___xf *net, __u32 iif,
					   const struct xf_route_ifcfg *cfg, int tagged,
					   int *verdict)
{
	__u32 l2 = ETH_HLEN + (tagged ? 4 : 0), flags, cfl;
	__u32 len = data_end - data - (tagged ? 4 : 0);
	struct iphdr *iph = data + l2;
	struct bpf_fib_lookup fib = {};
	struct xf_route_src4 *h;
	int local;

	if ((void *)(iph + 1) > data_end)
		return 0;
	if (!xf_rt_xdp_fast_in(cfg, data, XF_RTIF_INET))
		return 0;
	cfl = cfg->flags;
	local = xf_rt_fast4_local(iph, cfg->slot, len, &h);
	if (local) {
		*verdict = XDP_PASS;
		return local > 0;
	}
	if (!xf_rt_fast4_in(iph, data_end, len - ETH_HLEN, iif, &fib))
		return 0;
	flags = xf_rt_lookup_flags(cfl, 0, &fib);
	if (bpf_fib_lookup(ctx, &fib, sizeof(fib), flags) != BPF_FIB_LKUP_RET_SUCCESS ||
	    fib.ifindex == iif)
		return 0;
	if (tagged || !xf_rt_fast4_src(xf_kctx_net(ctx, 1), xf_kctx_dev(ctx, 1), iif, 0, h,
					 iph->saddr) ||
	    !xf_rt_mtu4_ok(xf_kctx_net(ctx, 1), len - ETH_HLEN, 0))
		return 0;
	return xf_rt_xdp_fast_out(ctx, &fib, data, data_end, tagged, cfg->slot, len, verdict);
}
#endif

#if XF_RT_XDP_FAST6
static __always_inline int xf_rt_xdp_fast6(struct xdp_md *ctx, void *data, void *data_end,
					   struct net___xf *net, __u32 iif,
					   const struct xf_route_ifcfg *cfg, int tagged,
					   int *verdict)
{
	__u32 len = data_end - data - (tagged ? 4 : 0), l3len;
	struct ipv6hdr *ip6h = data + ETH_HLEN + (tagged ? 4 : 0);
	struct bpf_fib_lookup fib = {};

	if ((void *)(ip6h + 1) > data_end)
		return 0;
	if (!xf_rt_xdp_fast_in(cfg, data, XF_RTIF_INET6) || (cfg->flags & XF_RTIF_DIRECT))
		return 0;
	if (!xf_rt_fast6_in(ip6h, data_end, len, 0xffff, iif, tagged ? net : xf_kctx_net(ctx, 1),
			    &fib, &l3len))
		return 0;
	fib.tot_len = l3len;
	if (bpf_fib_lookup(ctx, &fib, sizeof(fib), BPF_FIB_LOOKUP_DIRECT) !=
	    BPF_FIB_LKUP_RET_SUCCESS || fib.ifindex == iif)
		return 0;
	return xf_rt_xdp_fast_out(ctx, &fib, data, data_end, tagged, cfg->slot, len, verdict);
}
#endif

#if XF_RT_XDP_FAST
/* The path for the frame's family, with its ingress iif (configuration
 * cfg) and tag (and then net). */
static __always_inline int xf_rt_xdp_fast_fam(struct xdp_md *ctx, void *data, void *data_end,
					      __u16 proto, struct net___xf *net, __u32 iif,
					      const struct xf_route_ifcfg *cfg, int tagged,
					      int *verdict)
{
#if XF_RT_XDP_FAST4
	if (proto == bpf_htons(ETH_P_IP))
		return xf_rt_xdp_fast4(ctx, data, data_end, net, iif, cfg, tagged, verdict);
#endif
#if XF_RT_XDP_FAST6
	if (proto == bpf_htons(ETH_P_IPV6))
		return xf_rt_xdp_fast6(ctx, data, data_end, net, iif, cfg, tagged, verdict);
#endif
	return 0;
}

/* 1 with *verdict when a path of its own took the packet, else 0. */
static __always_inline int xf_rt_xdp_fast(struct xdp_md *ctx, int *verdict)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 iif = ctx->ingress_ifindex, prio;
	struct xf_route_ifcfg *cfg, vcfg;
	struct net___xf *net;
	__u16 *w = data + 12;

	if ((void *)(w + 3) > data_end)
		return 0;
	/* route get's trace record, or any metadata: the general path. */
	if ((void *)(long)ctx->data_meta != data)
		return 0;
	if (w[0] != bpf_htons(ETH_P_8021Q) && w[0] != bpf_htons(ETH_P_8021AD)) {
		cfg = xf_rt_cfg(iif);
		if (!cfg)
			return 0;
		return xf_rt_xdp_fast_fam(ctx, data, data_end, w[0], NULL, iif, cfg, 0, verdict);
	}
	/* Read once for the tag and the path both. */
	net = xf_kctx_net(ctx, 1);
	if (!xf_rt_fast_vlan(ctx, XF_RT_XDP, net, w[0], bpf_ntohs(w[1]), &iif, &prio, &vcfg))
		return 0;
	return xf_rt_xdp_fast_fam(ctx, data, data_end, w[2], net, iif, &vcfg, 1, verdict);
}
#endif

#endif
