// SPDX-License-Identifier: GPL-2.0
/* restore: what a document asks that only this machine can answer: its
 * entries are each named once, its devices exist, its members' objects are
 * there and are the ones that were saved. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "digest.h"
#include "nl_link.h"
#include "save/save.h"
#include "usage.h"

static bool sv_dev_missing(struct xf_nl *nl, const char *dev)
{
	struct xf_link l;

	return xf_link_get(nl, dev, 0, &l) == -ENODEV;
}

/* Drop entry i of an array of n entries of size sz. */
static void sv_drop(void *base, int *n, int i, size_t sz)
{
	char *b = base;

	memmove(b + i * sz, b + (i + 1) * sz, (*n - i - 1) * sz);
	(*n)--;
}

/* A device that does not exist: an Error, or with skip a Warning and the
 * entry goes. 1 when it went, 0 when the device is there, -ENODEV. */
static int sv_missing(struct xf_nl *nl, const char *what, int i, const char *dev, bool skip)
{
	if (!sv_dev_missing(nl, dev))
		return 0;
	if (!skip) {
		fprintf(stderr, "Error: %s[%d]: device \"%s\" does not exist; -force skips "
			"what names it.\n", what, i, dev);
		return -ENODEV;
	}
	fprintf(stderr, "Warning: %s[%d]: device \"%s\" does not exist; skipped.\n", what, i,
		dev);
	return 1;
}

/* Entry *i of arr (*n entries of sz) names dev, and dev2 unless NULL:
 * sv_missing() of each, and where one went, the entry goes from arr and
 * *i steps back. 1 when it went, 0 when both are there, -ENODEV. */
static int sv_drop_missing(struct xf_nl *nl, const char *what, void *arr, int *n, int *i,
			   size_t sz, const char *dev, const char *dev2, bool skip)
{
	int r = sv_missing(nl, what, *i, dev, skip);

	if (!r && dev2)
		r = sv_missing(nl, what, *i, dev2, skip);
	if (r > 0)
		sv_drop(arr, n, (*i)--, sz);
	return r;
}

static int sv_check_unique(const struct xf_save *s)
{
	const struct xf_save_redirect *a, *b;
	int i, j;

	for (i = 0; i < s->nroute; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(s->route[i].dev, s->route[j].dev)) {
				fprintf(stderr, "Error: route[%d]: \"%s\" is in the document "
					"twice.\n", i, s->route[i].dev);
				return -XF_EUSAGE;
			}
	for (i = 0; i < s->nchain; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(s->chain[i].dev, s->chain[j].dev)) {
				fprintf(stderr, "Error: chain[%d]: \"%s\" is in the document "
					"twice.\n", i, s->chain[i].dev);
				return -XF_EUSAGE;
			}
	for (i = 0; i < s->nredirect; i++) {
		for (j = 0; j < i; j++) {
			a = &s->redirect[i];
			b = &s->redirect[j];
			if (!strcmp(a->dev, b->dev) && a->dir == b->dir &&
			    a->has_match == b->has_match &&
			    (!a->has_match || !memcmp(&a->match, &b->match, sizeof(a->match)))) {
				fprintf(stderr, "Error: redirect[%d]: the same rule as "
					"redirect[%d].\n", i, j);
				return -XF_EUSAGE;
			}
		}
	}
	return 0;
}

static int sv_check_member(const struct xf_save_chain *c, int i, int j)
{
	const struct xf_save_member *m = &c->m[j];
	char hex[XF_SHA256_HEX];
	int err;

	if (m->builtin)
		return 0;
	err = xf_sha256_file(m->object, hex);
	if (err) {
		fprintf(stderr, "Error: chain[%d].members[%d] \"%s\": cannot read \"%s\": %s.\n",
			i, j, m->name, m->object, strerror(-err));
		return err;
	}
	if (strcmp(hex, m->sha256)) {
		fprintf(stderr, "Error: chain[%d].members[%d] \"%s\": \"%s\" has changed since "
			"the save (sha256 %s, saved %s).\n", i, j, m->name, m->object, hex,
			m->sha256);
		return -EINVAL;
	}
	return 0;
}

int xf_save_check(struct xf_nl *nl, struct xf_save *s, bool skip)
{
	int i, j, r;

	r = sv_check_unique(s);
	if (r)
		return r;
	for (i = 0; i < s->nroute; i++) {
		r = sv_drop_missing(nl, "route", s->route, &s->nroute, &i, sizeof(*s->route),
				    s->route[i].dev, NULL, skip);
		if (r < 0)
			return r;
	}
	for (i = 0; i < s->nredirect; i++) {
		r = sv_drop_missing(nl, "redirect", s->redirect, &s->nredirect, &i,
				    sizeof(*s->redirect), s->redirect[i].dev,
				    s->redirect[i].target, skip);
		if (r < 0)
			return r;
	}
	for (i = 0; i < s->nchain; i++) {
		r = sv_drop_missing(nl, "chain", s->chain, &s->nchain, &i, sizeof(*s->chain),
				    s->chain[i].dev, NULL, skip);
		if (r < 0)
			return r;
		if (r)
			continue;
		for (j = 0; j < s->chain[i].n; j++) {
			r = sv_check_member(&s->chain[i], i, j);
			if (r)
				return r;
		}
	}
	return 0;
}
