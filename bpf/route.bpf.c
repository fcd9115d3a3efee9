// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* route: IPv4/IPv6 forwarding fast path on XDP and tc, decided by the kernel's FIB.
 *
 * One loaded instance serves every interface of the forwarding set in a
 * network namespace: userspace attaches the same xf_route_xdp (or
 * xf_route_tc) fd to each device and pins the maps. Everything that is per
 * interface lives in maps keyed by ifindex, so a second `attach` changes
 * flags without reloading and the hooks can be mixed (XDP on one device, tc
 * on another) while sharing the set.
 *
 *  xf_rt_ifcfg  HASH ifindex -> struct xf_route_ifcfg: set membership,
 *               XDP-xmit ability, family, lookup mode, neigh
 *               redirect, the ingress MAC and the counter slot.
 *  xf_tx_ports  DEVMAP_HASH ifindex -> ifindex: the XDP egress targets. Only
 *               set members that can take XDP frames are in it, so the
 *               redirect itself is the membership test on the XDP fast path.
 *  xf_rt_stats  PERCPU_ARRAY [slot * XF_RR_MAX + reason] -> packets, bytes.
 *               Counted per ingress interface; a slot instead of a hash on
 *               (ifindex, reason) keeps the per-packet cost at one hash
 *               lookup (the ingress config).
 *  xf_rt_trace  ARRAY[1] -> struct xf_route_trace: written only by runs
 *               that carry the trace record (route get's BPF_PROG_RUN),
 *               which are not counted.
 *
 * The fast path only forwards what the kernel would forward to the same
 * place with the same bytes; everything else goes to the kernel untouched
 * (XDP_PASS, TC_ACT_UNSPEC) with its reason counted. Choices:
 *  - IPv4 fragments are forwarded: ip_forward() does not reassemble, and
 *    they are looked up without ports, as the kernel's flow dissector does.
 *  - IPv4 169.254/16 is forwarded when the FIB says so (Linux does); only
 *    IPv6 link-local is special in the kernel (ICMP "not neighbour").
 *  - Sources the kernel drops as martians (0/8, 127/8, multicast, limited
 *    broadcast; ::, ::1, multicast, v4-mapped) are passed, since
 *    bpf_fib_lookup() looks at the destination only.
 *  - Egress == ingress is passed: the kernel may send an ICMP redirect.
 *  - rp_filter (IPv4 only, as in the kernel) is a second lookup with the
 *    addresses swapped; strict needs it to leave through the ingress
 *    device, loose only needs a unicast route back. With rp_filter off the
 *    same lookup finds sources that are local addresses, which the kernel
 *    drops too; where it checks nothing (accept_local, no realms) the
 *    lookup is skipped (XF_RTIF_SRC_ANY). The settings are read at each
 *    packet, or not known at all (xf_rt_src_live()).
 *  - Ethernet padding after the IP packet is cut before forwarding, as
 *    ip_rcv()/ipv6_rcv() do.
 *  - tc, GSO: the FIB's MTU check gets the length of one segment (TCP: IP
 *    + TCP header + gso_size) so a 64k TSO packet is not passed for being
 *    larger than the MTU; other GSO types also go through bpf_check_mtu()
 *    with BPF_MTU_CHK_SEGS, the kernel's own segment length check.
 *  - tc, a layer 3 device (XF_RTIF_L3): parsed from the IP header, an
 *    Ethernet header pushed only onto what is forwarded.
 *  - tc: IPv4 gets skb->priority from the TOS as ip_forward() sets it;
 *    CHECKSUM_COMPLETE stays right (the TTL/checksum pair is sum-neutral,
 *    the IPv6 hop limit change goes through bpf_csum_update()).
 * Netfilter, xfrm policies and IPv6 router alert are bypassed, as in every
 * XDP/tc forwarder.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ip_parse.h"
#include "route_defs.h"
#if XF_KCTX
#include "route_kctx.h"
#endif
#include "route_maps.h"
#include "route_nbr.h"
#include "route_path.h"
#include "route_tables.h"
#include "route_vlan.h"
#include "xfwd_bpf.h"

/* Ports and, for a GSO skb, the length of one segment as the FIB's MTU
 * check must see it. Returns the length for tot_len. */
static __always_inline __u32 xf_rt_l4(void *l4, void *data_end, __u8 proto,
				      int first_frag, __u32 l3hdr,
				      struct xf_rt_md *md)
{
	__u32 len = md->l3len;

	if (first_frag)
		xf_rt_ports(&md->fib, l4, data_end, proto);
	if (!md->gso_size)
		return len;
	if (proto == IPPROTO_TCP && l4 + sizeof(struct tcphdr) <= data_end)
		return xf_rt_tcp_seglen(l4, l3hdr, md->gso_size);
	/* UDP (USO or a tunnel), GRE, ...: a lower bound for the FIB check,
	 * the exact check is bpf_check_mtu(BPF_MTU_CHK_SEGS) later. */
	md->gso_segcheck = 1;
	return l3hdr + (proto == IPPROTO_UDP ? 8 : 0) + md->gso_size;
}

