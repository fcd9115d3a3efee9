// SPDX-License-Identifier: GPL-2.0
/* route attach: every device is resolved and checked before anything
 * changes, then joined to the namespace's instance one by one; a failure
 * takes back what was done, in reverse order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>

#include "chain/chain.h"
#include "hook.h"
#include "inst.h"
#include "internal.h"
#include "nl_link.h"
#include "nl_tc.h"
#include "nl_xfrm.h"
#include "probe.h"
#include "redirect/redirect.h"
#include "route/route.h"
#include "xbpf.h"

const char *const xf_route_hook_words[] = { "auto", "xdp", "tc", NULL };
const char *const xf_route_mode_words[] = { "native", "generic", NULL };
const char *const xf_route_family_words[] = { "all", "inet", "inet6", NULL };
const char *const xf_route_lookup_words[] = { "full", "direct", "flowtable", NULL };
const char *const xf_route_netfilter_words[] = { "check", "bypass", NULL };
const char *const xf_route_qdisc_words[] = { "check", "bypass", NULL };

struct rt_dev {
	const char *name;
	struct xf_link l;
	int carrier;		/* where the program runs: l's parent for a
				 * VLAN device, else l itself */
	struct xf_link cl;	/* the carrier's link (l, or the parent's) */
	bool shared;		/* the carrier runs a route link already */
	bool shared_xdp;	/* ... and that is an XDP link (its chain) */
	enum xf_hook hook;
	uint32_t xdp_flags;
	bool cfg_done, tx_done, chain_done, link_done;
};

/* A bond hands a native XDP program to its slaves, where it runs with the
 * slave's ifindex before the bond's receive handler: the program takes a
 * frame as the bond's when the slave is the bond's and active, read at the
 * frame (route_kctx.h, XF_RTIF_SLAVE). Generic mode runs on the bond itself,
 * after the handler. NULL when d's bond can run natively, else why not
 * (the end of an Error line). */
static const char *rt_bond_why_not(const struct rt_dev *d, uint64_t features,
				   const struct xf_route_attach_opts *o)
{
	struct xf_probe p;
	struct btf *b;
	bool known;

	if (!xf_xdp_features_reported())
		return "which needs the kernel to report XDP features (Linux 6.3)";
	if (d->l.vlan.is)
		return "where the program reads no VLAN tag";
	if (o->flowtable)
		return "where lookup flowtable does not run";
	if (!(features & NETDEV_XDP_ACT_BASIC))
		return "which it reports it cannot do (its mode or transmit hash policy, or a "
		       "slave without native XDP)";
	xf_probe_kern_ctx(&p);
	if (!p.yes)
		return "where this kernel's build of the program cannot read whether a slave "
		       "is active (that needs bpf_cast_to_kern_ctx(), Linux 6.2, and CAP_PERFMON)";
	/* struct slave: bonding.ko's BTF, or the kernel's with bonding built in. */
	if (!access("/sys/kernel/btf/bonding", F_OK))
		return NULL;
	b = btf__load_vmlinux_btf();
	known = b && btf__find_by_name_kind(b, "slave", BTF_KIND_STRUCT) > 0;
	btf__free(b);
	return known ? NULL : "where the program cannot read whether a slave is active "
			      "(the kernel has no BTF for bonding)";
}

