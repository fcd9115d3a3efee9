// SPDX-License-Identifier: GPL-2.0
/* Addresses of the namespace and its netfilter egress hooks, for the route
 * fast path's hints (lib/route_fast.c). */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
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

static int hook_egress_cb(const struct nlattr *a, void *arg)
{
	if (mnl_attr_get_type(a) == NFTA_HOOK_HOOKNUM &&
	    mnl_attr_validate(a, MNL_TYPE_U32) >= 0 &&
	    ntohl(mnl_attr_get_u32(a)) == NF_NETDEV_EGRESS)
		*(int *)arg = 1;
	return MNL_CB_OK;
}

static int chain_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) == NFTA_CHAIN_HOOK)
			mnl_attr_parse_nested(a, hook_egress_cb, arg);
	}
	return 0;
}

int xf_nft_has_egress(void)
{
	struct nlmsghdr *nlh;
	struct nfgenmsg *nfg;
	struct xf_nl *nl;
	int err, found = 0;

	err = xf_nl_open(&nl, NETLINK_NETFILTER);
	if (err)
		return err == -EPROTONOSUPPORT ? 0 : err;
	nlh = xf_nl_msg(nl, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETCHAIN, NLM_F_DUMP);
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = NFPROTO_NETDEV;
	nfg->version = NFNETLINK_V0;
	err = xf_nl_dump(nl, nlh, chain_cb, &found);
	xf_nl_close(nl);
	/* No nf_tables in this kernel: no chain can hook egress. */
	if (err == -EOPNOTSUPP || err == -EPROTONOSUPPORT || err == -ENOENT)
		return 0;
	return err ? err : found;
}
