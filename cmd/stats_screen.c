// SPDX-License-Identifier: GPL-2.0
/* xfwd stats watch on a terminal: what the screen (screen.c) shows. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "stats.h"
#include "stats/xdptrace.h"

struct screen_row {
	const struct xf_stats_rec *r;
	uint64_t pps, bps;
};

/* By rate, highest first; then by bit rate; then in the collector's order. */
static int screen_row_cmp(const void *a, const void *b)
{
	const struct screen_row *x = a, *y = b;

	if (x->pps != y->pps)
		return x->pps < y->pps ? 1 : -1;
	if (x->bps != y->bps)
		return x->bps < y->bps ? 1 : -1;
	return x->r->seq < y->r->seq ? -1 : x->r->seq > y->r->seq;
}

/* Named counts for a line of the tail, highest first. */
struct screen_item {
	char name[96];
	uint64_t v;
};

static int screen_item_cmp(const void *a, const void *b)
{
	const struct screen_item *x = a, *y = b;

	return x->v < y->v ? 1 : x->v > y->v ? -1 : strcmp(x->name, y->name);
}

static int screen_items_line(struct screen_lines *l, const char *title,
			     struct screen_item *it, int n, uint64_t total)
{
	char line[512], num[32];
	int len, i;

	qsort(it, n, sizeof(*it), screen_item_cmp);
	len = snprintf(line, sizeof(line), "%s", title);
	for (i = 0; i < n && it[i].v && len < (int)sizeof(line); i++) {
		out_human(it[i].v, OUT_COUNT, num, sizeof(num));
		if (total)
			len += snprintf(line + len, sizeof(line) - len, "  %s %s (%.1f%%)",
					it[i].name, num, 100.0 * it[i].v / total);
		else
			len += snprintf(line + len, sizeof(line) - len, "  %s %s", it[i].name, num);
	}
	if (!i)
		snprintf(line + len, sizeof(line) - len, "  none");
	return screen_add(l, "%s", line);
}

/* Add to it (room for max) the count v under name, summing equal names. */
static int screen_item_add(struct screen_item *it, int n, int max, const char *name, uint64_t v)
{
	int i;

	for (i = 0; i < n && strcmp(it[i].name, name); i++)
		;
	if (i == n) {
		if (n == max)
			return n;
		snprintf(it[n].name, sizeof(it[n].name), "%s", name);
		it[n].v = 0;
		n++;
	}
	it[i].v += v;
	return n;
}

/* The device counters that count a loss. */
static bool screen_dev_drop(bool std, int k)
{
	if (std)
		return k == XF_DEV_RX_DROPPED || k == XF_DEV_TX_DROPPED ||
		       k == XF_DEV_RX_ERRORS || k == XF_DEV_TX_ERRORS;
	return k == XF_DEV_XDP_DROPS || k == XF_DEV_XDP_TX_ERRORS ||
	       k == XF_DEV_XDP_XMIT_ERRORS || k == XF_DEV_RX_QUEUE_DROPS;
}

/* The counters of device d when the screen first saw it (d itself the
 * first time). NULL on ENOMEM. */
static const struct xf_devstats *screen_dev_base(struct stats_watch *w,
						 const struct xf_devstats *d)
{
	struct stats_dev_base *nb;
	int b;

	for (b = 0; b < w->nbase; b++)
		if (w->base[b].ifindex == d->ifindex)
			return &w->base[b].d;
	nb = realloc(w->base, (b + 1) * sizeof(*nb));
	if (!nb)
		return NULL;
	w->base = nb;
	nb[b].ifindex = d->ifindex;
	nb[b].d = *d;
	w->nbase++;
	return &nb[b].d;
}

/* The screen's start: the devices' counters to count from. */
void screen_dev_seed(struct stats_watch *w)
{
	int ifindex[STATS_MAX_DEVS], nd, i;
	struct xf_devstats d;

	nd = xf_stats_devices(&w->first, ifindex, STATS_MAX_DEVS);
	for (i = 0; i < nd; i++)
		if (!xf_devstats_read(w->nl, ifindex[i], &d))
			screen_dev_base(w, &d);
}