/* An XDP or tc program that someone else attached: refuse to touch it. */
static int rt_check_foreign(struct xf_nl *nl, const struct rt_dev *d)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	struct bpf_prog_info info;
	struct xf_tc_filter tf[4];
	uint32_t ids[8], len = sizeof(info), id = 0;
	int n, fd;

	if (d->hook == XF_HOOK_XDP) {
		struct xf_route_skip s[1];
		char one[256];
		int err;

		/* XDP runs before tc ingress: what is there would never see
		 * a packet the fast path forwards. Not route's own tc
		 * program: the carrier is no member, so that is a link an
		 * undo has just unpinned, which the kernel detaches moments
		 * later (a failed restore puts hook xdp back there). */
		n = 0;
		err = rt_skip_ingress(nl, d->carrier, rt_prog_tc_id(), s, 1, &n);
		if (err) {
			fprintf(stderr, "Error: cannot read the tc ingress of %s: %s.\n",
				d->cl.name, strerror(-err));
			return err;
		}
		if (n > 0) {
			fprintf(stderr, "Error: hook xdp would bypass the tc ingress of %s: %s; "
				"remove it first.\n", d->cl.name,
				rt_skip_describe(&s[0], one, sizeof(one)));
			return -EBUSY;
		}
		id = d->cl.xdp.prog_id ?: d->cl.xdp.drv_id ?: d->cl.xdp.skb_id;
		/* An xfwd chain is ours: route joins it. */
		fd = xf_chain_link_fd(d->carrier);
		if (fd >= 0) {
			struct bpf_link_info li = { 0 };
			uint32_t llen = sizeof(li);

			if (!bpf_link_get_info_by_fd(fd, &li, &llen) && li.prog_id == id)
				id = 0;
			close(fd);
		}
	} else if (!d->shared) {
		q.prog_ids = ids;
		q.count = 8;
		if (!bpf_prog_query_opts(d->carrier, BPF_TCX_INGRESS, &q) && q.count)
			id = ids[0];
		n = xf_tc_filters(nl, d->carrier, true, tf, 4);
		if (!id && n > 0) {
			fprintf(stderr, "Error: %s already has a tc ingress filter (%s, id %u) "
				"that xfwd did not attach; remove it first.\n",
				d->name, tf[0].name, tf[0].prog_id);
			return -EBUSY;
		}
	}
	if (!id)
		return 0;
	if (d->hook != XF_HOOK_XDP && xf_redirect_on_tcx(d->carrier)) {
		/* xfwd's own, but route takes a tcx hook only where nothing
		 * else runs, as for any other program. */
		fprintf(stderr, "Error: %s runs xfwd's redirect on its tcx ingress (program %u), "
			"and route takes a tcx hook only alone; \"xfwd redirect del dev %s "
			"ingress all\" first.\n", d->cl.name, id, d->cl.name);
		return -EBUSY;
	}
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

static int rt_free_slot(struct xf_inst *in, uint32_t *slot)
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

/* hook tc: the link on d's carrier, made for d or, when a member (an
 * earlier device of this command too) already runs one there, the same
 * link pinned once more for d. 0/-errno, with its Error line. */
static int rt_attach_tc(struct xf_inst *in, struct rt_dev *d)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	char parent[IF_NAMESIZE] = "?";
	int fd, err;

	fd = rt_carrier_link(d->carrier);
	if (fd < 0 && d->carrier == d->l.ifindex)
		return xf_hook_tcx(in->fd[RT_PROG_TC], d->carrier, d->name, true, "route");
	if (fd < 0) {
		fd = bpf_link_create(in->fd[RT_PROG_TC], d->carrier, BPF_TCX_INGRESS, &lo);
		if (fd < 0) {
			err = -errno;
			if_indextoname(d->carrier, parent);
			fprintf(stderr, "Error: cannot attach to %s (the parent of %s): %s.\n",
				parent, d->name, strerror(-err));
			return err;
		}
	}
	return xf_hook_pin(fd, d->l.ifindex, d->name, "route");
}

static int rt_attach_one(struct xf_nl *nl, struct xf_inst *in, struct rt_dev *d,
			 const struct xf_route_attach_opts *o, bool auto_hook,
			 struct xf_chain_keep *keep)
{
	struct xf_route_ifcfg cfg = { 0 };
	uint32_t key = d->l.ifindex;
	int fd, err;

	err = rt_free_slot(in, &cfg.slot);
	if (err) {
		fprintf(stderr, "Error: the forwarding set is full (%d interfaces).\n",
			XF_RT_MAX_IF);
		return err;
	}
	uint32_t tx = d->carrier;