static __always_inline __u32 xf_rt_fib_reason(int rc)
{
	switch (rc) {
	case BPF_FIB_LKUP_RET_BLACKHOLE:
		return XF_RR_BLACKHOLE;
	case BPF_FIB_LKUP_RET_UNREACHABLE:
		return XF_RR_UNREACHABLE;
	case BPF_FIB_LKUP_RET_PROHIBIT:
		return XF_RR_PROHIBIT;
	case BPF_FIB_LKUP_RET_NOT_FWDED:
		return XF_RR_NOT_FORWARDED;
	case BPF_FIB_LKUP_RET_FWD_DISABLED:
		return XF_RR_FWD_DISABLED;
	case BPF_FIB_LKUP_RET_UNSUPP_LWT:
		return XF_RR_LWT;
	case BPF_FIB_LKUP_RET_NO_NEIGH:
		return XF_RR_NO_NEIGH;
	case BPF_FIB_LKUP_RET_FRAG_NEEDED:
		return XF_RR_MTU;
	case BPF_FIB_LKUP_RET_NO_SRC_ADDR:
		return XF_RR_NO_SRC_ADDR;
	default:
		return XF_RR_FIB_ERROR;
	}
}

/* The ingress interface's configuration into md (its MAC serves XDP,
 * where there is no pkt_type) and its counter slot; 0 when the interface
 * is not in the set. */
static __always_inline int xf_rt_ingress(struct xf_rt_md *md, __u32 *slot)
{
	struct xf_route_ifcfg *cfg = xf_rt_cfg(md->iif);

	if (!cfg)
		return 0;
	*slot = cfg->slot;
	md->cfl = cfg->flags;
	__builtin_memcpy(md->mac, cfg->mac, ETH_ALEN);
	return 1;
}

#if XF_KCTX
/* hook xdp on a slave of a member bond (XF_RTIF_SLAVE in xfwd_bpf.h):
 * md->iif becomes the bond, and XF_RR_FORWARDED says that the bond takes
 * the frame as its own (xf_kctx_slave()), else why not. On any other
 * device XF_RR_FORWARDED, md->iif as it was. */
static __always_inline __u32 xf_rt_slave_in(void *ctx, struct xf_rt_md *md)
{
	struct xf_route_ifcfg *cfg = xf_rt_cfg(md->iif);

	if (!cfg || !(cfg->flags & XF_RTIF_SLAVE))
		return XF_RR_FORWARDED;
	md->iif = cfg->master;
	return xf_kctx_slave(ctx, cfg->master);
}
#endif

static __always_inline __u32 xf_rt_egress_reason(__u32 oif, int xdp)
{
	struct xf_route_ifcfg *ocfg = xf_rt_cfg(oif);

	if (!ocfg || !(ocfg->flags & XF_RTIF_IN_SET))
		return XF_RR_NOT_IN_SET;
	/* In the set but not in the devmap: userspace found it cannot take
	 * XDP frames (or is about to add it). */
	return xdp ? XF_RR_NO_XMIT : XF_RR_FORWARDED;
}

/* Whether oif takes XDP redirects of multi-buffer frames: the kernel
 * drops such a frame after the program where the device cannot send one. */
static __always_inline int xf_rt_xmit_sg(__u32 oif)
{
	struct xf_route_ifcfg *ocfg = xf_rt_cfg(oif);

	return ocfg && (ocfg->flags & XF_RTIF_XMIT_SG);
}

/* IPv4 header checks and the FIB input; XF_RR_FORWARDED when the packet
 * may be looked up. */
static __always_inline __u32 xf_rt_parse4(void *l3, void *data_end, __u32 l2,
					  struct xf_rt_md *md, __u8 *ttl)
{
	struct bpf_fib_lookup *fib = &md->fib;
	struct iphdr *iph = l3;
	int first_frag;

	if ((void *)(iph + 1) > data_end)
		return XF_RR_BAD_LEN;
	if (iph->version != 4 || iph->ihl < 5)
		return XF_RR_BAD_LEN;
	if (iph->ihl > 5)
		return XF_RR_IPV4_OPTIONS;
	if (!xf_ipv4_csum_ok(iph))
		return XF_RR_BAD_CSUM;
	md->l3len = bpf_ntohs(iph->tot_len);
	/* BIG TCP: a GSO packet over 64k has tot_len 0. */
	if (!md->l3len && md->gso_size)
		md->l3len = md->len - l2;
	if (md->l3len < sizeof(*iph) || md->l3len > md->len - l2)
		return XF_RR_BAD_LEN;
	if (xf_ipv4_mcast_dst(&iph->daddr))
		return XF_RR_MULTICAST;
	if (xf_ipv4_martian(&iph->saddr, &iph->daddr))
		return XF_RR_MARTIAN;

	*ttl = iph->ttl;
	md->v4 = 1;
	md->tos = iph->tos;
	fib->family = XF_AF_INET;
	fib->tos = iph->tos;
	fib->l4_protocol = iph->protocol;
	fib->ipv4_src = iph->saddr;
	fib->ipv4_dst = iph->daddr;
	first_frag = !(iph->frag_off & bpf_htons(XF_IP_MF | XF_IP_OFFSET));
	fib->tot_len = xf_rt_l4(iph + 1, data_end, iph->protocol, first_frag,
				sizeof(*iph), md);
	return XF_RR_FORWARDED;
}

/* The same for IPv6. */
static __always_inline __u32 xf_rt_parse6(void *l3, void *data_end, __u32 l2,
					  struct xf_rt_md *md, __u8 *ttl)
{
	struct bpf_fib_lookup *fib = &md->fib;
	struct ipv6hdr *ip6h = l3;

