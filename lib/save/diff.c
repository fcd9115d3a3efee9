// SPDX-License-Identifier: GPL-2.0
/* restore: the differences between the running state and a document, per
 * entry: a route member by its device, a chain by its device, a redirect
 * rule by device, direction and match. A chain differs when its mode, its
 * members (name, program, object's hash), their order or their actions
 * do; where a member's file is kept does not count. */
#include <errno.h>
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

static bool sv_route_eq(const struct xf_save_route *a, const struct xf_save_route *b)
{
	return a->hook == b->hook && a->mode == b->mode && a->family == b->family &&
	       a->direct == b->direct && a->flowtable == b->flowtable &&
	       a->nf_bypass == b->nf_bypass;
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

static bool sv_chain_eq(const struct xf_save_chain *a, const struct xf_save_chain *b)
{
	int i;

	if (a->generic != b->generic || a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!sv_member_eq(&a->m[i], &b->m[i]))
			return false;
	return true;
}

static bool sv_rule_key_eq(const struct xf_save_redirect *a, const struct xf_save_redirect *b)
{
	return !strcmp(a->dev, b->dev) && a->dir == b->dir && a->has_match == b->has_match &&
	       (!a->has_match || !memcmp(&a->match, &b->match, sizeof(a->match)));
}

static bool sv_rule_eq(const struct xf_save_redirect *a, const struct xf_save_redirect *b)
{
	return !strcmp(a->target, b->target) && a->mode == b->mode && a->hook == b->hook &&
	       a->has_via == b->has_via &&
	       (!a->has_via || !memcmp(&a->via, &b->via, sizeof(a->via)));
}

static const char *sv_rule_str(const struct xf_save_redirect *r, char *buf, size_t len)
{
	char m[INET6_ADDRSTRLEN + 8];

	snprintf(buf, len, "%s %s %s to %s mode %s", r->dev,
		 r->dir == XF_RD_DIR_EGRESS ? "egress" : "ingress",
		 r->has_match ? xf_addr_str(&r->match, true, m, sizeof(m)) : "all", r->target,
		 xf_redirect_mode_name(r->mode));
	return buf;
}

int xf_save_diff(const struct xf_save *have, const struct xf_save *want, struct xf_diffs *out)
{
	char a[96];
	int i, j, err = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < have->nroute && !err; i++) {
		for (j = 0; j < want->nroute && strcmp(have->route[i].dev, want->route[j].dev); j++)
			;
		if (j == want->nroute)
			err = sv_diff_add(out, XF_DIFF_ROUTE, XF_DIFF_REMOVE, i, -1, have->route[i].dev);
		else if (!sv_route_eq(&have->route[i], &want->route[j]))
			err = sv_diff_add(out, XF_DIFF_ROUTE, XF_DIFF_CHANGE, i, j, have->route[i].dev);
	}
	for (j = 0; j < want->nroute && !err; j++) {
		for (i = 0; i < have->nroute && strcmp(have->route[i].dev, want->route[j].dev); i++)
			;
		if (i == have->nroute)
			err = sv_diff_add(out, XF_DIFF_ROUTE, XF_DIFF_ADD, -1, j, want->route[j].dev);
	}
	for (i = 0; i < have->nchain && !err; i++) {
		for (j = 0; j < want->nchain && strcmp(have->chain[i].dev, want->chain[j].dev); j++)
			;
		if (j == want->nchain)
			err = sv_diff_add(out, XF_DIFF_CHAIN, XF_DIFF_REMOVE, i, -1, have->chain[i].dev);
		else if (!sv_chain_eq(&have->chain[i], &want->chain[j]))
			err = sv_diff_add(out, XF_DIFF_CHAIN, XF_DIFF_CHANGE, i, j, have->chain[i].dev);
	}
	for (j = 0; j < want->nchain && !err; j++) {
		for (i = 0; i < have->nchain && strcmp(have->chain[i].dev, want->chain[j].dev); i++)
			;
		if (i == have->nchain)
			err = sv_diff_add(out, XF_DIFF_CHAIN, XF_DIFF_ADD, -1, j, want->chain[j].dev);
	}
	for (i = 0; i < have->nredirect && !err; i++) {
		for (j = 0; j < want->nredirect &&
			    !sv_rule_key_eq(&have->redirect[i], &want->redirect[j]); j++)
			;
		sv_rule_str(&have->redirect[i], a, sizeof(a));
		if (j == want->nredirect)
			err = sv_diff_add(out, XF_DIFF_REDIRECT, XF_DIFF_REMOVE, i, -1, a);
		else if (!sv_rule_eq(&have->redirect[i], &want->redirect[j]))
			err = sv_diff_add(out, XF_DIFF_REDIRECT, XF_DIFF_CHANGE, i, j, a);
	}
	for (j = 0; j < want->nredirect && !err; j++) {
		for (i = 0; i < have->nredirect &&
			    !sv_rule_key_eq(&have->redirect[i], &want->redirect[j]); i++)
			;
		if (i == have->nredirect)
			err = sv_diff_add(out, XF_DIFF_REDIRECT, XF_DIFF_ADD, -1, j,
					  sv_rule_str(&want->redirect[j], a, sizeof(a)));
	}
	if (err)
		xf_diffs_free(out);
	return err;
}
