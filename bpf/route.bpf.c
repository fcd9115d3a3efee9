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
 *               XDP-xmit ability, rp_filter, family, lookup mode, neigh
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
 *    lookup is skipped (XF_RTIF_SRC_ANY).
 *  - Ethernet padding after the IP packet is cut before forwarding, as
 *    ip_rcv()/ipv6_rcv() do.
 *  - tc, GSO: the FIB's MTU check gets the length of one segment (TCP: IP
 *    + TCP header + gso_size) so a 64k TSO packet is not passed for being
 *    larger than the MTU; other GSO types also go through bpf_check_mtu()
 *    with BPF_MTU_CHK_SEGS, the kernel's own segment length check.
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

#include "xfwd_bpf.h"
#include "ip_parse.h"

/* The bench tools build this file with stages switched off, to time them
 * (bench/progs/route_prof.h, which their variant builds force-include):
 * XF_BENCH_ON(NAME) says whether stage NAME is on, and the XF_BENCH_*
 * hooks do a variant's other work. Here every stage is on and every hook
 * does what production does. */
#ifndef XF_BENCH_ON
#define XF_BENCH_ON(name) 1
#endif
/* xf_rt_fast_vlan(): the tag's entry's copy of the VLAN device iif's
 * configuration in *cfg stays (1). */
#ifndef XF_BENCH_VLAN_CFG
#define XF_BENCH_VLAN_CFG(iif, cfg) 1
#endif
/* xf_rt_tc_fast(): a frame that carries route get's trace record goes to
 * the general path (0). */
#ifndef XF_BENCH_TRACE_TAG
#define XF_BENCH_TRACE_TAG(skb, proto, tci, tagged) 0
#endif

/* Built twice: with XF_KCTX=1 the IPv4 source check reads kernel state
 * (route_kctx.h) and needs no reverse lookup where the kernel makes none. */
#ifndef XF_KCTX
#define XF_KCTX 0
#endif

/* The common paths of their own (route_xdp_fast.h, route_tc_fast.h): the
 * kctx build only, as they need xf_rt_src4 or xf_rt_loc6, and each only
 * with the stages it rests on. */
#if XF_KCTX
#define XF_RT_XDP_FAST4 (XF_BENCH_ON(FAST4) && XF_BENCH_ON(SOURCE4) && \
			 XF_BENCH_ON(LOCAL))
#define XF_RT_XDP_FAST6 (XF_BENCH_ON(XFAST6) && XF_BENCH_ON(LOC6))
#define XF_RT_TC_FAST4 (XF_BENCH_ON(TCFAST4) && XF_BENCH_ON(SOURCE4) && \
			XF_BENCH_ON(LOCAL))
#define XF_RT_TC_FAST6 (XF_BENCH_ON(FAST6) && XF_BENCH_ON(LOC6) && \
			XF_BENCH_ON(MTU6))
#else
#define XF_RT_XDP_FAST4 0
#define XF_RT_XDP_FAST6 0
#define XF_RT_TC_FAST4 0
#define XF_RT_TC_FAST6 0
#endif
#define XF_RT_XDP_FAST (XF_RT_XDP_FAST4 || XF_RT_XDP_FAST6)
#define XF_RT_TC_FAST (XF_RT_TC_FAST4 || XF_RT_TC_FAST6)

#include "route_maps.h"
#if XF_KCTX
#include "route_kctx.h"
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* route_maps.h */
	__uint(max_entries, XF_RT_LOCAL_SLOTS);
	__type(key, __u32);
	__type(value, struct xf_route_local);
} xf_rt_local SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* route_maps.h */
	__uint(max_entries, XF_RT_SRC4_BUCKETS + 2);
	__type(key, __u32);
	__type(value, struct xf_route_src4);
} xf_rt_src4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* route_maps.h */
	__uint(max_entries, XF_RT_LOC6_BUCKETS + 2);
	__type(key, __u32);
	__type(value, struct xf_route_loc6);
} xf_rt_loc6 SEC(".maps");

#include "route_md.h"

#include "route_vlan.h"

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

static __always_inline __u32 xf_rt_egress_reason(__u32 oif, int xdp)
{
	struct xf_route_ifcfg *ocfg = xf_rt_cfg(oif);

	if (!ocfg || !(ocfg->flags & XF_RTIF_IN_SET))
		return XF_RR_NOT_IN_SET;
	/* In the set but not in the devmap: userspace found it cannot take
	 * XDP frames (or is about to add it). */
	return xdp ? XF_RR_NO_XMIT : XF_RR_FORWARDED;
}

/* IPv4 header checks and the FIB input; XF_RR_FORWARDED when the packet
 * may be looked up. */