	if ((void *)(ip6h + 1) > data_end)
		return XF_RR_BAD_LEN;
	if (ip6h->version != 6)
		return XF_RR_BAD_LEN;
	if (ip6h->nexthdr == 0)
		return XF_RR_IPV6_EXT;
	md->l3len = sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
	/* BIG TCP without a jumbo header: payload_len 0. */
	if (md->l3len == sizeof(*ip6h) && md->gso_size)
		md->l3len = md->len - l2;
	if (md->l3len > md->len - l2)
		return XF_RR_BAD_LEN;
	if ((ip6h->daddr.in6_u.u6_addr32[0] & bpf_htonl(0xff000000)) ==
	    bpf_htonl(0xff000000))
		return XF_RR_MULTICAST;
	if (xf_ipv6_martian(ip6h->saddr.in6_u.u6_addr32,
			    ip6h->daddr.in6_u.u6_addr32))
		return XF_RR_MARTIAN;
	if (xf_ipv6_link_local(ip6h->saddr.in6_u.u6_addr32) ||
	    xf_ipv6_link_local(ip6h->daddr.in6_u.u6_addr32))
		return XF_RR_LINK_LOCAL;

	*ttl = ip6h->hop_limit;
	xf_ipv6_fib_in(fib, ip6h);
	xf_ipv6_fib_addrs(fib, ip6h);
	fib->tot_len = xf_rt_l4(ip6h + 1, data_end, ip6h->nexthdr, 1,
				sizeof(*ip6h), md);
	return XF_RR_FORWARDED;
}

/* IPv4: md->cfl's source check flags (XF_RTIF_RP_STRICT, _RP_LOOSE,
 * _SRC_ANY) as the kernel's settings are at this packet, never as attach
 * or refresh copied them. The kctx build reads them (xf_kctx_src()) where
 * the device the packet arrived on is its ingress; elsewhere (the plain
 * build, a VLAN device's packet) XF_RT_SRC_UNSURE: xf_rt_source4() then
 * forwards only what strict, loose and off, accept_local on or not, all
 * forward. */
static __always_inline void xf_rt_src_live(void *ctx, struct xf_rt_md *md, enum xf_rt_hook hook)
{
	__u32 f = XF_RT_SRC_UNSURE;
#if XF_KCTX
	struct net_device___xf *dev = xf_kctx_dev(ctx, hook == XF_RT_XDP);

	if (dev->ifindex == (int)md->iif)
		f = xf_kctx_src(md->net, dev, md->mark);
#endif
	md->cfl &= ~(XF_RTIF_RP_STRICT | XF_RTIF_RP_LOOSE | XF_RTIF_SRC_ANY | XF_RT_SRC_UNSURE);
	md->cfl |= f;
}

/* IPv4 only: fib_validate_source() drops a source that is one of this
 * namespace's own addresses even with rp_filter off, and bpf_fib_lookup()
 * on the destination cannot see that. Such a source is a local route
 * (NOT_FWDED) looked up backwards; so is a source with no route at all,
 * which the kernel would forward: passed too, the conservative way.
 * Not called where the kernel checks no source at all (XF_RTIF_SRC_ANY:
 * accept_local, fib_validate_source()'s shortcut). XF_RR_FORWARDED when
 * the source is fine.
 * Not knowing the settings (XF_RT_SRC_UNSURE), the check is strict's,
 * with the local table looked up as the kernel's own lookup does: a
 * unicast route back through the ingress is what every setting accepts
 * (__fib_validate_source(): a route through the device matches before
 * anything else is asked); any other answer may be dropped by one of
 * them, and is passed. */
static __always_inline __u32 xf_rt_source4(void *ctx, struct xf_rt_md *md, __u32 flags)
{
	const struct bpf_fib_lookup *fib = &md->fib;
	struct bpf_fib_lookup rp;
	int ok, rc, rpf = md->cfl & (XF_RTIF_RP_STRICT | XF_RTIF_RP_LOOSE);

	if (md->cfl & XF_RT_SRC_UNSURE) {
		/* The kernel's lookup may take the mark (src_valid_mark),
		 * this one does not. */
		if (md->mark)
			return XF_RR_RP_FILTER;
		rpf = XF_RTIF_RP_STRICT;
		flags = 0;
	}

#if XF_KCTX
	/* Not for a tagged packet whose VLAN device's state was not read:
	 * its reverse lookup below is also route_vlan.h's check that the
	 * VLAN device is still up. */
	if (!rpf && !XF_RT_VLAN_UNSURE(md)) {
		__u32 r = xf_rt_src4_table(md->net, md->saddr4);

		if (r != XF_RR_MAX) {
			md->tflags |= XF_RTT_SRC4;
			return r;
		}
	}
#endif
	__builtin_memset(&rp, 0, sizeof(rp));
	rp.family = XF_AF_INET;
	rp.tos = md->tos;
	rp.l4_protocol = fib->l4_protocol;
	rp.sport = fib->dport;
	rp.dport = fib->sport;
	/* Non-zero: no MTU check against the reverse route (tc's lookup
	 * checks the skb when tot_len is 0). */
	rp.tot_len = 1;
	rp.ifindex = md->iif;
	rp.ipv4_src = md->daddr4;
	rp.ipv4_dst = md->saddr4;
	/* The local source check follows the rules, as the local table is
	 * reached through them. */
	rc = bpf_fib_lookup(ctx, &rp, sizeof(rp),
			    rpf ? flags & BPF_FIB_LOOKUP_DIRECT : 0);
	/* Tagged: this lookup is also route_vlan.h's check. */
	if (XF_RT_VLAN_UNSURE(md) && !rpf && rc != BPF_FIB_LKUP_RET_NOT_FWDED) {
		md->tflags |= XF_RTT_SRC_LOOKUP;
		return xf_rt_vlan_back_rc(rc, rp.ifindex, md);
	}
	if (!rpf) {
		md->tflags |= XF_RTT_SRC_LOOKUP;
		return rc == BPF_FIB_LKUP_RET_NOT_FWDED ? XF_RR_MARTIAN :
							  XF_RR_FORWARDED;
	}
	md->rp_rc = rc;
	/* route get: "lookup" where no setting was known, as before. */
	md->tflags |= md->cfl & XF_RT_SRC_UNSURE ? XF_RTT_SRC_LOOKUP : XF_RTT_RP;
	ok = rc == BPF_FIB_LKUP_RET_SUCCESS || rc == BPF_FIB_LKUP_RET_NO_NEIGH;
	if (ok)
		md->rp_oif = rp.ifindex;
	/* Not knowing the settings: a local (or broadcast) source is what
	 * the check refuses with rp_filter off too, unless accept_local. */
	if ((md->cfl & XF_RT_SRC_UNSURE) && rc == BPF_FIB_LKUP_RET_NOT_FWDED)
		return XF_RR_MARTIAN;
	if (!ok || (rpf == XF_RTIF_RP_STRICT && rp.ifindex != md->iif))
		return XF_RR_RP_FILTER;
	if (XF_RT_VLAN_UNSURE(md))
		return xf_rt_vlan_back_rc(rc, rp.ifindex, md);
	return XF_RR_FORWARDED;
}

