// SPDX-License-Identifier: GPL-2.0
/* xfwd stats: every counter at once, live rates and the cost per packet. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "devstats.h"
#include "route/route.h"
#include "out.h"
#include "screen.h"
#include "stats/stats.h"
#include "xdptrace.h"

static const char *const obj_words[] = { "route", "chain", "redirect", NULL };

/* The one global: set by SIGINT/SIGTERM so that watch ends its loop, as a
 * signal handler cannot be given the command's context. */
static volatile sig_atomic_t stats_stop;

static void stats_on_signal(int sig)
{
	(void)sig;
	stats_stop = 1;
}

struct stats_opts {
	struct xf_stats_filter f;
	double interval;	/* watch: seconds */
	uint32_t count;		/* watch: intervals; 0 until a signal */
};

enum { KW_DEV, KW_OBJ, KW_INTERVAL, KW_COUNT };

static int stats_parse(struct xf_args *a, struct stats_opts *o, bool watch)
{
	int idx, err;

	o->interval = 1;
	while (arg_more(a)) {
		if (arg_kw(a, "dev")) {
			err = arg_once(a, KW_DEV, "dev") ?: arg_ifname(a, "IFNAME", &o->f.dev);
		} else if (watch && arg_kw(a, "interval")) {
			const char *v;
			char *end;

			err = arg_once(a, KW_INTERVAL, "interval") ?: arg_str(a, "SECONDS", &v);
			if (err)
				return err;
			errno = 0;
			o->interval = strtod(v, &end);
			if (errno || end == v || *end || !(o->interval >= 0.001) ||
			    o->interval > 86400)
				return arg_invalid(a, "SECONDS", v);
		} else if (watch && arg_kw(a, "count")) {
			err = arg_once(a, KW_COUNT, "count") ?:
			      arg_u32_range(a, "N", 1, UINT32_MAX, &o->count);
		} else {
			const char *w = arg_peek(a);

			for (idx = 0; obj_words[idx] && strcmp(w, obj_words[idx]); idx++)
				;
			if (!obj_words[idx])
				return arg_unexpected(a);
			arg_next(a);
			err = arg_once(a, KW_OBJ, "object");
			o->f.objects |= 1U << idx;
		}
		if (err)
			return err;
	}
	return 0;
}

/* route's pass reasons are shown only where they counted, as in route show. */
static bool stats_shown(const struct xf_stats_rec *r, uint64_t packets)
{
	return !r->pass || packets;
}

/* -s in JSON: the counter's values per CPU, inside its row. */
static void stats_percpu(struct xf_out *o, const struct xf_stats *s, const struct xf_stats_rec *r)
{
	int c;

	if (!r->percpu)
		return;
	out_list_begin(o, "percpu");
	for (c = 0; c < s->ncpu; c++) {
		out_row_begin(o);
		out_int(o, "cpu", c);
		out_u64(o, "packets", r->percpu[c * 2]);
		out_unit(o, "bytes", r->percpu[c * 2 + 1], OUT_BYTES);
		out_row_end(o);
	}
	out_list_end(o);
}

/* -s in tables: a block of its own after the counters, so that their
 * table stays whole: per counter, the CPUs that counted, the counter
 * named on its first line only. */
static void stats_percpu_block(struct xf_out *o, const struct xf_stats *s)
{
	int i, c;

	out_list_begin(o, "per-cpu");
	for (i = 0; i < s->n; i++) {
		const struct xf_stats_rec *r = &s->r[i];
		bool first = true;

		if (!r->percpu || !stats_shown(r, r->packets))
			continue;
		for (c = 0; c < s->ncpu; c++) {
			if (!r->percpu[c * 2] && !r->percpu[c * 2 + 1])
				continue;
			out_row_begin(o);
			out_str(o, "dev", first ? r->dev : "");
			out_str(o, "object", first ? xf_stats_obj_name(r->object) : "");
			out_str(o, "item", first ? r->item : "");
			out_str(o, "key", first ? r->key : "");
			out_int(o, "cpu", c);
			out_u64(o, "packets", r->percpu[c * 2]);
			out_unit(o, "bytes", r->percpu[c * 2 + 1], OUT_BYTES);
			out_row_end(o);
			first = false;
		}
	}
	out_list_end(o);
}

/* One row per counter, in the collector's order: by interface, then
 * object, then item, then key. In tables a group's dev, object and item
 * are printed where it starts only, so the groups stand out. */