static __always_inline __u32 xf_rt_parse4(void *data, void *data_end,
					  struct xf_rt_md *md, __u8 *ttl)
{
	struct bpf_fib_lookup *fib = &md->fib;
	struct iphdr *iph = data + ETH_HLEN;
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
		md->l3len = md->len - ETH_HLEN;
	if (md->l3len < sizeof(*iph) || md->l3len > md->len - ETH_HLEN)
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
static __always_inline __u32 xf_rt_parse6(void *data, void *data_end,
					  struct xf_rt_md *md, __u8 *ttl)
{
	struct bpf_fib_lookup *fib = &md->fib;
	struct ipv6hdr *ip6h = data + ETH_HLEN;

	if ((void *)(ip6h + 1) > data_end)
		return XF_RR_BAD_LEN;
	if (ip6h->version != 6)
		return XF_RR_BAD_LEN;
	if (ip6h->nexthdr == 0)
		return XF_RR_IPV6_EXT;
	md->l3len = sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
	/* BIG TCP without a jumbo header: payload_len 0. */
	if (md->l3len == sizeof(*ip6h) && md->gso_size)
		md->l3len = md->len - ETH_HLEN;
	if (md->l3len > md->len - ETH_HLEN)
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

#if XF_KCTX
/* Whether a is in its bucket of xf_rt_src4, after the header's bit for it
 * (xfwd_bpf.h); the caller judges the header's validity. */
static __always_inline int xf_rt_src4_has(const struct xf_route_src4 *h, __be32 a)
{
	__u32 bit = XF_RT_SRC4_BIT(a), key = XF_RT_SRC4_BUCKET(a);
	struct xf_route_src4 *b;

	if (!((bit < 32 ? h->hdr.bits[0] >> bit : h->hdr.bits[1] >> (bit - 32)) & 1))
		return 0;
	b = bpf_map_lookup_elem(&xf_rt_src4, &key);
	return b && (b->a[0] == a || b->a[1] == a || b->a[2] == a || b->a[3] == a);
}
#endif

/* The destination is one of this namespace's own addresses, as far as the
 * hint knows (IPv4 in the kctx build: xf_rt_src4's buckets; otherwise
 * xf_rt_local): the FIB lookup would say "not forwarded". Read from the
 * frame, for IPv4 before its header is checked: whatever the header
 * holds, such a packet is passed, and passing is exact (xfwd_bpf.h). */
static __always_inline int xf_rt_is_local(void *data, void *data_end, int v4)
{
	struct xf_route_local *l;
	__u32 key;

	if (v4) {
		struct iphdr *iph = data + ETH_HLEN;

		if ((void *)(iph + 1) > data_end)
			return 0;
#if XF_KCTX
		{
			struct xf_route_src4 *h;

			key = XF_RT_SRC4_HDR;
			h = bpf_map_lookup_elem(&xf_rt_src4, &key);
			return h && xf_rt_src4_has(h, iph->daddr);
		}
#else
		key = XF_RT_LOCAL_SLOT(iph->daddr);
		l = bpf_map_lookup_elem(&xf_rt_local, &key);
		return l && l->v4 && l->v4 == iph->daddr;
#endif
	} else {
		struct ipv6hdr *ip6h = data + ETH_HLEN;
		const __u32 *d = ip6h->daddr.in6_u.u6_addr32;

		if ((void *)(ip6h + 1) > data_end)
			return 0;
		key = XF_RT_LOCAL_SLOT(d[3]);
		l = bpf_map_lookup_elem(&xf_rt_local, &key);
		return l && l->v6_set && l->v6[0] == d[0] && l->v6[1] == d[1] &&
		       l->v6[2] == d[2] && l->v6[3] == d[3];
	}
}

#if XF_KCTX
/* With rp_filter off: fib_validate_source()'s quick check, when the kernel
 * would make it and xf_rt_src4 is current (route_kctx.h, xfwd_bpf.h):
 * XF_RR_MARTIAN for one of the namespace's addresses, else
 * XF_RR_FORWARDED. XF_RR_MAX when the reverse lookup must decide. */
static __always_inline __u32 xf_rt_src4_by(struct net___xf *net, const struct xf_route_src4 *h,
					    __be32 saddr)
{
	if (!xf_kctx_quick_check(net) || !h->hdr.valid || h->hdr.genid != xf_kctx_genid(net))
		return XF_RR_MAX;
	return xf_rt_src4_has(h, saddr) ? XF_RR_MARTIAN : XF_RR_FORWARDED;
}

/* The same, reading xf_rt_src4's header itself. */
static __always_inline __u32 xf_rt_src4_table(struct net___xf *net, __be32 saddr)
{
	struct xf_route_src4 *h;
	__u32 key = XF_RT_SRC4_HDR;

	h = bpf_map_lookup_elem(&xf_rt_src4, &key);
	return h ? xf_rt_src4_by(net, h, saddr) : XF_RR_MAX;
}
#endif

#if XF_KCTX
static __always_inline int xf_rt_in6(const __u32 *w, const __u32 *a)
{
	return w[0] == a[0] && w[1] == a[1] && w[2] == a[2] && w[3] == a[3];
}

/* IPv6 without policy rules, while xf_rt_loc6 is the kernel's local table
 * (route_kctx.h, xfwd_bpf.h): XF_RR_NOT_FORWARDED for a destination in it,
 * else XF_RR_FORWARDED (the main table decides alone), with *min_mtu the
 * smallest route MTU metric. XF_RR_MAX when both tables must be looked
 * up. */
static __always_inline __u32 xf_rt_loc6_table(struct net___xf *net, const __u32 *daddr,
					      __u32 *min_mtu)
{
	struct xf_route_loc6 *h, *b;
	__u32 key = XF_RT_LOC6_HDR;

	if (xf_kctx_rules6(net))
		return XF_RR_MAX;
	h = bpf_map_lookup_elem(&xf_rt_loc6, &key);
	if (!h || !h->hdr.valid || h->hdr.sernum != xf_kctx_sernum6(net))
		return XF_RR_MAX;
	*min_mtu = h->hdr.min_mtu;
	key = XF_RT_LOC6_BUCKET(daddr[3]);
	if (!((key < 32 ? h->hdr.bits[0] >> key : h->hdr.bits[1] >> (key - 32)) & 1))
		return XF_RR_FORWARDED;
	b = bpf_map_lookup_elem(&xf_rt_loc6, &key);
	if (!b)
		return XF_RR_MAX;
	if (xf_rt_in6(b->a[0], daddr) || xf_rt_in6(b->a[1], daddr) ||
	    xf_rt_in6(b->a[2], daddr) || xf_rt_in6(b->a[3], daddr))
		return XF_RR_NOT_FORWARDED;
	return XF_RR_FORWARDED;
}
#endif

/* IPv4 only: fib_validate_source() drops a source that is one of this
 * namespace's own addresses even with rp_filter off, and bpf_fib_lookup()
 * on the destination cannot see that. Such a source is a local route
 * (NOT_FWDED) looked up backwards; so is a source with no route at all,
 * which the kernel would forward: passed too, the conservative way.
 * Not called where the kernel checks no source at all (XF_RTIF_SRC_ANY:
 * accept_local, fib_validate_source()'s shortcut). XF_RR_FORWARDED when
 * the source is fine. */
static __always_inline __u32 xf_rt_source4(void *ctx, struct xf_rt_md *md, __u32 flags)
{
	const struct bpf_fib_lookup *fib = &md->fib;
	struct bpf_fib_lookup rp;
	int ok, rc, rpf = md->cfl & (XF_RTIF_RP_STRICT | XF_RTIF_RP_LOOSE);

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
	md->tflags |= XF_RTT_RP;
	ok = rc == BPF_FIB_LKUP_RET_SUCCESS || rc == BPF_FIB_LKUP_RET_NO_NEIGH;
	if (ok)
		md->rp_oif = rp.ifindex;
	if (!ok || ((md->cfl & XF_RTIF_RP_STRICT) && rp.ifindex != md->iif))
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
 * touch the packet.
 */
static __always_inline __u32 xf_rt_decide(void *ctx, void *data, void *data_end,
					  struct xf_rt_md *md, enum xf_rt_hook hook)
{
	struct bpf_fib_lookup *fib = &md->fib;
	struct ethhdr *eth = data;
	__u32 flags = 0, r;
	__u16 proto;
	__u8 ttl = 0;
	int rc;

	if ((void *)(eth + 1) > data_end)
		return XF_RR_BAD_LEN;
	proto = xf_eth_proto(eth);
	/* tc takes the outer tag off before the program (route_vlan.h):
	 * one in the frame then is a second. */
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD))
		return md->vlan ? XF_RR_VLAN_QINQ : XF_RR_VLAN;
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
	if (eth->h_dest[0] & 1)
		return XF_RR_MULTICAST;
	if (md->pkt_type == XF_PKT_BY_MAC) {
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
	    xf_rt_is_local(data, data_end, 1))
		return XF_RR_NOT_FORWARDED;

