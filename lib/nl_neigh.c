// SPDX-License-Identifier: GPL-2.0
/* rtnetlink neighbours: one entry asked for by address and device
 * (RTM_GETNEIGH without NLM_F_DUMP, Linux 5.0). */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "nl.h"
#include "nl_neigh.h"

static int neigh_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWNEIGH || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ndm)))
		return 0;
	*(uint16_t *)arg = ndm->ndm_state;
	return 0;
}

int xf_neigh_state(struct xf_nl *nl, int ifindex, int family, const uint8_t *addr,
		   uint16_t *state)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETNEIGH, 0);
	struct ndmsg *ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	uint16_t s = 0xffff;
	int err;

	ndm->ndm_family = family;
	ndm->ndm_ifindex = ifindex;
	mnl_attr_put(nlh, NDA_DST, family == AF_INET ? 4 : 16, addr);
	err = xf_nl_ask(nl, nlh, neigh_cb, &s);
	if (err)
		return err;
	if (s == 0xffff)
		return -ENOENT;
	*state = s;
	return 0;
}

const char *xf_neigh_state_name(uint16_t state)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} names[] = {
		{ NUD_INCOMPLETE, "incomplete" }, { NUD_REACHABLE, "reachable" },
		{ NUD_STALE, "stale" }, { NUD_DELAY, "delay" }, { NUD_PROBE, "probe" },
		{ NUD_FAILED, "failed" }, { NUD_NOARP, "noarp" }, { NUD_PERMANENT, "permanent" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (state & names[i].bit)
			return names[i].name;
	return "none";
}
