/* SPDX-License-Identifier: GPL-2.0 */
/* stats: every xfwd counter of the namespace as flat records, read through
 * the same listers route, chain and redirect show use. */
#ifndef XF_STATS_H
#define XF_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <net/if.h>

struct xf_nl;

enum xf_stats_obj { XF_STATS_ROUTE, XF_STATS_CHAIN, XF_STATS_REDIRECT, XF_STATS_NOBJ };
#define XF_STATS_ALL ((1U << XF_STATS_NOBJ) - 1)

/* One counter. Sorted by ifindex, then object; within those in the
 * listers' order (route: forwarded, then the reasons; chain: members in
 * run order, then verdicts). */
struct xf_stats_rec {
	int ifindex;
	char dev[IF_NAMESIZE];		/* "-" when the interface has gone */
	int object;			/* enum xf_stats_obj */
	/* route: the hook ("xdp", "tc"); chain: the member's name;
	 * redirect: "ingress 198.18.1.0/24 egress->veth2" */
	char item[80];
	const char *key;		/* route: "forwarded" or a pass reason;
					 * chain: a verdict; redirect: "matched" */
	bool pass;			/* route: a pass reason */
	uint64_t packets, bytes;	/* bytes 0 where not counted */
	bool has_bytes;
	uint32_t prog_id;		/* the program that counts it */
	int target_ifindex;		/* redirect: the device it sends to */
	uint64_t *percpu;		/* [cpu * 2 + {0 packets, 1 bytes}], or NULL */
	unsigned int seq;		/* insertion order, for a stable sort */
};

struct xf_stats {
	struct xf_stats_rec *r;
	int n, cap;
	int ncpu;
};

struct xf_stats_filter {
	const char *dev;		/* NULL: every interface */
	unsigned int objects;		/* bits 1 << XF_STATS_*; 0: all */
	bool percpu;			/* fill xf_stats_rec.percpu */
};

const char *xf_stats_obj_name(int obj);
/* Read every counter the filter names into s (zeroed first; free with
 * xf_stats_free). 0/-errno after an Error line. */
int xf_stats_collect(struct xf_nl *nl, const struct xf_stats_filter *f, struct xf_stats *s);
void xf_stats_free(struct xf_stats *s);
/* The record of s matching r's interface, object, item and key, or NULL. */
const struct xf_stats_rec *xf_stats_find(const struct xf_stats *s,
					 const struct xf_stats_rec *r);
/* The devices s involves (where its counters count, and redirect
 * targets), each once, ascending, into ifindex (at most max). The count. */
int xf_stats_devices(const struct xf_stats *s, int *ifindex, int max);
/* Zero the counters the filter names, and nothing else. 0/-errno. */
int xf_stats_reset(struct xf_nl *nl, const struct xf_stats_filter *f);

/* Switch on the kernel's BPF run-time statistics for as long as the fd
 * returned is open (close it to switch them off again). fd/-errno. */
int xf_stats_runtime_enable(void);
/* Run time and run count of a program, and its name. 0/-errno. */
int xf_stats_prog_runtime(uint32_t prog_id, uint64_t *run_ns, uint64_t *run_cnt,
			  char *name, size_t len);

#endif
