/* SPDX-License-Identifier: GPL-2.0 */
/* redirect: rules that steer one device's packets to another. */
#ifndef XF_REDIRECT_H
#define XF_REDIRECT_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "addr.h"
#include "hook.h"
#include "usage.h"
#include "xfwd_bpf.h"

struct xf_nl;
struct xf_gc_report;

/* Forces cls_bpf on a clsact qdisc instead of tcx links when set to
 * "clsact" (tcx is used wherever the kernel has it otherwise). */
#define XF_TC_MODE_ENV "XFWD_TC_MODE"

/* Run priority of the member "redirect" in an interface's XDP chain:
 * before route (1000), after filters of the default priority (50). */
#define XF_REDIRECT_CHAIN_PRIO 500

struct xf_redirect_req {
	int dir;			/* XF_RD_DIR_INGRESS or _EGRESS */
	bool has_match;
	struct xf_addr match;
	const char *target;
	int mode;			/* enum xf_redir_mode */
	bool has_via;
	struct xf_addr via;
	enum xf_hook hook;		/* XF_HOOK_XDP, else tc */
};

/* One rule as the kernel has it. */
struct xf_redirect_info {
	int ifindex;
	char dev[IF_NAMESIZE];		/* "" when the device has gone */
	int dir;
	const char *attach;		/* "tcx", "cls_bpf", "xdp" or "none" */
	bool has_match;
	struct xf_addr match;
	int mode;
	char target[IF_NAMESIZE];
	int target_ifindex;
	bool has_via;
	struct xf_addr via;
	uint64_t packets, bytes;
	/* packets and bytes on cpu c at percpu[c * 2 + {0,1}] (ncpu CPUs). */
	const uint64_t *percpu;
	int ncpu;
	uint32_t prog_id;		/* the program that runs the rule */
	char foreign[96];		/* other programs on this hook, or "" */
};

/* Each prints its own one-line Error; 0/-errno (-XF_EUSAGE for input the
 * user must change). All or nothing. */
int xf_redirect_add(struct xf_nl *nl, const char *dev, const struct xf_redirect_req *r);
/* Delete the rule for match (NULL: the catch-all), or all of dev's rules in
 * direction dir (dir < 0 with all: both directions). */
int xf_redirect_del(struct xf_nl *nl, const char *dev, int dir, const struct xf_addr *match,
		    bool all);
int xf_redirect_list(struct xf_nl *nl, const char *dev,
		     int (*cb)(const struct xf_redirect_info *ri, void *arg), void *arg);
/* Whether xfwd's redirect runs on ifindex's tcx ingress hook (its link is
 * pinned there). */
bool xf_redirect_on_tcx(int ifindex);
/* Zero the counters of dev's rules (every direction, every CPU). 0/-errno. */
int xf_redirect_reset(struct xf_nl *nl, const char *dev);
/* Delete the rules of interfaces that have gone (and the instance, when
 * no rule is left), telling r of each (for xfwd gc). The count deleted,
 * or -errno. */
int xf_redirect_sweep(const struct xf_gc_report *r);
const char *xf_redirect_mode_name(int mode);
/* Parse a mode word; -1 when it is none. */
int xf_redirect_mode_parse(const char *word);

#endif
