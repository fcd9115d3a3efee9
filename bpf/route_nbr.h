/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: the neighbour upkeep of both hooks and both paths (xf_rt_nbr in
 * xfwd_bpf.h says why and how). Included by BPF programs only. */
#ifndef XF_ROUTE_NBR_H
#define XF_ROUTE_NBR_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfwd_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, XF_RT_NBR_SETS);
	__type(key, __u32);
	__type(value, struct xf_route_nbr);
} xf_rt_nbr SEC(".maps");

static __always_inline int xf_rt_nbr_is(const struct xf_route_nbr_way *w,
					const struct bpf_fib_lookup *fib)
{
	return w->ifindex == fib->ifindex && w->family == fib->family &&
	       w->addr[0] == fib->ipv6_dst[0] && w->addr[1] == fib->ipv6_dst[1] &&
	       w->addr[2] == fib->ipv6_dst[2] && w->addr[3] == fib->ipv6_dst[3];
}

/* The kernel's HZ, for the upkeep's clock (xf_rt_nbr_clock()): libbpf
 * takes it from the kernel's config, or xfwd gives it at open (the tick
 * that clock_getres() reports for CLOCK_MONOTONIC_COARSE, lib/xbpf.c);
 * 0 where neither could. A constant to the verifier, which keeps one of
 * the two ways below and drops the other. */
extern unsigned int CONFIG_HZ __kconfig __weak;

/* Now, and the upkeep's interval XF_RT_NBR_NS, on one clock: jiffies
 * where HZ is known, which the verifier turns into one load on 64-bit
 * JITs (a helper call otherwise); the coarse ktime in ns where it is
 * not. */
static __always_inline __u64 xf_rt_nbr_clock(__u64 *ivl)
{
	if (CONFIG_HZ) {
		*ivl = (__u64)CONFIG_HZ * XF_RT_NBR_NS / 1000000000ULL ?: 1;
		return bpf_jiffies64();
	}
	*ivl = XF_RT_NBR_NS;
	return bpf_ktime_get_coarse_ns();
}

/* After a lookup that found the neighbour (fib: egress and next hop): 1
 * when this packet is the one the kernel must forward for the entry's
 * sake (its way is then due again one interval later), 0 when the fast
 * path may send it. A due time more than one interval ahead is not of
 * this clock (a set written by a build on the other clock, whose pins a
 * later one took over) and counts as due. An IPv4 lookup leaves
 * ipv6_dst[1..3] as the caller zeroed them. */
static __always_inline int xf_rt_nbr_due(const struct bpf_fib_lookup *fib)
{
	__u32 k = XF_RT_NBR_SET(fib->ifindex, fib->ipv6_dst[0], fib->ipv6_dst[3]);
	struct xf_route_nbr_way *w;
	struct xf_route_nbr *s;
	__u64 now, ivl;

	s = bpf_map_lookup_elem(&xf_rt_nbr, &k);
	if (!s)
		return 1;
	now = xf_rt_nbr_clock(&ivl);
	if (xf_rt_nbr_is(&s->w[0], fib))
		w = &s->w[0];
	else if (xf_rt_nbr_is(&s->w[1], fib))
		w = &s->w[1];
	else
		w = NULL;
	if (w && now < w->due && w->due - now <= ivl)
		return 0;
	if (!w) {
		w = s->w[0].due <= s->w[1].due ? &s->w[0] : &s->w[1];
		w->ifindex = fib->ifindex;
		w->family = fib->family;
		__builtin_memcpy(w->addr, fib->ipv6_dst, sizeof(w->addr));
	}
	w->due = now + ivl;
	return 1;
}

#endif