/* tc: the egress's configuration, for membership and redirect_peer. */
static __always_inline __u32 xf_rt_egress_tc(struct xf_rt_md *md)
{
	struct xf_route_ifcfg *ocfg;
	__u32 oif = md->fib.ifindex;

	ocfg = xf_rt_cfg(oif);
	if (!ocfg || !(ocfg->flags & XF_RTIF_IN_SET))
		return XF_RR_NOT_IN_SET;
	md->ocfl = ocfg->flags;
	__builtin_memcpy(md->peer_mac, ocfg->peer_mac, ETH_ALEN);
	return XF_RR_FORWARDED;
}

/*
 * The decision, shared by both hooks: parse, look up, and say whether the
 * packet can be forwarded (XF_RR_FORWARDED, md->fib holds egress and MACs,
 * or XF_RR_NO_NEIGH with the next hop in md->fib) or why not. Does not
 * touch the packet. l2 is the length of its Ethernet header: ETH_HLEN, or
 * 0 on tc for a layer 3 device's packet (XF_RTIF_L3), which starts at its
 * IP header, of the family in md->l3proto.
 */
static __always_inline __u32 xf_rt_decide(void *ctx, void *data, void *data_end, __u32 l2,
					  struct xf_rt_md *md, enum xf_rt_hook hook)
{
	struct bpf_fib_lookup *fib = &md->fib;
	struct ethhdr *eth = data;
	void *l3 = data + l2;
	__u32 flags = 0, r, tot_len;
	__u16 proto;
	__u8 ttl = 0;
	int rc;

	if (l2) {
		if ((void *)(eth + 1) > data_end)
			return XF_RR_BAD_LEN;
		proto = xf_eth_proto(eth);
		/* tc takes the outer tag off before the program
		 * (route_vlan.h): one in the frame then is a second. */
		if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD))
			return md->vlan ? XF_RR_VLAN_QINQ : XF_RR_VLAN;
	} else {
		proto = md->l3proto;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		if (!(md->cfl & XF_RTIF_INET))
			return XF_RR_FAMILY;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		if (!(md->cfl & XF_RTIF_INET6))
			return XF_RR_FAMILY;
	} else {
		return XF_RR_NOT_IP;
	}

	/* ip_forward()/ip6_forward() take PACKET_HOST only. */
	if (l2 && (eth->h_dest[0] & 1))
		return XF_RR_MULTICAST;
	if (l2 && md->pkt_type == XF_PKT_BY_MAC) {
		if (!xf_mac_eq(eth->h_dest, md->mac))
			return XF_RR_OTHER_HOST;
	} else if (md->pkt_type != PACKET_HOST) {
		return XF_RR_OTHER_HOST;
	}

	/* IPv4 addressed to this namespace: the lookup would say so, and
	 * the kernel checks the headers as it delivers. Not for route get,
	 * which shows the FIB's own answer. (IPv6: after the local table by
	 * addresses, which answers the same where it is valid.) */
	if (XF_BENCH_ON(LOCAL) && !md->trace && proto == bpf_htons(ETH_P_IP) &&
	    xf_rt_is_local(l3, data_end, 1))
		return XF_RR_NOT_FORWARDED;

	fib->ifindex = md->iif;
	if (proto == bpf_htons(ETH_P_IP))
		r = xf_rt_parse4(l3, data_end, l2, md, &ttl);
	else
		r = xf_rt_parse6(l3, data_end, l2, md, &ttl);
	if (r != XF_RR_FORWARDED)
		return r;
