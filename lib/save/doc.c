// SPDX-License-Identifier: GPL-2.0
/* save and restore: the document, as JSON. With out.c the only file that
 * includes jansson.h: out.c prints what commands show, this file reads and
 * writes the one document that is input as well as output.
 *
 * {
 *   "chain": [ { "dev", "mode": "native"|"generic",
 *                "members": [ { "name", "builtin": true } |
 *                             { "name", "prog", "object", "sha256",
 *                               "on": { VERDICT: "next"|"stop"|"goto NAME" } } ] } ],
 *   "redirect": [ { "dev", "direction", "match"?, "to", "mode", "via"?, "hook" } ],
 *   "route": [ { "dev", "hook", "mode"?, "family", "lookup", "netfilter",
 *                "qdisc"? } ],  (qdisc: "bypass" only; absent is "check")
 *   (lookup: "full", "direct" or "flowtable")
 *   "version": 1
 * }
 * Every key is required but the ones marked "?"; no other is taken. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "redirect/redirect.h"
#include "route/route.h"
#include "save/save.h"
#include "usage.h"

static const char *const dir_words[] = { "ingress", "egress", NULL };
static const char *const act_words[] = { "", "next", "stop", NULL };

/* ---- writing ---- */

static int sv_set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -ENOMEM;
}

/* Set o's key to v unless err: v goes either way (to o, or released).
 * err, or sv_set()'s. */
static int sv_put(json_t *o, const char *key, json_t *v, int err)
{
	if (err) {
		json_decref(v);
		return err;
	}
	return sv_set(o, key, v);
}

