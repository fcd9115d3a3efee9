// SPDX-License-Identifier: GPL-2.0
/* xfwd chain: many XDP programs on one interface, linked into one. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "chain/chain.h"
#include "cmd.h"
#include "out.h"

static const char *const verdict_words[] = { "aborted", "drop", "pass", "tx", "redirect", NULL };
static const char *const action_words[] = { "next", "stop", "goto", NULL };

enum { KW_DEV, KW_OBJ, KW_SEC, KW_NAME, KW_POS, KW_DURATION };

/* "on VERDICT { next | stop | goto NAME }" after the "on". */
static int chain_rule_parse(struct xf_args *a, struct xf_chain_add *o)
{
	int v = 0, act = 0, err, r;

	err = arg_one_of(a, "VERDICT", verdict_words, &v) ?:
	      arg_one_of(a, "ACTION", action_words, &act);
	if (err)
		return err;
	for (r = 0; r < o->nrules; r++) {
		if (o->rules[r].verdict == v) {
			fprintf(stderr, "Error: duplicate \"on %s\"; try \"xfwd chain help\".\n",
				verdict_words[v]);
			return -XF_EUSAGE;
		}
	}
	r = o->nrules++;
	o->rules[r].verdict = v;
	o->rules[r].action = act == 0 ? XF_ACT_NEXT : act == 1 ? XF_ACT_STOP : XF_ACT_GOTO;
	o->rules[r].target = NULL;
	if (act == 2)
		return arg_str(a, "NAME", &o->rules[r].target);
	return 0;
}

/* A member's name is a directory and a file name under the chain's pins:
 * letters, digits, "_", "-" and ".", not "." or ".." nor anything that
 * starts with "." (the copies' temporary names do) or "-". */
static bool chain_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 15 || s[0] == '.' || s[0] == '-')
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_-.") == n;
}

static int chain_dev(struct xf_args *a, const char **dev)
{
	return arg_once(a, KW_DEV, "dev") ?: arg_ifname(a, "IFNAME", dev);
}

/* An object that others than its owner may write (the file, or a directory
 * above it) could be swapped between the operator's look and the load:
 * refused unless -force. Other errors are the loader's to report. */
static int chain_obj_check(const struct xfwd *x, const char *obj)
{
	char why[PATH_MAX + 128];

	if (x->force || xf_file_trusted(obj, why, sizeof(why)) != -EPERM)
		return 0;
	fprintf(stderr, "Error: %s; another user could swap it (-force loads it anyway).\n",
		why);
	return -EPERM;
}

static int chain_add(struct xfwd *x, struct xf_args *a)
{
	struct xf_chain_add o = { 0 };
	const char *dev = NULL;
	struct xf_nl *nl;
	int err = 0;

	while (arg_more(a) && !err) {
		if (arg_kw(a, "dev")) {
			err = chain_dev(a, &dev);
		} else if (arg_kw(a, "obj")) {
			err = arg_once(a, KW_OBJ, "obj") ?: arg_str(a, "FILE", &o.obj);
		} else if (arg_kw(a, "sec")) {
			err = arg_once(a, KW_SEC, "sec/prog") ?: arg_str(a, "SECTION", &o.sec);
		} else if (arg_kw(a, "prog")) {
			err = arg_once(a, KW_SEC, "sec/prog") ?: arg_str(a, "NAME", &o.prog);
		} else if (arg_kw(a, "name")) {
			err = arg_once(a, KW_NAME, "name") ?: arg_str(a, "NAME", &o.name);
			if (!err && !chain_name_ok(o.name))
				err = arg_invalid(a, "NAME (1 to 15 of A-Z a-z 0-9 _ - ., "
						  "first not . or -)", o.name);
		} else if (arg_kw(a, "first")) {
			err = arg_once(a, KW_POS, "position");
			o.pos = XF_POS_FIRST;
		} else if (arg_kw(a, "last")) {
			err = arg_once(a, KW_POS, "position");
			o.pos = XF_POS_LAST;
		} else if (arg_kw(a, "before")) {
			err = arg_once(a, KW_POS, "position") ?: arg_str(a, "NAME", &o.rel);
			o.pos = XF_POS_BEFORE;
		} else if (arg_kw(a, "after")) {
			err = arg_once(a, KW_POS, "position") ?: arg_str(a, "NAME", &o.rel);
			o.pos = XF_POS_AFTER;
		} else if (arg_kw(a, "on")) {
			err = chain_rule_parse(a, &o);
		} else {
			return arg_unexpected(a);
		}
	}
	err = arg_need(a, err, dev, "dev IFNAME") ?: arg_need(a, 0, o.obj, "obj FILE") ?:
	      xfwd_nl_locked(x, &nl) ?: chain_obj_check(x, o.obj);
	return err ?: xf_chain_add(nl, dev, &o);
}

