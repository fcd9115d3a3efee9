// SPDX-License-Identifier: GPL-2.0
/* A member's xf_rt_ifcfg entry and its copies (xf_rt_ifc's direct-mapped
 * slot, a VLAN device's in xf_rt_vlan), written and removed in the order
 * that keeps every copy exact (xfwd_bpf.h). */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>

#include "internal.h"

int rt_ifcfg_put(struct xf_inst *in, uint32_t ifindex, const struct xf_route_ifcfg *cfg,
		 uint64_t flags)
{
	uint32_t k = ifindex % XF_RT_IFC_SLOTS;
	struct xf_route_ifc c = { 0 };

	if (bpf_map_update_elem(in->fd[RT_MAP_IFCFG], &ifindex, cfg, flags))
		return -errno;
	/* Zeros first: a reader racing with the second write sees zeros or
	 * this interface's values, never the slot's previous interface's. */
	if (bpf_map_update_elem(in->fd[RT_MAP_IFC], &k, &c, BPF_ANY))
		return -errno;
	c.ifindex = ifindex;
	c.cfg = *cfg;
	if (bpf_map_update_elem(in->fd[RT_MAP_IFC], &k, &c, BPF_ANY))
		return -errno;
	/* A VLAN device's tag carries a copy (xf_rt_vlan). */
	return rt_vlan_cfg(in, ifindex, cfg);
}

int rt_ifcfg_keys(struct xf_inst *in, uint32_t *keys, int max)
{
	uint32_t next, *prev = NULL;
	int n = 0;

	while (n < max && !bpf_map_get_next_key(in->fd[RT_MAP_IFCFG], prev, &next)) {
		keys[n] = next;
		prev = &keys[n++];
	}
	if (n < max && errno != ENOENT)
		return -errno;
	return n;
}

int rt_ifcfg_del(struct xf_inst *in, uint32_t ifindex)
{
	uint32_t k = ifindex % XF_RT_IFC_SLOTS;
	struct xf_route_ifc c;
	int err;

	/* The copies go first, so that no packet finds one without the
	 * hash entry behind it: a VLAN device's tag's, then xf_rt_ifc's. */
	err = rt_vlan_cfg(in, ifindex, NULL);
	if (err)
		return err;
	if (!bpf_map_lookup_elem(in->fd[RT_MAP_IFC], &k, &c) && c.ifindex == ifindex) {
		memset(&c, 0, sizeof(c));
		if (bpf_map_update_elem(in->fd[RT_MAP_IFC], &k, &c, BPF_ANY))
			return -errno;
	}
	if (bpf_map_delete_elem(in->fd[RT_MAP_IFCFG], &ifindex))
		return -errno;
	return 0;
}