/* o, or with err NULL (o released). */
static json_t *sv_done(json_t *o, int err)
{
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *sv_route_json(const struct xf_save_route *r)
{
	json_t *o = json_object();
	int fam = r->family == XF_RTIF_INET ? 1 : r->family == XF_RTIF_INET6 ? 2 : 0;
	int mode = r->mode == XF_MODE_GENERIC, err = !o;

	err = err ?: sv_set(o, "dev", json_string(r->dev)) ?:
	      sv_set(o, "hook", json_string(xf_route_hook_words[r->hook]));
	if (!err && r->hook == XF_HOOK_XDP)
		err = sv_set(o, "mode", json_string(xf_route_mode_words[mode]));
	err = err ?: sv_set(o, "family", json_string(xf_route_family_words[fam])) ?:
	      sv_set(o, "lookup", json_string(xf_route_lookup_words[r->direct ? 1 :
								   r->flowtable ? 2 : 0])) ?:
	      sv_set(o, "netfilter", json_string(xf_route_netfilter_words[r->nf_bypass]));
	if (!err && r->qdisc_bypass)
		err = sv_set(o, "qdisc", json_string(xf_route_qdisc_words[1]));
	return sv_done(o, err);
}

static json_t *sv_member_json(const struct xf_save_member *m)
{
	json_t *o = json_object(), *on = json_object();
	char word[32];
	int v, err = !o || !on;

	err = err ?: sv_set(o, "name", json_string(m->name));
	if (m->builtin) {
		err = err ?: sv_set(o, "builtin", json_true());
	} else {
		err = err ?: sv_set(o, "prog", json_string(m->prog)) ?:
		      sv_set(o, "object", json_string(m->object)) ?:
		      sv_set(o, "sha256", json_string(m->sha256));
	}
	for (v = 0; on && !err && v < XF_V_N; v++) {
		if (m->act[v] == XF_ACT_GOTO)
			snprintf(word, sizeof(word), "goto %s", m->target[v]);
		else
			snprintf(word, sizeof(word), "%s", act_words[m->act[v]]);
		err = sv_set(on, xf_chain_verdict_name(v), json_string(word));
	}
	err = sv_put(o, "on", on, err);
	return sv_done(o, err);
}

static json_t *sv_chain_json(const struct xf_save_chain *c)
{
	json_t *o = json_object(), *ms = json_array();
	int i, err = !o || !ms;

	for (i = 0; !err && i < c->n; i++)
		err = json_array_append_new(ms, sv_member_json(&c->m[i]));
	err = err ?: sv_set(o, "dev", json_string(c->dev)) ?:
	      sv_set(o, "mode", json_string(xf_route_mode_words[c->generic]));
	err = sv_put(o, "members", ms, err);
	return sv_done(o, err);
}

static json_t *sv_redirect_json(const struct xf_save_redirect *r)
{
	json_t *o = json_object();
	char a[INET6_ADDRSTRLEN + 8];
	int err = !o;

	err = err ?: sv_set(o, "dev", json_string(r->dev)) ?:
	      sv_set(o, "direction", json_string(dir_words[r->dir == XF_RD_DIR_EGRESS])) ?:
	      sv_set(o, "to", json_string(r->target)) ?:
	      sv_set(o, "mode", json_string(xf_redirect_mode_name(r->mode))) ?:
	      sv_set(o, "hook", json_string(r->hook == XF_HOOK_XDP ? "xdp" : "tc"));
	if (!err && r->has_match)
		err = sv_set(o, "match", json_string(xf_addr_str(&r->match, true, a, sizeof(a))));
	if (!err && r->has_via)
		err = sv_set(o, "via", json_string(xf_addr_str(&r->via, false, a, sizeof(a))));
	return sv_done(o, err);
}

/* Arrays are sorted by what identifies an entry, so that the order the
 * kernel lists them in (by ifindex, which a reboot changes) does not show. */
static int sv_json_cmp(const void *a, const void *b)
{
	char *x = json_dumps(*(json_t *const *)a, JSON_SORT_KEYS | JSON_COMPACT);
	char *y = json_dumps(*(json_t *const *)b, JSON_SORT_KEYS | JSON_COMPACT);
	int r = x && y ? strcmp(x, y) : 0;

	free(x);
	free(y);
	return r;
}

static int sv_sorted(json_t *top, const char *key, json_t **v, int n)
{
	json_t *arr = json_array();
	int i, err = !arr;

	for (i = 0; i < n; i++)
		err = err || !v[i];
	if (!err)
		qsort(v, n, sizeof(*v), sv_json_cmp);
	for (i = 0; i < n; i++) {
		if (!err && v[i])
			err = json_array_append(arr, v[i]);
		json_decref(v[i]);
	}
	if (!err)
		return sv_set(top, key, arr);
	json_decref(arr);
	return -ENOMEM;
}

int xf_save_write(FILE *f, const struct xf_save *s)
{
	int i, n = s->nroute + s->nchain + s->nredirect, err;
	json_t *top = json_object(), **v;

	v = calloc(n ?: 1, sizeof(*v));
	if (!top || !v) {
		json_decref(top);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < s->nroute; i++)
		v[i] = sv_route_json(&s->route[i]);
	err = sv_sorted(top, "route", v, s->nroute);
	for (i = 0; i < s->nchain; i++)
		v[i] = sv_chain_json(&s->chain[i]);
	err = sv_sorted(top, "chain", v, s->nchain) ?: err;
	for (i = 0; i < s->nredirect; i++)
		v[i] = sv_redirect_json(&s->redirect[i]);
	err = sv_sorted(top, "redirect", v, s->nredirect) ?: err;
	err = err ?: sv_set(top, "version", json_integer(XF_SAVE_VERSION));
	free(v);
	if (!err && (json_dumpf(top, f, JSON_SORT_KEYS | JSON_INDENT(2)) || fputc('\n', f) < 0))
		err = -EIO;
	json_decref(top);
	return err;
}

/* ---- reading ---- */

struct sv_parse {
	const char *where;
	char path[96];		/* route[2].hook */
};

static int sv_bad(const struct sv_parse *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "Error: %s: %s%s%s.\n", p->where, p->path, p->path[0] ? ": " : "", msg);
	return -XF_EUSAGE;
}

/* Only the keys in allowed, each a string but those in other. */
static int sv_keys(struct sv_parse *p, json_t *o, const char *const *allowed)
{
	const char *key;
	json_t *v;
	int i;

	if (!json_is_object(o))
		return sv_bad(p, "not an object");
	json_object_foreach(o, key, v) {
		for (i = 0; allowed[i] && strcmp(allowed[i], key); i++)
			;
		if (!allowed[i])
			return sv_bad(p, "unknown key \"%.40s\"", key);
	}
	return 0;
}

static void sv_at(struct sv_parse *p, const char *arr, int i, const char *key)
{
	if (i >= 0)
		snprintf(p->path, sizeof(p->path), "%s[%d]%s%s", arr, i, key ? "." : "", key ?: "");
	else
		snprintf(p->path, sizeof(p->path), "%s%s%s", arr, key ? "." : "", key ?: "");
}

