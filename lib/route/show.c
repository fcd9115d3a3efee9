// SPDX-License-Identifier: GPL-2.0
/* route show: the forwarding set as the kernel has it, with counters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "nl_link.h"
#include "nl_xfrm.h"
#include "probe.h"
#include "route/route.h"
#include "internal.h"
#include "xbpf.h"

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void rt_read_stats(struct xf_inst *in, uint32_t slot, struct xf_route_stat *st,
			  uint64_t *percpu)
{
	int ncpu = xf_ncpus();
	uint64_t sum[2];
	uint32_t r, key;

	for (r = 0; r < XF_RR_MAX; r++) {
		uint64_t *pc = percpu ? percpu + (size_t)r * ncpu * 2 : NULL;

		key = XF_RT_STATS_KEY(slot, r);
		if (xf_percpu_read(in->fd[RT_MAP_STATS], &key, sum, pc, 2)) {
			sum[0] = sum[1] = 0;
			if (pc)
				memset(pc, 0, (size_t)ncpu * 2 * sizeof(*pc));
		}
		st[r].packets = sum[0];
		st[r].bytes = sum[1];
	}
}

static void rt_describe(struct xf_nl *nl, struct xf_inst *in, int ifindex,
			struct xf_route_iface *ri, uint64_t *percpu)
{
	struct bpf_link_info li;
	struct xf_route_ifcfg cfg;
	uint32_t len = sizeof(li), key = ifindex;
	struct xf_link l, pl, m;
	const char *port;
	enum xf_hook h;
	int fd;

	memset(ri, 0, sizeof(*ri));
	ri->ifindex = ifindex;
	fd = rt_link_open(ifindex);
	memset(&li, 0, sizeof(li));
	if (fd >= 0) {
		if (!bpf_link_get_info_by_fd(fd, &li, &len)) {
			ri->link_id = li.id;
			ri->prog_id = li.prog_id;
			ri->hook = li.type == BPF_LINK_TYPE_XDP ? XF_HOOK_XDP : XF_HOOK_TC;
		}
		close(fd);
	}
	if (in->fd[RT_MAP_IFCFG] >= 0 &&
	    !bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg)) {
		ri->flags = cfg.flags;
		rt_read_stats(in, cfg.slot, ri->stat, percpu);
		ri->percpu = percpu;
		ri->ncpu = xf_ncpus();
	}
	ri->err = xf_link_get(nl, NULL, ifindex, &l);
	if (ri->err) {
		ri->why = ri->err == -ENODEV ?
			  "the interface has gone; \"route detach all\" clears it" :
			  "the interface cannot be read";
		if (ri->err == -ENODEV)
			ri->err = 0;
		ri->mode = "-";
		return;
	}
	memcpy(ri->name, l.name, sizeof(ri->name));
	pl = l;
	if (l.vlan.is) {
		ri->vlan.parent = l.link;
		ri->vlan.id = l.vlan.id;
		ri->vlan.ad = l.vlan.ad;
		if (l.link_netnsid < 0)
			if_indextoname(l.link, ri->vlan.parent_name);
		/* The program runs on the parent: its mode, its peer. */
		if (l.link_netnsid >= 0 || xf_link_get(nl, NULL, l.link, &pl))
			pl = l;
	}
	if (ri->hook == XF_HOOK_XDP)
		ri->mode = pl.xdp.mode == XF_XDP_SKB ? "generic" : "native";
	else
		ri->mode = "tcx";
	if (ri->flags & XF_RTIF_AUTO) {
		struct bpf_xdp_query_opts q = { .sz = sizeof(q) };

		bpf_xdp_query(ifindex, 0, &q);
		ri->why = rt_hook_why(&l, q.feature_flags, &h);
		/* A VLAN device or its parent took the hook of the link
		 * they share, or there was no tcx. */
		if (h != ri->hook)
			ri->why = !xf_tcx_available(ifindex) ? "auto: no tcx in this kernel" :
				  "auto: its program runs on xdp there already";
	} else {
		ri->why = ri->hook == XF_HOOK_XDP ? "hook xdp given" : "hook tc given";
	}
	if (ri->hook == XF_HOOK_XDP)
		rt_peer_offload_warning(nl, &pl, ri->warning, sizeof(ri->warning));
	/* Made a port after the attach, which refuses one. */
	if (!ri->warning[0] && (port = rt_port_of(nl, &l, &m)))
		snprintf(ri->warning, sizeof(ri->warning), "%s is now %s %s, whose receive "
			 "handling its fast path skips; detach it", l.name, port, m.name);
	if (ri->hook == XF_HOOK_TC && !ri->link_id)
		ri->why = "the link is not in the kernel any more";
}

