// SPDX-License-Identifier: GPL-2.0
/* The route fast path's instance: one program set per network namespace,
 * shared by every interface of the forwarding set, pinned under
 * XF_PIN_ROOT/ns<id>/route/, with one link pin per interface under
 * XF_PIN_ROOT/ns<id>/<ifindex>/route. The kernel is the only state: show
 * reads links, maps and netlink, never a file of our own. Here: the
 * instance's table, its link pins, and the per-member flags that refresh
 * re-reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "chain/chain.h"
#include "inst.h"
#include "internal.h"
#include "probe.h"
#include "route/route.h"
#include "xbpf.h"
#include "route.skel.h"
#include "route_kctx.skel.h"
#include "route_flow.skel.h"

/* Maps are pinned under their own names: the chain layer finds them that
 * way when route is a member of an interface's XDP chain. xf_route_xdp
 * runs only in chains, which load it themselves: the instance has no copy
 * of it. */
static const struct xf_inst_obj rt_objs[RT_NFDS] = {
	[RT_PROG_TC] = { "prog_tc", "xf_route_tc" },
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

uint64_t rt_xdp_features(int ifindex)
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
	if (!strcmp(kind, "vlan")) {
		*hook = XF_HOOK_TC;
		return "auto: a VLAN device, whose parent runs the program on tc";
	}
	if (xf_link_kind_is_pair(kind)) {
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
bool rt_xdp_xmit_ok(int ifindex, bool reported)
{
	/* A kernel that does not report XDP features shows no native XDP
	 * either: every member is in generic mode, whose redirects need no
	 * ndo_xmit and reach any device. */
	return !reported || rt_xdp_features(ifindex) & NETDEV_XDP_ACT_NDO_XMIT;
}

/* Re-read what can change under us for every member: whether it takes XDP
 * redirects now (a veth does only while its peer has XDP or GRO) and its
 * rp_filter setting. */
int rt_refresh(struct xf_inst *in)
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
		uint32_t key = keys[i], tx;

		if (bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg)) {
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		cfg.flags &= ~(XF_RTIF_XDP_XMIT | XF_RTIF_RP_STRICT | XF_RTIF_RP_LOOSE);
		/* A VLAN device's frames leave on its parent (vlan.c). */
		tx = rt_xdp_target(key, &cfg.flags);
		if (rt_xdp_xmit_ok(tx, reported))
			cfg.flags |= XF_RTIF_XDP_XMIT;
		cfg.flags |= rt_rp_filter_flags(key);
		rt_family_flags(&cfg.flags);
		rt_fast_peer(&fast, key, &cfg);
		rt_fast_source(&fast, key, &cfg);
		if (rt_ifcfg_put(in, key, &cfg, BPF_EXIST))
			err = -errno;
		if (cfg.flags & XF_RTIF_XDP_XMIT) {
			if (bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &tx, BPF_ANY))
				err = -errno;
		} else if (bpf_map_delete_elem(in->fd[RT_MAP_TX], &key) && errno != ENOENT) {
			err = -errno;
		}
	}
	/* The VLAN map: after the members' flags, before netlink closes. */
	i = rt_vlan_sync(fast.nl, in, keys, n);
	if (i && !err)
		err = i;
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

/* accept_local as the kernel applies it: "all" or the device. */
bool rt_accept_local(int ifindex)
{
	char name[IF_NAMESIZE], path[128];

	if (!if_indextoname(ifindex, name))
		return false;
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/accept_local", name);
	return rt_sysctl_int("/proc/sys/net/ipv4/conf/all/accept_local", 0) > 0 ||
	       rt_sysctl_int(path, 0) > 0;
}

/* hook xdp: route joins the interface's XDP chain as the member "route",
 * last by priority, so filters added to the chain run before it. The
 * chain's link is pinned a second time as the interface's route link. */
int rt_chain_join(struct xf_nl *nl, const char *dev, uint32_t xdp_flags, bool flowtable,
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
	return xf_chain_join(nl, dev, &b, elf, size);
}

void rt_chain_keep(struct xf_chain_keep *k)
{
	memset(k, 0, sizeof(*k));
	k->member = "route";
	k->prog = "xf_route_xdp";
}

int rt_check_flowtable(void)
{
	struct xf_probe p;

	xf_probe_flowtable(&p);
	if (p.yes)
		return 0;
	fprintf(stderr, "Error: lookup flowtable needs bpf_xdp_flow_lookup(), which this "
		"kernel cannot give: %s.\n", p.why);
	return -EOPNOTSUPP;
}

int rt_pinned_ifindexes(int *out, int max)
{
	char path[RT_PATH_MAX];
	int n, i, cnt = 0;

	n = xf_layout_ifindexes(false, out, max);
	for (i = 0; i < n; i++)
		if (!rt_link_pin_path(path, sizeof(path), out[i]) && !access(path, F_OK))
			out[cnt++] = out[i];
	return cnt;
}