/* A string of at most len - 1 bytes; absent is an error unless opt. */
static int sv_str(struct sv_parse *p, json_t *o, const char *arr, int i, const char *key,
		  char *buf, size_t len, bool opt, bool *has)
{
	json_t *v = json_object_get(o, key);
	const char *s;

	sv_at(p, arr, i, key);
	if (has)
		*has = v != NULL;
	if (!v) {
		if (opt)
			return 0;
		return sv_bad(p, "missing");
	}
	if (!json_is_string(v))
		return sv_bad(p, "not a string");
	s = json_string_value(v);
	if (!*s || strlen(s) >= len || strlen(s) != json_string_length(v))
		return sv_bad(p, "\"%.40s\" is empty, too long or has a NUL", s);
	snprintf(buf, len, "%s", s);
	return 0;
}

static int sv_word(struct sv_parse *p, json_t *o, const char *arr, int i, const char *key,
		   const char *const *words, int *idx)
{
	char w[32];
	int err = sv_str(p, o, arr, i, key, w, sizeof(w), false, NULL), k;

	if (err)
		return err;
	for (k = 0; words[k]; k++)
		if (*words[k] && !strcmp(words[k], w))
			break;
	if (!words[k])
		return sv_bad(p, "\"%s\" is none of the words this key takes", w);
	*idx = k;
	return 0;
}

static json_t *sv_array(struct sv_parse *p, json_t *top, const char *key, int max, int *n)
{
	json_t *a = json_object_get(top, key);

	sv_at(p, key, -1, NULL);
	if (!a) {
		sv_bad(p, "missing");
		return NULL;
	}
	if (!json_is_array(a)) {
		sv_bad(p, "not an array");
		return NULL;
	}
	if (json_array_size(a) > (size_t)max) {
		sv_bad(p, "%zu entries, more than %d", json_array_size(a), max);
		return NULL;
	}
	*n = json_array_size(a);
	return a;
}

static int sv_route_parse(struct sv_parse *p, json_t *o, int i, void *elem)
{
	struct xf_save_route *r = elem;
	static const char *const keys[] = { "dev", "hook", "mode", "family", "lookup",
					    "netfilter", "qdisc", NULL };
	int h, m = 0, f, l, nf, q = 0, err;
	char mode[16], qdisc[16];
	bool has_mode, has_qdisc;

	sv_at(p, "route", i, NULL);
	err = sv_keys(p, o, keys) ?:
	      sv_str(p, o, "route", i, "dev", r->dev, sizeof(r->dev), false, NULL) ?:
	      sv_word(p, o, "route", i, "hook", xf_route_hook_words, &h) ?:
	      sv_str(p, o, "route", i, "mode", mode, sizeof(mode), true, &has_mode) ?:
	      sv_word(p, o, "route", i, "family", xf_route_family_words, &f) ?:
	      sv_word(p, o, "route", i, "lookup", xf_route_lookup_words, &l) ?:
	      sv_word(p, o, "route", i, "netfilter", xf_route_netfilter_words, &nf) ?:
	      sv_str(p, o, "route", i, "qdisc", qdisc, sizeof(qdisc), true, &has_qdisc);
	if (!err && has_qdisc)
		err = sv_word(p, o, "route", i, "qdisc", xf_route_qdisc_words, &q);
	if (err)
		return err;
	if (has_mode) {
		sv_at(p, "route", i, "mode");
		if (h != XF_HOOK_XDP)
			return sv_bad(p, "only hook xdp takes a mode");
		err = sv_word(p, o, "route", i, "mode", xf_route_mode_words, &m);
		if (err)
			return err;
	} else if (h == XF_HOOK_XDP) {
		sv_at(p, "route", i, "mode");
		return sv_bad(p, "missing (hook xdp)");
	}
	r->hook = h;
	r->mode = h == XF_HOOK_XDP ? (m ? XF_MODE_GENERIC : XF_MODE_NATIVE) : XF_MODE_AUTO;
	r->family = f == 1 ? XF_RTIF_INET : f == 2 ? XF_RTIF_INET6 : XF_RTIF_INET | XF_RTIF_INET6;
	r->direct = l == 1;
	r->flowtable = l == 2;
	r->nf_bypass = nf == 1;
	r->qdisc_bypass = q == 1;
	return 0;
}

