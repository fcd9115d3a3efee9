// SPDX-License-Identifier: GPL-2.0
/* restore: make the running state the document's, difference by
 * difference, each through its object's own all-or-nothing change. Every
 * change done is written down with the change that takes it back; when one
 * fails, those are made in reverse order, and the state is as it was.
 *
 * The order: route members and redirect rules that go or change are taken
 * out first, then the new and changed ones are put in (route on hook xdp
 * and redirect on hook xdp make their own chain members), then each chain
 * is made what the document says: members that go are taken out (after
 * the gotos to them), new ones are added at the end, and one last change
 * gives every member its place and its actions.
 *
 * Objects of new members are copied into a staging directory and their
 * hash checked there, so that what is added is what was checked; a chain's
 * members as they were are staged too, for the way back. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>

#include "digest.h"
#include "file.h"
#include "vec.h"
#include "redirect/redirect.h"
#include "route/route.h"
#include "save/save.h"
#include "xbpf.h"

#define SV_PATH 512

enum sv_undo_kind { SV_U_DETACH, SV_U_ATTACH, SV_U_RD_DEL, SV_U_RD_ADD, SV_U_CHAIN };

/* A chain as it was, with its members' objects staged. */
struct sv_snap {
	struct xf_save_chain c;
	bool existed;
	char staged[XF_CHAIN_MAX][SV_PATH];
};

struct sv_undo {
	enum sv_undo_kind kind;
	const struct xf_save_route *route;
	const struct xf_save_redirect *rule;
	struct sv_snap *snap;
	char dev[IF_NAMESIZE];
};

struct sv_apply {
	struct xf_nl *nl;
	bool force;
	char stage[SV_PATH];
	int nstaged;
	struct sv_undo *u;
	int nu, cap;
};

static int sv_attach(struct sv_apply *ap, const struct xf_save_route *r)
{
	const struct xf_route_attach_opts o = {
		.hook = r->hook, .mode = r->mode, .family = r->family, .direct = r->direct,
		.flowtable = r->flowtable, .nf_bypass = r->nf_bypass,
		.qdisc_bypass = r->qdisc_bypass, .force = ap->force,
	};
	const char *dev = r->dev;

	return xf_route_attach(ap->nl, &dev, 1, &o);
}

static int sv_detach(struct sv_apply *ap, const char *dev)
{
	return xf_route_detach(ap->nl, &dev, 1, false);
}

static int sv_rd_add(struct sv_apply *ap, const struct xf_save_redirect *r)
{
	const struct xf_redirect_req q = {
		.dir = r->dir, .has_match = r->has_match, .match = r->match,
		.target = r->target, .mode = r->mode, .has_via = r->has_via, .via = r->via,
		.hook = r->hook,
	};

	return xf_redirect_add(ap->nl, r->dev, &q);
}

static int sv_rd_del(struct sv_apply *ap, const struct xf_save_redirect *r)
{
	return xf_redirect_del(ap->nl, r->dev, r->dir, r->has_match ? &r->match : NULL, false);
}

static struct sv_undo *sv_undo_push(struct sv_apply *ap, enum sv_undo_kind kind)
{
	struct sv_undo *u = xf_vec_push(&ap->u, &ap->nu, &ap->cap, sizeof(*u));

	if (u)
		u->kind = kind;
	return u;
}

/* A file staged under a new name in the staging directory. */
static int sv_stage(struct sv_apply *ap, const char *from, char *to, size_t len)
{
	if (!ap->stage[0]) {
		if (xf_run_path(ap->stage, sizeof(ap->stage), 0, NULL) ||
		    snprintf(ap->stage + strlen(ap->stage), sizeof(ap->stage) - strlen(ap->stage),
			     "/restore.%d", (int)getpid()) >= (int)sizeof(ap->stage) ||
		    xf_pin_mkdir(ap->stage)) {
			ap->stage[0] = 0;
			return -ENAMETOOLONG;
		}
	}
	snprintf(to, len, "%s/%d.o", ap->stage, ap->nstaged++);
	return xf_file_copy(from, to);
}

static void sv_unstage(struct sv_apply *ap)
{
	char p[SV_PATH + 300];
	struct dirent *e;
	DIR *d;

	if (!ap->stage[0])
		return;
	d = opendir(ap->stage);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", ap->stage, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	xf_dir_prune(ap->stage, XF_RUN_ROOT);
}

/* dev's chain as it runs now, or none (c->n 0). */
static int sv_chain_now(struct sv_apply *ap, const char *dev, struct xf_save_chain *c)
{
	struct xf_save s;
	int i, err;

	memset(c, 0, sizeof(*c));
	err = xf_save_read(ap->nl, NULL, &s);
	if (err)
		return err;
	for (i = 0; i < s.nchain; i++)
		if (!strcmp(s.chain[i].dev, dev))
			*c = s.chain[i];
	xf_save_free(&s);
	return 0;
}