/* The set's egress queueing, which an XDP member's packets skip: of
 * every member, into out[0..max). Returns how many, or -errno. */
static int rt_set_egress(struct xf_nl *nl, const int *ifx, int n, struct xf_route_skip *out,
			 int max)
{
	int i, k = 0, err = 0;

	for (i = 0; i < n && !err; i++)
		err = rt_skip_egress(nl, ifx[i], out, max, &k);
	return err ?: k;
}

/* What ri skips beyond netfilter: x's xfrm (which the kctx build passes),
 * on hook xdp the set's egress eg[0..neg) (neg < 0: not readable), and
 * the tc ingress of its own device (on hook tc the filters after route's
 * program). */
static void rt_member_skips(struct xf_nl *nl, struct xf_route_iface *ri,
			    const struct xf_xfrm_set *x, bool kctx,
			    const struct xf_route_skip *eg, int neg)
{
	int i, k = 0, err;

	ri->skip_unread = x->unread;
	rt_skip_xfrm(x, ri->flags, ri->skip, XF_ROUTE_SKIP_MAX, &k);
	for (i = 0; i < k && i < XF_ROUTE_SKIP_MAX; i++)
		ri->skip[i].passed = kctx;
	if (!ri->name[0]) {
		ri->nskip = k;
		return;
	}
	/* Its own egress takes only hairpins, which the program passes. */
	for (i = 0; ri->hook == XF_HOOK_XDP && i < neg; i++) {
		if (eg[i].ifindex == ri->ifindex || eg[i].ifindex == ri->vlan.parent)
			continue;
		if (k < XF_ROUTE_SKIP_MAX) {
			ri->skip[k] = eg[i];
			ri->skip[k].acked = ri->flags & XF_RTIF_QDISC_BYPASS;
		}
		k++;
	}
	err = rt_skip_ingress(nl, ri->vlan.parent ?: ri->ifindex,
			      ri->hook == XF_HOOK_TC ? ri->prog_id : 0, ri->skip,
			      XF_ROUTE_SKIP_MAX, &k);
	if ((err || neg < 0) && !*ri->skip_unread)
		ri->skip_unread = "tc: Operation not permitted";
	ri->nskip = k;
}

/* xf_route_list, and what members bypass unaccepted into w when w is not
 * NULL, and the counters outside the set into outside[0..XF_RR_MAX) when
 * that is not NULL. */
static int rt_list(struct xf_nl *nl, int ifindex,
		   int (*cb)(const struct xf_route_iface *ri, void *arg), void *arg,
		   struct rt_skip_warn *w, struct xf_route_stat *outside)
{
	int ifx[RT_MAX_PINNED], n, i, neg = 0, err = 0;
	struct xf_route_skip eg[XF_ROUTE_SKIP_MAX];
	struct xf_route_iface *ri;
	struct xf_nf_set nf = { 0 };
	struct xf_xfrm_set x = { 0 };
	struct xf_inst in;
	uint64_t *percpu;
	bool kctx = false, xdp = false, opened;

