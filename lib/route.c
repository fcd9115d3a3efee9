// SPDX-License-Identifier: GPL-2.0
/* The route fast path's life cycle: one program instance per network
 * namespace, shared by every interface of the forwarding set, pinned
 * under XF_PIN_ROOT/ns<id>/route/, with one link pin per interface under
 * XF_PIN_ROOT/ns<id>/<ifindex>/route. The kernel is the only state: show
 * reads links, maps and netlink, never a file of our own. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "nl_link.h"
#include "nl_tc.h"
#include "probe.h"
#include "redirect.h"
#include "route.h"
#include "route_fast.h"
#include "route_pin.h"
#include "xbpf.h"
#include "chain_state.h"
#include "route.skel.h"

#define MAX_DEVS 64

const char *xf_hook_name(enum xf_hook h)
{
	return h == XF_HOOK_XDP ? "xdp" : h == XF_HOOK_TC ? "tc" : "auto";
}

static const char *const rt_obj_names[RT_NFDS] = {
	/* Maps are pinned under their own names: the chain layer finds them
	 * that way when route is a member of an interface's XDP chain. */
	[RT_PROG_XDP] = "prog_xdp", [RT_PROG_TC] = "prog_tc",
	[RT_MAP_TX] = "xf_tx_ports", [RT_MAP_IFCFG] = "xf_rt_ifcfg",
	[RT_MAP_STATS] = "xf_rt_stats", [RT_MAP_TRACE] = "xf_rt_trace",
	[RT_MAP_LOCAL] = "xf_rt_local", [RT_MAP_IFC] = "xf_rt_ifc",
};

void rt_inst_close(struct rt_inst *in)
{
	int i;

	for (i = 0; i < RT_NFDS; i++) {
		if (in->fd[i] >= 0)
			close(in->fd[i]);
		in->fd[i] = -1;
	}
}

/* Open the pinned instance. -ENOENT when there is none (or only a part of
 * one, left by a command that was killed: it is then removed). */
int rt_inst_open(struct rt_inst *in)
{
	in->created = false;
	return xf_pin_get_set(in->dir, sizeof(in->dir), "route", rt_obj_names, RT_NFDS, in->fd);
}

/* Load the programs and maps and pin them: the instance then outlives us. */
static int rt_inst_create(struct rt_inst *in)
{
	struct route_bpf *skel;
	char why[512];
	int fds[RT_NFDS], err;

	skel = route_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "Error: cannot load the route fast path: %s%s%s.\n",
			strerror(-err), *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		return err;
	}
	fds[RT_PROG_XDP] = bpf_program__fd(skel->progs.xf_route_xdp);
	fds[RT_PROG_TC] = bpf_program__fd(skel->progs.xf_route_tc);
	fds[RT_MAP_TX] = bpf_map__fd(skel->maps.xf_tx_ports);
	fds[RT_MAP_IFCFG] = bpf_map__fd(skel->maps.xf_rt_ifcfg);
	fds[RT_MAP_STATS] = bpf_map__fd(skel->maps.xf_rt_stats);
	fds[RT_MAP_TRACE] = bpf_map__fd(skel->maps.xf_rt_trace);
	fds[RT_MAP_LOCAL] = bpf_map__fd(skel->maps.xf_rt_local);
	fds[RT_MAP_IFC] = bpf_map__fd(skel->maps.xf_rt_ifc);
	err = xf_pin_set(in->dir, rt_obj_names, RT_NFDS, fds, in->fd);
	route_bpf__destroy(skel);
	if (err) {
		fprintf(stderr, "Error: cannot pin the route fast path in %s: %s.\n", in->dir,
			strerror(-err));
		return err;
	}
	in->created = true;
	return 0;
}

int rt_link_pin_path(char *buf, size_t len, int ifindex)
{
	return xf_pin_path(buf, len, ifindex, "route");
}

