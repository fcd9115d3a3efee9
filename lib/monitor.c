// SPDX-License-Identifier: GPL-2.0
/* The events xfwd monitor follows (monitor.h). Every kind below can change
 * what rt_refresh() copies into the fast path's tables: the addresses (the
 * source and local tables), the routes and rules (whether the source
 * check's shortcut and the IPv6 local table hold: custom local routes,
 * realms, policy rules), a device's netconf (forwarding, rp_filter), and
 * a device itself (the VLAN map, a bond's slaves, whether it takes XDP
 * redirects). Neighbours are not followed: the fast path reads them in
 * the kernel at every packet. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include "monitor.h"
#include "nl.h"

static const char *const kind_names[XF_MON_KINDS] = {
	[XF_MON_LINK] = "link",
	[XF_MON_ADDR] = "address",
	[XF_MON_ROUTE] = "route",
	[XF_MON_RULE] = "rule",
	[XF_MON_NETCONF] = "netconf",
};

static const unsigned int mon_groups[] = {
	RTNLGRP_LINK,
	RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR,
	RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,
	RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE,
	RTNLGRP_IPV4_NETCONF, RTNLGRP_IPV6_NETCONF,
};

const char *xf_mon_kind_name(enum xf_mon_kind k)
{
	return k < XF_MON_KINDS ? kind_names[k] : "?";
}

int xf_mon_open(struct xf_nl **nl, int rcvbuf)
{
	int err;

	err = xf_nl_open(nl, NETLINK_ROUTE);
	if (err) {
		fprintf(stderr, "Error: cannot open rtnetlink: %s.\n", strerror(-err));
		return err;
	}
	err = xf_nl_join(*nl, mon_groups, sizeof(mon_groups) / sizeof(mon_groups[0]), rcvbuf);
	if (err) {
		fprintf(stderr, "Error: cannot subscribe to rtnetlink's link, address, route, "
			"rule and netconf events: %s.\n", strerror(-err));
		xf_nl_close(*nl);
		*nl = NULL;
	}
	return err;
}

static int mon_kind(unsigned int type)
{
	switch (type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		return XF_MON_LINK;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		return XF_MON_ADDR;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		return XF_MON_ROUTE;
	case RTM_NEWRULE:
	case RTM_DELRULE:
		return XF_MON_RULE;
	case RTM_NEWNETCONF:
	case RTM_DELNETCONF:
		return XF_MON_NETCONF;
	}
	return -1;
}

static int mon_count(const struct nlmsghdr *nlh, void *arg)
{
	struct xf_mon_batch *b = arg;
	int k = mon_kind(nlh->nlmsg_type);

	if (k >= 0) {
		b->n[k]++;
		b->events++;
	}
	if (nlh->nlmsg_type == RTM_DELROUTE)
		b->route_gone = true;
	return 0;
}

int xf_mon_read(struct xf_nl *nl, struct xf_mon_batch *b)
{
	int n;

	memset(b, 0, sizeof(*b));
	n = xf_nl_drain(nl, &b->overrun, mon_count, b);
	if (n < 0)
		fprintf(stderr, "Error: cannot read rtnetlink's events: %s.\n", strerror(-n));
	return n < 0 ? n : 0;
}
