/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink routes, as the route fast path's shortcuts need them. */
#ifndef XF_NL_ROUTE_H
#define XF_NL_ROUTE_H

#include <stdint.h>

struct xf_nl;

/* The smallest MTU metric (RTAX_MTU, locked or not) of the namespace's
 * IPv4 routes, every table, in *min_mtu (UINT32_MAX: none has one).
 * 0/-errno. */
int xf_route4_min_mtu(struct xf_nl *nl, uint32_t *min_mtu);

/* The IPv6 local table (255), for xf_rt_loc6: cb(addr, arg) for each /128
 * local or anycast route; routes under ff00::/8 and fe80::/10 are left
 * out (their destinations are never forwarded). 0 when that is all the
 * table holds, 1 when it holds any other route (an operator's local
 * prefix, a blackhole, ...), -errno when it cannot be read. *min_mtu:
 * the smallest MTU metric of any IPv6 route in any table (locked or not;
 * exceptions left out), UINT32_MAX when none has one. */
int xf_route6_local(struct xf_nl *nl, void (*cb)(const uint8_t *addr, void *arg), void *arg,
		    uint32_t *min_mtu);

#endif
