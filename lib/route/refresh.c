// SPDX-License-Identifier: GPL-2.0
/* rt_refresh(): what can change under the members (each one's XDP
 * redirect target ability, the forwarding sysctls, the address hint and
 * tables, a native bond's slaves, the VLAN map) read again, as attach and
 * detach do at their end; and route refresh, which does it alone, without
 * touching a link. All or nothing: the maps it rewrites are saved first
 * and written back when it fails part of the way. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "inst.h"
#include "internal.h"
#include "mapsnap.h"
#include "probe.h"
#include "route/route.h"

/* Re-read what can change under us for every member: whether it takes XDP
 * redirects now (a veth does only while its peer has XDP or GRO). */
int rt_refresh(struct xf_inst *in, bool walk)
{
	uint32_t keys[XF_RT_MAX_IF];
	bool reported = xf_xdp_features_reported();
	struct xf_route_ifcfg cfg;
	struct rt_fast fast;
	int n, i, err = 0;

	n = rt_ifcfg_keys(in, keys, XF_RT_MAX_IF);
	if (n < 0)
		return n;
	rt_fast_begin(&fast, walk);
	for (i = 0; i < n; i++) {
		uint32_t key = keys[i], tx;

		if (bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg)) {
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		/* A bond's slave: rt_bond_sync() below. */
		if (cfg.flags & XF_RTIF_SLAVE)
			continue;
		/* The source check's flags are the programs' own now (read
		 * at the packet): an entry of an older xfwd loses them. */
		cfg.flags &= ~(XF_RTIF_XDP_XMIT | XF_RTIF_XMIT_SG | XF_RTIF_RP_STRICT |
			       XF_RTIF_RP_LOOSE | XF_RTIF_SRC_ANY);
		/* A VLAN device's frames leave on its parent (vlan.c). */
		tx = rt_xdp_target(key, &cfg.flags);
		cfg.flags |= rt_xdp_xmit_flags(tx, cfg.flags, reported);
		rt_family_flags(&cfg.flags);
		rt_fast_peer(&fast, key, &cfg);
		if (rt_ifcfg_put(in, key, &cfg, BPF_EXIST))
			err = -errno;
		if (cfg.flags & XF_RTIF_XDP_XMIT) {
			if (bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &tx, BPF_ANY))
				err = -errno;
		} else if (bpf_map_delete_elem(in->fd[RT_MAP_TX], &key) && errno != ENOENT) {
			err = -errno;
		}
	}
	/* The bonds' slaves, and the VLAN map: after the members' flags,
	 * before netlink closes. */
	i = rt_bond_sync(fast.nl, in, keys, n);
	if (i && !err)
		err = i;
	i = rt_vlan_sync(fast.nl, in, keys, n);
	if (i && !err)
		err = i;
	i = rt_fast_end(&fast, in);
	return err ?: i;
}

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

int xf_route_refresh(bool walk)
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
	/* route refresh is the operator's way to have everything read
	 * anew: the routes too, whatever the counters say; the monitor
	 * asks for it after route events only. */
	err = rt_refresh(&in, walk);
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
