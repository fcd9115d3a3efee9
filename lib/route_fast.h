/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the route library: what the fast path's shortcuts need to know,
 * read at attach and on every refresh (lib/route_fast.c). */
#ifndef XF_ROUTE_FAST_H
#define XF_ROUTE_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "xfwd_bpf.h"

struct rt_inst;
struct xf_nl;

struct rt_fast {
	struct xf_nl *nl;	/* NULL: no shortcut is granted */
};

/* Write (or delete) ifindex's xf_rt_ifcfg entry and its direct-mapped
 * copy in xf_rt_ifc, in the order that keeps the copy exact (see
 * xfwd_bpf.h). flags as for bpf_map_update_elem(). 0/-errno (errno set). */
int rt_ifcfg_put(struct rt_inst *in, uint32_t ifindex, const struct xf_route_ifcfg *cfg,
		 uint64_t flags);
int rt_ifcfg_del(struct rt_inst *in, uint32_t ifindex);

/* Start a refresh: open what the checks need. */
void rt_fast_begin(struct rt_fast *f);
/* Set (or clear) XF_RTIF_PEER and peer_mac of ifindex's cfg. */
void rt_fast_peer(struct rt_fast *f, int ifindex, struct xf_route_ifcfg *cfg);
/* Write this namespace's addresses into xf_rt_local and close. 0/-errno. */
int rt_fast_end(struct rt_fast *f, struct rt_inst *in);

#endif
