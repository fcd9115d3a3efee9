// SPDX-License-Identifier: GPL-2.0
/* stats: one collector over the readers of route, chain and redirect, so a
 * counter reads the same in "stats" as in each object's "show". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "addr.h"
#include "chain/chain.h"
#include "nl_link.h"
#include "redirect/redirect.h"
#include "route/route.h"
#include "stats/stats.h"
#include "xbpf.h"

static const char *const obj_names[XF_STATS_NOBJ] = {
	[XF_STATS_ROUTE] = "route", [XF_STATS_CHAIN] = "chain",
	[XF_STATS_REDIRECT] = "redirect",
};

const char *xf_stats_obj_name(int obj)
{
	return obj >= 0 && obj < XF_STATS_NOBJ ? obj_names[obj] : "?";
}

struct collect {
	struct xf_stats *s;
	bool percpu;
	int err;
};

/* Append a record; percpu (n per CPU, packets at [0], bytes at [1] when
 * n is 2) is copied when wanted. */
static struct xf_stats_rec *add(struct collect *c, int ifindex, const char *dev, int obj,
				const char *item, const char *key, const uint64_t *percpu,
				int stride, int off, bool has_bytes)
{
	struct xf_stats *s = c->s;
	struct xf_stats_rec *r;
	int i;

	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;
		struct xf_stats_rec *nr = realloc(s->r, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		s->r = nr;
		s->cap = cap;
	}
	r = &s->r[s->n];
	memset(r, 0, sizeof(*r));
	r->ifindex = ifindex;
	snprintf(r->dev, sizeof(r->dev), "%s", dev && dev[0] ? dev : "-");
	r->object = obj;
	snprintf(r->item, sizeof(r->item), "%s", item);
	r->key = key;
	r->has_bytes = has_bytes;
	r->seq = s->n;
	if (c->percpu && percpu) {
		r->percpu = calloc((size_t)s->ncpu * 2, sizeof(uint64_t));
		if (!r->percpu)
			return NULL;
		for (i = 0; i < s->ncpu; i++) {
			r->percpu[i * 2] = percpu[(size_t)i * stride + off];
			if (has_bytes)
				r->percpu[i * 2 + 1] = percpu[(size_t)i * stride + off + 1];
		}
	}
	s->n++;
	return r;
}

static int route_cb(const struct xf_route_iface *ri, void *arg)
{
	struct collect *c = arg;
	struct xf_stats_rec *r;
	int reason;

	for (reason = 0; reason < XF_RR_MAX; reason++) {
		const uint64_t *pc = ri->percpu ? ri->percpu + (size_t)reason * ri->ncpu * 2 : NULL;

		r = add(c, ri->ifindex, ri->name, XF_STATS_ROUTE, xf_hook_name(ri->hook),
			xf_route_reason_name(reason), pc, 2, 0, true);
		if (!r)
			return -ENOMEM;
		r->pass = reason != XF_RR_FORWARDED;
		r->packets = ri->stat[reason].packets;
		r->bytes = ri->stat[reason].bytes;
		r->prog_id = ri->prog_id;
	}
	return 0;
}

static int chain_cb(const struct xf_chain_info *ci, void *arg)
{
	struct collect *c = arg;
	struct xf_stats_rec *r;
	uint32_t i, v;

	for (i = 0; i < ci->desc.n; i++) {
		const struct xf_chain_desc_member *m = &ci->desc.m[i];

		for (v = 0; v < XF_CHAIN_NV; v++) {
			r = add(c, ci->ifindex, ci->dev, XF_STATS_CHAIN, m->name,
				xf_chain_verdict_name(v), ci->percpu, XF_CHAIN_CNT_N,
				m->slot * XF_CHAIN_NV + v, false);
			if (!r)
				return -ENOMEM;
			r->packets = ci->cnt[m->slot][v];
			r->prog_id = ci->prog_id;
		}
	}
	return 0;
}

static int redirect_cb(const struct xf_redirect_info *ri, void *arg)
{
	struct collect *c = arg;
	struct xf_stats_rec *r;
	char item[80], m[64];

	snprintf(item, sizeof(item), "%s %s %s->%s", ri->dir ? "egress" : "ingress",
		 ri->has_match ? xf_addr_str(&ri->match, true, m, sizeof(m)) : "all",
		 xf_redirect_mode_name(ri->mode), ri->target);
	r = add(c, ri->ifindex, ri->dev, XF_STATS_REDIRECT, item, "matched", ri->percpu, 2, 0,
		true);
	if (!r)
		return -ENOMEM;
	r->packets = ri->packets;
	r->bytes = ri->bytes;
	r->prog_id = ri->prog_id;
	r->target_ifindex = ri->target_ifindex;
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct xf_stats_rec *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->object != y->object)
		return x->object - y->object;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool wants(const struct xf_stats_filter *f, int obj)
{
	return !f->objects || (f->objects & (1U << obj));
}