static void stats_print(struct xf_out *o, const struct xf_stats *s)
{
	const struct xf_stats_rec *prev = NULL;
	bool table = !out_is_json(o);
	int i;

	out_list_begin(o, "counters");
	for (i = 0; i < s->n; i++) {
		const struct xf_stats_rec *r = &s->r[i];
		bool same_if, same_obj, same_item;

		if (!stats_shown(r, r->packets))
			continue;
		same_if = table && prev && prev->ifindex == r->ifindex;
		same_obj = same_if && prev->object == r->object;
		same_item = same_obj && !strcmp(prev->item, r->item);
		out_row_begin(o);
		out_str(o, "dev", same_if ? "" : r->dev);
		if (same_if)
			out_str(o, "ifindex", "");
		else
			out_int(o, "ifindex", r->ifindex);
		out_str(o, "object", same_obj ? "" : xf_stats_obj_name(r->object));
		out_str(o, "item", same_item ? "" : r->item);
		out_str(o, "key", r->key);
		out_u64(o, "packets", r->packets);
		out_unit(o, "bytes", r->bytes, OUT_BYTES);
		out_int(o, "prog_id", r->prog_id);
		if (!table)
			stats_percpu(o, s, r);
		out_row_end(o);
		prev = r;
	}
	out_list_end(o);
	if (table && s->n && s->r[0].percpu)
		stats_percpu_block(o, s);
}

#define STATS_MAX_DEVS 256

/* One device's counters: in JSON an object with a key each; in tables a
 * row each, the device named where its group starts. */
static void stats_device(struct xf_out *o, const struct xf_devstats *d)
{
	bool table = !out_is_json(o), first = true;
	int i;

	if (!table) {
		out_row_begin(o);
		out_str(o, "dev", d->dev);
		out_int(o, "ifindex", d->ifindex);
		out_str(o, "driver", d->driver);
		for (i = 0; d->has_std && i < XF_DEV_NSTD; i++)
			out_u64(o, xf_devstats_std_name(i), d->std[i]);
		for (i = 0; i < XF_DEV_NXDP; i++)
			if (d->has[i])
				out_u64(o, xf_devstats_xdp_name(i), d->xdp[i]);
		out_row_end(o);
		return;
	}
	for (i = 0; i < XF_DEV_NSTD + XF_DEV_NXDP; i++) {
		bool std = i < XF_DEV_NSTD;
		int k = std ? i : i - XF_DEV_NSTD;

		if (std ? !d->has_std : !d->has[k])
			continue;
		out_row_begin(o);
		out_str(o, "dev", first ? d->dev : "");
		out_str(o, "driver", first ? (d->driver[0] ? d->driver : "-") : "");
		out_str(o, "counter", std ? xf_devstats_std_name(k) : xf_devstats_xdp_name(k));
		out_u64(o, "value", std ? d->std[k] : d->xdp[k]);
		out_row_end(o);
		first = false;
	}
}

/* The drivers' and the kernel's own counters of every device s involves:
 * what happened to the packets after the programs' verdict. */
static void stats_devices(struct xf_out *o, struct xf_nl *nl, const struct xf_stats *s)
{
	int ifindex[STATS_MAX_DEVS], n, i;
	struct xf_devstats d;

	n = xf_stats_devices(s, ifindex, STATS_MAX_DEVS);
	out_list_begin(o, "devices");
	for (i = 0; i < n; i++)
		if (!xf_devstats_read(nl, ifindex[i], &d))
			stats_device(o, &d);	/* gone meanwhile: left out */
	out_list_end(o);
}

static int stats_show(struct xfwd *x, struct xf_args *a)
{
	struct stats_opts o = { 0 };
	struct xf_stats s;
	struct xf_nl *nl;
	int err;

	err = stats_parse(a, &o, false);
	if (err)
		return err;
	nl = xfwd_nl(x);
	if (!nl)
		return -EIO;
	o.f.percpu = x->stats;
	err = xf_stats_collect(nl, &o.f, &s);
	if (err)
		return err;
	stats_print(x->out, &s);
	stats_devices(x->out, nl, &s);
	xf_stats_free(&s);
	xf_route_nf_warn(nl);
	return 0;
}

static int stats_reset(struct xfwd *x, struct xf_args *a)
{
	struct stats_opts o = { 0 };
	struct xf_nl *nl;
	int err;

	err = stats_parse(a, &o, false) ?: xfwd_nl_locked(x, &nl);
	return err ?: xf_stats_reset(nl, &o.f);
}