static const struct xf_save_member *sv_find(const struct xf_save_chain *c, const char *name)
{
	int i;

	for (i = 0; c && i < c->n; i++)
		if (!strcmp(c->m[i].name, name))
			return &c->m[i];
	return NULL;
}

/* The same member: name, program, object. */
static bool sv_same(const struct xf_save_member *a, const struct xf_save_member *b)
{
	return a && b && !strcmp(a->name, b->name) && a->builtin == b->builtin &&
	       (a->builtin || (!strcmp(a->prog, b->prog) && !strcmp(a->sha256, b->sha256)));
}

static int sv_arrange(struct sv_apply *ap, const char *dev, const struct xf_save_chain *c)
{
	struct xf_chain_rules r[XF_CHAIN_MAX];
	int i, v;

	for (i = 0; i < c->n; i++) {
		r[i].name = c->m[i].name;
		for (v = 0; v < XF_V_N; v++) {
			r[i].act[v] = c->m[i].act[v];
			r[i].target[v] = c->m[i].target[v];
		}
	}
	return xf_chain_arrange(ap->nl, dev, r, c->n);
}

/* Make dev's chain want (NULL: no member of the operator's). staged:
 * where want's objects already are (the way back), or NULL to stage them
 * from the document's paths and check their hash. */
static int sv_chain_make(struct sv_apply *ap, const char *dev, const struct xf_save_chain *want,
			 char (*staged)[SV_PATH])
{
	struct xf_save_chain now, keep;
	char path[SV_PATH], hex[XF_SHA256_HEX];
	bool gone[XF_CHAIN_MAX] = { false }, any = false;
	int i, v, err;

	err = sv_chain_now(ap, dev, &now);
	if (err)
		return err;
	/* The members that go, or are replaced: first no goto leads to them. */
	for (i = 0; i < now.n; i++) {
		gone[i] = !now.m[i].builtin && !sv_same(&now.m[i], sv_find(want, now.m[i].name));
		any |= gone[i];
	}
	if (any) {
		keep = now;
		for (i = 0; i < keep.n; i++) {
			for (v = 0; v < XF_V_N; v++) {
				const struct xf_save_member *t = sv_find(&now, keep.m[i].target[v]);

				if (keep.m[i].act[v] == XF_ACT_GOTO && t && gone[t - now.m])
					keep.m[i].act[v] = v == XF_V_PASS ? XF_ACT_NEXT : XF_ACT_STOP;
			}
		}
		err = sv_arrange(ap, dev, &keep);
		for (i = 0; !err && i < now.n; i++)
			if (gone[i])
				err = xf_chain_del(ap->nl, dev, now.m[i].name);
		if (err)
			return err;
	}
	if (!want)
		return 0;
	for (i = 0; i < want->n; i++) {
		const struct xf_save_member *m = &want->m[i];
		struct xf_chain_add a = {
			.prog = m->prog, .name = m->name, .pos = XF_POS_LAST, .src = m->object,
			.xdp_flags = want->generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE,
		};
		const struct xf_save_member *n = sv_find(&now, m->name);

		if (m->builtin || (n && sv_same(n, m)))
			continue;
		if (staged) {
			a.obj = staged[i];
		} else {
			err = sv_stage(ap, m->object, path, sizeof(path)) ?:
			      xf_sha256_file(path, hex);
			if (err) {
				fprintf(stderr, "Error: cannot stage \"%s\": %s.\n", m->object,
					strerror(-err));
				return err;
			}
			if (strcmp(hex, m->sha256)) {
				fprintf(stderr, "Error: \"%s\" has changed since the save (sha256 "
					"%s, saved %s).\n", m->object, hex, m->sha256);
				return -EINVAL;
			}
			a.obj = path;
		}
		err = xf_chain_add(ap->nl, dev, &a);
		if (err)
			return err;
	}
	return sv_arrange(ap, dev, want);
}

