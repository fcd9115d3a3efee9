/* SPDX-License-Identifier: GPL-2.0 */
/* xfwd stats, shared by its files: stats.c (show, reset, the verbs),
 * stats_watch.c (watch: it samples and computes) and stats_screen.c
 * (watch's screen: it only draws what stats_watch.c computed, and calls
 * nothing of it). */
#ifndef XF_CMD_STATS_H
#define XF_CMD_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd.h"
#include "devstats.h"
#include "screen.h"
#include "stats/stats.h"

struct xf_xdptrace;

struct stats_opts {
	struct xf_stats_filter f;
	double interval;	/* watch: seconds */
	uint32_t count;		/* watch: intervals; 0 until a signal */
};

#define STATS_MAX_DEVS 256

/* Parse the arguments of show and reset, or with watch those of watch.
 * 0/-errno after an Error line. */
int stats_parse(struct xf_args *a, struct stats_opts *o, bool watch);

/* route's pass reasons are shown only where they counted, as in route show. */
static inline bool stats_shown(const struct xf_stats_rec *r, uint64_t packets)
{
	return !r->pass || packets;
}

/* A rate rounded to an integer, without libm. */
static inline uint64_t stats_rate(double v)
{
	return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

static inline uint64_t stats_delta(uint64_t now, uint64_t then)
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

/* A program's run time over the last interval (-s), as stats_watch.c
 * samples it for the output or the screen to show. */
struct stats_prog_rate {
	const struct xf_stats_rec *r;	/* its first record in the sample */
	char name[32];
	uint64_t runs, ns;		/* over the interval */
};

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
	struct stats_prog_rate rates[STATS_MAX_PROGS];	/* -s: this interval's */
	int nrates;
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

/* xfwd stats watch. */
int stats_watch(struct xfwd *x, struct xf_args *a);
/* The screen's start: the devices' counters to count drops from. */
void screen_dev_seed(struct stats_watch *w);
/* Draw interval n (dt seconds long, total since the start) on w's screen.
 * 0/-ENOMEM. */
int watch_screen(struct stats_watch *w, uint32_t n, double dt, double total);

#endif