static double stats_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A rate rounded to an integer, without libm. */
static uint64_t rate(double v)
{
	return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

static uint64_t delta(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : now;	/* reset meanwhile */
}

/* A program's run time and count at the previous sample. */
struct stats_prog {
	uint32_t id;
	uint64_t ns, cnt;
	bool seen;		/* printed in this interval */
	bool primed;		/* ns and cnt hold a sample */
};

#define STATS_MAX_PROGS 256

/* A device's counters when the screen first saw it. */
struct stats_dev_base {
	int ifindex;
	struct xf_devstats d;
};

struct stats_watch {
	struct xfwd *x;
	struct xf_nl *nl;
	struct stats_opts o;
	struct xf_stats first, prev, cur;	/* first: the screen's baseline */
	struct stats_prog progs[STATS_MAX_PROGS];
	int nprogs;
	int runtime_fd;		/* -s: holds the run-time statistics on */
	struct screen scr;	/* active on a terminal, without -j */
	struct stats_dev_base *base;
	int nbase;
	/* The screen's xdp:xdp_redirect_err and xdp:xdp_exception counts,
	 * or NULL with why they could not be had. */
	struct xf_xdptrace *trace;
	int trace_err;
	char trace_why[112];
};

static void watch_rates(struct stats_watch *w, double dt)
{
	struct xf_out *o = w->x->out;
	int i;

	out_list_begin(o, "counters");
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i], *p = xf_stats_find(&w->prev, r);
		uint64_t dp = delta(r->packets, p ? p->packets : 0);
		uint64_t db = delta(r->bytes, p ? p->bytes : 0);

		/* What did not move is left out, but for the headline counters. */
		if (!dp && r->object == XF_STATS_CHAIN)
			continue;
		if (!stats_shown(r, dp))
			continue;
		out_row_begin(o);
		out_str(o, "dev", r->dev);
		out_int(o, "ifindex", r->ifindex);
		out_str(o, "object", xf_stats_obj_name(r->object));
		out_str(o, "item", r->item);
		out_str(o, "key", r->key);
		out_unit(o, "pps", rate(dp / dt), OUT_COUNT);
		out_unit(o, "bps", rate(db * 8 / dt), OUT_BITRATE);
		out_row_end(o);
	}
	out_list_end(o);
}

/* route: per interface, the share of packets passed to the kernel. */
static void watch_route(struct stats_watch *w, double dt)
{
	struct xf_out *o = w->x->out;
	int i, j, k;

	out_list_begin(o, "route");
	for (i = 0; i < w->cur.n; i = j) {
		uint64_t fwd = 0, passed = 0;

		for (j = i; j < w->cur.n && w->cur.r[j].ifindex == w->cur.r[i].ifindex &&
			    w->cur.r[j].object == w->cur.r[i].object; j++) {
			const struct xf_stats_rec *r = &w->cur.r[j], *p = xf_stats_find(&w->prev, r);
			uint64_t dp = delta(r->packets, p ? p->packets : 0);

			if (r->object != XF_STATS_ROUTE)
				continue;
			if (r->pass)
				passed += dp;
			else
				fwd += dp;
		}
		if (w->cur.r[i].object != XF_STATS_ROUTE)
			continue;
		out_row_begin(o);
		out_str(o, "dev", w->cur.r[i].dev);
		out_int(o, "ifindex", w->cur.r[i].ifindex);
		out_unit(o, "forwarded_pps", rate(fwd / dt), OUT_COUNT);
		out_unit(o, "passed_pps", rate(passed / dt), OUT_COUNT);
		out_real(o, "passed_pct", fwd + passed ? 100.0 * passed / (fwd + passed) : 0, 1);
		out_list_begin(o, "reasons");
		for (k = i; k < j; k++) {
			const struct xf_stats_rec *r = &w->cur.r[k], *p = xf_stats_find(&w->prev, r);
			uint64_t dp = delta(r->packets, p ? p->packets : 0);

			if (!r->pass || !dp)
				continue;
			out_row_begin(o);
			out_str(o, "reason", r->key);
			out_unit(o, "pps", rate(dp / dt), OUT_COUNT);
			out_real(o, "pct", 100.0 * dp / (fwd + passed), 1);
			out_row_end(o);
		}
		out_list_end(o);
		out_row_end(o);
	}
	out_list_end(o);
}

