// SPDX-License-Identifier: GPL-2.0
/* route refresh: what rt_refresh() re-reads (each member's XDP redirect
 * target ability and rp_filter, the forwarding sysctls, the address hint
 * and tables, the VLAN map), read again now, without touching a link.
 * All or nothing: the maps it rewrites are saved first and written back
 * when it fails part of the way. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "inst.h"
#include "internal.h"
#include "mapsnap.h"
#include "route/route.h"

/* What rt_refresh() writes. The device map is not saved: it follows the
 * members' XF_RTIF_XDP_XMIT flags, and is put back from them. */
static const int rt_refresh_maps[] = {
	RT_MAP_IFCFG, RT_MAP_IFC, RT_MAP_LOCAL, RT_MAP_SRC4, RT_MAP_LOC6, RT_MAP_VLAN,
};
#define RT_REFRESH_MAPS (sizeof(rt_refresh_maps) / sizeof(rt_refresh_maps[0]))

/* The device map as the saved members' flags (s: RT_MAP_IFCFG's) say. */
static int rt_tx_put(struct xf_inst *in, const struct xf_map_snap *s)
{
	const struct xf_route_ifcfg *cfg = s->vals;
	const uint32_t *key = s->keys;
	int err = 0;
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		if (cfg[i].flags & XF_RTIF_XDP_XMIT) {
			if (bpf_map_update_elem(in->fd[RT_MAP_TX], &key[i], &key[i], BPF_ANY))
				err = err ?: -errno;
		} else if (bpf_map_delete_elem(in->fd[RT_MAP_TX], &key[i]) && errno != ENOENT) {
			err = err ?: -errno;
		}
	}
	return err;
}

int xf_route_refresh(void)
{
	struct xf_map_snap snap[RT_REFRESH_MAPS];
	struct xf_inst in;
	unsigned int n = 0, i;
	int err, uerr = 0;

	err = xf_inst_open(&in, &rt_inst_desc);
	if (err == -ENOENT)
		return 0;	/* nothing attached: nothing to read again */
	if (err) {
		fprintf(stderr, "Error: the route fast path's maps are not pinned: %s.\n",
			strerror(-err));
		return err;
	}
	for (; n < RT_REFRESH_MAPS; n++) {
		err = xf_map_snap_take(in.fd[rt_refresh_maps[n]], &snap[n]);
		if (err) {
			fprintf(stderr, "Error: cannot read the forwarding set: %s.\n",
				strerror(-err));
			goto out;
		}
	}
	/* One value per member as the device map's rebuild reads it. */
	if (snap[0].vsz != sizeof(struct xf_route_ifcfg) || snap[0].ksz != sizeof(uint32_t)) {
		fprintf(stderr, "Error: the route fast path's maps are not this xfwd's.\n");
		err = -EINVAL;
		goto out;
	}
	err = rt_refresh(&in);
	if (!err)
		goto out;
	fprintf(stderr, "Error: cannot refresh the forwarding set: %s.\n", strerror(-err));
	for (i = 0; i < n; i++)
		uerr = uerr ?: xf_map_snap_put(&snap[i]);
	uerr = uerr ?: rt_tx_put(&in, &snap[0]);
	if (uerr)
		fprintf(stderr, "Error: cannot put the forwarding set back: %s; "
			"\"xfwd route refresh\" again reads it anew.\n", strerror(-uerr));
out:
	for (i = 0; i < n; i++)
		xf_map_snap_free(&snap[i]);
	xf_inst_close(&in);
	return err;
}