	fib->ifindex = md->iif;
	if (proto == bpf_htons(ETH_P_IP))
		r = xf_rt_parse4(data, data_end, md, &ttl);
	else
		r = xf_rt_parse6(data, data_end, md, &ttl);
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
	    !(md->tflags & XF_RTT_LOC6) && xf_rt_is_local(data, data_end, 0))
		return XF_RR_NOT_FORWARDED;
	md->saddr4 = fib->ipv4_src;
	md->daddr4 = fib->ipv4_dst;

	flags |= xf_rt_lookup_flags(md->cfl, md->mark, fib);
	rc = bpf_fib_lookup(ctx, fib, sizeof(*fib), flags);
	md->fib_rc = rc;
	md->tflags |= XF_RTT_FIB;
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH &&
	    rc != BPF_FIB_LKUP_RET_FRAG_NEEDED)
		return xf_rt_fib_reason(rc);

	/* A unicast route exists; now the kernel's order: reverse path
	 * (route input), TTL, MTU (ip_forward), neighbour (output). */
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
	if (ttl <= 1)
		return XF_RR_TTL;
	if (md->fib_rc == BPF_FIB_LKUP_RET_FRAG_NEEDED)
		return XF_RR_MTU;
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
	return XF_RR_FORWARDED;
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
 * check (cfl has XF_RTIF_SRC_ANY) or passes the quick one, else 0 (the
 * general path decides). */
