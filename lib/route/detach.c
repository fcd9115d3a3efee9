// SPDX-License-Identifier: GPL-2.0
/* route detach: each interface leaves the set with what it takes to put
 * it back, so a failure restores every one; the last member takes the
 * instance with it. Interfaces that have gone leave too (detach all, and
 * xf_route_sweep() for xfwd gc). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>

#include "chain/chain.h"
#include "gc.h"
#include "hook.h"
#include "inst.h"
#include "internal.h"
#include "nl_link.h"
#include "route/route.h"
#include "xbpf.h"

/* One interface leaving the set, with what it takes to put it back: the
 * link stays open until the whole command has succeeded, so a failure can
 * pin the very same link again. */
struct rt_gone {
	int ifindex;
	int link_fd;		/* -1: no link (only a stale pin or nothing) */
	bool xdp;		/* the link is the interface's XDP chain */
	bool has_cfg, has_tx;	/* the entries the maps had */
	struct xf_route_ifcfg cfg;
	uint32_t tx;
	bool unpinned, left_chain, tx_gone, cfg_gone;
	uint32_t xdp_flags;	/* to join the chain again */
	char name[IF_NAMESIZE];	/* "" when the interface has gone */
	int carrier;		/* where the link runs: ifindex, or a VLAN
				 * device's parent */
	char cname[IF_NAMESIZE];	/* its name, "" when it has gone */
};

static int rt_member_cb(const struct xf_chain_info *ci, void *arg)
{
	uint32_t i;

	for (i = 0; i < ci->desc.n && i < XF_CHAIN_MAX; i++)
		if (!strcmp(ci->desc.m[i].name, "route"))
			*(bool *)arg = true;
	return 0;
}

/* Look before changing: the link and the map entries of g->ifindex. */
static int rt_gone_read(struct xf_nl *nl, struct xf_inst *in, struct rt_gone *g)
{
	struct bpf_link_info li = { 0 };
	char path[RT_PATH_MAX];
	uint32_t len = sizeof(li), key = g->ifindex;
	struct xf_link l;
	int err;

	g->link_fd = -1;
	err = rt_link_pin_path(path, sizeof(path), g->ifindex);
	if (err)
		return err;
	g->link_fd = bpf_obj_get(path);
	if (g->link_fd < 0 && errno != ENOENT)
		return -errno;
	g->carrier = g->ifindex;
	if (g->link_fd >= 0) {
		if (bpf_link_get_info_by_fd(g->link_fd, &li, &len))
			return -errno;
		g->xdp = li.type == BPF_LINK_TYPE_XDP;
		g->carrier = rt_link_carrier(g->link_fd) ?: g->ifindex;
	}
	/* Only a device the kernel says is gone is taken for gone: its
	 * chain's pins are then removed without asking the chain. */
	err = xf_link_get(nl, NULL, g->ifindex, &l);
	if (!err)
		memcpy(g->name, l.name, sizeof(g->name));
	else if (err != -ENODEV)
		return err;
	err = g->carrier == g->ifindex ? err : xf_link_get(nl, NULL, g->carrier, &l);
	if (!err) {
		memcpy(g->cname, l.name, sizeof(g->cname));
		g->xdp_flags = l.xdp.mode == XF_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	} else if (err != -ENODEV) {
		return err;
	}
	/* A command killed between joining the chain and pinning the link
	 * leaves route in the chain without the pin: it leaves the chain
	 * all the same. */
	if (g->link_fd < 0 && g->name[0]) {
		err = xf_chain_list(nl, g->name, rt_member_cb, &g->xdp);
		if (err && err != -ENOENT)
			return err;
	}
	if (in->fd[RT_MAP_IFCFG] < 0)
		return 0;
	if (!bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &g->cfg))
		g->has_cfg = true;
	else if (errno != ENOENT)
		return -errno;
	if (!bpf_map_lookup_elem(in->fd[RT_MAP_TX], &key, &g->tx))
		g->has_tx = true;
	else if (errno != ENOENT)
		return -errno;
	return 0;
}

/* Unpin g's link (the kernel detaches the program when the last holder,
 * our fd, closes it) and take it out of the maps. */
