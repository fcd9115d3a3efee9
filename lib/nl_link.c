// SPDX-License-Identifier: GPL-2.0
/* rtnetlink links <-> struct xf_link. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "nl.h"
#include "nl_link.h"

const char *xf_xdp_mode_name(enum xf_xdp_mode m)
{
	switch (m) {
	case XF_XDP_DRV: return "native";
	case XF_XDP_SKB: return "generic";
	case XF_XDP_HW: return "offload";
	case XF_XDP_MULTI: return "multi";
	default: return "none";
	}
}

static void link_parse_xdp(const struct nlattr *nest, struct xf_link *l)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0 &&
		    mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			continue;
		switch (mnl_attr_get_type(a)) {
		case IFLA_XDP_ATTACHED:
			switch (mnl_attr_get_u8(a)) {
			case XDP_ATTACHED_DRV: l->xdp.mode = XF_XDP_DRV; break;
			case XDP_ATTACHED_SKB: l->xdp.mode = XF_XDP_SKB; break;
			case XDP_ATTACHED_HW: l->xdp.mode = XF_XDP_HW; break;
			case XDP_ATTACHED_MULTI: l->xdp.mode = XF_XDP_MULTI; break;
			default: l->xdp.mode = XF_XDP_NONE; break;
			}
			break;
		case IFLA_XDP_PROG_ID: l->xdp.prog_id = mnl_attr_get_u32(a); break;
		case IFLA_XDP_DRV_PROG_ID: l->xdp.drv_id = mnl_attr_get_u32(a); break;
		case IFLA_XDP_SKB_PROG_ID: l->xdp.skb_id = mnl_attr_get_u32(a); break;
		case IFLA_XDP_HW_PROG_ID: l->xdp.hw_id = mnl_attr_get_u32(a); break;
		}
	}
}

/* IFLA_VLAN_*: the id, the protocol and the QoS maps of a VLAN device. */
static void link_parse_vlan(const struct nlattr *nest, struct xf_link *l)
{
	const struct ifla_vlan_qos_mapping *m;
	const struct nlattr *a, *q;

	l->vlan.is = true;
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_VLAN_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
				l->vlan.id = mnl_attr_get_u16(a);
			break;
		case IFLA_VLAN_PROTOCOL:
			if (mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
				l->vlan.ad = mnl_attr_get_u16(a) == htons(ETH_P_8021AD);
			break;
		case IFLA_VLAN_INGRESS_QOS:
		case IFLA_VLAN_EGRESS_QOS:
			/* The kernel lists the non-zero entries only. */
			mnl_attr_for_each_nested(q, a) {
				if (mnl_attr_get_type(q) != IFLA_VLAN_QOS_MAPPING ||
				    mnl_attr_get_payload_len(q) < sizeof(*m))
					continue;
				m = mnl_attr_get_payload(q);
				if (mnl_attr_get_type(a) == IFLA_VLAN_EGRESS_QOS) {
					l->vlan.egress_qos = true;
					if (m->from < 16)
						l->vlan.egress_pcp[m->from] = m->to & 7;
					else
						l->vlan.egress_high = true;
				} else if (m->from < 8)
					l->vlan.ingress_prio[m->from] = m->to;
			}
			break;
		}
	}
}

static void link_parse_info(const struct nlattr *nest, struct xf_link *l)
{
	const struct nlattr *a, *data = NULL;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_STRING) >= 0) {
			size_t n = mnl_attr_get_payload_len(a);

			if (n >= sizeof(l->kind))
				n = sizeof(l->kind) - 1;
			memcpy(l->kind, mnl_attr_get_str(a), n);
			l->kind[n] = '\0';
		} else if (mnl_attr_get_type(a) == IFLA_INFO_DATA) {
			data = a;
		}
	}
	if (data && !strcmp(l->kind, "vlan"))
		link_parse_vlan(data, l);
}

static int link_parse(const struct nlmsghdr *nlh, struct xf_link *l)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->ifindex = ifm->ifi_index;
	l->flags = ifm->ifi_flags;
	l->type = ifm->ifi_type;
	l->link_netnsid = -1;
	mnl_attr_for_each(a, nlh, sizeof(*ifm)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_IFNAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				strncpy(l->name, mnl_attr_get_str(a), sizeof(l->name) - 1);
			break;
		case IFLA_MTU:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				l->mtu = mnl_attr_get_u32(a);
			break;
		case IFLA_LINK:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				l->link = mnl_attr_get_u32(a);
			break;
		case IFLA_LINK_NETNSID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				l->link_netnsid = (int32_t)mnl_attr_get_u32(a);
			break;
		case IFLA_MASTER:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				l->master = mnl_attr_get_u32(a);
			break;
		case IFLA_GRO_MAX_SIZE:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				l->gro_max_size = mnl_attr_get_u32(a);
			break;
		case IFLA_ADDRESS:
			if (mnl_attr_get_payload_len(a) <= sizeof(l->addr)) {
				l->addr_len = mnl_attr_get_payload_len(a);
				memcpy(l->addr, mnl_attr_get_payload(a), l->addr_len);
			}
			break;
		case IFLA_QDISC:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				strncpy(l->qdisc, mnl_attr_get_str(a), sizeof(l->qdisc) - 1);
			break;
		case IFLA_LINKINFO:
			link_parse_info(a, l);
			break;
		case IFLA_XDP:
			link_parse_xdp(a, l);
			break;
		}
	}
	return 0;
}

static int link_get_cb(const struct nlmsghdr *nlh, void *arg)
{
	return link_parse(nlh, arg);
}

