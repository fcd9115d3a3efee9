// SPDX-License-Identifier: GPL-2.0
/* route refresh: what rt_refresh() re-reads (each member's XDP redirect
 * target ability and rp_filter, the forwarding sysctls, the address hint
 * and tables, the VLAN map), read again now, without touching a link.
 * All or nothing: the maps it rewrites are saved first and written back
 * when it fails part of the way. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "inst.h"
#include "internal.h"
#include "mapsnap.h"
#include "route/route.h"

/* What rt_refresh() writes. The device map is saved apart, by the
 * members' keys: its values are the members' XDP targets (a VLAN
 * device's parent), and a device map takes no batch calls. */
static const int rt_refresh_maps[] = {
	RT_MAP_IFCFG, RT_MAP_IFC, RT_MAP_LOCAL, RT_MAP_SRC4, RT_MAP_LOC6, RT_MAP_VLAN,
	RT_MAP_VLC,
};
#define RT_REFRESH_MAPS (sizeof(rt_refresh_maps) / sizeof(rt_refresh_maps[0]))

/* A member's device map entry: its target, or none. */
struct rt_tx_saved {
	uint32_t target;
	bool present;
};

/* The device map entries of the members s (RT_MAP_IFCFG's) names, into
 * tx[s->n]. 0/-errno. */
static int rt_tx_take(struct xf_inst *in, const struct xf_map_snap *s, struct rt_tx_saved *tx)
{
	const uint32_t *key = s->keys;
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		tx[i].present = !bpf_map_lookup_elem(in->fd[RT_MAP_TX], &key[i], &tx[i].target);
		if (!tx[i].present && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* Those entries written back as they were. 0 or the first -errno. */
static int rt_tx_put(struct xf_inst *in, const struct xf_map_snap *s,
		     const struct rt_tx_saved *tx)
{
	const uint32_t *key = s->keys;
	int err = 0;
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		if (tx[i].present) {
			if (bpf_map_update_elem(in->fd[RT_MAP_TX], &key[i], &tx[i].target, BPF_ANY))
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
	struct rt_tx_saved tx[XF_RT_MAX_IF];
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
	/* Members keyed by ifindex, as the device map is. */
	if (snap[0].ksz != sizeof(uint32_t) || snap[0].n > XF_RT_MAX_IF) {
		fprintf(stderr, "Error: the route fast path's maps are not this xfwd's.\n");
		err = -EINVAL;
		goto out;
	}
	err = rt_tx_take(&in, &snap[0], tx);
	if (err) {
		fprintf(stderr, "Error: cannot read the forwarding set: %s.\n", strerror(-err));
		goto out;
	}
	err = rt_refresh(&in);
	if (!err)
		goto out;
	fprintf(stderr, "Error: cannot refresh the forwarding set: %s.\n", strerror(-err));
	for (i = 0; i < n; i++)
		uerr = uerr ?: xf_map_snap_put(&snap[i]);
	uerr = uerr ?: rt_tx_put(&in, &snap[0], tx);
	if (uerr)
		fprintf(stderr, "Error: cannot put the forwarding set back: %s; "
			"\"xfwd route refresh\" again reads it anew.\n", strerror(-uerr));
out:
	for (i = 0; i < n; i++)
		xf_map_snap_free(&snap[i]);
	xf_inst_close(&in);
	return err;
}
