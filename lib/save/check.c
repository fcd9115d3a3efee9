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

/* No device named twice among arr's n entries of sz (what's). 0, or
 * -XF_EUSAGE after an Error. */
/* sv_drop_missing() for each of arr's *n entries of sz, by their device
 * and, unless dev2 is 0, the second device name at offset dev2. 0, or
 * -ENODEV. */
static int sv_drop_missing_all(struct xf_nl *nl, const char *what, void *arr, int *n,
			       size_t sz, size_t dev2, bool skip)
{
	char *e = arr;
	int i, r;

	for (i = 0; i < *n; i++) {
		r = sv_drop_missing(nl, what, arr, n, &i, sz, e + i * sz,
				    dev2 ? e + i * sz + dev2 : NULL, skip);
		if (r < 0)
			return r;
	}
	return 0;
}

static int sv_check_unique_dev(const char *what, const void *arr, int n, size_t sz)
{
	const char *e = arr;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(e + i * sz, e + j * sz)) {
				fprintf(stderr, "Error: %s[%d]: \"%s\" is in the document "
					"twice.\n", what, i, e + i * sz);
				return -XF_EUSAGE;
			}
	return 0;
}

static int sv_check_unique(const struct xf_save *s)
{
	int i, j, err;

	err = sv_check_unique_dev("route", s->route, s->nroute, sizeof(*s->route)) ?:
	      sv_check_unique_dev("chain", s->chain, s->nchain, sizeof(*s->chain));
	if (err)
		return err;
	for (i = 0; i < s->nredirect; i++) {
		for (j = 0; j < i; j++) {
			if (xf_save_rule_same(&s->redirect[i], &s->redirect[j])) {
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
	r = sv_drop_missing_all(nl, "route", s->route, &s->nroute, sizeof(*s->route), 0,
				skip) ?:
	    sv_drop_missing_all(nl, "redirect", s->redirect, &s->nredirect,
				sizeof(*s->redirect), offsetof(struct xf_save_redirect, target),
				skip);
	if (r < 0)
		return r;
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