	cfg.flags = XF_RTIF_IN_SET | (o->direct ? XF_RTIF_DIRECT : 0) |
		    (o->flowtable ? XF_RTIF_FLOWTABLE : 0) |
		    (o->family & XF_RTIF_INET ? XF_RTIF_WANT_INET : 0) |
		    (o->family & XF_RTIF_INET6 ? XF_RTIF_WANT_INET6 : 0) |
		    (auto_hook ? XF_RTIF_AUTO : 0) |
		    (o->nf_bypass ? XF_RTIF_NF_BYPASS : 0) |
		    (o->qdisc_bypass ? XF_RTIF_QDISC_BYPASS : 0) |
		    (d->carrier != d->l.ifindex ? XF_RTIF_VLAN : 0) |
		    (d->l.addr_len != ETH_ALEN ? XF_RTIF_L3 : 0);
	cfg.flags |= rt_xdp_xmit_flags(tx, cfg.flags, xf_xdp_features_reported());
	rt_family_flags(&cfg.flags);
	memcpy(cfg.mac, d->l.addr, sizeof(cfg.mac));
	/* rt_resolve() found no link pin: an entry already there is the
	 * remains of a killed command, and is replaced. */
	if (rt_slot_zero(in, cfg.slot))
		goto fail;
	/* rt_ifcfg_put() writes three maps: one that fails after the first
	 * has written leaves an entry for rt_undo_one() to take. */
	d->cfg_done = true;
	if (rt_ifcfg_put(in, key, &cfg, BPF_ANY))
		goto fail;
	/* Only members that can take XDP frames go in the device map: the
	 * redirect is the XDP path's membership test. A VLAN device's frames
	 * leave on its parent. */
	if ((cfg.flags & XF_RTIF_XDP_XMIT) &&
	    bpf_map_update_elem(in->fd[RT_MAP_TX], &key, &tx, BPF_ANY))
		goto fail;
	d->tx_done = true;
	if (o->nf_bypass) {
		err = rt_nf_ack(key, d->name, o->family);
		if (err) {
			fprintf(stderr, "Error: cannot remember what %s bypasses: %s.\n",
				d->name, strerror(-err));
			return err;
		}
	}

	if (d->hook == XF_HOOK_XDP) {
		/* The carrier's chain has route already (a VLAN device's
		 * parent, or a sibling's): the same link pinned once more. */
		fd = rt_carrier_link(d->carrier);
		if (fd < 0) {
			/* The carrier as rt_resolve() read it: one read of
			 * each device a command. */
			fd = rt_chain_join(nl, &d->cl, d->xdp_flags, o->flowtable, keep);
			if (fd < 0)
				return fd;
			d->chain_done = true;
		}
		err = xf_hook_pin(fd, key, d->name, "route");
	} else {
		err = rt_attach_tc(in, d);
	}
	if (err)
		return err;
	d->link_done = true;
	return 0;
fail:
	err = -errno;
	fprintf(stderr, "Error: cannot attach to %s: %s.\n", d->name, strerror(-err));
	return err;
}

/* Take back what rt_attach_one did, in reverse order. */
static void rt_undo_one(struct xf_nl *nl, struct xf_inst *in, struct rt_dev *d)
{
	uint32_t key = d->l.ifindex;

	if (d->chain_done)
		xf_chain_del(nl, d->cl.name, "route");
	if (d->link_done)
		xf_hook_unpin(key, "route");
	if (d->tx_done)
		bpf_map_delete_elem(in->fd[RT_MAP_TX], &key);
	if (d->cfg_done)
		rt_ifcfg_del(in, key);
	xf_run_remove(key, RT_NF_RUN);
}

/* A VLAN device: the program runs on its parent (see vlan.c), on the hook
 * the parent's route link has, if any. */
static int rt_resolve_vlan(struct xf_nl *nl, struct rt_dev *d,
			   const struct xf_route_attach_opts *o)
{
	if (d->l.link_netnsid >= 0 || !d->l.link) {
		fprintf(stderr, "Error: %s is a VLAN device whose parent is not in this "
			"namespace; attach it where its parent is.\n", d->name);
		return -EOPNOTSUPP;
	}
	if (o->flowtable) {
		fprintf(stderr, "Error: %s is a VLAN device, which lookup flowtable does not "
			"take.\n", d->name);
		return -XF_EUSAGE;
	}
	if (xf_link_get(nl, NULL, d->l.link, &d->cl)) {
		fprintf(stderr, "Error: cannot read the parent of %s.\n", d->name);
		return -ENODEV;
	}
	d->carrier = d->l.link;
	return 0;
}

/* A bridge's port or a bond's slave (rt_port_of): refused, naming the
 * master, which is what the kernel routes on. */
static int rt_check_port(struct xf_nl *nl, const struct rt_dev *d)
{
	struct xf_link m;
	const char *what = rt_port_of(nl, &d->l, &m);

	if (!what)
		return 0;
	fprintf(stderr, "Error: %s is %s %s, whose own receive handling the fast path on %s "
		"would skip; name %s instead.\n", d->name, what, m.name, d->name, m.name);
	return -EOPNOTSUPP;
}

/* The carrier runs a route link already, or will once an earlier device
 * of this command (prev[0..nprev)) is attached: d shares it. */