static __always_inline int xf_rt_fast4_src(__u32 cfl, struct net___xf *net,
					   const struct xf_route_src4 *h, __be32 saddr)
{
	if (cfl & XF_RTIF_SRC_ANY)
		return 1;
	return !(cfl & (XF_RTIF_RP_STRICT | XF_RTIF_RP_LOOSE)) &&
	       xf_rt_src4_by(net, h, saddr) == XF_RR_FORWARDED;
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
	if (xf_ipv6_martian(sa, da))
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

#include "route_xdp_fast.h"

SEC("xdp")
int xf_route_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct xf_route_trace_in *tin = (void *)(long)ctx->data_meta;
	struct xf_rt_md md;
	__u32 reason, slot = XF_RT_SLOT_NONE, cookie = 0, itag, otag = 0;
	int trace = 0, off;
#if XF_RT_XDP_FAST
	/* Set: clang would otherwise read an unset register on the way
	 * back from the path, which the verifier refuses. */
	int verdict = XDP_PASS;

	if (xf_rt_xdp_fast(ctx, &verdict))
		return verdict;
#endif

	__builtin_memset(&md, 0, sizeof(md));
	md.iif = ctx->ingress_ifindex;
	md.len = data_end - data;
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

	reason = xf_rt_decide(ctx, data, data_end, &md, XF_RT_XDP);
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

/* tc: how much linear data the decision reads (Ethernet, IP header, TCP
 * base header or the first 8 bytes of others); the maximum while the IP
 * header itself is not linear yet. */
static __always_inline __u32 xf_tc_need(void *data, void *data_end)
{
	struct ethhdr *eth = data;
	__u32 l3 = sizeof(struct ipv6hdr);
	__u8 proto = IPPROTO_TCP;

	if ((void *)(eth + 1) > data_end)
		return ETH_HLEN + l3 + sizeof(struct tcphdr);
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = (void *)(eth + 1);

		l3 = sizeof(*iph);
		if ((void *)(iph + 1) <= data_end)
			proto = iph->protocol;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if ((void *)(ip6h + 1) <= data_end)
			proto = ip6h->nexthdr;
	} else {
		return ETH_HLEN;
	}
	return ETH_HLEN + l3 + (proto == IPPROTO_TCP ? sizeof(struct tcphdr) : 8);
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

#include "route_tc_fast.h"

/* Passing on tc is TC_ACT_UNSPEC (= TCX_NEXT): the next tcx program, or the
 * stack, sees the packet, as XDP_PASS hands it on in a chain. */
SEC("tc")
int xf_route_tc(struct __sk_buff *skb)
{
	struct xf_rt_md md;
	void *data, *data_end;
	__u32 reason, slot = XF_RT_SLOT_NONE, cookie = 0, linear, need;
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

	/* Headers in paged data (GRO from page-based drivers): make what the
	 * decision reads linear, and no more. */
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	linear = data_end - data;
	if (md.len > linear) {
		/* Not all linear: only then can there be more to pull. */
		need = xf_tc_need(data, data_end);
		if (need > linear) {
			bpf_skb_pull_data(skb, need < md.len ? need : md.len);
			data = (void *)(long)skb->data;
			data_end = (void *)(long)skb->data_end;
		}
	}

	reason = xf_rt_decide(skb, data, data_end, &md, XF_RT_TC);
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
	if (!XF_BENCH_ON(WRITE))
		goto peer;
	if (md.len > ETH_HLEN + md.l3len) {
		if (bpf_skb_change_tail(skb, ETH_HLEN + md.l3len, 0)) {
			reason = XF_RR_BAD_LEN;
			goto out;
		}
		md.tflags |= XF_RTT_TRIM;
	}
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
 * fib6_sernum into xf_rt_loc6[XF_RT_LOC6_PROBE] (their probe fields). The
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
	}
#endif
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
