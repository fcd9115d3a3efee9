/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The bench tools' switches into bpf/route.bpf.c: force-included (clang
 * -include) by their variant builds only (bpf_cc_route in
 * bench/bpfcc.bash: bench/stages, bench/vlan-ratio), never by the
 * Makefile's, so that the production objects hold none of it.
 *
 * XF_PROF_OFF (a -D of the variant build, default 0) is the OR of the
 * stages switched off. route.bpf.c names each stage by XF_BENCH_ON(NAME),
 * which is 1 in its own build; here it is 0 when XF_PROF_NAME is in
 * XF_PROF_OFF. The XF_BENCH_* hooks below replace route.bpf.c's no-op
 * defaults where a variant does other work than production. */
#ifndef XF_ROUTE_PROF_H
#define XF_ROUTE_PROF_H

#ifndef XF_PROF_OFF
#define XF_PROF_OFF 0
#endif
#define XF_PROF_STATS 1		/* the per-packet counter */
#define XF_PROF_SOURCE4 2	/* IPv4 local-source / rp_filter lookup */
#define XF_PROF_LOCAL 4		/* the local-address hint */
#define XF_PROF_WRITE 8		/* packet writes (PROG_RUN repeats reuse the
				 * packet: a rewrite would change the next run) */
#define XF_PROF_LOC6 16		/* IPv6's local table from xf_rt_loc6 */
#define XF_PROF_MTU6 32		/* tc, IPv6: the helper's route MTU left out */
#define XF_PROF_VLANPOP 64	/* tc: a tag's pop (bench/vlan-ratio's nopop) */
#define XF_PROF_FAST6 128	/* tc, IPv6: the common case's own path */
#define XF_PROF_FASTTRACE 512	/* tc: the common paths' refusal of a
				 * traced frame (off: taken as untraced,
				 * its tag the trace's: bench/vlan-ratio) */
#define XF_PROF_FAST4 1024	/* xdp, IPv4: the common case's own path */
#define XF_PROF_XFAST6 2048	/* xdp, IPv6: the common case's own path */
#define XF_PROF_TCFAST4 4096	/* tc, IPv4: the common case's own path */
#define XF_PROF_VLANCFG 8192	/* the common paths: a tag's entry's copy of
				 * its device's configuration (off: that
				 * device's own entry, bench/vlan-ratio's
				 * nofold) */
#define XF_PROF_NBR 16384	/* the neighbour upkeep's check (route_nbr.h) */

#define XF_BENCH_ON(name) (!(XF_PROF_OFF & XF_PROF_##name))

/* XF_PROF_VLANCFG off: xf_rt_fast_vlan() takes the VLAN device iif's own
 * entry into *cfg instead of the copy its tag's entry carries; 0 when
 * there is none. */
#if XF_PROF_OFF & XF_PROF_VLANCFG
#define XF_BENCH_VLAN_CFG(iif, cfg) ({					\
	struct xf_route_ifcfg *c_ = xf_rt_cfg(iif);			\
									\
	if (c_)								\
		*(cfg) = *c_;						\
	c_ != NULL;							\
})
#endif

/* XF_PROF_FASTTRACE off: xf_rt_tc_fast() takes a frame that carries route
 * get's trace record as an untraced one, its tag the trace's (cb[3..4]),
 * when both magic words are there: 1 with *tagged, *proto and *tci as
 * xf_rt_trace_tag() sets them; else 0. */
#if XF_PROF_OFF & XF_PROF_FASTTRACE
#define XF_BENCH_TRACE_TAG(skb, proto, tci, tagged) ({			\
	int t_ = (skb)->cb[1] == XF_RT_TRACE_MAGIC1;			\
									\
	if (t_)								\
		*(tagged) |= xf_rt_trace_tag(skb, proto, tci);		\
	t_;								\
})
#endif

#endif
