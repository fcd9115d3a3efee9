/* SPDX-License-Identifier: GPL-2.0 */
/* xfwd monitor's side of rtnetlink: the events that change what the route
 * fast path copies from the kernel, read in batches and sorted by kind. */
#ifndef XF_MONITOR_H
#define XF_MONITOR_H

#include <stdbool.h>

struct xf_nl;

enum xf_mon_kind {
	XF_MON_LINK,		/* a device: added, gone, renamed, moved, changed */
	XF_MON_ADDR,		/* an IPv4 or IPv6 address */
	XF_MON_ROUTE,		/* a route of any table */
	XF_MON_RULE,		/* a policy rule */
	XF_MON_NETCONF,		/* a device's forwarding or rp_filter setting */
	XF_MON_KINDS
};

/* What one read brought: messages of each kind, and whether the kernel
 * dropped some (its buffer was full), in which case nothing about what
 * happened can be trusted and the whole state is read again. */
struct xf_mon_batch {
	unsigned int n[XF_MON_KINDS];
	unsigned int events;
	bool route_gone;	/* a route was deleted (RTM_DELROUTE) */
	bool overrun;
};

/* The kind's name in event lines and JSON: "link", "address", ... */
const char *xf_mon_kind_name(enum xf_mon_kind k);
/* A NETLINK_ROUTE socket of the current namespace joined to every group
 * whose events a kind above names, with a receive buffer of rcvbuf bytes
 * (0: the system's default). 0/-errno, after an Error line. */
int xf_mon_open(struct xf_nl **nl, int rcvbuf);
/* Every event queued on nl, counted into *b (zeroed first), without
 * waiting. 0/-errno. */
int xf_mon_read(struct xf_nl *nl, struct xf_mon_batch *b);

#endif
