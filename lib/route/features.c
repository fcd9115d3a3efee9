// SPDX-License-Identifier: GPL-2.0
/* What a device's driver does with XDP, and the hook "auto" picks from
 * that and the device's kind. */
#include <net/ethernet.h>
#include <net/if_arp.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/netdev.h>

#include "internal.h"
#include "nl_link.h"
#include "xfwd_compat.h"

uint64_t rt_xdp_features(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.feature_flags;
}

/* A device without an Ethernet header whose packets start at their IP
 * header, and that the fast path can send into as the kernel does: a
 * point-to-point one (a tunnel with a fixed remote, WireGuard, tun). An
 * NBMA GRE device builds its outer header from the neighbour entry, and a
 * tunnel without a remote (NBMA, external) needs the route or metadata
 * that a redirect does not carry. */
bool rt_l3_dev(const struct xf_link *l)
{
	switch (l->type) {
	case ARPHRD_NONE:
	case ARPHRD_TUNNEL:
	case ARPHRD_TUNNEL6:
	case ARPHRD_SIT:
	case ARPHRD_IPGRE:
	case ARPHRD_IP6GRE:
		return l->flags & IFF_POINTOPOINT;
	default:
		return false;
	}
}

/* hook auto: XDP wins on drivers that run it natively, except veth and
 * netkit, where XDP turns off the peer's TSO and TCP falls to a tenth. */
const char *rt_hook_why(const struct xf_link *l, uint64_t features, enum xf_hook *hook)
{
	const char *kind = l->kind;

	if (l->addr_len != ETH_ALEN) {
		*hook = XF_HOOK_TC;
		return "auto: a layer 3 device (no Ethernet header), which XDP cannot take";
	}
	if (!strcmp(kind, "vlan")) {
		*hook = XF_HOOK_TC;
		return "auto: a VLAN device, whose parent runs the program on tc";
	}
	if (!strcmp(kind, "bond")) {
		*hook = XF_HOOK_TC;
		return "auto: a bond, on which XDP runs in generic mode only";
	}
	if (xf_link_kind_is_pair(kind)) {
		*hook = XF_HOOK_TC;
		return !strcmp(kind, "veth") ?
			"auto: veth, where XDP would turn off the peer's TSO" :
			"auto: netkit, where tc keeps GSO";
	}
	if (features & NETDEV_XDP_ACT_BASIC) {
		*hook = XF_HOOK_XDP;
		return "auto: the driver runs XDP natively";
	}
	*hook = XF_HOOK_TC;
	return "auto: the driver has no native XDP";
}

uint32_t rt_xdp_xmit_flags(int ifindex, uint32_t cfl, bool reported)
{
	uint64_t f;

	/* An XDP frame is an Ethernet one. */
	if (cfl & XF_RTIF_L3)
		return 0;
	/* A kernel that does not report XDP features shows no native XDP
	 * either: every member is in generic mode, whose redirects need no
	 * ndo_xmit and reach any device, and whose frames are never split. */
	if (!reported)
		return XF_RTIF_XDP_XMIT | XF_RTIF_XMIT_SG;
	f = rt_xdp_features(ifindex);
	return (f & NETDEV_XDP_ACT_NDO_XMIT ? XF_RTIF_XDP_XMIT : 0) |
	       (f & NETDEV_XDP_ACT_NDO_XMIT_SG ? XF_RTIF_XMIT_SG : 0);
}
