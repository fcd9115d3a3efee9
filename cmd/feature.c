// SPDX-License-Identifier: GPL-2.0
/* xfwd feature: what this kernel and each interface can do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "nf.h"
#include "nl_link.h"
#include "out.h"
#include "iface_probe.h"
#include "probe.h"
#include "route/route.h"

struct feature_show_opts {
	const char *dev;
};

static int feature_show_parse(struct xf_args *a, struct feature_show_opts *o)
{
	return arg_dev_filter(a, &o->dev);
}

static void feature_print_kernel(struct xf_out *o, const struct xf_kernel_features *kf)
{
	const struct xf_probe *p;
	const char *key;
	int i;

	out_obj_begin(o, "kernel");
	for (i = 0; (p = xf_probe_kernel_at(kf, i, &key)); i++) {
		out_obj_begin(o, key);
		out_bool(o, "supported", p->yes);
		out_str(o, "detail", p->why);
		out_obj_end(o);
	}
	out_obj_end(o);
}

/* Netfilter on this namespace's forwarding path: what a fast path that
 * forwards around it would bypass. */
static int feature_print_nf(struct xf_out *o)
{
	struct xf_nf_set s = { 0 };
	int i, err;

	err = xf_nf_scan(&s);
	if (err) {
		fprintf(stderr, "Error: cannot read netfilter's state: %s.\n", strerror(-err));
		return err;
	}
	out_obj_begin(o, "netfilter");
	out_bool(o, "forwarding_path", s.n > 0);
	out_str(o, "unread", s.unread[0] ? s.unread : NULL);
	out_list_begin(o, "chains");
	for (i = 0; i < s.n; i++) {
		out_row_begin(o);
		cmd_show_nf_chain(o, &s.c[i]);
		out_row_end(o);
	}
	out_list_end(o);
	out_obj_end(o);
	xf_nf_free(&s);
	return 0;
}

static void feature_print_iface(struct xf_out *o, const struct xf_iface_features *f)
{
	char flags[128];

	out_row_begin(o);
	out_str(o, "dev", f->name);
	out_int(o, "ifindex", f->ifindex);
	out_str(o, "kind", f->kind);
	out_bool(o, "xdp_native", f->xdp_native);
	out_bool(o, "xdp_generic", f->xdp_generic);
	out_str(o, "xdp_attached", xf_xdp_mode_name(f->xdp_attached));
	out_str(o, "xdp_features", xf_xdp_features_str(f->xdp_features, flags, sizeof(flags)));
	out_bool(o, "redirect_target", f->redirect_target.yes);
	out_str(o, "detail", f->redirect_target.why);
	out_row_end(o);
}

/* The links are read first and probed after the dump: a probe must not
 * talk on the socket while the dump is still being read from it. */
struct link_vec {
	struct xf_link *v;
	size_t n, cap;
};

static int feature_collect(const struct xf_link *l, void *arg)
{
	struct link_vec *lv = arg;
	struct xf_link *nv;

	if (lv->n == lv->cap) {
		lv->cap = lv->cap ? lv->cap * 2 : 16;
		nv = realloc(lv->v, lv->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		lv->v = nv;
	}
	lv->v[lv->n++] = *l;
	return 0;
}

static int feature_show(struct xfwd *x, struct xf_args *a)
{
	struct feature_show_opts opts = { 0 };
	struct xf_iface_features f;
	struct xf_kernel_features kf;
	struct link_vec lv = { 0 };
	struct xf_nl *nl;
	size_t i;
	int err;

	err = feature_show_parse(a, &opts) ?: xfwd_nl_get(x, &nl);
	if (err)
		return err;
	if (opts.dev) {
		err = feature_collect(&(struct xf_link){ 0 }, &lv);
		if (!err)
			err = xf_link_find(nl, opts.dev, &lv.v[0]);
	} else {
		err = xf_link_list(nl, feature_collect, &lv);
		if (err)
			fprintf(stderr, "Error: cannot list interfaces: %s.\n", strerror(-err));
	}
	if (err)
		goto out;

	xf_probe_kernel(&kf, XF_PROBE_ALL);
	xf_route_probe_flowtable(&kf.xdp_flowtable);
	feature_print_kernel(x->out, &kf);
	err = feature_print_nf(x->out);
	if (err)
		goto out;
	out_list_begin(x->out, "interfaces");
	for (i = 0; i < lv.n; i++) {
		/* A device whose xdp_features cannot be read is still listed,
		 * with the reason in its detail. */
		xf_probe_iface_link(&lv.v[i], &f);
		feature_print_iface(x->out, &f);
	}
	out_list_end(x->out);
	xf_route_nf_warn(nl);
out:
	free(lv.v);
	return err;
}

static const struct cmd feature_cmds[] = {
	{ "show", feature_show, "[ dev IFNAME ]", 0 },
	{ }
};

const struct object feature_object = {
	.name = "feature", .cmds = feature_cmds, .dflt = "show",
	.summary = "what this kernel and each interface can do",
};
