/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: the pieces of the common paths of both hooks (route_xdp_fast.h,
 * route_tc_fast.h), in the kctx build only. Included by BPF programs
 * only. */
#ifndef XF_ROUTE_FAST_H
#define XF_ROUTE_FAST_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ip_parse.h"
#include "route_defs.h"
#include "route_maps.h"
#include "route_path.h"
#include "route_tables.h"
#include "route_vlan.h"
#include "xfwd_bpf.h"

#if XF_RT_XDP_FAST || XF_RT_TC_FAST
/* The common paths of both hooks: the tag (proto, tci: as struct
 * __sk_buff has them) on *iif mapped by xf_rt_vlan_in(), the device read
 * up: 1 with *iif the VLAN device, *prio its ingress priority and *cfg its
 * configuration (the tag's entry's copy: one lookup for both), else 0.
 * Read up is all a mapped tag can be where a VLAN device exists
 * (route_vlan.h); the check is for a kernel whose BTF would lack 802.1Q's
 * types, which no test can build. */
static __always_inline int xf_rt_fast_vlan(void *ctx, enum xf_rt_hook hook,
					   struct net___xf *net, __u32 proto, __u32 tci,
					   __u32 *iif, __u32 *prio, struct xf_route_ifcfg *cfg)
{
	struct xf_rt_md m = {};

	m.iif = *iif;
	m.pkt_type = PACKET_HOST;
	m.net = net;
	if (xf_rt_vlan_in(ctx, hook, &m, proto, tci, cfg) != XF_RR_FORWARDED ||
	    !(m.vlan & XF_RT_VLAN_LIVE))
		return 0;
	if (!XF_BENCH_VLAN_CFG(m.iif, cfg))
		return 0;
	*iif = m.iif;
	*prio = m.vprio;
	return 1;
}

#if XF_RT_XDP_FAST4 || XF_RT_TC_FAST4
/* IPv4's common case on both hooks, first: xf_rt_src4's header into *h,
 * then 1 when the destination at iph is one of the namespace's addresses
 * (counted on slot as xf_rt_decide() counts it, whatever the header holds:
 * the caller passes the packet), 0 when not, -1 without the header. */
static __always_inline int xf_rt_fast4_local(const struct iphdr *iph, __u32 slot, __u32 len,
					     struct xf_route_src4 **h)
{
	__u32 key = XF_RT_SRC4_HDR;

	*h = bpf_map_lookup_elem(&xf_rt_src4, &key);
	if (!*h)
		return -1;
	if (!xf_rt_src4_has(*h, iph->daddr))
		return 0;
	xf_rt_count(slot, XF_RR_NOT_FORWARDED, len);
	return 1;
}

/* IPv4's common case on both hooks (route_tc_fast.h, route_xdp_fast.h):
 * the header at iph, of a frame whose IP part is l3len bytes arriving on
 * iif, passes the checks that keep it there (20 bytes, a checksum that
 * holds, TTL above 1, exactly l3len long, no multicast, broadcast or
 * martian address; for a protocol with ports, the four bytes after it
 * within data_end: where tc's general path would pull them first). 1
 * with fib the input of the lookup, else 0. */
static __always_inline int xf_rt_fast4_in(struct iphdr *iph, void *data_end, __u32 l3len,
					  __u32 iif, struct bpf_fib_lookup *fib)
{
	if ((void *)(iph + 1) > data_end)
		return 0;
	if (*(__u8 *)iph != 0x45 || iph->ttl <= 1 || bpf_ntohs(iph->tot_len) != l3len ||
	    !xf_ipv4_csum_ok(iph))
		return 0;
	if (xf_ipv4_mcast_dst(&iph->daddr) || xf_ipv4_martian(&iph->saddr, &iph->daddr))
		return 0;
	xf_ipv4_fib_in(fib, iph);
	fib->tot_len = l3len;
	fib->ifindex = iif;
	return xf_ipv4_frag(iph) ||
	       xf_rt_ports(fib, iph + 1, data_end, iph->protocol);
}

/* The source of a packet the FIB forwards, as xf_rt_source4() finds it
 * with rp_filter off, from xf_rt_src4's header h: 1 when it needs no
 * check (XF_RTIF_SRC_ANY) or passes the quick one, else 0 (the general
 * path decides). The settings are read at this packet from dev, the
 * device it arrived on, where that is iif (not for a VLAN device's
 * packet); mark is the skb's (0 on XDP). */
static __always_inline int xf_rt_fast4_src(struct net___xf *net, struct net_device___xf *dev,
					   __u32 iif, __u32 mark,
					   const struct xf_route_src4 *h, __be32 saddr)
{
	__u32 f;

	/* IPsec: the general path passes it (xf_rt_decide()). */
	if (xf_kctx_xfrm(net) || dev->ifindex != (int)iif)
		return 0;
	f = xf_kctx_src(net, dev, mark);
	if (f & XF_RTIF_SRC_ANY)
		return 1;
	return !f && xf_rt_src4_by(net, h, saddr) == XF_RR_FORWARDED;
}

#endif

#if XF_RT_XDP_FAST6 || XF_RT_TC_FAST6
/* IPv6's common case on both hooks (route_tc_fast.h, route_xdp_fast.h):
 * the header of a frame of len bytes arriving on iif passes the checks
 * that keep it there, its IP length at most max, while xf_rt_loc6 is
 * current, the destination not in it and no route's MTU below the packet.
 * 1 with *l3len the IP length and fib the input of a lookup of the main
 * table alone (tot_len is the caller's), else 0. */
static __always_inline int xf_rt_fast6_in(struct ipv6hdr *ip6h, void *data_end, __u32 len,
					  __u32 max, __u32 iif, struct net___xf *net,
					  struct bpf_fib_lookup *fib, __u32 *l3len)
{
	const __u32 *sa = ip6h->saddr.in6_u.u6_addr32, *da = ip6h->daddr.in6_u.u6_addr32;
	__u32 n, min_mtu = 0;

	if ((void *)(ip6h + 1) > data_end)
		return 0;
	n = sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
	if (ip6h->version != 6 || !ip6h->nexthdr || ip6h->hop_limit <= 1 ||
	    n != len - ETH_HLEN || n > max)
		return 0;
	/* Multicast, link-local and loopback addresses, on either side, the
	 * helper itself answers "not forwarded" (rt6_need_strict()). */
	if (xf_ipv6_martian(sa, da) || xf_kctx_xfrm(net))
		return 0;
	if (xf_rt_loc6_table(net, da, &min_mtu) != XF_RR_FORWARDED || n > min_mtu)
		return 0;
	fib->ifindex = iif;
	xf_ipv6_fib_in(fib, ip6h);
	xf_rt_ports(fib, ip6h + 1, data_end, ip6h->nexthdr);
	xf_ipv6_fib_addrs(fib, ip6h);
	*l3len = n;
	return 1;
}
#endif
#endif

#endif
