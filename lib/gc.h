/* SPDX-License-Identifier: GPL-2.0 */
/* Garbage collection of what namespaces and interfaces that no longer
 * exist left behind: their pins in XF_PIN_ROOT and their copies in
 * XF_RUN_ROOT. "xfwd gc" runs it (cmd/gc.c) with each object's own sweep
 * of its map entries (xf_route_sweep, xf_redirect_sweep). */
#ifndef XF_GC_H
#define XF_GC_H

#include <stdint.h>

/* One thing removed. */
struct xf_gc_item {
	const char *object;	/* "netns", "interface", "route", "redirect" */
	uint64_t netns;		/* the namespace's id (xf_netns_id) */
	int ifindex;		/* 0: the namespace as a whole */
	const char *what;	/* a path, or what went from a map */
};

/* Told of each removal; NULL fn: nobody is told. */
struct xf_gc_report {
	void (*fn)(const struct xf_gc_item *it, void *arg);
	void *arg;
};

/* Tell r of it (when r asks). */
void xf_gc_tell(const struct xf_gc_report *r, const char *object, int ifindex,
		const char *what);

/* Remove the pins and copies of network namespaces that are gone. A
 * namespace is gone when no live one (in /run/netns, bind-mounted
 * anywhere, of any process, held open by one) has its id; when one cannot
 * be identified nothing is removed. The count removed, or -errno. */
int xf_gc_netns(const struct xf_gc_report *r);
/* Remove the pins and copies of this namespace's interfaces that are
 * gone. The count removed, or -errno. */
int xf_gc_ifaces(const struct xf_gc_report *r);

#endif