#if XF_KCTX
	/* IPv6: the local table from xf_rt_loc6, the main one alone. Its
	 * answer for a local destination is the FIB's own, so route get
	 * takes it too. */
	if (XF_BENCH_ON(LOC6) && !md->v4 && !(md->cfl & XF_RTIF_DIRECT)) {
		__u32 min_mtu = 0;

		r = xf_rt_loc6_table(md->net, fib->ipv6_dst, &min_mtu);
		if (r != XF_RR_MAX) {
			md->tflags |= XF_RTT_LOC6;
			if (r != XF_RR_FORWARDED)
				return r;
			flags |= BPF_FIB_LOOKUP_DIRECT;
			/* A route's own MTU may hold it back (xfwd_bpf.h);
			 * for GSO without a derived segment length, any. */
			if (fib->tot_len > min_mtu ||
			    (md->gso_segcheck && min_mtu != 0xffffffff))
				return XF_RR_MTU;
			/* Nothing but the egress device's MTU can stop a
			 * packet of at most 1280 bytes now: ip6_forward()
			 * clamps its limit to IPV6_MIN_MTU, PMTU exceptions
			 * are no smaller, and no route's metric is below
			 * this packet. tot_len 0 makes the helper check the
			 * skb against the egress device instead of calling
			 * ip6_mtu_from_fib6(). A tagged packet too: at tc
			 * its tag is in skb metadata, out of skb->len, as
			 * vlan_do_receive() leaves it. Not for route get,
			 * which shows the route's MTU. */
			if (XF_BENCH_ON(MTU6) && hook == XF_RT_TC && !md->gso_size &&
			    !md->trace && fib->tot_len <= 1280)
				fib->tot_len = 0;
		}
	}
#endif
	if (XF_BENCH_ON(LOCAL) && !md->trace && !md->v4 &&
	    !(md->tflags & XF_RTT_LOC6) && xf_rt_is_local(l3, data_end, 0))
		return XF_RR_NOT_FORWARDED;
	md->saddr4 = fib->ipv4_src;
	md->daddr4 = fib->ipv4_dst;

	flags |= xf_rt_lookup_flags(md->cfl, md->mark, fib);
	/* The lookup writes its MTU over tot_len. */
	tot_len = fib->tot_len;
	rc = bpf_fib_lookup(ctx, fib, sizeof(*fib), flags);
	md->fib_rc = rc;
	md->tflags |= XF_RTT_FIB;
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH &&
	    rc != BPF_FIB_LKUP_RET_FRAG_NEEDED)
		return xf_rt_fib_reason(rc);

	/* A unicast route exists; now the kernel's order: reverse path
	 * (route input), TTL, MTU (ip_forward), neighbour (output). */
	if (md->v4)
		xf_rt_src_live(ctx, md, hook);
	if (XF_BENCH_ON(SOURCE4) && md->v4 && !(md->cfl & XF_RTIF_SRC_ANY)) {
		r = xf_rt_source4(ctx, md, flags);
		if (r != XF_RR_FORWARDED)
			return r;
	}
	/* Tagged, its VLAN device's state not read: it is still up
	 * (route_vlan.h); IPv4's source check looked already, unless skipped. */
	if (XF_RT_VLAN_UNSURE(md) && (!md->v4 || (md->cfl & XF_RTIF_SRC_ANY) ||
			 !XF_BENCH_ON(SOURCE4))) {
		r = xf_rt_vlan_back(ctx, data, data_end, md, flags);
		if (r != XF_RR_FORWARDED)
			return r;
	}
#if XF_KCTX
	/* ip_forward() asks xfrm first: a policy may block, encrypt or
	 * hold the packet. */
	if (xf_kctx_xfrm(md->net))
		return XF_RR_XFRM;
#endif
	if (ttl <= 1)
		return XF_RR_TTL;
	if (md->fib_rc == BPF_FIB_LKUP_RET_FRAG_NEEDED)
		return XF_RR_MTU;
	/* A route's own MTU holds a forwarded packet back, locked or not
	 * (ip_forward(); IPv6: ip6_finish_output()), and bpf_fib_lookup()
	 * sees it only locked. IPv4: xf_rt_mtu4_ok(). IPv6: without
	 * xf_rt_loc6's smallest one, current (XF_RTT_LOC6: checked above),
	 * a packet over IPV6_MIN_MTU may meet one added since: the kernel
	 * decides. Exact for every route MTU of at least 1280 bytes, the
	 * least any IPv6 link may have. */
	if (md->v4) {
		if (!xf_rt_mtu4_ok(XF_RT_NET(md), tot_len, md->gso_segcheck))
			return XF_RR_MTU;
	} else if (!(md->tflags & XF_RTT_LOC6) && (tot_len > 1280 || md->gso_segcheck)) {
		return XF_RR_MTU;
	}
	if (fib->ifindex == md->iif)
		return XF_RR_HAIRPIN;
	if (hook == XF_RT_TC) {
		r = xf_rt_egress_tc(md);
		if (r != XF_RR_FORWARDED)
			return r;
	} else if (md->fib_rc == BPF_FIB_LKUP_RET_NO_NEIGH) {
		r = xf_rt_egress_reason(fib->ifindex, 0);
		if (r != XF_RR_FORWARDED)
			return r;
	}
	if (md->fib_rc == BPF_FIB_LKUP_RET_NO_NEIGH)
		return XF_RR_NO_NEIGH;
	/* tc: the kernel uses the entry as its forwarding would
	 * (route_nbr.h; xdp: after its redirect). Not for route get, which
	 * shows the lookup's own answer. */
	if (XF_BENCH_ON(NBR) && hook == XF_RT_TC && !md->trace && xf_rt_nbr_due(fib))
		return XF_RR_NEIGH_UPKEEP;
	return XF_RR_FORWARDED;
}