static int rt_detach_one(struct xf_nl *nl, struct xf_inst *in, struct rt_gone *g)
{
	char path[RT_PATH_MAX];
	uint32_t key = g->ifindex;
	int err;

	/* Route leaves the carrier's chain with the last member whose link
	 * runs there (a parent and its VLAN devices share it). */
	if (g->xdp && g->cname[0] && !rt_carrier_others(g->carrier, g->ifindex)) {
		/* Leave the chain first: if that fails, nothing has changed. */
		err = xf_chain_del(nl, g->cname, "route");
		if (err)
			return err;
		g->left_chain = true;
	}
	err = xf_hook_unpin(g->ifindex, "route");
	if (err)
		return err;
	g->unpinned = true;
	/* With the interface gone, the chain route was a member of is dead:
	 * its pins go too (no chain command can name the interface), and so
	 * do its members' object copies. */
	if (g->xdp && !g->cname[0] && !rt_carrier_others(g->carrier, g->ifindex)) {
		if (!xf_pin_path(path, sizeof(path), g->carrier, NULL))
			xf_rmtree_prune(path);
		if (!xf_run_path(path, sizeof(path), g->carrier, NULL))
			xf_rmtree_prune(path);
	}
	if (g->cname[0])
		xf_chain_tidy(nl, g->cname);
	if (g->has_tx) {
		if (bpf_map_delete_elem(in->fd[RT_MAP_TX], &key) && errno != ENOENT)
			return -errno;
		g->tx_gone = true;
	}
	if (g->has_cfg) {
		if (rt_ifcfg_del(in, key) && errno != ENOENT)
			return -errno;
		g->cfg_gone = true;
	}
	return 0;
}

/* Put back what rt_detach_one took: entries, chain membership, the pin. */
static void rt_undetach_one(struct xf_nl *nl, struct xf_inst *in, struct rt_gone *g)
{
	uint32_t key = g->ifindex;
	int fd = g->link_fd, err = 0;
	struct xf_link cl;

	if (g->cfg_gone)
		rt_ifcfg_put(in, key, &g->cfg, BPF_ANY);
	if (g->tx_gone)
		bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &g->tx, BPF_ANY);
	if (g->left_chain) {
		/* Where route was the chain's only member the chain is gone but
		 * for our hold on its link, which keeps its program on the
		 * device: let go, then build it again. */
		if (g->link_fd >= 0) {
			close(g->link_fd);
			g->link_fd = -1;
		}
		fd = xf_link_find(nl, g->cname, &cl);
		if (!fd)
			fd = rt_chain_join(nl, &cl, g->xdp_flags,
					   g->has_cfg && (g->cfg.flags & XF_RTIF_FLOWTABLE), NULL);
	} else if (g->xdp && g->carrier != g->ifindex) {
		/* A sibling put the carrier's chain back first: its link. */
		int cfd = rt_carrier_link(g->carrier);

		if (cfd >= 0)
			fd = cfd;
	}
	if (g->unpinned && fd >= 0)
		err = xf_pin_if(fd, g->ifindex, "route");
	if (fd < 0 || err)
		fprintf(stderr, "Error: cannot put %s back in the forwarding set: %s.\n",
			g->name[0] ? g->name : "an interface", strerror(fd < 0 ? -fd : -err));
	if (fd >= 0 && fd != g->link_fd)
		close(fd);
}

/* Add to ifx[cnt] the members of the maps that are not in it. New count. */
static int rt_add_unpinned(struct xf_inst *in, int *ifx, int cnt, int max)
{
	uint32_t key, next, *prev = NULL;
	struct xf_route_ifcfg cfg;
	int i;

	while (cnt < max && !bpf_map_get_next_key(in->fd[RT_MAP_IFCFG], prev, &next)) {
		key = next;
		prev = &key;
		/* A bond's slave goes with its bond (rt_bond_prune()). */
		if (!bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg) &&
		    (cfg.flags & XF_RTIF_SLAVE))
			continue;
		for (i = 0; i < cnt && ifx[i] != (int)key; i++)
			;
		if (i == cnt)
			ifx[cnt++] = key;
	}
	return cnt;
}

/* Which interfaces rt_detach_set() takes. */
enum rt_which {
	RT_GIVEN,	/* those in ifx */
	RT_ALL,		/* every member, also of interfaces that have gone */
	RT_GONE,	/* the members whose interface has gone */
};

/* Keep in ifx[cnt] the interfaces that have gone. The new count. */
static int rt_keep_gone(int *ifx, int cnt)
{
	char name[IF_NAMESIZE];
	int i, n = 0;

	for (i = 0; i < cnt; i++)
		if (!if_indextoname(ifx[i], name))
			ifx[n++] = ifx[i];
	return n;
}