static int sv_member_parse(struct sv_parse *p, json_t *o, const char *at, struct xf_save_member *m)
{
	static const char *const bkeys[] = { "name", "builtin", "on", NULL };
	static const char *const keys[] = { "name", "prog", "object", "sha256", "on", NULL };
	static const char *const vkeys[] = { "aborted", "drop", "pass", "tx", "redirect", NULL };
	char word[40];
	json_t *on, *b = json_object_get(o, "builtin");
	size_t k;
	int v, err;

	if (b) {
		snprintf(p->path, sizeof(p->path), "%s.builtin", at);
		if (!json_is_true(b))
			return sv_bad(p, "only true is taken");
		snprintf(p->path, sizeof(p->path), "%s", at);
		m->builtin = true;
		err = sv_keys(p, o, bkeys) ?:
		      sv_str(p, o, at, -1, "name", m->name, sizeof(m->name), false, NULL);
	} else {
		snprintf(p->path, sizeof(p->path), "%s", at);
		err = sv_keys(p, o, keys) ?:
		      sv_str(p, o, at, -1, "name", m->name, sizeof(m->name), false, NULL) ?:
		      sv_str(p, o, at, -1, "prog", m->prog, sizeof(m->prog), false, NULL) ?:
		      sv_str(p, o, at, -1, "object", m->object, sizeof(m->object), false,
			     NULL) ?:
		      sv_str(p, o, at, -1, "sha256", m->sha256, sizeof(m->sha256), false, NULL);
		for (k = 0; !err && k < 64; k++) {
			snprintf(p->path, sizeof(p->path), "%s.sha256", at);
			if (!m->sha256[k] || !strchr("0123456789abcdef", m->sha256[k]))
				err = sv_bad(p, "not 64 lower-case hex digits");
		}
	}
	if (err)
		return err;
	snprintf(p->path, sizeof(p->path), "%s.on", at);
	on = json_object_get(o, "on");
	if (!on)
		return sv_bad(p, "missing");
	err = sv_keys(p, on, vkeys);
	if (err)
		return err;
	for (v = 0; v < XF_V_N; v++) {
		json_t *a = json_object_get(on, vkeys[v]);

		snprintf(p->path, sizeof(p->path), "%s.on.%s", at, vkeys[v]);
		if (!a)
			return sv_bad(p, "missing");
		if (!json_is_string(a) || json_string_length(a) >= sizeof(word))
			return sv_bad(p, "not an action");
		snprintf(word, sizeof(word), "%s", json_string_value(a));
		if (!strcmp(word, "next")) {
			m->act[v] = XF_ACT_NEXT;
		} else if (!strcmp(word, "stop")) {
			m->act[v] = XF_ACT_STOP;
		} else if (!strncmp(word, "goto ", 5) && word[5] &&
			   strlen(word + 5) < sizeof(m->target[v])) {
			m->act[v] = XF_ACT_GOTO;
			snprintf(m->target[v], sizeof(m->target[v]), "%s", word + 5);
		} else {
			return sv_bad(p, "\"%s\" is not next, stop or goto NAME", word);
		}
	}
	return 0;
}

static int sv_chain_parse(struct sv_parse *p, json_t *o, int i, void *elem)
{
	struct xf_save_chain *c = elem;
	static const char *const keys[] = { "dev", "mode", "members", NULL };
	char at[48];
	json_t *ms;
	int m, j, k, err;

	sv_at(p, "chain", i, NULL);
	err = sv_keys(p, o, keys) ?:
	      sv_str(p, o, "chain", i, "dev", c->dev, sizeof(c->dev), false, NULL) ?:
	      sv_word(p, o, "chain", i, "mode", xf_route_mode_words, &m);
	if (err)
		return err;
	c->generic = m == 1;
	sv_at(p, "chain", i, "members");
	ms = json_object_get(o, "members");
	if (!json_is_array(ms))
		return sv_bad(p, ms ? "not an array" : "missing");
	if (!json_array_size(ms) || json_array_size(ms) > XF_CHAIN_MAX)
		return sv_bad(p, "%zu members: from 1 to %d", json_array_size(ms), XF_CHAIN_MAX);
	c->n = json_array_size(ms);
	for (j = 0; j < c->n; j++) {
		snprintf(at, sizeof(at), "chain[%d].members[%d]", i, j);
		err = sv_member_parse(p, json_array_get(ms, j), at, &c->m[j]);
		if (err)
			return err;
		for (k = 0; k < j; k++) {
			if (!strcmp(c->m[k].name, c->m[j].name))
				return sv_bad(p, "member \"%s\" twice", c->m[j].name);
		}
	}
	/* goto targets are members of the same chain. */
	for (j = 0; j < c->n; j++) {
		for (m = 0; m < XF_V_N; m++) {
			if (c->m[j].act[m] != XF_ACT_GOTO)
				continue;
			for (k = 0; k < c->n && strcmp(c->m[k].name, c->m[j].target[m]); k++)
				;
			snprintf(p->path, sizeof(p->path), "chain[%d].members[%d].on.%s", i, j,
				 xf_chain_verdict_name(m));
			if (k == c->n)
				return sv_bad(p, "goto to \"%s\", no member of this chain",
					      c->m[j].target[m]);
		}
	}
	return 0;
}