#include "route_xdp_fast.h"

/* xdp.frags: a frame over a page (MTU 9000) comes in several buffers, the
 * headers in the first; the common paths take only single buffers (their
 * length must be the IP header's), the rest comes here. */
SEC("xdp.frags")
int xf_route_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct xf_route_trace_in *tin = (void *)(long)ctx->data_meta;
	struct xf_rt_md md;
	__u32 reason, slot = XF_RT_SLOT_NONE, cookie = 0, itag, otag = 0;
	int trace = 0, off, frags;
#if XF_RT_XDP_FAST
	/* Set: clang would otherwise read an unset register on the way
	 * back from the path, which the verifier refuses. */
	int verdict = XDP_PASS;

	if (xf_rt_xdp_fast(ctx, &verdict))
		return verdict;
#endif

	__builtin_memset(&md, 0, sizeof(md));
	md.iif = ctx->ingress_ifindex;
	/* The whole frame's length: its MTU check and counters are the
	 * kernel's, whatever part of it the first buffer holds. */
	md.len = bpf_xdp_get_buff_len(ctx);
	frags = md.len != data_end - data;
	md.pkt_type = XF_PKT_BY_MAC;
	if ((void *)(tin + 1) <= data && tin->magic[0] == XF_RT_TRACE_MAGIC0 &&
	    tin->magic[1] == XF_RT_TRACE_MAGIC1) {
		trace = 1;
		md.trace = 1;
		cookie = tin->cookie;
	}
	md.tflags = XF_RTT_XDP;
#if XF_KCTX
	md.net = xf_kctx_net(ctx, 1);
	/* On a bond's slave the frame is the bond's, if the bond takes it. */
	reason = xf_rt_slave_in(ctx, &md);
	if (reason != XF_RR_FORWARDED) {
		xf_rt_ingress(&md, &slot);
		goto out;
	}
#endif

	/* A tag in the frame (route_vlan.h): the decision runs on the frame
	 * with the MAC addresses moved over it, put back if passed. */
	reason = xf_rt_vlan_xdp_in(ctx, data, data_end, &md, &itag);
	if (reason != XF_RR_FORWARDED) {
		xf_rt_ingress(&md, &slot);
		goto out;
	}
	if (itag) {
		if (data + 16 > data_end) {
			reason = XF_RR_BAD_LEN;	/* xf_rt_vlan_xdp_in() checked */
			goto out;
		}
		xf_vlan_macs(data + 4, data);
		data += 4;
		md.len -= 4;
	}
	if (!xf_rt_ingress(&md, &slot)) {
		reason = XF_RR_NOT_IN_SET;
		goto pass;
	}

	reason = xf_rt_decide(ctx, data, data_end, ETH_HLEN, &md, XF_RT_XDP);
	if (reason != XF_RR_FORWARDED)
		goto pass;
	reason = xf_rt_vlan_xdp_out(&md, &otag);
	if (reason != XF_RR_FORWARDED)
		goto pass;
	/* Redirect first: it only records the target, and a failure leaves
	 * the packet unmodified for XDP_PASS. */
	if (bpf_redirect_map(&xf_tx_ports, md.fib.ifindex, 0) != XDP_REDIRECT) {
		reason = xf_rt_egress_reason(md.fib.ifindex, 1);
		goto pass;
	}
	if (frags && !xf_rt_xmit_sg(md.fib.ifindex)) {
		reason = XF_RR_NO_XMIT_SG;
		goto pass;
	}
	/* The neighbour's use by the kernel (route_nbr.h), for what the
	 * fast path would send. Not for route get. */
	if (XF_BENCH_ON(NBR) && !trace && xf_rt_nbr_due(&md.fib)) {
		reason = XF_RR_NEIGH_UPKEEP;
		goto pass;
	}
	if (!XF_BENCH_ON(WRITE))
		goto pass;
	if (md.len > ETH_HLEN + md.l3len) {
		if (bpf_xdp_adjust_tail(ctx, (int)(ETH_HLEN + md.l3len) - (int)md.len)) {
			reason = XF_RR_BAD_LEN;
			goto pass;
		}
		md.tflags |= XF_RTT_TRIM;
	}
	/* Room for the egress tag: the ingress one's, or 4 bytes more. */
	if (otag && !itag && bpf_xdp_adjust_head(ctx, -4)) {
		reason = XF_RR_BAD_LEN;
		goto out;
	}
	off = itag || otag ? 4 : 0;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (xf_rt_rewrite(data + off, data_end, &md.fib, 1) < 0) {
		reason = XF_RR_BAD_LEN;	/* cannot happen after the decision */
		goto out;
	}
	if (otag) {
		if (data + 16 > data_end) {
			reason = XF_RR_BAD_LEN;
			goto out;
		}
		xf_vlan_macs(data, data + 4);
		*(__u32 *)(data + 12) = otag;
	} else if (itag && bpf_xdp_adjust_head(ctx, 4)) {
		reason = XF_RR_BAD_LEN;
	}
	goto out;