static void rt_resolve_shared(struct rt_dev *d, const struct rt_dev *prev, int nprev)
{
	int fd, i;

	fd = rt_carrier_link(d->carrier);
	if (fd >= 0) {
		d->shared = true;
		d->shared_xdp = rt_on_xdp_link(fd);
		close(fd);
		return;
	}
	for (i = 0; i < nprev; i++) {
		if (prev[i].carrier == d->carrier) {
			d->shared = true;
			d->shared_xdp = prev[i].hook == XF_HOOK_XDP;
			return;
		}
	}
}

/* ipip, sit, GRE, ip6tnl, WireGuard, tun: the packet starts at its IP
 * header. hook tc parses it from there (XF_RTIF_L3); an XDP frame is an
 * Ethernet one. */
static int rt_check_l3(const struct rt_dev *d, const struct xf_route_attach_opts *o)
{
	const char *kind = d->l.kind[0] ? d->l.kind : "no link kind";

	if (!rt_l3_dev(&d->l)) {
		fprintf(stderr, "Error: %s is a layer 3 device (%s, link type %u) that is not "
			"point-to-point; only a tunnel with a fixed remote, WireGuard or tun can "
			"be a member: leave it to the kernel.\n", d->name, kind, d->l.type);
		return -EOPNOTSUPP;
	}
	if (o->hook == XF_HOOK_XDP || o->flowtable) {
		fprintf(stderr, "Error: %s is a layer 3 device (%s, no Ethernet header), which "
			"XDP cannot take; use hook tc.\n", d->name, kind);
		return -EOPNOTSUPP;
	}
	if (!xf_tcx_available(d->l.ifindex)) {
		fprintf(stderr, "Error: %s is a layer 3 device (%s), which only hook tc takes, "
			"and hook tc needs tcx (Linux 6.6 or later), which this kernel lacks.\n",
			d->name, kind);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int rt_resolve(struct xf_nl *nl, struct rt_dev *d, const struct xf_route_attach_opts *o,
		      const struct rt_dev *prev, int nprev)
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
	err = rt_check_port(nl, d);
	if (err)
		return err;
	if (d->l.addr_len != ETH_ALEN) {
		err = rt_check_l3(d, o);
		if (err)
			return err;
	}
	d->hook = o->hook;
	d->carrier = d->l.ifindex;
	d->cl = d->l;
	if (d->l.vlan.is) {
		err = rt_resolve_vlan(nl, d, o);
		if (err)
			return err;
	}
	features = rt_xdp_features(d->carrier);
	rt_resolve_shared(d, prev, nprev);
	/* One hook per carrier: a member sharing it takes its hook. */
	if (d->shared && d->hook == XF_HOOK_AUTO)
		d->hook = d->shared_xdp ? XF_HOOK_XDP : XF_HOOK_TC;
	else if (d->hook == XF_HOOK_AUTO)
		rt_hook_why(&d->l, features, &d->hook);
	/* lookup flowtable: XDP only (see xf_route_attach). */
	if (o->flowtable && d->hook == XF_HOOK_TC)
		d->hook = XF_HOOK_XDP;
	if (d->hook == XF_HOOK_TC && !xf_tcx_available(d->l.ifindex)) {
		if (o->hook != XF_HOOK_AUTO) {
			fprintf(stderr, "Error: hook tc needs tcx (Linux 6.6 or later), "
				"which this kernel lacks; use hook xdp.\n");
			return -EOPNOTSUPP;
		}
		d->hook = XF_HOOK_XDP;
	}
	/* The carrier runs the program for its VLAN devices (or for the
	 * parent) on one hook: one hook per device. */
	if (d->shared && (d->hook == XF_HOOK_XDP) != d->shared_xdp) {
		if (d->carrier != d->l.ifindex)
			fprintf(stderr, "Error: the parent of %s runs the fast path on hook %s; "
				"attach %s with hook %s.\n", d->name, d->shared_xdp ? "xdp" : "tc",
				d->name, d->shared_xdp ? "xdp" : "tc");
		else
			fprintf(stderr, "Error: %s runs the fast path on hook %s for its VLAN "
				"devices; attach it with hook %s.\n", d->name,
				d->shared_xdp ? "xdp" : "tc", d->shared_xdp ? "xdp" : "tc");
		return -XF_EUSAGE;
	}
	d->xdp_flags = 0;
	if (d->hook == XF_HOOK_XDP) {
		enum xf_xdp_attach m = o->mode;
		const char *bond = NULL;

		if (!strcmp(d->cl.kind, "bond"))
			bond = rt_bond_why_not(d, features, o);
		if (bond && d->shared && d->cl.xdp.drv_id) {
			fprintf(stderr, "Error: bond %s runs the program natively on its slaves, "
				"%s; detach it, and attach it in mode generic.\n", d->cl.name, bond);
			return -EOPNOTSUPP;
		}
		if (bond && m == XF_MODE_NATIVE) {
			fprintf(stderr, "Error: mode native on bond %s runs the program on its "
				"slaves, %s; use mode generic, which runs on the bond itself.\n",
				d->cl.name, bond);
			return -EOPNOTSUPP;
		}
		if (m == XF_MODE_AUTO)
			m = features & NETDEV_XDP_ACT_BASIC && !bond ? XF_MODE_NATIVE :
								      XF_MODE_GENERIC;
		/* Unknown features (before 6.3) keep every member generic:
		 * rt_xdp_xmit_flags() counts on it. */
		if (m == XF_MODE_NATIVE && !xf_xdp_features_reported()) {
			fprintf(stderr, "Error: mode native needs the kernel to report XDP "
				"features (Linux 6.3); this kernel does not: use mode generic.\n");
			return -EOPNOTSUPP;
		}
		if (m == XF_MODE_NATIVE && !(features & NETDEV_XDP_ACT_BASIC)) {
			fprintf(stderr, "Error: %s has no native XDP; use mode generic "
				"or hook tc.\n", d->cl.name);
			return -EOPNOTSUPP;
		}
		d->xdp_flags = m == XF_MODE_NATIVE ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	}
	return 0;
}

/* IPsec: the XF_KCTX build passes every forwarded packet while the
 * namespace has xfrm policies or states (route_path.h); the other build
 * cannot see them, and refuses where there are any. */
static int rt_check_xfrm(struct xf_inst *in, const struct xf_route_attach_opts *o)
{
	struct xf_route_skip s[XF_ROUTE_SKIP_MAX];
	char line[1024] = "";
	struct xf_xfrm_set x;
	int n = 0, named = 0;

	if (rt_inst_kctx(in))
		return 0;
	xf_xfrm_scan(&x);
	if (x.unread[0]) {
		fprintf(stderr, "Error: cannot tell whether IPsec (xfrm) acts on the forwarding "
			"path (%s).\n", x.unread);
		xf_xfrm_free(&x);
		return -EPERM;
	}
	rt_skip_xfrm(&x, o->family, s, XF_ROUTE_SKIP_MAX, &n);
	xf_xfrm_free(&x);
	if (!n)
		return 0;
	rt_skip_line(line, sizeof(line), s, n < XF_ROUTE_SKIP_MAX ? n : XF_ROUTE_SKIP_MAX, &named);
	fprintf(stderr, "Error: the fast path would bypass IPsec: %s%s; this kernel's build of "
		"it cannot see xfrm (that needs bpf_cast_to_kern_ctx(), Linux 6.2, and "
		"CAP_PERFMON), so leave this namespace to the kernel's forwarding.\n", line,
		n > named ? "; and more" : "");
	return -EPERM;
}

/* hook xdp redirects around the egress queueing of the set's other
 * devices. Refuse where this command would make an XDP member skip some,
 * unless "qdisc bypass": its own XDP members skip the other members',
 * XDP members attached earlier without the keyword skip its new ones'. */
static int rt_check_egress(struct xf_nl *nl, struct xf_inst *in, const struct rt_dev *d, int n,
			   const struct xf_route_attach_opts *o)
{
	int ifx[RT_MAX_PINNED], npin, i, j, k, ns = 0, named = 0, fd, new_xdp = 0, old_xdp = 0;
	struct xf_route_skip s[XF_ROUTE_SKIP_MAX];
	int old_xdp_if = 0, new_xdp_if = 0;
	struct xf_route_ifcfg cfg;
	char line[1024] = "";
	uint32_t key;
	bool new;

	if (o->qdisc_bypass)
		return 0;
	for (i = 0; i < n; i++)
		if (d[i].hook == XF_HOOK_XDP && !new_xdp++)
			new_xdp_if = d[i].l.ifindex;
	npin = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	for (i = 0; i < npin; i++) {
		key = ifx[i];
		fd = rt_link_open(ifx[i]);
		if (fd < 0)
			continue;
		if (rt_on_xdp_link(fd) && !bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &key, &cfg) &&
		    !(cfg.flags & XF_RTIF_QDISC_BYPASS) && !old_xdp++)
			old_xdp_if = ifx[i];
		close(fd);
	}
	/* Each device of the set after the command, the new ones first: its
	 * egress counts where an XDP member other than itself would skip it. */
	for (i = 0; i < n + npin; i++) {
		new = i < n;
		key = new ? d[i].l.ifindex : ifx[i - n];
		for (j = 0; !new && j < n && (uint32_t)d[j].l.ifindex != key; j++)
			;
		if (!new && j < n)
			continue;	/* a member named again */
		if (!(new_xdp > 1 || (new_xdp && new_xdp_if != (int)key) ||
		      (new && (old_xdp > 1 || (old_xdp && old_xdp_if != (int)key)))))
			continue;
		k = rt_skip_egress(nl, key, s, XF_ROUTE_SKIP_MAX, &ns);
		if (k) {
			fprintf(stderr, "Error: cannot read the egress queueing of ifindex %u: "
				"%s.\n", key, strerror(-k));
			return k;
		}
	}
	if (!ns)
		return 0;
	rt_skip_line(line, sizeof(line), s, ns < XF_ROUTE_SKIP_MAX ? ns : XF_ROUTE_SKIP_MAX,
		     &named);
	fprintf(stderr, "Error: hook xdp would bypass egress queueing: %s%s; use hook tc, which "
		"keeps it, or \"qdisc bypass\" to bypass it knowingly.\n", line,
		ns > named ? "; and more" : "");
	return -EPERM;
}