/* The objects f asks for, on its device (ifindex, 0: all) or all: route's
 * members to route_fn, the chains to chain_fn, and the device filter to
 * redirect_fn, each with arg, in that order, until one fails. 0 or the
 * first -errno. */
static int walk(struct xf_nl *nl, const struct xf_stats_filter *f, int ifindex,
		int (*route_fn)(const struct xf_route_iface *ri, void *arg),
		int (*chain_fn)(const struct xf_chain_info *ci, void *arg),
		int (*redirect_fn)(struct xf_nl *nl, const char *dev, void *arg), void *arg)
{
	int err = 0;

	if (wants(f, XF_STATS_ROUTE))
		err = xf_route_list(nl, ifindex, route_fn, arg);
	if (!err && wants(f, XF_STATS_CHAIN))
		err = xf_chain_list(nl, f->dev, chain_fn, arg);
	if (!err && wants(f, XF_STATS_REDIRECT))
		err = redirect_fn(nl, f->dev, arg);
	return err;
}

static int redirect_list(struct xf_nl *nl, const char *dev, void *arg)
{
	return xf_redirect_list(nl, dev, redirect_cb, arg);
}

int xf_stats_collect(struct xf_nl *nl, const struct xf_stats_filter *f, struct xf_stats *s)
{
	struct collect c = { .s = s, .percpu = f->percpu };
	struct xf_link l = { .ifindex = 0 };
	int err;

	memset(s, 0, sizeof(*s));
	s->ncpu = xf_ncpus();
	if (f->dev && xf_link_find(nl, f->dev, &l))
		return -ENODEV;
	err = walk(nl, f, l.ifindex, route_cb, chain_cb, redirect_list, &c);
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr, "Error: cannot read the counters: %s.\n", strerror(-err));
		xf_stats_free(s);
		return err;
	}
	if (s->n)
		qsort(s->r, s->n, sizeof(*s->r), rec_cmp);
	return 0;
}

static int devices_add(int *ifindex, int n, int max, int i)
{
	int k, j;

	if (i <= 0)
		return n;
	for (k = 0; k < n && ifindex[k] < i; k++)
		;
	if ((k < n && ifindex[k] == i) || n == max)
		return n;
	for (j = n; j > k; j--)
		ifindex[j] = ifindex[j - 1];
	ifindex[k] = i;
	return n + 1;
}

int xf_stats_devices(const struct xf_stats *s, int *ifindex, int max)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++) {
		n = devices_add(ifindex, n, max, s->r[i].ifindex);
		n = devices_add(ifindex, n, max, s->r[i].target_ifindex);
	}
	return n;
}

void xf_stats_free(struct xf_stats *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->r[i].percpu);
	free(s->r);
	memset(s, 0, sizeof(*s));
}

const struct xf_stats_rec *xf_stats_find(const struct xf_stats *s,
					 const struct xf_stats_rec *r)
{
	int i;

	for (i = 0; i < s->n; i++) {
		const struct xf_stats_rec *q = &s->r[i];

		if (q->ifindex == r->ifindex && q->object == r->object &&
		    !strcmp(q->key, r->key) && !strcmp(q->item, r->item))
			return q;
	}
	return NULL;
}

/* What reset walks: the interfaces the listers report. */
struct reset_walk {
	struct xf_nl *nl;
	int err;
};

static int route_reset_cb(const struct xf_route_iface *ri, void *arg)
{
	struct reset_walk *w = arg;
	int err = xf_route_stats_reset(ri->ifindex);

	if (err && err != -ENOENT && !w->err)
		w->err = err;
	return 0;
}

static int chain_reset_cb(const struct xf_chain_info *ci, void *arg)
{
	struct reset_walk *w = arg;
	int err = xf_chain_counters_reset(w->nl, ci->dev);

	if (err && err != -ENOENT && !w->err)
		w->err = err;
	return 0;
}

static int redirect_reset(struct xf_nl *nl, const char *dev, void *arg)
{
	(void)arg;
	return xf_redirect_reset(nl, dev);
}

int xf_stats_reset(struct xf_nl *nl, const struct xf_stats_filter *f)
{
	struct reset_walk w = { .nl = nl };
	struct xf_link l = { .ifindex = 0 };
	int err;

	if (f->dev && xf_link_find(nl, f->dev, &l))
		return -ENODEV;
	err = walk(nl, f, l.ifindex, route_reset_cb, chain_reset_cb, redirect_reset, &w) ?:
	      w.err;
	if (err)
		fprintf(stderr, "Error: cannot reset the counters: %s.\n", strerror(-err));
	return err;
}

int xf_stats_runtime_enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

int xf_stats_prog_runtime(uint32_t prog_id, uint64_t *run_ns, uint64_t *run_cnt,
			  char *name, size_t len)
{
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);
	int fd, err = 0;

	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_prog_get_info_by_fd(fd, &info, &ilen)) {
		err = -errno;
	} else {
		*run_ns = info.run_time_ns;
		*run_cnt = info.run_cnt;
		snprintf(name, len, "%s", info.name);
	}
	close(fd);
	return err;
}
