// SPDX-License-Identifier: GPL-2.0
/* xfwd stats watch: the rates of every counter at each interval, as
 * blocks, JSON Lines or a screen (stats_screen.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "route/route.h"
#include "stats.h"
#include "stats/xdptrace.h"

/* The one global: set by SIGINT/SIGTERM so that watch ends its loop, as a
 * signal handler cannot be given the command's context. */
static volatile sig_atomic_t stats_stop;

static void stats_on_signal(int sig)
{
	(void)sig;
	stats_stop = 1;
}

static double stats_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void watch_rates(struct stats_watch *w, double dt)
{
	struct xf_out *o = w->x->out;
	int i;

	out_list_begin(o, "counters");
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i], *p = xf_stats_find(&w->prev, r);
		uint64_t dp = stats_delta(r->packets, p ? p->packets : 0);
		uint64_t db = stats_delta(r->bytes, p ? p->bytes : 0);

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
		out_unit(o, "pps", stats_rate(dp / dt), OUT_COUNT);
		out_unit(o, "bps", stats_rate(db * 8 / dt), OUT_BITRATE);
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
			uint64_t dp = stats_delta(r->packets, p ? p->packets : 0);

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
		out_unit(o, "forwarded_pps", stats_rate(fwd / dt), OUT_COUNT);
		out_unit(o, "passed_pps", stats_rate(passed / dt), OUT_COUNT);
		out_real(o, "passed_pct", fwd + passed ? 100.0 * passed / (fwd + passed) : 0, 1);
		out_list_begin(o, "reasons");
		for (k = i; k < j; k++) {
			const struct xf_stats_rec *r = &w->cur.r[k], *p = xf_stats_find(&w->prev, r);
			uint64_t dp = stats_delta(r->packets, p ? p->packets : 0);

			if (!r->pass || !dp)
				continue;
			out_row_begin(o);
			out_str(o, "reason", r->key);
			out_unit(o, "pps", stats_rate(dp / dt), OUT_COUNT);
			out_real(o, "pct", 100.0 * dp / (fwd + passed), 1);
			out_row_end(o);
		}
		out_list_end(o);
		out_row_end(o);
	}
	out_list_end(o);
}

/* -s: each program's run time over the interval into w->rates, one entry
 * per program (its first record in w->cur), for the output or the screen
 * to show. */
static void watch_programs_sample(struct stats_watch *w)
{
	int i, k;

	w->nrates = 0;
	for (i = 0; i < w->cur.n; i++) {
		const struct xf_stats_rec *r = &w->cur.r[i];
		struct stats_prog *sp = NULL;
		struct stats_prog_rate *pr;
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
		dn = sp->primed ? stats_delta(ns, sp->ns) : 0;	/* first: no interval */
		dc = sp->primed ? stats_delta(cnt, sp->cnt) : 0;
		sp->ns = ns;
		sp->cnt = cnt;
		sp->primed = true;
		pr = &w->rates[w->nrates++];
		pr->r = r;
		memcpy(pr->name, name, sizeof(pr->name));
		pr->runs = dc;
		pr->ns = dn;
	}
	for (k = 0; k < w->nprogs; k++)
		w->progs[k].seen = false;
}

/* -s without the screen: the list "programs" of the output. */
static void watch_programs(struct stats_watch *w)
{
	struct xf_out *o = w->x->out;
	int i;

	out_list_begin(o, "programs");
	for (i = 0; i < w->nrates; i++) {
		const struct stats_prog_rate *pr = &w->rates[i];

		out_row_begin(o);
		out_int(o, "prog_id", pr->r->prog_id);
		out_str(o, "name", pr->name);
		out_str(o, "dev", pr->r->dev);
		out_str(o, "object", xf_stats_obj_name(pr->r->object));
		out_u64(o, "runs", pr->runs);
		out_real(o, "ns_per_packet", pr->runs ? (double)pr->ns / pr->runs : 0, 1);
		out_row_end(o);
	}
	out_list_end(o);
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
		struct screen_lines head = { 0 }, body = { 0 }, tail = { 0 };

		err = xf_stats_collect(w->nl, &w->o.f, &w->first);
		if (err)
			return err;
		screen_dev_seed(w);
		w->trace_err = xf_xdptrace_open(&w->trace, w->trace_why, sizeof(w->trace_why));
		if (!screen_add(&head, "xfwd stats watch: first interval in %.3g s",
				w->o.interval))
			screen_draw(&w->scr, &head, &body, &tail);
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
		if (w->runtime_fd >= 0)
			watch_programs_sample(w);
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
				watch_programs(w);
			out_flush(w->x->out);
		}
		xf_stats_free(&w->prev);
		w->prev = w->cur;
		memset(&w->cur, 0, sizeof(w->cur));
		t0 = t1;
	}
	return 0;
}

int stats_watch(struct xfwd *x, struct xf_args *a)
{
	struct sigaction sa = { .sa_handler = stats_on_signal }, old_int, old_term;
	struct stats_watch *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->x = x;
	w->runtime_fd = -1;
	err = stats_parse(a, &w->o, true) ?: xfwd_nl_get(x, &w->nl);
	if (err)
		goto out;
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
	/* The terminal back as it was, then what stderr got meanwhile. */
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
