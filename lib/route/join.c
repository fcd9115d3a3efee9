// SPDX-License-Identifier: GPL-2.0
/* hook xdp: route as the member "route" of an interface's XDP chain. */
#include <string.h>

#include "chain/chain.h"
#include "internal.h"
#include "route_flow.skel.h"

/* hook xdp: route joins the interface's XDP chain as the member "route",
 * last by priority, so filters added to the chain run before it. The
 * chain's link is pinned a second time as the interface's route link. */
int rt_chain_join(struct xf_nl *nl, const struct xf_link *l, uint32_t xdp_flags, bool flowtable,
		  struct xf_chain_keep *keep)
{
	/* lookup flowtable's program shares the maps: it joins the same way,
	 * from its own object. */
	const struct xf_chain_builtin b = {
		.name = "route", .prog = flowtable ? "xf_route_flow" : "xf_route_xdp",
		.prio = XF_ROUTE_CHAIN_PRIO, .maps = "route", .xdp_flags = xdp_flags,
		.keep = flowtable ? NULL : keep,
	};
	const void *elf;
	size_t size;

	if (flowtable) {
		elf = route_flow_bpf__elf_bytes(&size);
	} else if (keep) {
		/* Chosen once per command, where a chain is joined at all. */
		if (!keep->elf)
			keep->elf = rt_elf(&keep->size);
		elf = keep->elf;
		size = keep->size;
	} else {
		elf = rt_elf(&size);
	}
	return xf_chain_join_link(nl, l, &b, elf, size);
}

void rt_chain_keep(struct xf_chain_keep *k)
{
	memset(k, 0, sizeof(*k));
	k->member = "route";
	k->prog = "xf_route_xdp";
}
