// SPDX-License-Identifier: GPL-2.0
/* Routes of the namespace, for the route fast path's shortcuts
 * (lib/route/fast.c). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "nl.h"
#include "nl_route.h"

struct local6 {
	void (*cb)(const uint8_t *addr, void *arg);
	void *arg;
	int other;
	uint32_t min_mtu;
};

/* The route's own MTU (RTAX_MTU in RTA_METRICS), 0 when it has none. */
static uint32_t metric_mtu(const struct nlattr *metrics)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, metrics)
		if (mnl_attr_get_type(a) == RTAX_MTU && mnl_attr_get_payload_len(a) >= 4)
			return mnl_attr_get_u32(a);
	return 0;
}

static int min_mtu4_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	uint32_t *min = arg, mtu;

	if (nlh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_family != AF_INET)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		if (mnl_attr_get_type(a) != RTA_METRICS)
			continue;
		mtu = metric_mtu(a);
		if (mtu && mtu < *min)
			*min = mtu;
	}
	return 0;
}

int xf_route4_min_mtu(struct xf_nl *nl, uint32_t *min_mtu)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETROUTE, NLM_F_DUMP);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

	/* No table asked for: the kernel dumps all of them. */
	rtm->rtm_family = AF_INET;
	*min_mtu = UINT32_MAX;
	return xf_nl_dump(nl, nlh, min_mtu4_cb, min_mtu);
}

/* Under ff00::/8 or fe80::/10, or ::1 itself: a route no forwarded
 * destination meets (the route programs pass such a destination before any
 * lookup, and bpf_fib_lookup() answers it "not forwarded"). Kept out of
 * xf_rt_loc6, ::1 does not send every destination that ends in ::1 (as
 * routers' and servers' addresses often do) to its bucket's lookup. */
static int never_forwarded(const uint8_t *dst, int len)
{
	static const uint8_t loopback[16] = { [15] = 1 };

	return (len >= 8 && dst[0] == 0xff) ||
	       (len >= 10 && dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80) ||
	       (len == 128 && !memcmp(dst, loopback, sizeof(loopback)));
}

static int local6_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct local6 *l = arg;
	uint8_t dst[16] = { 0 };
	uint32_t table, mtu = 0;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_family != AF_INET6)
		return 0;
	table = rtm->rtm_table;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		if (mnl_attr_get_type(a) == RTA_TABLE && mnl_attr_get_payload_len(a) >= 4)
			table = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == RTA_DST && mnl_attr_get_payload_len(a) >= 16)
			memcpy(dst, mnl_attr_get_payload(a), 16);
		if (mnl_attr_get_type(a) == RTA_METRICS)
			mtu = metric_mtu(a);
	}
	/* A cached route (an exception) is not in the table's tree. */
	if (rtm->rtm_flags & RTM_F_CLONED)
		return 0;
	/* Any table's: the walk is the dump of all of them anyway. */
	if (mtu && mtu < l->min_mtu)
		l->min_mtu = mtu;
	if (table != RT_TABLE_LOCAL || never_forwarded(dst, rtm->rtm_dst_len))
		return 0;
	if (rtm->rtm_dst_len == 128 && !rtm->rtm_src_len &&
	    (rtm->rtm_type == RTN_LOCAL || rtm->rtm_type == RTN_ANYCAST))
		l->cb(dst, l->arg);
	else
		l->other = 1;
	return 0;
}

int xf_route6_local(struct xf_nl *nl, void (*cb)(const uint8_t *addr, void *arg), void *arg,
		    uint32_t *min_mtu)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETROUTE, NLM_F_DUMP);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct local6 l = { .cb = cb, .arg = arg, .min_mtu = UINT32_MAX };
	int err;

	rtm->rtm_family = AF_INET6;
	err = xf_nl_dump(nl, nlh, local6_cb, &l);
	*min_mtu = l.min_mtu;
	return err ?: l.other;
}
