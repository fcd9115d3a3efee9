/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route.bpf.c built with XF_KCTX=1 (build/route_kctx.bpf.o): the kernel
 * state behind fib_validate_source()'s quick check, read through
 * bpf_cast_to_kern_ctx() (Linux 6.2) and BTF (CAP_PERFMON). userspace
 * loads this build only where both are there (rt_elf()); the other build
 * makes the reverse lookup every time, as before.
 *
 * With rp_filter off, no realm in use (fib_num_tclassid_users), no local
 * route of the operator's own (fib_has_custom_local_routes) and no policy
 * rule (fib_has_custom_rules), the kernel drops a forwarded packet for its
 * source only when the source is one of the namespace's IPv4 addresses
 * (and sends it through the full check otherwise). Those three are read
 * here on every packet, the addresses come from xf_rt_src4 while its
 * genid is the kernel's (xfwd_bpf.h). The packet sent back out of its
 * ingress interface, the other way to the full check, is passed anyway
 * (hairpin).
 *
 * For IPv6, fib6_lookup() without policy rules searches the local table,
 * then the main one; xf_rt_loc6 (xfwd_bpf.h) stands for the local table
 * while net->ipv6.fib6_sernum is the one it was taken at, and the main
 * table is then looked up alone. Included by route.bpf.c and route_vlan.h. */
#ifndef XF_ROUTE_KCTX_H
#define XF_ROUTE_KCTX_H

#include <linux/ip.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "kstructs.h"
#include "route_defs.h"
#include "xfwd_bpf.h"

/* The device the packet arrived on (a VLAN tag's parent). */
static __always_inline struct net_device___xf *xf_kctx_dev(void *ctx, int xdp)
{
	if (xdp)
		return ((struct xdp_buff___xf *)bpf_cast_to_kern_ctx(ctx))->rxq->dev;
	return ((struct sk_buff___xf *)bpf_cast_to_kern_ctx(ctx))->dev;
}

/* The namespace of the device the packet arrived on. */
static __always_inline struct net___xf *xf_kctx_net(void *ctx, int xdp)
{
	return xf_kctx_dev(ctx, xdp)->nd_net.net;
}

/* The uapi's IPV4_DEVCONF_* as indexes of ipv4_devconf.data[]. */
#define XF_DEVCONF_RP_FILTER (IPV4_DEVCONF_RP_FILTER - 1)
#define XF_DEVCONF_ACCEPT_LOCAL (IPV4_DEVCONF_ACCEPT_LOCAL - 1)
#define XF_DEVCONF_SRC_VMARK (IPV4_DEVCONF_SRC_VMARK - 1)

/* fib_validate_source()'s settings for an IPv4 packet arriving on dev of
 * namespace net, read at this packet: XF_RTIF_RP_STRICT or
 * XF_RTIF_RP_LOOSE for rp_filter 1 or 2 (IN_DEV_RPFILTER: the larger of
 * "all" and the device); with it off, XF_RTIF_SRC_ANY where the kernel
 * checks nothing (IN_DEV_ACCEPT_LOCAL, "all" or the device, and no route
 * with a realm); XF_RT_SRC_UNSURE with a mark that the reverse lookup
 * would take (IN_DEV_SRC_VMARK, "all" or the device), as the program's
 * lookup does not, or when dev has no IPv4 settings to read. */
static __always_inline __u32 xf_kctx_src(struct net___xf *net, struct net_device___xf *dev,
					 __u32 mark)
{
	struct ipv4_devconf___xf *all = net->ipv4.devconf_all;
	struct in_device___xf *in = dev->ip_ptr;
	int rpf, d;

	if (!in || !all)
		return XF_RT_SRC_UNSURE;
	if (mark && (all->data[XF_DEVCONF_SRC_VMARK] | in->cnf.data[XF_DEVCONF_SRC_VMARK]))
		return XF_RT_SRC_UNSURE;
	rpf = all->data[XF_DEVCONF_RP_FILTER];
	d = in->cnf.data[XF_DEVCONF_RP_FILTER];
	if (d > rpf)
		rpf = d;
	if (rpf == 1)
		return XF_RTIF_RP_STRICT;
	if (rpf)
		return XF_RTIF_RP_LOOSE;
	if (!(all->data[XF_DEVCONF_ACCEPT_LOCAL] | in->cnf.data[XF_DEVCONF_ACCEPT_LOCAL]))
		return 0;
	if (bpf_core_field_exists(net->ipv4.fib_num_tclassid_users) &&
	    net->ipv4.fib_num_tclassid_users.counter)
		return 0;
	return XF_RTIF_SRC_ANY;
}