/* The drops of the devices since the screen began (or first saw them). */
static int screen_dev_drops(struct stats_watch *w, struct screen_item *it, int n, int max)
{
	int ifindex[STATS_MAX_DEVS], nd, i, k;
	struct xf_devstats d;
	char name[96];

	nd = xf_stats_devices(&w->cur, ifindex, STATS_MAX_DEVS);
	for (i = 0; i < nd; i++) {
		const struct xf_devstats *base;

		if (xf_devstats_read(w->nl, ifindex[i], &d))
			continue;
		base = screen_dev_base(w, &d);
		if (!base)
			return n;
		for (k = 0; k < XF_DEV_NSTD; k++) {
			if (!d.has_std || !screen_dev_drop(true, k))
				continue;
			snprintf(name, sizeof(name), "%s %s", d.dev, xf_devstats_std_name(k));
			n = screen_item_add(it, n, max, name, stats_delta(d.std[k], base->std[k]));
		}
		for (k = 0; k < XF_DEV_NXDP; k++) {
			if (!d.has[k] || !screen_dev_drop(false, k))
				continue;
			snprintf(name, sizeof(name), "%s %s", d.dev, xf_devstats_xdp_name(k));
			n = screen_item_add(it, n, max, name, stats_delta(d.xdp[k], base->xdp[k]));
		}
	}
	return n;
}

#define SCREEN_ITEMS 64

struct screen_trace {
	struct stats_watch *w;
	struct screen_item *it;
	int n;
};

static const char *const xdp_actions[] = { "aborted", "drop", "pass", "tx", "redirect" };

static int screen_trace_cb(int ifindex, int tp, int code, uint64_t count, void *arg)
{
	struct screen_trace *st = arg;
	char dev[IF_NAMESIZE], name[96], num[16];
	const char *what;

	if (!if_indextoname(ifindex, dev))
		snprintf(dev, sizeof(dev), "if%d", ifindex);
	if (tp == XF_XDPTRACE_REDIRECT_ERR) {
		what = code < 0 ? strerrorname_np(-code) : NULL;
		if (!what) {
			snprintf(num, sizeof(num), "%d", code);
			what = num;
		}
		snprintf(name, sizeof(name), "%s redirect_err %s", dev, what);
	} else {
		if (code >= 0 && code < (int)(sizeof(xdp_actions) / sizeof(xdp_actions[0]))) {
			what = xdp_actions[code];
		} else {
			snprintf(num, sizeof(num), "action %d", code);
			what = num;
		}
		snprintf(name, sizeof(name), "%s exception %s", dev, what);
	}
	st->n = screen_item_add(st->it, st->n, SCREEN_ITEMS, name, count);
	return 0;
}

/* The kernel's XDP errors since the screen began, or why not counted. */
static int screen_trace(struct stats_watch *w, struct screen_lines *tail, struct screen_item *it)
{
	struct screen_trace st = { .w = w, .it = it };

	if (!w->trace)
		return screen_add(tail, "xdp errors: not counted: %s: %s", w->trace_why,
				  strerrorname_np(-w->trace_err) ?: "?");
	if (xf_xdptrace_walk(w->trace, screen_trace_cb, &st))
		return screen_add(tail, "xdp errors: cannot read the counts");
	return screen_items_line(tail, "xdp errors since start:", it, st.n, 0);
}