static int sv_redirect_parse(struct sv_parse *p, json_t *o, int i, void *elem)
{
	struct xf_save_redirect *r = elem;
	static const char *const keys[] = { "dev", "direction", "match", "to", "mode", "via",
					    "hook", NULL };
	static const char *const rhook_words[] = { "", "xdp", "tc", NULL };
	char mode[16], a[INET6_ADDRSTRLEN + 8];
	int d, h, err;

	sv_at(p, "redirect", i, NULL);
	err = sv_keys(p, o, keys) ?:
	      sv_str(p, o, "redirect", i, "dev", r->dev, sizeof(r->dev), false, NULL) ?:
	      sv_word(p, o, "redirect", i, "direction", dir_words, &d) ?:
	      sv_str(p, o, "redirect", i, "to", r->target, sizeof(r->target), false, NULL) ?:
	      sv_str(p, o, "redirect", i, "mode", mode, sizeof(mode), false, NULL) ?:
	      sv_word(p, o, "redirect", i, "hook", rhook_words, &h) ?:
	      sv_str(p, o, "redirect", i, "match", a, sizeof(a), true, &r->has_match);
	if (err)
		return err;
	r->dir = d ? XF_RD_DIR_EGRESS : XF_RD_DIR_INGRESS;
	r->hook = h;
	r->mode = xf_redirect_mode_parse(mode);
	sv_at(p, "redirect", i, "mode");
	if (r->mode < 0)
		return sv_bad(p, "\"%s\" is no redirect mode", mode);
	sv_at(p, "redirect", i, "match");
	if (r->has_match && xf_parse_addr(a, &r->match, true))
		return sv_bad(p, "\"%s\" is not a prefix", a);
	err = sv_str(p, o, "redirect", i, "via", a, sizeof(a), true, &r->has_via);
	if (err)
		return err;
	if (r->has_via && (r->mode != XF_RD_NEIGH || xf_parse_addr(a, &r->via, false)))
		return sv_bad(p, "\"%s\" is not an address, or the mode is not neigh", a);
	return 0;
}

/* The array key of top: each entry parsed by fn into a new array of
 * elements of size sz, in *out (n in *count, also when one fails). */
static int sv_entries(struct sv_parse *p, json_t *top, const char *key, int max, size_t sz,
		      int (*fn)(struct sv_parse *, json_t *, int, void *), void **out, int *count)
{
	json_t *a;
	int n, err;

	a = sv_array(p, top, key, max, &n);
	if (!a)
		return -XF_EUSAGE;
	*out = calloc(n ?: 1, sz);
	if (!*out)
		return -ENOMEM;
	for (*count = 0; *count < n; (*count)++) {
		err = fn(p, json_array_get(a, *count), *count, (char *)*out + *count * sz);
		if (err)
			return err;
	}
	return 0;
}

int xf_save_parse(const char *buf, size_t len, const char *where, struct xf_save *s)
{
	struct sv_parse p = { .where = where };
	json_error_t je;
	json_t *top, *ver;
	int err = -XF_EUSAGE;

	memset(s, 0, sizeof(*s));
	top = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!top) {
		fprintf(stderr, "Error: %s:%d:%d: %s.\n", where, je.line, je.column, je.text);
		return -XF_EUSAGE;
	}
	if (sv_keys(&p, top, (const char *const[]){ "version", "route", "chain",
						    "redirect", NULL }))
		goto out;
	ver = json_object_get(top, "version");
	sv_at(&p, "version", -1, NULL);
	if (!json_is_integer(ver) || json_integer_value(ver) != XF_SAVE_VERSION) {
		sv_bad(&p, "not %d, the only version this xfwd reads", XF_SAVE_VERSION);
		goto out;
	}
	err = sv_entries(&p, top, "route", XF_SAVE_MAX_ROUTES, sizeof(*s->route),
			 sv_route_parse, (void **)&s->route, &s->nroute) ?:
	      sv_entries(&p, top, "chain", XF_SAVE_MAX_CHAINS, sizeof(*s->chain),
			 sv_chain_parse, (void **)&s->chain, &s->nchain) ?:
	      sv_entries(&p, top, "redirect", XF_SAVE_MAX_RULES, sizeof(*s->redirect),
			 sv_redirect_parse, (void **)&s->redirect, &s->nredirect);
out:
	json_decref(top);
	if (err)
		xf_save_free(s);
	return err;
}
