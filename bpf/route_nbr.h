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

/* After a lookup that found the neighbour (fib: egress and next hop): 1
 * when this packet is the one the kernel must forward for the entry's
 * sake (its way is then due again in XF_RT_NBR_NS), 0 when the fast path
 * may send it. An IPv4 lookup leaves ipv6_dst[1..3] as the caller zeroed
 * them. */
static __always_inline int xf_rt_nbr_due(const struct bpf_fib_lookup *fib)
{
	__u32 k = XF_RT_NBR_SET(fib->ifindex, fib->ipv6_dst[0], fib->ipv6_dst[3]);
	struct xf_route_nbr_way *w;
	struct xf_route_nbr *s;
	__u64 now;

	s = bpf_map_lookup_elem(&xf_rt_nbr, &k);
	if (!s)
		return 1;
	now = bpf_ktime_get_coarse_ns();
	if (xf_rt_nbr_is(&s->w[0], fib))
		w = &s->w[0];
	else if (xf_rt_nbr_is(&s->w[1], fib))
		w = &s->w[1];
	else
		w = NULL;
	if (w && now < w->due)
		return 0;
	if (!w) {
		w = s->w[0].due <= s->w[1].due ? &s->w[0] : &s->w[1];
		w->ifindex = fib->ifindex;
		w->family = fib->family;
		__builtin_memcpy(w->addr, fib->ipv6_dst, sizeof(w->addr));
	}
	w->due = now + XF_RT_NBR_NS;
	return 1;
}

#endif