	ri = malloc(sizeof(*ri));
	percpu = calloc((size_t)XF_RR_MAX * xf_ncpus() * 2, sizeof(*percpu));
	if (!ri || !percpu) {
		free(ri);
		free(percpu);
		return -ENOMEM;
	}
	n = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	qsort(ifx, n, sizeof(ifx[0]), cmp_int);
	opened = !xf_inst_open(&in, &rt_inst_desc);
	if (!opened && n) {
		/* Links without an instance cannot be: report them anyway. */
		for (i = 0; i < RT_NFDS; i++)
			in.fd[i] = -1;
	} else if (n) {
		kctx = rt_inst_kctx(&in);
	}
	/* Netfilter and xfrm are read once for every member; what cannot be
	 * read shows in each member's nf_unread and skip_unread. */
	if (n && xf_nf_scan(&nf))
		snprintf(nf.unread, sizeof(nf.unread), "%s", strerror(ENOMEM));
	if (n && xf_xfrm_scan(&x))
		snprintf(x.unread, sizeof(x.unread), "%s", strerror(ENOMEM));
	for (i = 0; i < n && !xdp; i++) {
		int fd = rt_link_open(ifx[i]);

		xdp = fd >= 0 && rt_on_xdp_link(fd);
		if (fd >= 0)
			close(fd);
	}
	if (xdp)
		neg = rt_set_egress(nl, ifx, n, eg, XF_ROUTE_SKIP_MAX);
	if (neg > XF_ROUTE_SKIP_MAX)
		neg = XF_ROUTE_SKIP_MAX;
	for (i = 0; i < n && !err; i++) {
		if (ifindex && ifx[i] != ifindex)
			continue;
		rt_describe(nl, &in, ifx[i], ri, percpu);
		rt_nf_member(&nf, ri);
		rt_member_skips(nl, ri, &x, kctx, eg, neg);
		if (w)
			rt_skip_warn_add(w, ri);
		err = cb(ri, arg);
	}
	/* Nothing attached, or pins this user cannot read (each member says
	 * so): nothing counted. */
	if (outside) {
		memset(outside, 0, sizeof(*outside) * XF_RR_MAX);
		if (opened)
			rt_read_stats(&in, XF_RT_SLOT_NONE, outside, NULL);
	}
	xf_nf_free(&nf);
	xf_xfrm_free(&x);
	xf_inst_close(&in);
	free(ri);
	free(percpu);
	return err < 0 ? err : 0;
}

static int rt_nf_none(const struct xf_route_iface *ri, void *arg)
{
	(void)ri;
	(void)arg;
	return 0;
}

int xf_route_list(struct xf_nl *nl, int ifindex,
		  int (*cb)(const struct xf_route_iface *ri, void *arg), void *arg)
{
	return rt_list(nl, ifindex, cb, arg, NULL, NULL);
}

int xf_route_list_warn(struct xf_nl *nl, int ifindex,
		       int (*cb)(const struct xf_route_iface *ri, void *arg), void *arg,
		       struct xf_route_stat *outside)
{
	struct rt_skip_warn w = { 0 };
	int err;

	err = rt_list(nl, ifindex, cb, arg, &w, outside);
	if (!err)
		rt_skip_warn_print(&w);
	return err;
}

void xf_route_nf_warn(struct xf_nl *nl)
{
	xf_route_list_warn(nl, 0, rt_nf_none, NULL, NULL);
}

int xf_route_stats_reset(int ifindex)
{
	struct xf_route_ifcfg cfg;
	uint32_t key = ifindex;
	struct xf_inst in;
	int err;

	err = xf_inst_open(&in, &rt_inst_desc);
	if (err)
		return err;
	if (bpf_map_lookup_elem(in.fd[RT_MAP_IFCFG], &key, &cfg)) {
		err = -errno;
		goto out;
	}
	err = rt_slot_zero(&in, cfg.slot);
out:
	xf_inst_close(&in);
	return err;
}
