// SPDX-License-Identifier: GPL-2.0
/* xfwd stats: every counter at once, live rates and the cost per packet;
 * here show, reset and the verbs' table (watch: stats_watch.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "route/route.h"
#include "stats.h"

static const char *const obj_words[] = { "route", "chain", "redirect", NULL };

enum { KW_DEV, KW_OBJ, KW_INTERVAL, KW_COUNT };

int stats_parse(struct xf_args *a, struct stats_opts *o, bool watch)
{
	int idx, err;

	o->interval = 1;
	while (arg_more(a)) {
		if (arg_kw(a, "dev")) {
			err = arg_once(a, KW_DEV, "dev") ?: arg_ifname(a, "IFNAME", &o->f.dev);
		} else if (watch && arg_kw(a, "interval")) {
			err = arg_once(a, KW_INTERVAL, "interval") ?:
			      arg_seconds(a, "SECONDS", 0.001, 86400, &o->interval);
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

/* One device's counters: in JSON an object with a key each; in tables a
 * row each of those that are not 0 (rx_packets and tx_packets always), the
 * device named where its group starts. */
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
		/* Tables: a loss stands out among the few that counted. */
		if (!(std ? d->std[k] : d->xdp[k]) &&
		    !(std && (k == XF_DEV_RX_PACKETS || k == XF_DEV_TX_PACKETS)))
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

	err = stats_parse(a, &o, false) ?: xfwd_nl_get(x, &nl);
	if (err)
		return err;
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
