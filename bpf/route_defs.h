/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: what every part of route.bpf.c shares (route_*.h): the build's
 * switches, the bench tools' hooks, and the state of one packet's
 * decision. Included by BPF programs only. */
#ifndef XF_ROUTE_DEFS_H
#define XF_ROUTE_DEFS_H

#include <linux/bpf.h>
#include <linux/types.h>

/* Built twice: with XF_KCTX=1 the IPv4 source check reads kernel state
 * (route_kctx.h) and needs no reverse lookup where the kernel makes none. */
#ifndef XF_KCTX
#define XF_KCTX 0
#endif

/* The bench tools build route.bpf.c with stages switched off, to time them
 * (bench/progs/route_prof.h, which their variant builds force-include):
 * XF_BENCH_ON(NAME) says whether stage NAME is on, and the XF_BENCH_*
 * hooks do a variant's other work. Here every stage is on and every hook
 * does what production does. */
#ifndef XF_BENCH_ON
#define XF_BENCH_ON(name) 1
#endif
/* xf_rt_fast_vlan(): the tag's entry's copy of the VLAN device iif's
 * configuration in *cfg stays (1). */
#ifndef XF_BENCH_VLAN_CFG
#define XF_BENCH_VLAN_CFG(iif, cfg) 1
#endif
/* xf_rt_tc_fast(): a frame that carries route get's trace record goes to
 * the general path (0). */
#ifndef XF_BENCH_TRACE_TAG
#define XF_BENCH_TRACE_TAG(skb, proto, tci, tagged) 0
#endif

/* The common paths of their own (route_xdp_fast.h, route_tc_fast.h): the
 * kctx build only, as they need xf_rt_src4 or xf_rt_loc6, and each only
 * with the stages it rests on. */
#if XF_KCTX
#define XF_RT_XDP_FAST4 (XF_BENCH_ON(FAST4) && XF_BENCH_ON(SOURCE4) && \
			 XF_BENCH_ON(LOCAL))
#define XF_RT_XDP_FAST6 (XF_BENCH_ON(XFAST6) && XF_BENCH_ON(LOC6))
#define XF_RT_TC_FAST4 (XF_BENCH_ON(TCFAST4) && XF_BENCH_ON(SOURCE4) && \
			XF_BENCH_ON(LOCAL))
#define XF_RT_TC_FAST6 (XF_BENCH_ON(FAST6) && XF_BENCH_ON(LOC6) && \
			XF_BENCH_ON(MTU6))
#else
#define XF_RT_XDP_FAST4 0
#define XF_RT_XDP_FAST6 0
#define XF_RT_TC_FAST4 0
#define XF_RT_TC_FAST6 0
#endif
#define XF_RT_XDP_FAST (XF_RT_XDP_FAST4 || XF_RT_XDP_FAST6)
#define XF_RT_TC_FAST (XF_RT_TC_FAST4 || XF_RT_TC_FAST6)

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
	__be16 l3proto;			/* tc, XF_RTIF_L3: skb->protocol */
	__u8 tos;			/* IPv4 TOS, for skb->priority */
	__u32 vprio;			/* tc, vlan: skb->priority for IPv6 */
#if XF_KCTX
	struct net___xf *net;		/* the ingress device's namespace */
#endif
};

/* In md->cfl, never in a map: where the program cannot read the
 * ingress's IPv4 source check settings (xf_rt_src_live(), route.bpf.c),
 * the reverse lookup decides as under every setting at once. */
#define XF_RT_SRC_UNSURE (1U << 31)

/* md's namespace where the build reads it, else NULL. */
#if XF_KCTX
#define XF_RT_NET(md) ((md)->net)
#else
#define XF_RT_NET(md) ((void *)0)
#endif

#define XF_PKT_BY_MAC 0xff		/* XDP: compare with the ifcfg MAC */

#endif