int xf_route_attach(struct xf_nl *nl, const char *const *devs, int n,
		    const struct xf_route_attach_opts *o)
{
	struct rt_dev d[RT_MAX_DEVS];
	struct xf_chain_keep keep;
	struct xf_inst in;
	int i, j, err;

	if (n > RT_MAX_DEVS)
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
	/* lookup flowtable: the kernel's own flowtable runs at ingress, as
	 * early as tc would; only XDP comes before it. */
	if (o->flowtable && o->hook == XF_HOOK_TC) {
		fprintf(stderr, "Error: lookup flowtable is for hook xdp: on hook tc the "
			"kernel's own flowtable already forwards at ingress.\n");
		return -XF_EUSAGE;
	}
	/* Everything that can be checked is checked before anything changes. */
	if (o->flowtable && (err = rt_check_flowtable()))
		return err;
	for (i = 0; i < n; i++) {
		err = rt_resolve(nl, &d[i], o, d, i);
		if (!err)
			err = rt_check_foreign(nl, &d[i]);
		if (err)
			return err;
	}
	/* What -force may override comes after what it may not. */
	for (i = 0; i < n; i++) {
		if (d[i].hook != XF_HOOK_XDP)
			continue;
		/* The link the program runs on: a VLAN device's parent. */
		err = rt_check_peer_offload(nl, d[i].cl.name, &d[i].cl, o->force);
		if (err)
			return err;
	}
	/* In flowtable mode netfilter decides what is forwarded. */
	if (!o->nf_bypass && !o->flowtable) {
		err = rt_nf_refuse(devs, n, o->family);
		if (err)
			return err;
	}
	err = xf_inst_get(&in, &rt_inst_desc);
	if (err)
		return err;
	err = rt_check_xfrm(&in, o) ?: rt_check_egress(nl, &in, d, n, o);
	/* xf_route_tc only for a command with a device on hook tc: hook xdp
	 * runs route's XDP program in its chains. */
	for (i = 0; i < n && !err; i++)
		if (d[i].hook == XF_HOOK_TC)
			err = rt_inst_tc(&in, rt_inst_kctx(&in));
	if (err) {
		xf_inst_drop_added(&in);
		if (in.created)
			xf_inst_remove(&in);
		xf_inst_close(&in);
		return err;
	}
	rt_chain_keep(&keep);
	for (i = 0; i < n; i++) {
		err = rt_attach_one(nl, &in, &d[i], o, o->hook == XF_HOOK_AUTO, &keep);
		if (err)
			break;
	}
	if (!err) {
		err = rt_refresh(&in, false);
		if (err)
			fprintf(stderr, "Error: cannot refresh the forwarding set: %s.\n",
				strerror(-err));
	}
	if (err) {
		for (i = i < n ? i : n - 1; i >= 0; i--)
			rt_undo_one(nl, &in, &d[i]);
		rt_bond_prune(&in);
		xf_inst_drop_added(&in);
		if (in.created)
			xf_inst_remove(&in);
	}
	xf_chain_keep_close(&keep);
	xf_inst_close(&in);
	return err;
}
