/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: the namespace's own addresses as the programs read them
 * (xfwd_bpf.h has the maps' contracts): the hint for local destinations
 * (xf_rt_local, or xf_rt_src4's buckets in the kctx build), and the kctx
 * build's tables that stand for the kernel's source check (xf_rt_src4)
 * and IPv6 local table (xf_rt_loc6). Included by BPF programs only. */
#ifndef XF_ROUTE_TABLES_H
#define XF_ROUTE_TABLES_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>

#include "route_defs.h"
#include "xfwd_bpf.h"
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
 * IP header at l3, for IPv4 before it is checked: whatever the header
 * holds, such a packet is passed, and passing is exact (xfwd_bpf.h). */
static __always_inline int xf_rt_is_local(void *l3, void *data_end, int v4)
{
	struct xf_route_local *l;
	__u32 key;

	if (v4) {
		struct iphdr *iph = l3;

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
		struct ipv6hdr *ip6h = l3;
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

/* IPv4: whether a forwarded packet of len bytes (the FIB's tot_len) is
 * within every route's own MTU, as ip_forward() holds it: 1 while
 * xf_rt_loc6's IPv4 part is current (xfwd_bpf.h) and len is no longer
 * than its smallest MTU (a GSO packet without a derived segment length,
 * gso: while no route has one); else 0, and the kernel decides. Not
 * knowing it (the plain build, a route changed since the last command),
 * only len up to 1280 is taken to be within: a route MTU below that is
 * then missed. */
static __always_inline int xf_rt_mtu4_ok(void *net, __u32 len, int gso)
{
#if XF_KCTX
	struct xf_route_loc6 *h;
	__u32 key = XF_RT_LOC6_HDR, seq;

	h = bpf_map_lookup_elem(&xf_rt_loc6, &key);
	if (h && h->hdr.mtu4_valid && xf_kctx_fib_seq(net, &seq) && seq == h->hdr.fib_seq)
		return len <= h->hdr.min_mtu4 && (!gso || h->hdr.min_mtu4 == 0xffffffff);
#endif
	return len <= 1280 && !gso;
}

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

#endif
