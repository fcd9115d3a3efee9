/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink routes, as the route fast path's shortcuts need them. */
#ifndef XF_NL_ROUTE_H
#define XF_NL_ROUTE_H

struct xf_nl;

/* Whether an IPv4 route of this namespace, in any table, has a realm
 * (RTA_FLOW, on the route or on one of its next hops): the kernel then
 * checks every source (fib_num_tclassid_users). 1 yes, 0 no, -errno when
 * the routes cannot be read. */
int xf_route4_realms(struct xf_nl *nl);

#endif
