// SPDX-License-Identifier: GPL-2.0
/* hook xdp mode native on a bond: the bond hands its program to its slaves
 * (the kernel's bond_xdp_set()), where it runs with the slave's ifindex.
 * Each slave gets an entry of its own in xf_rt_ifcfg, XF_RTIF_SLAVE with
 * the bond's ifindex and counter slot (xfwd_bpf.h), and the program reads
 * at every frame whether the bond takes it (route_kctx.h). The entries
 * follow the kernel's slaves at every refresh (attach, detach, route
 * refresh): a slave added since is passed until then (not_in_set), one
 * taken out is passed by the program itself (bond_left). */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>

#include "internal.h"
#include "nl_link.h"

bool rt_bond_native(struct xf_nl *nl, int ifindex)
{
	struct xf_link l;

	return !xf_link_get(nl, NULL, ifindex, &l) && !strcmp(l.kind, "bond") && l.xdp.drv_id;
}

static bool rt_has(const uint32_t *v, int n, uint32_t x)
{
	int i;

	for (i = 0; i < n && v[i] != x; i++)
		;
	return i < n;
}

/* The slaves of member bond (its entry cfg) given an entry, appended to
 * want[*nw..XF_RT_MAX_IF). 0/-errno. */
static int rt_bond_put(struct xf_nl *nl, struct xf_inst *in, uint32_t bond,
		       const struct xf_route_ifcfg *cfg, uint32_t *want, int *nw)
{
	struct xf_route_ifcfg s = { .flags = XF_RTIF_SLAVE, .slot = cfg->slot }, cur;
	int sl[RT_BOND_SLAVES], n, i;
	uint32_t key;

	s.master = bond;
	n = rt_slaves(nl, bond, sl, RT_BOND_SLAVES);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < RT_BOND_SLAVES && *nw < XF_RT_MAX_IF; i++) {
		key = sl[i];
		/* A member that became a slave keeps its own entry (route
		 * show warns about it). */
		if (!bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cur) &&
		    !(cur.flags & XF_RTIF_SLAVE))
			continue;
		if (rt_ifcfg_put(in, key, &s, BPF_ANY))
			return -errno;
		want[(*nw)++] = key;
	}
	return 0;
}

int rt_bond_sync(struct xf_nl *nl, struct xf_inst *in, const uint32_t *keys, int n)
{
	uint32_t want[XF_RT_MAX_IF], key;
	struct xf_route_ifcfg cfg;
	int nw = 0, i, err;

	if (!nl)
		return rt_bond_prune(in);
	for (i = 0; i < n; i++) {
		key = keys[i];
		if (bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg))
			continue;
		if (!(cfg.flags & XF_RTIF_SLAVE) && rt_bond_native(nl, key)) {
			err = rt_bond_put(nl, in, key, &cfg, want, &nw);
			if (err)
				return err;
		}
	}
	/* What is no such slave any more. */
	for (i = 0; i < n; i++) {
		key = keys[i];
		if (rt_has(want, nw, key) || bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg) ||
		    !(cfg.flags & XF_RTIF_SLAVE))
			continue;
		if (rt_ifcfg_del(in, key))
			return -errno;
	}
	return 0;
}

int rt_bond_prune(struct xf_inst *in)
{
	uint32_t keys[XF_RT_MAX_IF], key;
	struct xf_route_ifcfg cfg, m;
	int n, i;

	n = rt_ifcfg_keys(in, keys, XF_RT_MAX_IF);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		key = keys[i];
		if (bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg) ||
		    !(cfg.flags & XF_RTIF_SLAVE))
			continue;
		if (!bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &cfg.master, &m) &&
		    !(m.flags & XF_RTIF_SLAVE))
			continue;
		if (rt_ifcfg_del(in, key))
			return -errno;
	}
	return 0;
}