/* Detach ifx[cnt] (or, for RT_ALL/RT_GONE, what the pins and the maps
 * hold), all or none. r, when not NULL, is told of each. 0/-errno. */
static int rt_detach_set(struct xf_nl *nl, int *ifx, int cnt, enum rt_which which,
			 const struct xf_gc_report *r)
{
	char what[64];
	struct rt_gone *g;
	struct xf_inst in;
	int i, err;

	if (which != RT_GIVEN)
		cnt = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	err = xf_inst_open(&in, &rt_inst_desc);
	if (err && err != -ENOENT) {
		fprintf(stderr, "Error: cannot open the route fast path in %s: %s.\n", in.dir,
			strerror(-err));
		return err;
	}
	/* No instance: only link pins (of a killed command) are left to
	 * clear. "all" also takes map entries without a link pin, left by a
	 * killed command. */
	if (which != RT_GIVEN && in.fd[RT_MAP_IFCFG] >= 0)
		cnt = rt_add_unpinned(&in, ifx, cnt, RT_MAX_PINNED);
	if (which == RT_GONE)
		cnt = rt_keep_gone(ifx, cnt);
	g = calloc(cnt ?: 1, sizeof(*g));
	if (!g) {
		xf_inst_close(&in);
		return -ENOMEM;
	}
	err = 0;
	for (i = 0; i < cnt; i++)
		g[i].link_fd = -1;
	for (i = 0; i < cnt && !err; i++) {
		g[i].ifindex = ifx[i];
		err = rt_gone_read(nl, &in, &g[i]);
		if (err)
			fprintf(stderr, "Error: cannot read the route state of ifindex %d: %s.\n",
				ifx[i], strerror(-err));
	}
	if (err)
		goto out;
	for (i = 0; i < cnt; i++) {
		err = rt_detach_one(nl, &in, &g[i]);
		if (err) {
			fprintf(stderr, "Error: cannot detach %s: %s.\n",
				g[i].name[0] ? g[i].name : "a gone interface", strerror(-err));
			break;
		}
	}
	if (err) {
		for (; i >= 0; i--)
			rt_undetach_one(nl, &in, &g[i]);
		goto out;
	}
	for (i = 0; i < cnt; i++) {
		snprintf(what, sizeof(what), "%s%s", g[i].has_cfg ? "member" : "link pin",
			 g[i].xdp ? " (xdp)" : "");
		xf_gc_tell(r, "route", g[i].ifindex, what);
		xf_run_remove(g[i].ifindex, RT_NF_RUN);
	}
	if (in.fd[RT_MAP_IFCFG] >= 0) {
		uint32_t key;

		/* The slaves of the bonds that went, before the count. */
		err = rt_bond_prune(&in);
		if (err) {
			fprintf(stderr, "Warning: cannot take a bond's slaves out of the "
				"forwarding set: %s.\n", strerror(-err));
			err = 0;
		}
		/* The last member gone: the instance goes too. */
		if (bpf_map_get_next_key(in.fd[RT_MAP_IFCFG], NULL, &key) &&
		    !rt_pinned_ifindexes(ifx, 1)) {
			xf_inst_remove(&in);
		} else if ((err = rt_refresh(&in, false))) {
			/* The detach is done; only the others' flags may be old. */
			fprintf(stderr, "Warning: cannot refresh the forwarding set: %s.\n",
				strerror(-err));
			err = 0;
		}
	}
out:
	for (i = 0; i < cnt; i++)
		if (g[i].link_fd >= 0)
			close(g[i].link_fd);
	free(g);
	xf_inst_close(&in);
	return err;
}

int xf_route_detach(struct xf_nl *nl, const char *const *devs, int n, bool all)
{
	int ifx[RT_MAX_PINNED], i, cnt = 0, fd, err;
	struct xf_link l;

	for (i = 0; !all && i < n && i < RT_MAX_DEVS; i++) {
		err = xf_link_find(nl, devs[i], &l);
		if (err)
			return err;
		fd = rt_link_open(l.ifindex);
		if (fd < 0) {
			fprintf(stderr, "Error: %s is not in the forwarding set.\n", devs[i]);
			return -ENOENT;
		}
		close(fd);
		ifx[cnt++] = l.ifindex;
	}
	return rt_detach_set(nl, ifx, cnt, all ? RT_ALL : RT_GIVEN, NULL);
}

int xf_route_sweep(struct xf_nl *nl, const struct xf_gc_report *r)
{
	int ifx[RT_MAX_PINNED];

	return rt_detach_set(nl, ifx, 0, RT_GONE, r);
}