/* -s: nanoseconds per run of each xfwd program over the interval. */
static void watch_programs(struct stats_watch *w, struct screen_lines *l)
{
	struct xf_out *o = w->x->out;
	char line[512];
	int i, k, len;

	/* On the screen: one line, "dev object name ns" per program. */
	len = snprintf(line, sizeof(line), "ns per packet:");
	if (!l)
		out_list_begin(o, "programs");
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i];
		struct stats_prog *sp = NULL;
		uint64_t ns, cnt, dn, dc;
		char name[32];

		if (!r->prog_id)
			continue;
		for (k = 0; k < w->nprogs; k++)
			if (w->progs[k].id == r->prog_id)
				sp = &w->progs[k];
		if (!sp && w->nprogs < STATS_MAX_PROGS) {
			sp = &w->progs[w->nprogs++];
			memset(sp, 0, sizeof(*sp));
			sp->id = r->prog_id;
		}
		if (!sp || sp->seen)
			continue;	/* one row per program per interval */
		sp->seen = true;
		if (xf_stats_prog_runtime(r->prog_id, &ns, &cnt, name, sizeof(name)))
			continue;
		dn = sp->primed ? delta(ns, sp->ns) : 0;	/* first: no interval */
		dc = sp->primed ? delta(cnt, sp->cnt) : 0;
		sp->ns = ns;
		sp->cnt = cnt;
		sp->primed = true;
		if (l) {
			if (len < (int)sizeof(line))
				len += snprintf(line + len, sizeof(line) - len, "  %s %s %s %.0f",
						r->dev, xf_stats_obj_name(r->object), name,
						dc ? (double)dn / dc : 0);
			continue;
		}
		out_row_begin(o);
		out_int(o, "prog_id", r->prog_id);
		out_str(o, "name", name);
		out_str(o, "dev", r->dev);
		out_str(o, "object", xf_stats_obj_name(r->object));
		out_u64(o, "runs", dc);
		out_real(o, "ns_per_packet", dc ? (double)dn / dc : 0, 1);
		out_row_end(o);
	}
	if (l)
		screen_add(l, "%s", line);
	else
		out_list_end(o);
	for (k = 0; k < w->nprogs; k++)
		w->progs[k].seen = false;
}

/* Prime the programs' run-time counters without printing. */
static void watch_programs_prime(struct stats_watch *w)
{
	int i;

	for (i = 0; i < w->prev.n && w->nprogs < STATS_MAX_PROGS; i++) {
		struct stats_prog *sp;
		char name[32];
		int k;

		if (!w->prev.r[i].prog_id)
			continue;
		for (k = 0; k < w->nprogs && w->progs[k].id != w->prev.r[i].prog_id; k++)
			;
		if (k < w->nprogs)
			continue;
		sp = &w->progs[w->nprogs++];
		memset(sp, 0, sizeof(*sp));
		sp->id = w->prev.r[i].prog_id;
		sp->primed = !xf_stats_prog_runtime(sp->id, &sp->ns, &sp->cnt, name,
						     sizeof(name));
	}
}

/* ---- the screen (a terminal, no -j) ---- */

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

/* "name +count" items, highest first, as many as a line takes. */
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
static void screen_dev_seed(struct stats_watch *w)
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
			n = screen_item_add(it, n, max, name, delta(d.std[k], base->std[k]));
		}
		for (k = 0; k < XF_DEV_NXDP; k++) {
			if (!d.has[k] || !screen_dev_drop(false, k))
				continue;
			snprintf(name, sizeof(name), "%s %s", d.dev, xf_devstats_xdp_name(k));
			n = screen_item_add(it, n, max, name, delta(d.xdp[k], base->xdp[k]));
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
		uint64_t dp = delta(r->packets, p ? p->packets : 0);

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
				    delta(r->packets, p ? p->packets : 0));
	}
	n = screen_dev_drops(w, it, n, SCREEN_ITEMS);
	err = err ?: screen_items_line(tail, "drops since start:", it, n, 0);
	err = err ?: screen_trace(w, tail, it);
	free(it);
	return err;
}

/* One frame: a title, the counters that moved sorted by rate, and the
 * tail, in human units whatever -h says. */
static int watch_screen(struct stats_watch *w, uint32_t n, double dt, double total)
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
		uint64_t dp = delta(r->packets, p ? p->packets : 0);
		uint64_t db = delta(r->bytes, p ? p->bytes : 0);

		if ((!dp && r->object == XF_STATS_CHAIN) || !stats_shown(r, dp))
			continue;
		rows[nr].r = r;
		rows[nr].pps = rate(dp / dt);
		rows[nr].bps = rate(db * 8 / dt);
		nr++;
#define WIDEN(w_, s_) do { int l_ = strlen(s_); if (l_ > (w_)) (w_) = l_; } while (0)
		WIDEN(wd, r->dev);
		WIDEN(wo, xf_stats_obj_name(r->object));
		WIDEN(wi, r->item);