static __always_inline __u32 xf_kctx_genid(struct net___xf *net)
{
	return net->ipv4.dev_addr_genid.counter;
}

/* net->ipv4.fib_seq in *seq: 1, or 0 where the kernel has none. */
static __always_inline int xf_kctx_fib_seq(struct net___xf *net, __u32 *seq)
{
	if (!bpf_core_field_exists(net->ipv4.fib_seq))
		return 0;
	*seq = net->ipv4.fib_seq;
	return 1;
}

static __always_inline __u32 xf_kctx_sernum6(struct net___xf *net)
{
	return net->ipv6.fib6_sernum.counter;
}

/* Whether fib6_lookup() goes through policy rules. Without
 * CONFIG_IPV6_MULTIPLE_TABLES the field is not there, and the local table
 * is the main table: one search either way. */
static __always_inline int xf_kctx_rules6(struct net___xf *net)
{
	return bpf_core_field_exists(net->ipv6.fib6_has_custom_rules) &&
	       net->ipv6.fib6_has_custom_rules;
}

/* Whether fib_validate_source() would take its quick check for a source
 * arriving with rp_filter off: nothing forces the full one. */
static __always_inline int xf_kctx_quick_check(struct net___xf *net)
{
	if (net->ipv4.fib_has_custom_local_routes)
		return 0;
	if (bpf_core_field_exists(net->ipv4.fib_has_custom_rules) &&
	    net->ipv4.fib_has_custom_rules)
		return 0;
	if (bpf_core_field_exists(net->ipv4.fib_num_tclassid_users) &&
	    net->ipv4.fib_num_tclassid_users.counter)
		return 0;
	return 1;
}

#define XF_IFF_SLAVE 0x800		/* uapi IFF_SLAVE: a bond's slave */

/* hook xdp on a bond's slave (XF_RTIF_SLAVE): what bond_handle_frame()
 * does with the frame. XF_RR_FORWARDED when the device the frame arrived
 * on is still a slave of the bond master and active, so that the bond
 * takes the frame as its own; XF_RR_BOND_INACTIVE when it is inactive
 * (active-backup's backup, an 802.3ad port outside the active
 * aggregator): the bond hands the frame on to nothing that routes
 * (RX_HANDLER_EXACT), and the kernel drops it; XF_RR_BOND_LEFT when it is
 * no slave of master any more; XF_RR_BOND_UNREAD without bonding's BTF
 * at load. Read at every frame: a failover takes the next one. */
static __always_inline __u32 xf_kctx_slave(void *ctx, __u32 master)
{
	struct net_device___xf *dev = xf_kctx_dev(ctx, 1), *m;
	struct slave___xf *sl;
	__u64 bond = 0, mdev = 0;

	if (!bpf_core_type_exists(struct slave___xf) ||
	    !bpf_core_type_exists(struct bonding___xf))
		return XF_RR_BOND_UNREAD;
	/* Only bonding sets IFF_SLAVE, with its struct slave as the
	 * device's rx_handler_data. */
	if (!(dev->flags & XF_IFF_SLAVE))
		return XF_RR_BOND_LEFT;
	sl = dev->rx_handler_data;
	if (!sl || bpf_core_read(&bond, sizeof(bond), &sl->bond) || !bond ||
	    bpf_core_read(&mdev, sizeof(mdev), &((struct bonding___xf *)bond)->dev) || !mdev)
		return XF_RR_BOND_UNREAD;
	m = bpf_rdonly_cast((void *)mdev, bpf_core_type_id_kernel(struct net_device___xf));
	if (m->ifindex != (int)master)
		return XF_RR_BOND_LEFT;
	return BPF_CORE_READ_BITFIELD_PROBED(sl, inactive) ? XF_RR_BOND_INACTIVE :
							      XF_RR_FORWARDED;
}

/* Whether ip_forward() (ip6_forward()) would ask xfrm about a forwarded
 * packet with any chance of an answer other than "go on": the namespace
 * has a policy of direction fwd (checked on input) or out (the route
 * through xfrm_lookup()), a default policy that blocks either, or a
 * state (a packet decrypted here carries a secpath that the check reads).
 * Read on every packet: a policy added now takes the next packet. */
static __always_inline int xf_kctx_xfrm(struct net___xf *net)
{
	struct netns_xfrm___xf *x = &net->xfrm;

	if (!bpf_core_field_exists(net->xfrm))
		return 0;
	if (x->policy_count[1] | x->policy_count[2] | x->state_num)
		return 1;
	/* XFRM_USERPOLICY_BLOCK is 1; the kernel's default accepts (2). */
	return bpf_core_field_exists(x->policy_default) &&
	       (x->policy_default[1] == 1 || x->policy_default[2] == 1);
}

#endif
