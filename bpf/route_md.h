/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: the state of one packet's decision (route.bpf.c and its
 * chapters: route_vlan.h, route_xdp_fast.h, route_tc_fast.h). Included by
 * BPF programs only. */
#ifndef XF_ROUTE_MD_H
#define XF_ROUTE_MD_H

#include <linux/bpf.h>
#include <linux/types.h>

/* Built twice: with XF_KCTX=1 the programs read kernel state
 * (route_kctx.h). */
#ifndef XF_KCTX
#define XF_KCTX 0
#endif

#if XF_KCTX
#include "kstructs.h"
#endif

enum xf_rt_hook { XF_RT_XDP, XF_RT_TC };

/* What one packet's decision needs and produces, for both hooks, zeroed
 * whole per packet: a field a path does not set reads 0. */
struct xf_rt_md {
	struct bpf_fib_lookup fib;	/* input, then the FIB's answer */
	__u32 gso_size;			/* tc: skb gso_size, else 0 */
	__u32 mark;			/* tc: skb->mark, else 0 */
	__s32 fib_rc;
	__s32 rp_rc;
	__u32 rp_oif;
	__u32 ocfl;			/* tc: egress XF_RTIF_* flags */
	__u32 l3len;			/* IP length from the header */
	__u8 vlan;			/* tc: XF_RT_VLAN_* (route_vlan.h) */
	__u8 gso_segcheck;		/* tc: GSO seglen not derived, check */
	__u8 v4;			/* the packet is IPv4 */
	__u8 trace;			/* route get's run: not counted */
	__u32 iif;
	__u32 len;			/* whole packet, Ethernet included */
	__u32 cfl;			/* ingress XF_RTIF_* flags */
	__u32 tflags;			/* XF_RTT_* */
	__be32 saddr4, daddr4;		/* IPv4 addresses (the FIB rewrites) */
	__u16 mac[3];			/* ingress address (XDP) */
	__u16 peer_mac[3];		/* tc: egress peer's address */
	__u8 pkt_type;			/* tc: skb->pkt_type */
	__u8 tos;			/* IPv4 TOS, for skb->priority */
	__u32 vprio;			/* tc, vlan: skb->priority for IPv6 */
#if XF_KCTX
	struct net___xf *net;		/* the ingress device's namespace */
#endif
};

#define XF_PKT_BY_MAC 0xff		/* XDP: compare with the ifcfg MAC */

#endif