static int chain_set(struct xfwd *x, struct xf_args *a)
{
	struct xf_chain_add o = { 0 };
	const char *dev = NULL, *name = NULL;
	struct xf_nl *nl;
	int err = 0;

	while (arg_more(a) && !err) {
		if (arg_kw(a, "dev"))
			err = chain_dev(a, &dev);
		else if (arg_kw(a, "name"))
			err = arg_once(a, KW_NAME, "name") ?: arg_str(a, "NAME", &name);
		else if (arg_kw(a, "on"))
			err = chain_rule_parse(a, &o);
		else
			return arg_unexpected(a);
	}
	if (err)
		return err;
	if (!dev || !name || !o.nrules)
		return arg_missing(a, !dev ? "dev IFNAME" : !name ? "name NAME" : "on VERDICT");
	err = xfwd_nl_locked(x, &nl);
	return err ?: xf_chain_set(nl, dev, name, &o);
}

static int chain_order(struct xfwd *x, struct xf_args *a)
{
	const char *names[XF_CHAIN_MAX], *dev = NULL;
	struct xf_nl *nl;
	int n = 0, err = 0;

	while (arg_more(a) && !err) {
		if (!dev && arg_kw(a, "dev")) {
			err = chain_dev(a, &dev);
		} else if (n == XF_CHAIN_MAX) {
			return arg_unexpected(a);
		} else {
			names[n++] = arg_next(a);
		}
	}
	if (err)
		return err;
	if (!dev || !n)
		return arg_missing(a, !dev ? "dev IFNAME" : "NAME");
	err = xfwd_nl_locked(x, &nl);
	return err ?: xf_chain_order(nl, dev, names, n);
}

static int chain_del(struct xfwd *x, struct xf_args *a)
{
	const char *dev = NULL, *name = NULL;
	bool all = false;
	struct xf_nl *nl;
	int err = 0;

	while (arg_more(a) && !err) {
		if (arg_kw(a, "dev"))
			err = chain_dev(a, &dev);
		else if (!all && !name && arg_kw(a, "name"))
			err = arg_str(a, "NAME", &name);
		else if (!all && !name && arg_kw(a, "all"))
			all = true;
		else
			return arg_unexpected(a);
	}
	if (err)
		return err;
	if (!dev || (!name && !all))
		return arg_missing(a, !dev ? "dev IFNAME" : "name NAME or all");
	err = xfwd_nl_locked(x, &nl);
	return err ?: xf_chain_del_own(nl, dev, name);
}

static void chain_rules_str(const struct xf_chain_desc *d, int i, char *buf, size_t len)
{
	size_t o = 0;
	uint32_t v, k;

	buf[0] = '\0';
	for (v = 0; v < XF_V_N && o < len; v++) {
		uint8_t act = d->m[i].act[v];
		const char *t = "";

		if (act == XF_ACT_DEFAULT)
			continue;
		for (k = 0; act == XF_ACT_GOTO && k < d->n; k++)
			if (d->m[k].slot == d->m[i].target[v])
				t = d->m[k].name;
		o += snprintf(buf + o, len - o, "%son %s %s%s%s", o ? " " : "",
			      xf_chain_verdict_name(v), act == XF_ACT_NEXT ? "next" :
			      act == XF_ACT_STOP ? "stop" : "goto", *t ? " " : "", t);
	}
}