#undef WIDEN
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
		watch_programs(w, &tail);
	if (!err)
		screen_draw(&w->scr, &head, &body, &tail);
	screen_lines_free(&head);
	screen_lines_free(&body);
	screen_lines_free(&tail);
	free(rows);
	return err;
}

/* Sleep s seconds, redrawing the screen when the terminal is resized;
 * false when a signal asked to stop. */
static bool watch_sleep(struct stats_watch *w, double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	if (stats_stop)
		return false;
	while (nanosleep(&ts, &ts) && errno == EINTR) {
		if (stats_stop)
			return false;
		screen_resized(&w->scr);
	}
	return !stats_stop;
}

static int watch_loop(struct stats_watch *w)
{
	double t0, t1, start;
	uint32_t n;
	int err;

	err = xf_stats_collect(w->nl, &w->o.f, &w->prev);
	if (err)
		return err;
	/* Once, before the first interval: not on every redraw. */
	xf_route_nf_warn(w->nl);
	if (w->runtime_fd >= 0)
		watch_programs_prime(w);
	/* A terminal, and no -j: the screen, from now on. */
	if (!out_is_json(w->x->out) && !screen_open(&w->scr, stdout)) {
		struct screen_lines head = { 0 }, none = { 0 }, none2 = { 0 };

		err = xf_stats_collect(w->nl, &w->o.f, &w->first);
		if (err)
			return err;
		screen_dev_seed(w);
		w->trace_err = xf_xdptrace_open(&w->trace, w->trace_why, sizeof(w->trace_why));
		if (!screen_add(&head, "xfwd stats watch: first interval in %.3g s",
				w->o.interval))
			screen_draw(&w->scr, &head, &none, &none2);
		screen_lines_free(&head);
	}
	t0 = start = stats_now();
	for (n = 1; !w->o.count || n <= w->o.count; n++) {
		if (!watch_sleep(w, w->o.interval))
			break;
		err = xf_stats_collect(w->nl, &w->o.f, &w->cur);
		if (err)
			return err;
		t1 = stats_now();
		if (w->scr.active) {
			err = watch_screen(w, n, t1 - t0, t1 - start);
			if (err)
				return err;
		} else {
			out_redraw(w->x->out);
			out_int(w->x->out, "interval", n);
			out_real(w->x->out, "seconds", t1 - t0, 3);
			watch_rates(w, t1 - t0);
			watch_route(w, t1 - t0);
			if (w->runtime_fd >= 0)
				watch_programs(w, NULL);
			out_flush(w->x->out);
		}
		xf_stats_free(&w->prev);
		w->prev = w->cur;
		memset(&w->cur, 0, sizeof(w->cur));
		t0 = t1;
	}
	return 0;
}

static int stats_watch(struct xfwd *x, struct xf_args *a)
{
	struct sigaction sa = { .sa_handler = stats_on_signal }, old_int, old_term;
	struct stats_watch *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->x = x;
	w->runtime_fd = -1;
	err = stats_parse(a, &w->o, true);
	if (err)
		goto out;
	w->nl = xfwd_nl(x);
	if (!w->nl) {
		err = -EIO;
		goto out;
	}
	if (x->stats) {
		w->runtime_fd = xf_stats_runtime_enable();
		if (w->runtime_fd < 0) {
			err = w->runtime_fd;
			fprintf(stderr, "Error: cannot enable BPF run-time statistics: %s.\n",
				strerror(-err));
			goto out;
		}
	}
	/* No SA_RESTART: the signal must cut the sleep short. */
	sigemptyset(&sa.sa_mask);
	stats_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	err = watch_loop(w);
	/* The terminal back as it was (an Error line printed on the screen
	 * went with it: the exit status still says). */
	screen_close(&w->scr);
	xf_xdptrace_close(w->trace);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	if (w->runtime_fd >= 0)
		close(w->runtime_fd);
	xf_stats_free(&w->first);
	xf_stats_free(&w->prev);
	xf_stats_free(&w->cur);
	free(w->base);
	free(w);
	return err;
}

static const struct cmd stats_cmds[] = {
	{ "show", stats_show, "[ dev IFNAME ] [ route | chain | redirect ]", XF_CMD_READS },
	{ "watch", stats_watch, "[ dev IFNAME ] [ route | chain | redirect ] "
		"[ interval SECONDS ] [ count N ]", XF_CMD_READS },
	{ "reset", stats_reset, "[ dev IFNAME ] [ route | chain | redirect ]", XF_CMD_CHANGES },
	{ }
};

const struct object stats_object = {
	.name = "stats", .cmds = stats_cmds, .dflt = "show",
	.summary = "every counter, live rates and cost per packet",
	.dflt_args = true,
};