/* The link pinned for ifindex, as an fd, or -ENOENT. */
int rt_link_open(int ifindex)
{
	char path[RT_PATH_MAX];
	int fd, err;

	err = rt_link_pin_path(path, sizeof(path), ifindex);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static uint64_t rt_xdp_features(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.feature_flags;
}

/* hook auto: XDP wins on drivers that run it natively, except veth and
 * netkit, where XDP turns off the peer's TSO and TCP falls to a tenth. */
const char *rt_hook_why(const char *kind, uint64_t features, enum xf_hook *hook)
{
	if (!strcmp(kind, "veth") || !strcmp(kind, "netkit")) {
		*hook = XF_HOOK_TC;
		return !strcmp(kind, "veth") ?
			"auto: veth, where XDP would turn off the peer's TSO" :
			"auto: netkit, where tc keeps GSO";
	}
	if (features & NETDEV_XDP_ACT_BASIC) {
		*hook = XF_HOOK_XDP;
		return "auto: the driver runs XDP natively";
	}
	*hook = XF_HOOK_TC;
	return "auto: the driver has no native XDP";
}

/* Whether frames redirected by XDP into ifindex are delivered, not dropped;
 * reported is xf_xdp_features_reported(). */
static bool rt_xdp_xmit_ok(int ifindex, bool reported)
{
	/* A kernel that does not report XDP features shows no native XDP
	 * either: every member is in generic mode, whose redirects need no
	 * ndo_xmit and reach any device. */
	return !reported || rt_xdp_features(ifindex) & NETDEV_XDP_ACT_NDO_XMIT;
}

/* Re-read what can change under us for every member: whether it takes XDP
 * redirects now (a veth does only while its peer has XDP or GRO) and its
 * rp_filter setting. */
int rt_refresh(struct rt_inst *in)
{
	uint32_t keys[XF_RT_MAX_IF], next, *prev = NULL;
	bool reported = xf_xdp_features_reported();
	struct xf_route_ifcfg cfg;
	struct rt_fast fast;
	int n = 0, i, err = 0;

	/* Keys first: updating a hash map entry moves it to the head of its
	 * bucket, so updating while walking can walk in circles. */
	while (n < XF_RT_MAX_IF && !bpf_map_get_next_key(in->fd[RT_MAP_IFCFG], prev, &next)) {
		keys[n] = next;
		prev = &keys[n++];
	}
	if (n < XF_RT_MAX_IF && errno != ENOENT)
		return -errno;
	rt_fast_begin(&fast);
	for (i = 0; i < n; i++) {
		uint32_t key = keys[i];

		if (bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg)) {
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		cfg.flags &= ~(XF_RTIF_XDP_XMIT | XF_RTIF_RP_STRICT | XF_RTIF_RP_LOOSE);
		if (rt_xdp_xmit_ok(key, reported))
			cfg.flags |= XF_RTIF_XDP_XMIT;
		cfg.flags |= rt_rp_filter_flags(key);
		rt_family_flags(&cfg.flags);
		rt_fast_peer(&fast, key, &cfg);
		if (rt_ifcfg_put(in, key, &cfg, BPF_EXIST))
			err = -errno;
		if (cfg.flags & XF_RTIF_XDP_XMIT) {
			if (bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &key, BPF_ANY))
				err = -errno;
		} else if (bpf_map_delete_elem(in->fd[RT_MAP_TX], &key) && errno != ENOENT) {
			err = -errno;
		}
	}
	i = rt_fast_end(&fast, in);
	return err ?: i;
}