/* The kept profile's line for the member in slot, or -1. */
static int prof_find(const struct xf_chain_profile *p, const struct xf_chain_desc_member *m)
{
	uint32_t i;

	for (i = 0; p && i < p->n; i++)
		if (p->m[i].slot == m->slot && !strcmp(p->m[i].name, m->name))
			return i;
	return -1;
}

/* -s: when the ns per run shown come from (the last chain profile). */
static void chain_show_prof(struct xf_out *o, const struct xf_chain_info *ci)
{
	const struct xf_chain_profile *p = ci->prof;
	char when[32];
	struct tm tm;
	time_t t;

	if (ci->profiling)
		out_int(o, "profiling_pid", ci->profiling);
	if (!p) {
		out_str(o, "profile", out_is_json(o) ? NULL : "-");
		return;
	}
	t = p->time;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!out_is_json(o)) {
		out_strf(o, "profile", "%s %.1fs", when, p->duration);
		return;
	}
	out_obj_begin(o, "profile");
	out_str(o, "time", when);
	out_real(o, "duration", p->duration, 1);
	out_real(o, "overhead_ns", p->overhead, 1);
	out_obj_end(o);
}

static int chain_show_one(const struct xf_chain_info *ci, void *arg)
{
	struct xfwd *x = arg;
	struct xf_out *o = x->out;
	char rules[160];
	uint32_t i, v;
	int k;

	out_row_begin(o);
	out_str(o, "dev", ci->dev);
	out_int(o, "ifindex", ci->ifindex);
	out_str(o, "mode", ci->mode);
	out_int(o, "prog_id", ci->prog_id);
	out_int(o, "link_id", ci->link_id);
	out_int(o, "members", ci->desc.n);
	if (x->stats)
		chain_show_prof(o, ci);
	out_list_begin(o, "chain");
	for (i = 0; i < ci->desc.n; i++) {
		const struct xf_chain_desc_member *m = &ci->desc.m[i];

		out_row_begin(o);
		out_str(o, "name", m->name);
		out_str(o, "prog", m->prog);
		for (v = 0; v < XF_CHAIN_NV; v++)
			out_u64(o, xf_chain_verdict_name(v), ci->cnt[m->slot][v]);
		chain_rules_str(&ci->desc, i, rules, sizeof(rules));
		out_str(o, "rules", rules[0] ? rules : out_is_json(o) ? NULL : "-");
		k = x->stats ? prof_find(ci->prof, m) : -1;
		if (k >= 0)
			out_real(o, "ns_per_run", xf_chain_profile_ns(ci->prof, k), 1);
		else if (x->stats && !out_is_json(o))
			out_str(o, "ns_per_run", "-");
		out_row_end(o);
	}
	out_list_end(o);
	out_row_end(o);
	return 0;
}

static void chain_profile_print(struct xf_out *o, const char *dev,
				const struct xf_chain_profile *p, bool interrupted)
{
	double total = xf_chain_profile_total(p), ns;
	uint32_t i;

	out_row_begin(o);
	out_str(o, "dev", dev);
	out_real(o, "duration", p->duration, 1);
	if (interrupted)
		out_bool(o, "interrupted", true);
	if (p->changed)
		out_bool(o, "changed", true);
	out_real(o, "overhead_ns", p->overhead, 1);
	out_real(o, "step_ns", p->step, 1);
	if (p->has_total) {
		out_u64(o, "packets", p->packets);
		out_real(o, "overhead_ns_per_packet", xf_chain_profile_cost(p), 1);
		out_real(o, "ns_per_packet", total > 0 ? total : 0, 1);
		out_real(o, "entry_ns_per_packet", xf_chain_profile_entry(p), 1);
		out_real(o, "dispatcher_ns_per_packet", xf_chain_profile_dispatcher(p), 1);
	} else if (!out_is_json(o)) {
		out_str(o, "packets", "-");
		out_str(o, "overhead_ns_per_packet", "-");
		out_str(o, "ns_per_packet", "-");
		out_str(o, "entry_ns_per_packet", "-");
		out_str(o, "dispatcher_ns_per_packet", "-");
	}
	out_list_begin(o, "members");
	for (i = 0; i < p->n; i++) {
		ns = xf_chain_profile_ns(p, i);
		out_row_begin(o);
		out_str(o, "name", p->m[i].name);
		out_u64(o, "runs", p->m[i].runs);
		out_real(o, "ns_per_run", ns, 1);
		if (p->has_total)
			out_real(o, "ns_per_packet", p->packets ? ns * p->m[i].runs / p->packets : 0,
				 1);
		out_row_end(o);
	}
	out_list_end(o);
	out_row_end(o);
}

