// SPDX-License-Identifier: GPL-2.0
/* The route fast path's instance: one program set per network namespace,
 * shared by every interface of the forwarding set, pinned under
 * XF_PIN_ROOT/ns<id>/route/, with one link pin per interface under
 * XF_PIN_ROOT/ns<id>/<ifindex>/route. The kernel is the only state: show
 * reads links, maps and netlink, never a file of our own. Here: the
 * instance's table, the object it loads, and its counters' slots (the link
 * pins are link.c's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "inst.h"
#include "internal.h"
#include "probe.h"
#include "route/route.h"
#include "xbpf.h"
#include "route.skel.h"
#include "route_kctx.skel.h"

/* Maps are pinned under their own names: the chain layer finds them that
 * way when route is a member of an interface's XDP chain. xf_route_xdp
 * runs only in chains, which load it themselves: the instance has no copy
 * of it. xf_route_tc is lazy: loaded by the first attach on hook tc
 * (rt_inst_tc), so that a set all on hook xdp never verifies it. */
static const struct xf_inst_obj rt_objs[RT_NFDS] = {
	[RT_PROG_TC] = { "prog_tc", "xf_route_tc", .lazy = true },
	[RT_MAP_TX] = { .pin = "xf_tx_ports" },
	[RT_MAP_IFCFG] = { .pin = "xf_rt_ifcfg" },
	[RT_MAP_STATS] = { .pin = "xf_rt_stats" },
	[RT_MAP_TRACE] = { .pin = "xf_rt_trace" },
	[RT_MAP_LOCAL] = { .pin = "xf_rt_local" },
	[RT_MAP_IFC] = { .pin = "xf_rt_ifc" },
	[RT_PROG_GENID] = { "prog_genid", "xf_route_genid" },
	[RT_MAP_SRC4] = { .pin = "xf_rt_src4" },
	[RT_MAP_VLAN] = { .pin = "xf_rt_vlan" },
	[RT_MAP_LOC6] = { .pin = "xf_rt_loc6" },
	[RT_MAP_VLC] = { .pin = "xf_rt_vlc" },
	[RT_MAP_NBR] = { .pin = "xf_rt_nbr" },
};

const struct xf_inst_desc rt_inst_desc = {
	.name = "route", .what = "the route fast path", .objs = rt_objs, .n = RT_NFDS,
	.elf = rt_elf,
};

const void *rt_elf(size_t *size)
{
	struct xf_probe p;

	/* What `feature` shows as kern_ctx. */
	xf_probe_kern_ctx(&p);
	return p.yes ? route_kctx_bpf__elf_bytes(size) : route_bpf__elf_bytes(size);
}

int rt_inst_tc(struct xf_inst *in, bool kctx)
{
	const void *elf;
	size_t size;

	elf = kctx ? route_kctx_bpf__elf_bytes(&size) : route_bpf__elf_bytes(&size);
	return xf_inst_add(in, RT_PROG_TC, elf, size);
}

int rt_slot_zero(struct xf_inst *in, uint32_t slot)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bo, .elem_flags = BPF_ANY);
	uint32_t keys[XF_RR_MAX], r, n = XF_RR_MAX;
	struct xf_route_stat *zero;
	int err = 0;

	zero = calloc((size_t)xf_ncpus() * XF_RR_MAX, sizeof(*zero));
	if (!zero)
		return -ENOMEM;
	for (r = 0; r < XF_RR_MAX; r++)
		keys[r] = XF_RT_STATS_KEY(slot, r);
	if (bpf_map_update_batch(in->fd[RT_MAP_STATS], keys, zero, &n, &bo))
		err = -errno;
	free(zero);
	return err;
}

uint32_t rt_prog_tc_id(void)
{
	char name[64], path[RT_PATH_MAX];
	uint32_t id;
	int fd;

	snprintf(name, sizeof(name), "%s/%s", rt_inst_desc.name, rt_objs[RT_PROG_TC].pin);
	if (xf_pin_path(path, sizeof(path), 0, name))
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	id = xf_prog_id(fd);
	close(fd);
	return id;
}