static int rt_sysctl_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v;

	if (!f)
		return dflt;
	if (fscanf(f, "%d", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* IPv6 forwarding as the kernel decides it is "all.forwarding", while
 * bpf_fib_lookup() looks at the ingress device only: with it off, IPv6 is
 * left to the kernel. The family asked for is kept in XF_RTIF_WANT_*. */
void rt_family_flags(uint32_t *flags)
{
	*flags &= ~(XF_RTIF_INET | XF_RTIF_INET6);
	if (*flags & XF_RTIF_WANT_INET)
		*flags |= XF_RTIF_INET;
	if ((*flags & XF_RTIF_WANT_INET6) &&
	    rt_sysctl_int("/proc/sys/net/ipv6/conf/all/forwarding", 0) > 0)
		*flags |= XF_RTIF_INET6;
}

/* rp_filter as the kernel applies it: the larger of "all" and the device. */
uint32_t rt_rp_filter_flags(int ifindex)
{
	char name[IF_NAMESIZE], path[128];
	int all, dev, v;

	if (!if_indextoname(ifindex, name))
		return 0;
	all = rt_sysctl_int("/proc/sys/net/ipv4/conf/all/rp_filter", 0);
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/rp_filter", name);
	dev = rt_sysctl_int(path, 0);
	v = all > dev ? all : dev;
	return v == 1 ? XF_RTIF_RP_STRICT : v == 2 ? XF_RTIF_RP_LOOSE : 0;
}

struct rt_dev {
	const char *name;
	struct xf_link l;
	enum xf_hook hook;
	uint32_t xdp_flags;
	bool cfg_done, tx_done, chain_done, link_done;
};

/* An XDP or tc program that someone else attached: refuse to touch it. */
static int rt_check_foreign(struct xf_nl *nl, const struct rt_dev *d)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	struct bpf_prog_info info;
	struct xf_tc_filter tf[4];
	uint32_t ids[8], len = sizeof(info), id = 0;
	int n, fd;

	if (d->hook == XF_HOOK_XDP) {
		id = d->l.xdp.prog_id ?: d->l.xdp.drv_id ?: d->l.xdp.skb_id;
		/* An xfwd chain is ours: route joins it. */
		fd = xf_chain_link_fd(d->l.ifindex);
		if (fd >= 0) {
			struct bpf_link_info li = { 0 };
			uint32_t llen = sizeof(li);

			if (!bpf_link_get_info_by_fd(fd, &li, &llen) && li.prog_id == id)
				id = 0;
			close(fd);
		}
	} else {
		q.prog_ids = ids;
		q.count = 8;
		if (!bpf_prog_query_opts(d->l.ifindex, BPF_TCX_INGRESS, &q) && q.count)
			id = ids[0];
		n = xf_tc_filters(nl, d->l.ifindex, true, tf, 4);
		if (!id && n > 0) {
			fprintf(stderr, "Error: %s already has a tc ingress filter (%s, id %u) "
				"that xfwd did not attach; remove it first.\n",
				d->name, tf[0].name, tf[0].prog_id);
			return -EBUSY;
		}
	}
	if (!id)
		return 0;
	memset(&info, 0, sizeof(info));
	fd = bpf_prog_get_fd_by_id(id);
	if (fd >= 0) {
		bpf_prog_get_info_by_fd(fd, &info, &len);
		close(fd);
	}
	fprintf(stderr, "Error: %s already has %s program %u (%s) that xfwd did not attach; "
		"detach it first.\n", d->name, d->hook == XF_HOOK_XDP ? "an XDP" : "a tcx",
		id, info.name[0] ? info.name : "?");
	return -EBUSY;
}

static int rt_free_slot(struct rt_inst *in, uint32_t *slot)
{
	uint8_t used[XF_RT_MAX_IF] = { 0 };
	struct xf_route_ifcfg cfg;
	uint32_t key, next, *prev = NULL, i;

	while (!bpf_map_get_next_key(in->fd[RT_MAP_IFCFG], prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg) &&
		    cfg.slot < XF_RT_MAX_IF)
			used[cfg.slot] = 1;
	}
	for (i = 0; i < XF_RT_MAX_IF; i++) {
		if (!used[i]) {
			*slot = i;
			return 0;
		}
	}
	return -ENOSPC;
}

/* Zero a slot's counters so that a new member starts from nothing. */
static void rt_clear_slot(struct rt_inst *in, uint32_t slot)
{
	struct xf_route_stat *zero;
	uint32_t r, key;

	zero = calloc(xf_ncpus(), sizeof(*zero));
	if (!zero)
		return;
	for (r = 0; r < XF_RR_MAX; r++) {
		key = XF_RT_STATS_KEY(slot, r);
		bpf_map_update_elem(in->fd[RT_MAP_STATS], &key, zero, BPF_ANY);
	}
	free(zero);
}

/* hook xdp: route joins the interface's XDP chain as the member "route",
 * last by priority, so filters added to the chain run before it. The
 * chain's link is pinned a second time as the interface's route link. */