/* Wait up to secs for SIGINT, SIGTERM or SIGHUP (blocked in set). True
 * if one came. */
static bool profile_wait(const sigset_t *set, double secs)
{
	struct timespec end, now, left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return false;
		if (sigtimedwait(set, NULL, &left) > 0)
			return true;
		if (errno == EAGAIN)
			return false;
	}
}

#define PROFILE_DEFAULT_SECS 10

/* The timed build for a while, then the normal one back; signals that
 * would end xfwd are held from before the swap until after the swap back,
 * and end the wait early. The lock is not held while waiting. */
static int chain_profile(struct xfwd *x, struct xf_args *a)
{
	struct xf_chain_prof_run *r;
	struct xf_chain_profile p;
	double secs = PROFILE_DEFAULT_SECS;
	const char *dev = NULL;
	sigset_t set, old;
	struct xf_nl *nl;
	bool intr;
	int err = 0;

	while (arg_more(a) && !err) {
		if (arg_kw(a, "dev"))
			err = chain_dev(a, &dev);
		else if (arg_kw(a, "duration"))
			err = arg_once(a, KW_DURATION, "duration") ?:
			      arg_seconds(a, "SECONDS", 0.1, 86400, &secs);
		else
			return arg_unexpected(a);
	}
	err = arg_need(a, err, dev, "dev IFNAME");
	if (err)
		return err;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	err = xfwd_nl_locked(x, &nl) ?: xf_chain_profile_begin(nl, dev, &r);
	if (err)
		goto out;
	xf_unlock(x->lock_fd);
	x->lock_fd = -1;
	intr = profile_wait(&set, secs);
	/* The swap back goes on even without the lock. */
	xfwd_lock(x);
	err = xf_chain_profile_end(r, &p);
	/* A signal that came after the wait ended is taken here, not when
	 * the mask is restored (which would end xfwd before its output). */
	{
		struct timespec zero = { 0 };

		intr |= sigtimedwait(&set, NULL, &zero) > 0;
	}
	if (!err) {
		out_list_begin(x->out, "profile");
		chain_profile_print(x->out, dev, &p, intr);
		out_list_end(x->out);
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

CMD_SHOW_VERB(chain_show, "interfaces", xf_chain_list, chain_show_one)

static const struct cmd chain_cmds[] = {
	{ "add", chain_add, "dev IFNAME obj FILE [ sec SECTION | prog NAME ] [ name NAME ] "
		"[ { first | last | before NAME | after NAME } ] "
		"[ on VERDICT { next | stop | goto NAME } ]... "
		"(VERDICT := aborted | drop | pass | tx | redirect)", XF_CMD_CHANGES },
	{ "set", chain_set, "dev IFNAME name NAME on VERDICT { next | stop | goto NAME }...", XF_CMD_CHANGES },
	{ "order", chain_order, "dev IFNAME NAME NAME ...", XF_CMD_CHANGES },
	{ "del", chain_del, "dev IFNAME { name NAME | all }", XF_CMD_CHANGES },
	{ "show", chain_show, "[ dev IFNAME ]", XF_CMD_READS },
	{ "profile", chain_profile, "dev IFNAME [ duration SECONDS ]", XF_CMD_CHANGES },
	{ }
};

const struct object chain_object = {
	.name = "chain", .cmds = chain_cmds, .dflt = "show",
	.summary = "many XDP programs on one interface, linked into one",
};