/* Before dev's chain changes: what it is, with its objects staged. */
static int sv_chain_snap(struct sv_apply *ap, const char *dev, struct sv_snap **out)
{
	char copy[SV_PATH], src[SV_PATH];
	struct sv_snap *s;
	int i, err = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = sv_chain_now(ap, dev, &s->c);
	s->existed = s->c.n > 0;
	for (i = 0; !err && i < s->c.n; i++) {
		if (s->c.m[i].builtin)
			continue;
		err = xf_chain_member_files(ap->nl, dev, s->c.m[i].name, copy, sizeof(copy), src,
					    sizeof(src)) ?:
		      sv_stage(ap, copy, s->staged[i], sizeof(s->staged[i]));
	}
	if (err) {
		fprintf(stderr, "Error: cannot keep %s's chain for the way back: %s.\n", dev,
			strerror(-err));
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

static void sv_undo_all(struct sv_apply *ap)
{
	struct sv_undo *u;
	int err = 0;

	while (ap->nu > 0) {
		u = &ap->u[--ap->nu];
		switch (u->kind) {
		case SV_U_DETACH:
			err = sv_detach(ap, u->dev);
			break;
		case SV_U_ATTACH:
			err = sv_attach(ap, u->route);
			break;
		case SV_U_RD_DEL:
			err = sv_rd_del(ap, u->rule);
			break;
		case SV_U_RD_ADD:
			err = sv_rd_add(ap, u->rule);
			break;
		case SV_U_CHAIN:
			err = sv_chain_make(ap, u->dev, u->snap->existed ? &u->snap->c : NULL,
					    u->snap->staged);
			free(u->snap);
			break;
		}
		if (err)
			fprintf(stderr, "Error: restore could not take back a change to %s: %s.\n",
				u->dev[0] ? u->dev : u->route ? u->route->dev : u->rule->dev,
				strerror(-err));
	}
}

/* Record the way back from a change made; -ENOMEM when it cannot be, and
 * then the change itself is taken back here. */
static int sv_did(struct sv_apply *ap, enum sv_undo_kind kind, const char *dev,
		  const struct xf_save_route *r, const struct xf_save_redirect *q)
{
	struct sv_undo *u = sv_undo_push(ap, kind);

	if (!u)
		return -ENOMEM;
	snprintf(u->dev, sizeof(u->dev), "%s", dev ?: "");
	u->route = r;
	u->rule = q;
	return 0;
}

static int sv_take_out(struct sv_apply *ap, const struct xf_save *have, const struct xf_diff *d)
{
	int err = 0;

	if (d->op == XF_DIFF_ADD)
		return 0;
	if (d->obj == XF_DIFF_ROUTE) {
		err = sv_detach(ap, have->route[d->have].dev);
		if (!err)
			err = sv_did(ap, SV_U_ATTACH, NULL, &have->route[d->have], NULL);
	} else if (d->obj == XF_DIFF_REDIRECT) {
		err = sv_rd_del(ap, &have->redirect[d->have]);
		if (!err)
			err = sv_did(ap, SV_U_RD_ADD, NULL, NULL, &have->redirect[d->have]);
	}
	return err;
}

static int sv_put_in(struct sv_apply *ap, const struct xf_save *want, const struct xf_diff *d)
{
	int err = 0;

	if (d->op == XF_DIFF_REMOVE)
		return 0;
	if (d->obj == XF_DIFF_ROUTE) {
		err = sv_attach(ap, &want->route[d->want]);
		if (!err)
			err = sv_did(ap, SV_U_DETACH, want->route[d->want].dev, NULL, NULL);
	} else if (d->obj == XF_DIFF_REDIRECT) {
		err = sv_rd_add(ap, &want->redirect[d->want]);
		if (!err)
			err = sv_did(ap, SV_U_RD_DEL, NULL, NULL, &want->redirect[d->want]);
	}
	return err;
}

static int sv_chain(struct sv_apply *ap, const struct xf_save *have, const struct xf_save *want,
		    const struct xf_diff *d)
{
	const char *dev = d->have >= 0 ? have->chain[d->have].dev : want->chain[d->want].dev;
	struct sv_snap *snap;
	struct sv_undo *u;
	int err;

	err = sv_chain_snap(ap, dev, &snap);
	if (err)
		return err;
	u = sv_undo_push(ap, SV_U_CHAIN);
	if (!u) {
		free(snap);
		return -ENOMEM;
	}
	snprintf(u->dev, sizeof(u->dev), "%s", dev);
	u->snap = snap;
	return sv_chain_make(ap, dev, d->want >= 0 ? &want->chain[d->want] : NULL, NULL);
}

int xf_save_apply(struct xf_nl *nl, const struct xf_save *have, const struct xf_save *want,
		  const struct xf_diffs *d, bool force)
{
	struct sv_apply ap = { .nl = nl, .force = force };
	int i, err = 0;

	for (i = 0; i < d->n && !err; i++)
		err = sv_take_out(&ap, have, &d->d[i]);
	for (i = 0; i < d->n && !err; i++)
		err = sv_put_in(&ap, want, &d->d[i]);
	for (i = 0; i < d->n && !err; i++)
		if (d->d[i].obj == XF_DIFF_CHAIN)
			err = sv_chain(&ap, have, want, &d->d[i]);
	if (err) {
		fprintf(stderr, "Error: restore failed; what it had changed is taken back.\n");
		sv_undo_all(&ap);
	}
	while (ap.nu > 0)
		if (ap.u[--ap.nu].kind == SV_U_CHAIN)
			free(ap.u[ap.nu].snap);
	free(ap.u);
	sv_unstage(&ap);
	return err;
}