static int rt_chain_join(struct xf_nl *nl, struct rt_dev *d)
{
	const struct xf_chain_builtin b = {
		.name = "route", .prog = "xf_route_xdp", .prio = XF_ROUTE_CHAIN_PRIO,
		.maps = "route", .xdp_flags = d->xdp_flags,
	};
	const void *elf;
	size_t size;

	elf = route_bpf__elf_bytes(&size);
	return xf_chain_join(nl, d->name, &b, elf, size);
}

static int rt_attach_one(struct xf_nl *nl, struct rt_inst *in, struct rt_dev *d,
			 const struct xf_route_attach_opts *o, bool auto_hook)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	struct xf_route_ifcfg cfg = { 0 };
	char path[RT_PATH_MAX], dir[RT_PATH_MAX];
	uint32_t key = d->l.ifindex, val = d->l.ifindex;
	int fd, err;

	err = rt_free_slot(in, &cfg.slot);
	if (err) {
		fprintf(stderr, "Error: the forwarding set is full (%d interfaces).\n",
			XF_RT_MAX_IF);
		return err;
	}
	cfg.flags = XF_RTIF_IN_SET | (o->direct ? XF_RTIF_DIRECT : 0) |
		    (o->family & XF_RTIF_INET ? XF_RTIF_WANT_INET : 0) |
		    (o->family & XF_RTIF_INET6 ? XF_RTIF_WANT_INET6 : 0) |
		    (auto_hook ? XF_RTIF_AUTO : 0) | rt_rp_filter_flags(key) |
		    (rt_xdp_xmit_ok(key, xf_xdp_features_reported()) ? XF_RTIF_XDP_XMIT : 0);
	rt_family_flags(&cfg.flags);
	memcpy(cfg.mac, d->l.addr, sizeof(cfg.mac));
	rt_clear_slot(in, cfg.slot);
	/* rt_resolve() found no link pin: an entry already there is the
	 * remains of a killed command, and is replaced. */
	if (rt_ifcfg_put(in, key, &cfg, BPF_ANY))
		goto fail;
	d->cfg_done = true;
	/* Only members that can take XDP frames go in the device map: the
	 * redirect is the XDP path's membership test. */
	if ((cfg.flags & XF_RTIF_XDP_XMIT) &&
	    bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &val, BPF_ANY))
		goto fail;
	d->tx_done = true;

	if (d->hook == XF_HOOK_XDP) {
		fd = rt_chain_join(nl, d);
		if (fd < 0)
			return fd;
		d->chain_done = true;
	} else {
		fd = bpf_link_create(in->fd[RT_PROG_TC], d->l.ifindex, BPF_TCX_INGRESS, &lo);
		if (fd < 0)
			goto fail;
	}
	err = xf_pin_path(dir, sizeof(dir), d->l.ifindex, NULL);
	if (!err)
		err = xf_pin_mkdir(dir);
	if (!err)
		err = rt_link_pin_path(path, sizeof(path), d->l.ifindex);
	if (!err && bpf_obj_pin(fd, path))
		err = -errno;
	close(fd);
	if (err) {
		fprintf(stderr, "Error: cannot pin the link of %s: %s.\n", d->name, strerror(-err));
		/* The directory made for the pin, unless the chain uses it. */
		if (!xf_pin_path(dir, sizeof(dir), d->l.ifindex, NULL))
			rmdir(dir);
		return err;
	}
	d->link_done = true;
	return 0;
fail:
	err = -errno;
	fprintf(stderr, "Error: cannot attach to %s: %s.\n", d->name, strerror(-err));
	return err;
}

/* Take back what rt_attach_one did, in reverse order. */
static void rt_undo_one(struct xf_nl *nl, struct rt_inst *in, struct rt_dev *d)
{
	char path[RT_PATH_MAX];
	uint32_t key = d->l.ifindex;

	if (d->chain_done)
		xf_chain_del(nl, d->name, "route");
	if (d->link_done && !rt_link_pin_path(path, sizeof(path), key)) {
		unlink(path);
		path[strlen(path) - strlen("/route")] = '\0';
		rmdir(path);
	}
	if (d->tx_done)
		bpf_map_delete_elem(in->fd[RT_MAP_TX], &key);
	if (d->cfg_done)
		rt_ifcfg_del(in, key);
}

