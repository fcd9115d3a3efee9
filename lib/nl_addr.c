// SPDX-License-Identifier: GPL-2.0
/* Addresses of the namespace, for the route fast path's hint of its own
 * addresses (lib/route_fast.c). */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "nl.h"
#include "nl_addr.h"

struct addr_all {
	void (*cb)(int family, const uint8_t *addr, void *arg);
	void *arg;
};

static int addr_all_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *local = NULL, *address = NULL;
	struct addr_all *w = arg;
	size_t len;

	if (nlh->nlmsg_type != RTM_NEWADDR)
		return 0;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 0;
	len = ifa->ifa_family == AF_INET ? 4 : 16;
	mnl_attr_for_each(a, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_payload_len(a) != len)
			continue;
		if (mnl_attr_get_type(a) == IFA_LOCAL)
			local = a;
		else if (mnl_attr_get_type(a) == IFA_ADDRESS)
			address = a;
	}
	if (local || address)
		w->cb(ifa->ifa_family, mnl_attr_get_payload(local ?: address), w->arg);
	return 0;
}

int xf_addr_walk(struct xf_nl *nl, void (*cb)(int family, const uint8_t *addr, void *arg),
		 void *arg)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct addr_all w = { cb, arg };

	ifa->ifa_family = AF_UNSPEC;
	return xf_nl_dump(nl, nlh, addr_all_cb, &w);
}
