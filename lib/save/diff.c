// SPDX-License-Identifier: GPL-2.0
/* restore: the differences between the running state and a document, per
 * entry: a route member by its device, a chain by its device, a redirect
 * rule by device, direction and match. A chain differs when its mode, its
 * members (name, program, object's hash), their order or their actions
 * do; where a member's file is kept does not count. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redirect/redirect.h"
#include "route/route.h"
#include "save/save.h"
#include "vec.h"

const char *xf_diff_obj_name(enum xf_diff_obj o)
{
	return o == XF_DIFF_ROUTE ? "route" : o == XF_DIFF_CHAIN ? "chain" : "redirect";
}

const char *xf_diff_op_name(enum xf_diff_op o)
{
	return o == XF_DIFF_ADD ? "add" : o == XF_DIFF_REMOVE ? "remove" : "change";
}

void xf_diffs_free(struct xf_diffs *d)
{
	free(d->d);
	memset(d, 0, sizeof(*d));
}

static int sv_diff_add(struct xf_diffs *out, enum xf_diff_obj obj, enum xf_diff_op op,
		       int have, int want, const char *what)
{
	struct xf_diff *d = xf_vec_push(&out->d, &out->n, &out->cap, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->obj = obj;
	d->op = op;
	d->have = have;
	d->want = want;
	snprintf(d->what, sizeof(d->what), "%s", what);
	return 0;
}

static bool sv_route_eq(const void *va, const void *vb)
{
	const struct xf_save_route *a = va, *b = vb;

	return a->hook == b->hook && a->mode == b->mode && a->family == b->family &&
	       a->direct == b->direct && a->flowtable == b->flowtable &&
	       a->nf_bypass == b->nf_bypass && a->qdisc_bypass == b->qdisc_bypass;
}

static bool sv_member_eq(const struct xf_save_member *a, const struct xf_save_member *b)
{
	int v;

	if (strcmp(a->name, b->name) || a->builtin != b->builtin)
		return false;
	if (!a->builtin && (strcmp(a->prog, b->prog) || strcmp(a->sha256, b->sha256)))
		return false;
	for (v = 0; v < XF_V_N; v++) {
		if (a->act[v] != b->act[v])
			return false;
		if (a->act[v] == XF_ACT_GOTO && strcmp(a->target[v], b->target[v]))
			return false;
	}
	return true;
}

static bool sv_chain_eq(const void *va, const void *vb)
{
	const struct xf_save_chain *a = va, *b = vb;
	int i;

	if (a->generic != b->generic || a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!sv_member_eq(&a->m[i], &b->m[i]))
			return false;
	return true;
}

bool xf_save_rule_same(const struct xf_save_redirect *a, const struct xf_save_redirect *b)
{
	return !strcmp(a->dev, b->dev) && a->dir == b->dir && a->has_match == b->has_match &&
	       (!a->has_match || !memcmp(&a->match, &b->match, sizeof(a->match)));
}

static bool sv_rule_key_eq(const void *a, const void *b)
{
	return xf_save_rule_same(a, b);
}

static bool sv_rule_eq(const void *va, const void *vb)
{
	const struct xf_save_redirect *a = va, *b = vb;

	return !strcmp(a->target, b->target) && a->mode == b->mode && a->hook == b->hook &&
	       a->has_via == b->has_via &&
	       (!a->has_via || !memcmp(&a->via, &b->via, sizeof(a->via)));
}

static const char *sv_rule_str(const void *e, char *buf, size_t len)
{
	const struct xf_save_redirect *r = e;
	char m[INET6_ADDRSTRLEN + 8];

	snprintf(buf, len, "%s %s %s to %s mode %s", r->dev,
		 r->dir == XF_RD_DIR_EGRESS ? "egress" : "ingress",
		 r->has_match ? xf_addr_str(&r->match, true, m, sizeof(m)) : "all", r->target,
		 xf_redirect_mode_name(r->mode));
	return buf;
}

/* One kind of entry, for sv_diff_kind(): its entries are size bytes
 * apart, keyed by the device name at offset dev, or by key_eq when it is
 * given (and then named by name); eq tells a changed entry. */
struct sv_kind {
	enum xf_diff_obj obj;
	size_t size, dev;
	bool (*eq)(const void *a, const void *b);
	bool (*key_eq)(const void *a, const void *b);
	const char *(*name)(const void *e, char *buf, size_t len);
};

static bool sv_kind_key_eq(const struct sv_kind *k, const char *a, const char *b)
{
	return k->key_eq ? k->key_eq(a, b) : !strcmp(a + k->dev, b + k->dev);
}

static const char *sv_kind_name(const struct sv_kind *k, const char *e, char *buf, size_t len)
{
	return k->name ? k->name(e, buf, len) : e + k->dev;
}

/* The diffs of one kind: have's entries that want lacks (remove) or has
 * otherwise (change), in have's order, then want's that have lacks
 * (add). 0/-errno. */
static int sv_diff_kind(const struct sv_kind *k, const void *have, int nh, const void *want,
			int nw, struct xf_diffs *out)
{
	const char *h = have, *w = want;
	char a[96];
	int i, j, err = 0;

	for (i = 0; i < nh && !err; i++) {
		for (j = 0; j < nw && !sv_kind_key_eq(k, h + i * k->size, w + j * k->size); j++)
			;
		if (j == nw)
			err = sv_diff_add(out, k->obj, XF_DIFF_REMOVE, i, -1,
					  sv_kind_name(k, h + i * k->size, a, sizeof(a)));
		else if (!k->eq(h + i * k->size, w + j * k->size))
			err = sv_diff_add(out, k->obj, XF_DIFF_CHANGE, i, j,
					  sv_kind_name(k, h + i * k->size, a, sizeof(a)));
	}
	for (j = 0; j < nw && !err; j++) {
		for (i = 0; i < nh && !sv_kind_key_eq(k, h + i * k->size, w + j * k->size); i++)
			;
		if (i == nh)
			err = sv_diff_add(out, k->obj, XF_DIFF_ADD, -1, j,
					  sv_kind_name(k, w + j * k->size, a, sizeof(a)));
	}
	return err;
}

int xf_save_diff(const struct xf_save *have, const struct xf_save *want, struct xf_diffs *out)
{
	static const struct sv_kind route = {
		XF_DIFF_ROUTE, sizeof(struct xf_save_route), offsetof(struct xf_save_route, dev),
		sv_route_eq, NULL, NULL,
	};
	static const struct sv_kind chain = {
		XF_DIFF_CHAIN, sizeof(struct xf_save_chain), offsetof(struct xf_save_chain, dev),
		sv_chain_eq, NULL, NULL,
	};
	static const struct sv_kind redirect = {
		XF_DIFF_REDIRECT, sizeof(struct xf_save_redirect), 0,
		sv_rule_eq, sv_rule_key_eq, sv_rule_str,
	};
	int err;

	memset(out, 0, sizeof(*out));
	err = sv_diff_kind(&route, have->route, have->nroute, want->route, want->nroute, out) ?:
	      sv_diff_kind(&chain, have->chain, have->nchain, want->chain, want->nchain, out) ?:
	      sv_diff_kind(&redirect, have->redirect, have->nredirect, want->redirect,
			   want->nredirect, out);
	if (err)
		xf_diffs_free(out);
	return err;
}