static int rt_resolve(struct xf_nl *nl, struct rt_dev *d, const struct xf_route_attach_opts *o,
		      const char **why)
{
	uint64_t features;
	int fd, err;

	err = xf_link_find(nl, d->name, &d->l);
	if (err) {
		return err;	/* exit 1 as in feature show: not a usage error */
	}
	fd = rt_link_open(d->l.ifindex);
	if (fd >= 0) {
		close(fd);
		fprintf(stderr, "Error: %s is already in the forwarding set; "
			"detach it first to change how.\n", d->name);
		return -EEXIST;
	}
	features = rt_xdp_features(d->l.ifindex);
	d->hook = o->hook;
	*why = NULL;
	if (d->hook == XF_HOOK_AUTO)
		*why = rt_hook_why(d->l.kind, features, &d->hook);
	if (d->hook == XF_HOOK_TC && !xf_tcx_available(d->l.ifindex)) {
		if (o->hook != XF_HOOK_AUTO) {
			fprintf(stderr, "Error: hook tc needs tcx (Linux 6.6 or later), "
				"which this kernel lacks; use hook xdp.\n");
			return -EOPNOTSUPP;
		}
		d->hook = XF_HOOK_XDP;
		*why = "auto: no tcx in this kernel";
	}
	d->xdp_flags = 0;
	if (d->hook == XF_HOOK_XDP) {
		enum xf_xdp_attach m = o->mode;

		if (m == XF_MODE_AUTO)
			m = features & NETDEV_XDP_ACT_BASIC ? XF_MODE_NATIVE : XF_MODE_GENERIC;
		/* Unknown features (before 6.3) keep every member generic:
		 * rt_xdp_xmit_ok() counts on it. */
		if (m == XF_MODE_NATIVE && !xf_xdp_features_reported()) {
			fprintf(stderr, "Error: mode native needs the kernel to report XDP "
				"features (Linux 6.3); this kernel does not: use mode generic.\n");
			return -EOPNOTSUPP;
		}
		if (m == XF_MODE_NATIVE && !(features & NETDEV_XDP_ACT_BASIC)) {
			fprintf(stderr, "Error: %s has no native XDP; use mode generic "
				"or hook tc.\n", d->name);
			return -EOPNOTSUPP;
		}
		d->xdp_flags = m == XF_MODE_NATIVE ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	}
	return 0;
}

int xf_route_attach(struct xf_nl *nl, const char *const *devs, int n,
		    const struct xf_route_attach_opts *o)
{
	struct rt_dev d[MAX_DEVS];
	struct rt_inst in;
	const char *why;
	int i, j, err;

	if (n > MAX_DEVS)
		return -E2BIG;
	memset(d, 0, sizeof(d));
	for (i = 0; i < n; i++) {
		d[i].name = devs[i];
		for (j = 0; j < i; j++) {
			if (!strcmp(devs[i], devs[j])) {
				fprintf(stderr, "Error: duplicate \"dev %s\".\n", devs[i]);
				return -XF_EUSAGE;
			}
		}
	}
	/* Everything that can be checked is checked before anything changes. */
	for (i = 0; i < n; i++) {
		err = rt_resolve(nl, &d[i], o, &why);
		if (!err)
			err = rt_check_foreign(nl, &d[i]);
		if (err)
			return err;
	}
	err = xf_bpffs_ensure();
	if (err) {
		fprintf(stderr, "Error: cannot mount bpffs on /sys/fs/bpf: %s.\n", strerror(-err));
		return err;
	}
	err = rt_inst_open(&in);
	if (err == -ENOENT)
		err = rt_inst_create(&in);
	else if (err)
		fprintf(stderr, "Error: cannot open the route fast path in %s: %s.\n", in.dir,
			strerror(-err));
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		err = rt_attach_one(nl, &in, &d[i], o, o->hook == XF_HOOK_AUTO);
		if (err)
			break;
	}
	if (!err) {
		err = rt_refresh(&in);
		if (err)
			fprintf(stderr, "Error: cannot refresh the forwarding set: %s.\n",
				strerror(-err));
	}
	if (err) {
		for (i = i < n ? i : n - 1; i >= 0; i--)
			rt_undo_one(nl, &in, &d[i]);
		if (in.created) {
			xf_pin_rmtree(in.dir);
			/* and the namespace's directory, if nothing else is in it */
			in.dir[strlen(in.dir) - strlen("/route")] = '\0';
			rmdir(in.dir);
		}
	}
	rt_inst_close(&in);
	return err;
}

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
};

