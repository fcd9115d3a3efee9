// SPDX-License-Identifier: GPL-2.0
/* save: the namespace's state as the kernel holds it, read through each
 * object's own listing. Interfaces that have gone are left out: they are
 * garbage for xfwd gc, not state to restore. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "file.h"
#include "redirect/redirect.h"
#include "route/route.h"
#include "save/save.h"
#include "vec.h"

struct sv_read {
	struct xf_nl *nl;
	struct xf_save *s;
	const char *keep;
	int err;
	int route_cap, chain_cap, redirect_cap;	/* room in s's arrays */
};

void xf_save_free(struct xf_save *s)
{
	free(s->route);
	free(s->chain);
	free(s->redirect);
	memset(s, 0, sizeof(*s));
}

/* A new zeroed entry at the end of *arr (*n entries of sz, room for
 * *cap), named by its device dev, which every kind of entry holds first
 * (save.h):
 * the entry, or NULL (ENOMEM). */
static void *sv_add(void *arr, int *n, int *cap, size_t sz, const char *dev)
{
	char *e = xf_vec_push(arr, n, cap, sz);

	if (e)
		snprintf(e, IF_NAMESIZE, "%s", dev);
	return e;
}

static int sv_route_cb(const struct xf_route_iface *ri, void *arg)
{
	struct sv_read *r = arg;
	struct xf_save_route *sr;

	if (ri->err) {
		fprintf(stderr, "Error: cannot read route member ifindex %d: %s.\n", ri->ifindex,
			strerror(-ri->err));
		r->err = ri->err;
		return ri->err;
	}
	if (!ri->name[0])
		return 0;
	sr = sv_add(&r->s->route, &r->s->nroute, &r->route_cap, sizeof(*sr), ri->name);
	if (!sr)
		return -ENOMEM;
	sr->hook = ri->flags & XF_RTIF_AUTO ? XF_HOOK_AUTO : ri->hook;
	if (sr->hook == XF_HOOK_XDP)
		sr->mode = strcmp(ri->mode, "generic") ? XF_MODE_NATIVE : XF_MODE_GENERIC;
	sr->family = (ri->flags & XF_RTIF_WANT_INET ? XF_RTIF_INET : 0) |
		     (ri->flags & XF_RTIF_WANT_INET6 ? XF_RTIF_INET6 : 0);
	sr->direct = ri->flags & XF_RTIF_DIRECT;
	sr->flowtable = ri->flags & XF_RTIF_FLOWTABLE;
	sr->nf_bypass = ri->flags & XF_RTIF_NF_BYPASS;
	sr->qdisc_bypass = ri->flags & XF_RTIF_QDISC_BYPASS;
	return 0;
}

/* keep: copy the object into dir as <sha256>.o (unless it is there) and
 * name that copy. */
static int sv_keep(const char *dir, const char *copy, struct xf_save_member *m)
{
	char path[XF_SAVE_PATH_MAX];
	int err;

	if (snprintf(path, sizeof(path), "%s/%s.o", dir, m->sha256) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (access(path, F_OK)) {
		err = xf_file_copy_atomic(copy, path);
		if (err)
			return err;
	}
	snprintf(m->object, sizeof(m->object), "%s", path);
	return 0;
}

static int sv_member(struct sv_read *r, const struct xf_chain_info *ci,
		     const struct xf_chain_desc_member *dm, struct xf_save_member *m)
{
	char copy[XF_SAVE_PATH_MAX];
	uint32_t v, k;
	int err;

	snprintf(m->name, sizeof(m->name), "%s", dm->name);
	for (v = 0; v < XF_V_N; v++) {
		m->act[v] = dm->act[v];
		if (m->act[v] == XF_ACT_DEFAULT)
			m->act[v] = v == XF_V_PASS ? XF_ACT_NEXT : XF_ACT_STOP;
		if (m->act[v] != XF_ACT_GOTO)
			continue;
		for (k = 0; k < ci->desc.n; k++)
			if (ci->desc.m[k].slot == dm->target[v])
				snprintf(m->target[v], sizeof(m->target[v]), "%s",
					 ci->desc.m[k].name);
	}
	/* xfwd's own members come with their object (route, redirect). */
	if (dm->maps[0]) {
		m->builtin = true;
		return 0;
	}
	snprintf(m->prog, sizeof(m->prog), "%s", dm->prog);
	err = xf_chain_member_files(r->nl, ci->dev, dm->name, copy, sizeof(copy), m->object,
				    sizeof(m->object));
	if (!err)
		err = xf_sha256_file(copy, m->sha256);
	if (!err && r->keep)
		err = sv_keep(r->keep, copy, m);
	if (err)
		fprintf(stderr, "Error: cannot read member \"%s\" of %s's chain: %s.\n",
			dm->name, ci->dev, strerror(-err));
	return err;
}

static int sv_chain_cb(const struct xf_chain_info *ci, void *arg)
{
	struct sv_read *r = arg;
	struct xf_save_chain *sc;
	uint32_t i;
	int err;

	if (!ci->dev[0] || !ci->desc.n)
		return 0;
	sc = sv_add(&r->s->chain, &r->s->nchain, &r->chain_cap, sizeof(*sc), ci->dev);
	if (!sc)
		return -ENOMEM;
	sc->generic = !strcmp(ci->mode, "generic");
	for (i = 0; i < ci->desc.n && i < XF_CHAIN_MAX; i++) {
		err = sv_member(r, ci, &ci->desc.m[i], &sc->m[sc->n++]);
		if (err) {
			r->err = err;
			return err;
		}
	}
	return 0;
}

static int sv_redirect_cb(const struct xf_redirect_info *ri, void *arg)
{
	struct sv_read *r = arg;
	struct xf_save_redirect *sr;

	if (!ri->dev[0])
		return 0;
	sr = sv_add(&r->s->redirect, &r->s->nredirect, &r->redirect_cap, sizeof(*sr), ri->dev);
	if (!sr)
		return -ENOMEM;
	sr->dir = ri->dir;
	sr->has_match = ri->has_match;
	sr->match = ri->match;
	snprintf(sr->target, sizeof(sr->target), "%s", ri->target);
	sr->mode = ri->mode;
	sr->has_via = ri->has_via;
	sr->via = ri->via;
	sr->hook = strcmp(ri->attach, "xdp") ? XF_HOOK_TC : XF_HOOK_XDP;
	return 0;
}

int xf_save_read(struct xf_nl *nl, const char *keep, struct xf_save *s)
{
	struct sv_read r = { .nl = nl, .s = s, .keep = keep };
	int err;

	memset(s, 0, sizeof(*s));
	if (keep && mkdir(keep, 0700) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "Error: cannot make \"%s\": %s.\n", keep, strerror(-err));
		return err;
	}
	err = xf_route_list(nl, 0, sv_route_cb, &r);
	if (!err)
		err = xf_chain_list(nl, NULL, sv_chain_cb, &r);
	if (!err)
		err = xf_redirect_list(nl, NULL, sv_redirect_cb, &r);
	if (err) {
		if (!r.err)
			fprintf(stderr, "Error: cannot read xfwd's state: %s.\n", strerror(-err));
		xf_save_free(s);
	}
	return err;
}