static int link_get(struct xf_nl *nl, const char *name, int netnsid, int ifindex,
		    struct xf_link *l)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETLINK, 0);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	int err;

	ifm->ifi_family = AF_UNSPEC;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	else
		ifm->ifi_index = ifindex;
	if (netnsid >= 0)
		mnl_attr_put_u32(nlh, IFLA_TARGET_NETNSID, (uint32_t)netnsid);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	l->ifindex = 0;
	/* "No such device" is an answer; the callers say what it means. */
	err = xf_nl_ask(nl, nlh, link_get_cb, l);
	if (err == -ENODEV || (!err && !l->ifindex))
		return -ENODEV;
	return err;
}

int xf_link_get(struct xf_nl *nl, const char *name, int ifindex, struct xf_link *l)
{
	return link_get(nl, name, -1, ifindex, l);
}

int xf_link_get_nsid(struct xf_nl *nl, int netnsid, int ifindex, struct xf_link *l)
{
	return link_get(nl, NULL, netnsid, ifindex, l);
}

bool xf_link_kind_is_pair(const char *kind)
{
	return !strcmp(kind, "veth") || !strcmp(kind, "netkit");
}

int xf_link_find(struct xf_nl *nl, const char *name, struct xf_link *l)
{
	int err = xf_link_get(nl, name, 0, l);

	if (err == -ENODEV)
		fprintf(stderr, "Error: device \"%s\" does not exist.\n", name);
	else if (err)
		fprintf(stderr, "Error: cannot read device \"%s\": %s.\n", name, strerror(-err));
	return err;
}

struct link_walk {
	int (*cb)(const struct xf_link *l, void *arg);
	void *arg;
};

static int link_walk_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct link_walk *w = arg;
	struct xf_link l;
	int ret;

	if (link_parse(nlh, &l))
		return 0;
	ret = w->cb(&l, w->arg);
	return ret < 0 ? ret : ret ? 1 : 0;
}

int xf_link_list(struct xf_nl *nl, int (*cb)(const struct xf_link *l, void *arg),
		 void *arg)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETLINK, NLM_F_DUMP);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	struct link_walk w = { cb, arg };

	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return xf_nl_dump(nl, nlh, link_walk_cb, &w);
}

/* RTM_NEWLINK for a pair: name of kind, with its mode (when mode_attr is
 * not 0) and its peer's name, nested in peer_attr after an ifinfomsg of the
 * peer's own, in IFLA_INFO_DATA. */
static int link_add_pair(struct xf_nl *nl, const char *name, const char *kind,
			 uint16_t mode_attr, uint32_t mode, uint16_t peer_attr, const char *peer)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	struct nlattr *info, *data, *pinfo;

	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, kind);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	if (mode_attr)
		mnl_attr_put_u32(nlh, mode_attr, mode);
	pinfo = mnl_attr_nest_start(nlh, peer_attr);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	mnl_attr_nest_end(nlh, pinfo);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return xf_nl_request(nl, nlh);
}

int xf_link_add_veth(struct xf_nl *nl, const char *name, const char *peer)
{
	return link_add_pair(nl, name, "veth", 0, 0, VETH_INFO_PEER, peer);
}

int xf_link_add_netkit(struct xf_nl *nl, const char *name)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	struct nlattr *info;

	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "netkit");
	mnl_attr_nest_end(nlh, info);
	return xf_nl_request(nl, nlh);
}

int xf_link_add_vlan(struct xf_nl *nl, const char *name, int parent, uint16_t id)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	struct nlattr *info, *data;

	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_LINK, (uint32_t)parent);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vlan");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u16(nlh, IFLA_VLAN_ID, id);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return xf_nl_request(nl, nlh);
}

int xf_link_add_netkit_pair(struct xf_nl *nl, const char *name, const char *peer, bool l2)
{
	return link_add_pair(nl, name, "netkit", IFLA_NETKIT_MODE, l2 ? NETKIT_L2 : NETKIT_L3,
			     IFLA_NETKIT_PEER_INFO, peer);
}

struct addr_walk {
	int ifindex;
	int family;
	struct xf_addr *out;
	bool found;
};

static int addr_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct addr_walk *w = arg;
	const struct nlattr *a;
	size_t alen = w->family == AF_INET ? 4 : 16;

	if (w->found || nlh->nlmsg_type != RTM_NEWADDR || ifa->ifa_family != w->family ||
	    (int)ifa->ifa_index != w->ifindex || ifa->ifa_scope != RT_SCOPE_UNIVERSE)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(a) != IFA_ADDRESS || mnl_attr_get_payload_len(a) != alen)
			continue;
		memset(w->out, 0, sizeof(*w->out));
		w->out->family = w->family;
		w->out->plen = ifa->ifa_prefixlen;
		memcpy(w->out->bytes, mnl_attr_get_payload(a), alen);
		w->found = true;
	}
	return 0;
}

int xf_addr_first(struct xf_nl *nl, int ifindex, int family, struct xf_addr *out)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct addr_walk w = { ifindex, family, out, false };
	int err;

	ifa->ifa_family = family;
	err = xf_nl_dump(nl, nlh, addr_cb, &w);
	if (err)
		return err;
	return w.found ? 0 : -EADDRNOTAVAIL;
}

static int link_nsid_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWNSID)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct rtgenmsg)) {
		if (mnl_attr_get_type(a) == NETNSA_NSID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			*(int *)arg = (int32_t)mnl_attr_get_u32(a);
	}
	return 0;
}

int xf_netns_nsid(struct xf_nl *nl, int fd, int *nsid)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETNSID, 0);
	struct rtgenmsg *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->rtgen_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, NETNSA_FD, fd);
	*nsid = -1;
	return xf_nl_dump(nl, nlh, link_nsid_cb, nsid);
}