/* Look before changing: the link and the map entries of g->ifindex. */
static int rt_gone_read(struct xf_nl *nl, struct rt_inst *in, struct rt_gone *g)
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
	if (g->link_fd >= 0) {
		if (bpf_link_get_info_by_fd(g->link_fd, &li, &len))
			return -errno;
		g->xdp = li.type == BPF_LINK_TYPE_XDP;
	}
	/* Only a device the kernel says is gone is taken for gone: its
	 * chain's pins are then removed without asking the chain. */
	err = xf_link_get(nl, NULL, g->ifindex, &l);
	if (!err) {
		memcpy(g->name, l.name, sizeof(g->name));
		g->xdp_flags = l.xdp.mode == XF_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	} else if (err != -ENODEV) {
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
static int rt_detach_one(struct xf_nl *nl, struct rt_inst *in, struct rt_gone *g)
{
	char path[RT_PATH_MAX];
	uint32_t key = g->ifindex;
	int err;

	err = rt_link_pin_path(path, sizeof(path), g->ifindex);
	if (err)
		return err;
	if (g->xdp && g->name[0]) {
		/* Leave the chain first: if that fails, nothing has changed. */
		err = xf_chain_del(nl, g->name, "route");
		if (err)
			return err;
		g->left_chain = true;
	}
	if (unlink(path) && errno != ENOENT)
		return -errno;
	g->unpinned = true;
	path[strlen(path) - strlen("/route")] = '\0';
	/* With the interface gone, the chain's pins go too, as "detach all"
	 * promises. */
	if (g->xdp && !g->name[0])
		xf_pin_rmtree(path);
	rmdir(path);
	if (g->name[0])
		xf_chain_tidy(nl, g->name);
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
static void rt_undetach_one(struct xf_nl *nl, struct rt_inst *in, struct rt_gone *g)
{
	char path[RT_PATH_MAX], dir[RT_PATH_MAX];
	uint32_t key = g->ifindex;
	int fd = g->link_fd, err = 0;

	if (g->cfg_gone)
		rt_ifcfg_put(in, key, &g->cfg, BPF_ANY);
	if (g->tx_gone)
		bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &g->tx, BPF_ANY);
	if (g->left_chain) {
		struct rt_dev d = { .name = g->name, .xdp_flags = g->xdp_flags };

		/* Where route was the chain's only member the chain is gone but
		 * for our hold on its link, which keeps its program on the
		 * device: let go, then build it again. */
		if (g->link_fd >= 0) {
			close(g->link_fd);
			g->link_fd = -1;
		}
		fd = rt_chain_join(nl, &d);
	}
	if (g->unpinned && fd >= 0) {
		err = xf_pin_path(dir, sizeof(dir), g->ifindex, NULL) ?: xf_pin_mkdir(dir) ?:
		      rt_link_pin_path(path, sizeof(path), g->ifindex);
		if (!err && bpf_obj_pin(fd, path))
			err = -errno;
	}
	if (fd < 0 || err)
		fprintf(stderr, "Error: cannot put %s back in the forwarding set: %s.\n",
			g->name[0] ? g->name : "an interface", strerror(fd < 0 ? -fd : -err));
	if (fd >= 0 && fd != g->link_fd)
		close(fd);
}

int rt_pinned_ifindexes(int *out, int max)
{
	char dir[RT_PATH_MAX], path[RT_PATH_MAX + 32];
	struct dirent *e;
	int n = 0, ifindex;
	DIR *d;

	if (xf_pin_path(dir, sizeof(dir), 0, NULL))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		ifindex = atoi(e->d_name);
		if (ifindex <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%d/route", dir, ifindex);
		if (!access(path, F_OK))
			out[n++] = ifindex;
	}
	closedir(d);
	return n;
}

/* Remove the pins and object copies of interfaces that have gone: their
 * links are dead, and no command can name them any more. */
static void rt_sweep_gone(void)
{
	char dir[RT_PATH_MAX], run[RT_PATH_MAX], path[RT_PATH_MAX + 32], name[IF_NAMESIZE];
	struct dirent *e;
	int ifindex, pass;
	uint64_t ns;
	DIR *d;

	if (xf_pin_path(dir, sizeof(dir), 0, NULL) || xf_netns_id(&ns))
		return;
	snprintf(run, sizeof(run), "%s/ns%llu", XF_CHAIN_RUN_DIR, (unsigned long long)ns);
	/* Both trees: the pins may be gone already and the copies not. */
	for (pass = 0; pass < 2; pass++) {
		d = opendir(pass ? run : dir);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			ifindex = atoi(e->d_name);
			if (ifindex <= 0 || if_indextoname(ifindex, name))
				continue;
			snprintf(path, sizeof(path), "%s/%d", dir, ifindex);
			xf_pin_rmtree(path);
			snprintf(path, sizeof(path), "%s/%d", run, ifindex);
			xf_pin_rmtree(path);
		}
		closedir(d);
	}
	xf_dir_prune(run, XF_CHAIN_RUN_DIR);
	xf_dir_prune(dir, XF_PIN_ROOT);
}

