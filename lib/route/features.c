// SPDX-License-Identifier: GPL-2.0
/* What a device's driver does with XDP, and the hook "auto" picks from
 * that and the device's kind. */
#include <string.h>

#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/netdev.h>

#include "internal.h"
#include "nl_link.h"

uint64_t rt_xdp_features(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.feature_flags;
}

/* hook auto: XDP wins on drivers that run it natively, except veth and
 * netkit, where XDP turns off the peer's TSO and TCP falls to a tenth. */
const char *rt_hook_why(const char *kind, uint64_t features, enum xf_hook *hook)
{
	if (!strcmp(kind, "vlan")) {
		*hook = XF_HOOK_TC;
		return "auto: a VLAN device, whose parent runs the program on tc";
	}
	if (!strcmp(kind, "bond")) {
		*hook = XF_HOOK_TC;
		return "auto: a bond, whose XDP would run on its slaves";
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

uint32_t rt_xdp_xmit_flags(int ifindex, bool reported)
{
	uint64_t f;

	/* A kernel that does not report XDP features shows no native XDP
	 * either: every member is in generic mode, whose redirects need no
	 * ndo_xmit and reach any device, and whose frames are never split. */
	if (!reported)
		return XF_RTIF_XDP_XMIT | XF_RTIF_XMIT_SG;
	f = rt_xdp_features(ifindex);
	return (f & NETDEV_XDP_ACT_NDO_XMIT ? XF_RTIF_XDP_XMIT : 0) |
	       (f & NETDEV_XDP_ACT_NDO_XMIT_SG ? XF_RTIF_XMIT_SG : 0);
}