/* The tail: route's pass reasons and every drop, since the screen began. */
static int screen_tail(struct stats_watch *w, struct screen_lines *tail)
{
	struct screen_item *it;
	uint64_t passed = 0, fwd = 0;
	int i, n = 0, err;

	it = calloc(SCREEN_ITEMS, sizeof(*it));
	if (!it)
		return -ENOMEM;
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i], *p = xf_stats_find(&w->first, r);
		uint64_t dp = stats_delta(r->packets, p ? p->packets : 0);

		if (r->object != XF_STATS_ROUTE)
			continue;
		if (!r->pass) {
			fwd += dp;
			continue;
		}
		passed += dp;
		n = screen_item_add(it, n, SCREEN_ITEMS, r->key, dp);
	}
	err = screen_items_line(tail, "passed since start:", it, n, fwd + passed);
	n = 0;
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i], *p = xf_stats_find(&w->first, r);
		char name[96];

		if (r->object != XF_STATS_CHAIN || (strcmp(r->key, "drop") && strcmp(r->key, "aborted")))
			continue;
		snprintf(name, sizeof(name), "%s %.40s %s", r->dev, r->item, r->key);
		n = screen_item_add(it, n, SCREEN_ITEMS, name,
				    stats_delta(r->packets, p ? p->packets : 0));
	}
	n = screen_dev_drops(w, it, n, SCREEN_ITEMS);
	err = err ?: screen_items_line(tail, "drops since start:", it, n, 0);
	err = err ?: screen_trace(w, tail, it);
	free(it);
	return err;
}

/* -s: one line, "dev object name ns" per program of w->rates. */
static void screen_programs(struct stats_watch *w, struct screen_lines *l)
{
	char line[512];
	int i, len;

	len = snprintf(line, sizeof(line), "ns per packet:");
	for (i = 0; i < w->nrates; i++) {
		const struct stats_prog_rate *pr = &w->rates[i];

		if (len < (int)sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, "  %s %s %s %.0f",
					pr->r->dev, xf_stats_obj_name(pr->r->object), pr->name,
					pr->runs ? (double)pr->ns / pr->runs : 0);
	}
	screen_add(l, "%s", line);
}

static void widen(int *width, const char *s)
{
	int n = strlen(s);

	if (n > *width)
		*width = n;
}

/* One frame: a title, the counters that moved sorted by rate, and the
 * tail, in human units whatever -h says. */
int watch_screen(struct stats_watch *w, uint32_t n, double dt, double total)
{
	struct screen_lines head = { 0 }, body = { 0 }, tail = { 0 };
	int wd = 3, wo = 6, wi = 4, i, nr = 0, err;
	struct screen_row *rows;
	char pps[32], bps[32];

	rows = calloc(w->cur.n + 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i], *p = xf_stats_find(&w->prev, r);
		uint64_t dp = stats_delta(r->packets, p ? p->packets : 0);
		uint64_t db = stats_delta(r->bytes, p ? p->bytes : 0);

		if ((!dp && r->object == XF_STATS_CHAIN) || !stats_shown(r, dp))
			continue;
		rows[nr].r = r;
		rows[nr].pps = stats_rate(dp / dt);
		rows[nr].bps = stats_rate(db * 8 / dt);
		nr++;
		widen(&wd, r->dev);
		widen(&wo, xf_stats_obj_name(r->object));
		widen(&wi, r->item);
	}
	qsort(rows, nr, sizeof(*rows), screen_row_cmp);
	err = screen_add(&head, "xfwd stats watch: interval %u, every %.3g s, %.1f s since start",
			 n, w->o.interval, total);
	/* The rates first: a narrow terminal cuts the long redirect items. */
	err = err ?: screen_add(&head, "%8s  %9s  %-*s  %-*s  %-*s  %s", "PPS", "BPS", wd, "DEV",
				wo, "OBJECT", wi, "ITEM", "KEY");
	for (i = 0; !err && i < nr; i++) {
		const struct xf_stats_rec *r = rows[i].r;

		out_human(rows[i].pps, OUT_COUNT, pps, sizeof(pps));
		out_human(rows[i].bps, OUT_BITRATE, bps, sizeof(bps));
		err = screen_add(&body, "%8s  %9s  %-*s  %-*s  %-*s  %s", pps, bps, wd, r->dev,
				 wo, xf_stats_obj_name(r->object), wi, r->item, r->key);
	}
	if (!err && !nr)
		err = screen_add(&body, "(no counter moved)");
	err = err ?: screen_tail(w, &tail);
	if (!err && w->runtime_fd >= 0)
		screen_programs(w, &tail);
	if (!err)
		screen_draw(&w->scr, &head, &body, &tail);
	screen_lines_free(&head);
	screen_lines_free(&body);
	screen_lines_free(&tail);
	free(rows);
	return err;
}