pass:
	/* Passed: the frame as it came, the tag where it was. */
	if (itag) {
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
		if (data + 16 <= data_end) {
			xf_vlan_macs(data, data + 4);
			*(__u32 *)(data + 12) = itag;
		}
	}
out:
	xf_rt_done(&md, slot, reason, trace, cookie);
	return reason == XF_RR_FORWARDED ? XDP_REDIRECT : XDP_PASS;
}

/* tc: how much linear data the decision reads (Ethernet, when l2 says
 * there is one, IP header, TCP base header or the first 8 bytes of
 * others); the maximum while the IP header itself is not linear yet.
 * l3proto: the family without Ethernet (skb->protocol). */
static __always_inline __u32 xf_tc_need(void *data, void *data_end, __u32 l2, __be16 l3proto)
{
	struct ethhdr *eth = data;
	__u32 l3 = sizeof(struct ipv6hdr);
	__u8 proto = IPPROTO_TCP;
	__be16 h_proto = l3proto;
	void *ip = data + l2;

	if (l2) {
		if ((void *)(eth + 1) > data_end)
			return ETH_HLEN + l3 + sizeof(struct tcphdr);
		h_proto = eth->h_proto;
	}
	if (h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = ip;

		l3 = sizeof(*iph);
		if ((void *)(iph + 1) <= data_end)
			proto = iph->protocol;
	} else if (h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = ip;

		if ((void *)(ip6h + 1) <= data_end)
			proto = ip6h->nexthdr;
	} else {
		return l2;
	}
	return l2 + l3 + (proto == IPPROTO_TCP ? sizeof(struct tcphdr) : 8);
}

/* tc, a layer 3 device's packet that will be forwarded: the Ethernet
 * header the rewrite and an Ethernet egress need, of its family and no
 * address yet (the rewrite or redirect_neigh writes them). 0, or -1 with
 * the packet as it was. */
static __always_inline int xf_tc_push_eth(struct __sk_buff *skb, __be16 l3proto)
{
	void *data, *data_end;
	struct ethhdr *eth;

	if (bpf_skb_change_head(skb, ETH_HLEN, 0))
		return -1;
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	eth = data;
	if ((void *)(eth + 1) > data_end)
		return -1;	/* cannot happen: the helper made it linear */
	eth->h_proto = l3proto;
	return 0;
}

#include "route_tc_fast.h"

/* Passing on tc is TC_ACT_UNSPEC (= TCX_NEXT): the next tcx program, or the
 * stack, sees the packet, as XDP_PASS hands it on in a chain. */