/* Add to ifx[cnt] the members of the maps that are not in it. New count. */
static int rt_add_unpinned(struct rt_inst *in, int *ifx, int cnt, int max)
{
	uint32_t key, next, *prev = NULL;
	int i;

	while (cnt < max && !bpf_map_get_next_key(in->fd[RT_MAP_IFCFG], prev, &next)) {
		key = next;
		prev = &key;
		for (i = 0; i < cnt && ifx[i] != (int)key; i++)
			;
		if (i == cnt)
			ifx[cnt++] = key;
	}
	return cnt;
}

int xf_route_detach(struct xf_nl *nl, const char *const *devs, int n, bool all)
{
	int ifx[RT_MAX_PINNED], i, cnt = 0, err = 0;
	struct rt_gone *g;
	struct rt_inst in;
	struct xf_link l;

	if (all) {
		cnt = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	} else {
		for (i = 0; i < n && i < MAX_DEVS; i++) {
			int fd;

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
	}
	err = rt_inst_open(&in);
	if (err && err != -ENOENT) {
		fprintf(stderr, "Error: cannot open the route fast path in %s: %s.\n", in.dir,
			strerror(-err));
		return err;
	}
	/* No instance: only link pins (of a killed command) are left to
	 * clear. "all" also takes map entries without a link pin, left by a
	 * killed command. */
	if (all && in.fd[RT_MAP_IFCFG] >= 0)
		cnt = rt_add_unpinned(&in, ifx, cnt, RT_MAX_PINNED);
	g = calloc(cnt ?: 1, sizeof(*g));
	if (!g) {
		rt_inst_close(&in);
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
	if (in.fd[RT_MAP_IFCFG] >= 0) {
		uint32_t key;

		/* The last member gone: the instance goes too. */
		if (bpf_map_get_next_key(in.fd[RT_MAP_IFCFG], NULL, &key) &&
		    !rt_pinned_ifindexes(ifx, 1)) {
			xf_pin_rmtree(in.dir);
			in.dir[strlen(in.dir) - strlen("/route")] = '\0';
			rmdir(in.dir);
		} else if ((err = rt_refresh(&in))) {
			/* The detach is done; only the others' flags may be old. */
			fprintf(stderr, "Warning: cannot refresh the forwarding set: %s.\n",
				strerror(-err));
			err = 0;
		}
	}
	/* "all" also takes what gone interfaces and deleted namespaces left
	 * behind. */
	if (all) {
		xf_redirect_sweep();
		rt_sweep_gone();
		xf_pin_gc();
	}
out:
	for (i = 0; i < cnt; i++)
		if (g[i].link_fd >= 0)
			close(g[i].link_fd);
	free(g);
	rt_inst_close(&in);
	return err;
}
