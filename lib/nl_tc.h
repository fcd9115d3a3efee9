/* SPDX-License-Identifier: GPL-2.0 */
/* tc through rtnetlink: BPF filters on a clsact qdisc. */
#ifndef XF_NL_TC_H
#define XF_NL_TC_H

#include <stdbool.h>
#include <stdint.h>

struct xf_nl;

struct xf_tc_filter {
	uint32_t prog_id;	/* 0 for a filter that is not cls_bpf */
	char name[64];		/* TCA_BPF_NAME, or the classifier kind */
	uint16_t prio;
	uint32_t handle;
};

/* Up to max filters on the ingress (or egress) hook of the clsact qdisc of
 * ifindex into out. Returns how many there are (0 when there is no
 * clsact qdisc) or -errno. */
int xf_tc_filters(struct xf_nl *nl, int ifindex, bool ingress,
		  struct xf_tc_filter *out, int max);

/* A qdisc of a device's egress. The kernel makes a device's default
 * qdiscs (its root, and the children of a multiqueue root) with handle 0;
 * every qdisc added with tc has another. */
struct xf_tc_qdisc {
	char kind[16];
	uint32_t handle;
	uint32_t parent;	/* TC_H_ROOT for the root */
	/* A kind that only forwards in order, as the kernel's defaults do,
	 * with the parameters a new one gets: noqueue, mq (its children
	 * apart), pfifo_fast (which has none), fq_codel with its defaults
	 * (its quantum, the device's MTU, aside). */
	bool stock;
};

/* Up to max of ifindex's egress qdiscs (clsact and ingress aside) into
 * out. Returns how many there are, or -errno. */
int xf_tc_qdiscs(struct xf_nl *nl, int ifindex, struct xf_tc_qdisc *out, int max);

/* Whether ifindex has a clsact qdisc (in *has): ask first, as adding one
 * where there is one makes the kernel answer with an extack error line.
 * 0/-errno. */
int xf_tc_has_clsact(struct xf_nl *nl, int ifindex, bool *has);
/* Add a clsact qdisc to ifindex. 0/-errno (-EEXIST when there is one). */
int xf_tc_clsact_add(struct xf_nl *nl, int ifindex);
/* Add a cls_bpf filter in direct-action mode, prio 1 handle 1, running the
 * program fd on the ingress or egress hook of clsact. 0/-errno */
int xf_tc_bpf_add(struct xf_nl *nl, int ifindex, bool ingress, int fd, const char *name);
/* Delete the filter xf_tc_bpf_add() made. 0/-errno */
int xf_tc_bpf_del(struct xf_nl *nl, int ifindex, bool ingress);
/* Delete ifindex's clsact qdisc and every filter on it. 0/-errno */
int xf_tc_clsact_del(struct xf_nl *nl, int ifindex);

#endif
