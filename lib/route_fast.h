/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the route library: what the fast path's shortcuts need to know,
 * read at attach and on every refresh (lib/route_fast.c). */
#ifndef XF_ROUTE_FAST_H
#define XF_ROUTE_FAST_H

#include <stdbool.h>

#include "xfwd_bpf.h"

struct rt_inst;
struct xf_nl;

struct rt_fast {
	struct xf_nl *nl;	/* NULL: no shortcut is granted */
	int nft_egress;		/* the namespace has a netdev egress chain */
};

/* Start a refresh: open what the checks need. */
void rt_fast_begin(struct rt_fast *f);
/* Set (or clear) XF_RTIF_PEER and peer_mac of ifindex's cfg. */
void rt_fast_peer(struct rt_fast *f, int ifindex, struct xf_route_ifcfg *cfg);
/* Write this namespace's addresses into xf_rt_local and close. 0/-errno. */
int rt_fast_end(struct rt_fast *f, struct rt_inst *in);

#endif