SEC("tc")
int xf_route_tc(struct __sk_buff *skb)
{
	struct xf_rt_md md;
	void *data, *data_end;
	__u32 reason, slot = XF_RT_SLOT_NONE, cookie = 0, linear, need, l2 = ETH_HLEN;
	int trace = 0, neigh = 0;
	__s64 diff;
#if XF_RT_TC_FAST
	long verdict;

	if (xf_rt_tc_fast(skb, &verdict))
		return verdict;
#endif

	__builtin_memset(&md, 0, sizeof(md));
	md.iif = skb->ifindex;
	md.len = skb->len;
	md.gso_size = skb->gso_size;
	md.mark = skb->mark;
	md.pkt_type = skb->pkt_type;
	md.vlan = skb->vlan_present;
	md.tflags = XF_RTT_TC;
#if XF_KCTX
	md.net = xf_kctx_net(skb, 0);
#endif
	if (skb->cb[0] == XF_RT_TRACE_MAGIC0 && skb->cb[1] == XF_RT_TRACE_MAGIC1) {
		trace = 1;
		md.trace = 1;
		cookie = skb->cb[2];
		if (skb->cb[3] & XF_RT_TRACE_VLAN)
			md.vlan = XF_RT_VLAN_TAG;
	}

	if (md.vlan) {
		__u32 vproto = skb->vlan_proto, vtci = skb->vlan_tci;

		if (trace)
			xf_rt_trace_tag(skb, &vproto, &vtci);
		reason = xf_rt_vlan_in(skb, XF_RT_TC, &md, vproto, vtci, NULL);
		if (reason != XF_RR_FORWARDED) {
			/* Counted on the parent when it is a member. */
			xf_rt_ingress(&md, &slot);
			goto out;
		}
	}
	if (!xf_rt_ingress(&md, &slot)) {
		reason = XF_RR_NOT_IN_SET;
		goto out;
	}
	/* A layer 3 device's packet starts at its IP header; route get's
	 * run gives every ingress an Ethernet frame. */
	md.l3proto = skb->protocol;
	if ((md.cfl & XF_RTIF_L3) && !trace)
		l2 = 0;
	/* Every later test reads l2 itself: had the compiler tested the
	 * flags again, a verifier that does not link the two (Linux 6.1)
	 * would walk into Ethernet reads on the layer 3 path. */
	barrier_var(l2);

	/* Headers in paged data (GRO from page-based drivers): make what the
	 * decision reads linear, and no more. */
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	linear = data_end - data;
	if (md.len > linear) {
		/* Not all linear: only then can there be more to pull. */
		need = xf_tc_need(data, data_end, l2, md.l3proto);
		if (need > linear) {
			bpf_skb_pull_data(skb, need < md.len ? need : md.len);
			data = (void *)(long)skb->data;
			data_end = (void *)(long)skb->data_end;
		}
	}

	reason = xf_rt_decide(skb, data, data_end, l2, &md, XF_RT_TC);
	if (reason == XF_RR_NO_NEIGH && (md.cfl & XF_RTIF_NEIGH)) {
		neigh = 1;
		reason = XF_RR_FORWARDED;
	}
	if (reason != XF_RR_FORWARDED)
		goto out;
	if (md.gso_segcheck) {
		__u32 mtu = 0;

		if (bpf_check_mtu(skb, md.fib.ifindex, &mtu, 0,
				  BPF_MTU_CHK_SEGS) != BPF_MTU_CHK_RET_SUCCESS) {
			reason = XF_RR_MTU;
			goto out;
		}
	}
	if (md.vlan && XF_BENCH_ON(VLANPOP)) {
		/* What vlan_do_receive() does before ip_rcv(). */
		if (bpf_skb_vlan_pop(skb)) {
			reason = XF_RR_BAD_LEN;
			goto out;
		}
		skb->priority = md.vprio;
	}
	if (XF_BENCH_ON(WRITE) && md.len > l2 + md.l3len) {
		if (bpf_skb_change_tail(skb, l2 + md.l3len, 0)) {
			reason = XF_RR_BAD_LEN;
			goto out;
		}
		md.tflags |= XF_RTT_TRIM;
	}
	/* After the trim, which the kernel makes too: a push that fails
	 * leaves the packet as ip_rcv() would. Counted as it came, without
	 * the header pushed here. */
	if (!l2 && xf_tc_push_eth(skb, md.l3proto)) {
		reason = XF_RR_BAD_LEN;
		goto out;
	}
	if (!XF_BENCH_ON(WRITE))
		goto peer;
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	diff = xf_rt_rewrite(data, data_end, &md.fib, !neigh);
	if (diff < 0) {
		/* Unreachable after a successful decision; had it happened,
		 * the packet is unchanged. */
		reason = XF_RR_BAD_LEN;
		goto out;
	}
	if (diff)
		bpf_csum_update(skb, (__u32)diff);
peer:
	if (!neigh && xf_rt_to_peer(md.ocfl, md.fib.dmac, md.peer_mac)) {
		/* What the egress veth's xmit does to the skb on its way
		 * into the peer's namespace (____dev_forward_skb(): a
		 * cross-namespace scrub and priority 0), done here, since
		 * bpf_redirect_peer() scrubs without clearing the mark.
		 * eth_type_trans() on the peer would find its own address:
		 * PACKET_HOST, as the redirect sets it. skb->tstamp stays:
		 * the kernel clears a receive timestamp on the way and the
		 * peer's netif_rx() takes a new one when sockets want them
		 * (netstamp_needed_key, the same switch that had r1's
		 * taken), and it keeps a delivery time; writing 0 here
		 * would lose both (the socket would stamp the packet only
		 * when it is read, and the program's write clears the
		 * delivery time's type at ingress). */
		skb->mark = 0;
		skb->priority = 0;
		md.tflags |= XF_RTT_PEER;
		xf_rt_done(&md, slot, reason, trace, cookie);
		return bpf_redirect_peer(md.fib.ifindex, 0);
	}
	if (md.v4 && xf_rt_fwd_update_prio(&md))
		skb->priority = xf_tos2prio(md.tos);

	if (neigh) {
		struct bpf_redir_neigh nh = {};

		md.tflags |= XF_RTT_NEIGH;
		nh.nh_family = md.fib.family;
		if (md.fib.family == XF_AF_INET)
			nh.ipv4_nh = md.fib.ipv4_dst;
		else
			__builtin_memcpy(nh.ipv6_nh, md.fib.ipv6_dst, 16);
		xf_rt_done(&md, slot, reason, trace, cookie);
		return bpf_redirect_neigh(md.fib.ifindex, &nh, sizeof(nh), 0);
	}
	xf_rt_done(&md, slot, reason, trace, cookie);
	return bpf_redirect(md.fib.ifindex, 0);
out:
	xf_rt_done(&md, slot, reason, trace, cookie);
	return TC_ACT_UNSPEC;
}

/* Run by userspace with BPF_PROG_RUN, never attached: the namespace's
 * dev_addr_genid and rt_genid into xf_rt_src4[XF_RT_SRC4_PROBE], and its
 * fib6_sernum and fib_seq into xf_rt_loc6[XF_RT_LOC6_PROBE] (their probe
 * fields). The
 * build without XF_KCTX leaves both as they are (all zero: no table). */
SEC("xdp")
int xf_route_genid(struct xdp_md *ctx)
{
#if XF_KCTX
	__u32 key = XF_RT_SRC4_PROBE;
	struct xf_route_src4 *p;

	struct xf_route_loc6 *p6;
	struct net___xf *net = xf_kctx_net(ctx, 1);

	p = bpf_map_lookup_elem(&xf_rt_src4, &key);
	if (p) {
		p->probe.genid = xf_kctx_genid(net);
		p->probe.genid_ok = 1;
		xf_rt_vlan_genid_probe(net, p);
	}
	key = XF_RT_LOC6_PROBE;
	p6 = bpf_map_lookup_elem(&xf_rt_loc6, &key);
	if (p6) {
		p6->probe.sernum = xf_kctx_sernum6(net);
		p6->probe.sernum_ok = 1;
		p6->probe.fib_seq_ok = xf_kctx_fib_seq(net, &p6->probe.fib_seq);
	}
#endif
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
