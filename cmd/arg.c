// SPDX-License-Identifier: GPL-2.0
/* Keyword/value argument parsing; errors are reported here, once. */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arg.h"

void arg_init(struct xf_args *a, int argc, char **argv, const char *object)
{
	memset(a, 0, sizeof(*a));
	a->argc = argc;
	a->argv = argv;
	a->object = object;
}

bool arg_more(const struct xf_args *a)
{
	return a->argc > 0;
}

const char *arg_peek(const struct xf_args *a)
{
	return a->argc > 0 ? a->argv[0] : NULL;
}

char *arg_next(struct xf_args *a)
{
	char *w;

	if (a->argc <= 0)
		return NULL;
	w = a->argv[0];
	a->argc--;
	a->argv++;
	return w;
}

bool arg_kw(struct xf_args *a, const char *kw)
{
	if (a->argc <= 0 || strcmp(a->argv[0], kw))
		return false;
	arg_next(a);
	return true;
}

static void arg_hint(const struct xf_args *a)
{
	if (a->object)
		fprintf(stderr, "; try \"xfwd %s help\"", a->object);
	fprintf(stderr, ".\n");
}

int arg_once(struct xf_args *a, unsigned int id, const char *kw)
{
	uint64_t bit = 1ULL << (id & 63);

	if (a->seen & bit) {
		fprintf(stderr, "Error: duplicate \"%s\"", kw);
		arg_hint(a);
		return -XF_EUSAGE;
	}
	a->seen |= bit;
	return 0;
}

int arg_unexpected(const struct xf_args *a)
{
	fprintf(stderr, "Error: unexpected \"%s\"", arg_peek(a) ? arg_peek(a) : "");
	arg_hint(a);
	return -XF_EUSAGE;
}

int arg_missing(const struct xf_args *a, const char *what)
{
	fprintf(stderr, "Error: missing %s", what);
	arg_hint(a);
	return -XF_EUSAGE;
}

int arg_need(const struct xf_args *a, int err, bool have, const char *what)
{
	return err ?: have ? 0 : arg_missing(a, what);
}

int arg_invalid(const struct xf_args *a, const char *what, const char *value)
{
	fprintf(stderr, "Error: invalid value \"%s\" for %s", value, what);
	arg_hint(a);
	return -XF_EUSAGE;
}

int arg_str(struct xf_args *a, const char *what, const char **v)
{
	if (!arg_more(a))
		return arg_missing(a, what);
	*v = arg_next(a);
	return 0;
}

int arg_u32(struct xf_args *a, const char *what, uint32_t *v)
{
	return arg_u32_range(a, what, 0, UINT32_MAX, v);
}

int arg_u32_range(struct xf_args *a, const char *what, uint32_t lo, uint32_t hi,
		  uint32_t *v)
{
	const char *w;

	if (!arg_more(a))
		return arg_missing(a, what);
	w = arg_next(a);
	if (xf_parse_u32(w, v) || *v < lo || *v > hi)
		return arg_invalid(a, what, w);
	return 0;
}

int arg_seconds(struct xf_args *a, const char *what, double lo, double hi, double *v)
{
	const char *w;
	char *end;

	if (!arg_more(a))
		return arg_missing(a, what);
	w = arg_next(a);
	errno = 0;
	*v = strtod(w, &end);
	/* Not "inf", "nan" or hex: digits and one point only. */
	if (errno || end == w || *end || strspn(w, "0123456789.") != strlen(w) ||
	    !(*v >= lo && *v <= hi))
		return arg_invalid(a, what, w);
	return 0;
}

int arg_ifname(struct xf_args *a, const char *what, const char **name)
{
	const char *w;

	if (!arg_more(a))
		return arg_missing(a, what);
	w = arg_next(a);
	if (!*w || strlen(w) >= IF_NAMESIZE || strchr(w, '/') || strpbrk(w, " \t\n"))
		return arg_invalid(a, what, w);
	*name = w;
	return 0;
}

int arg_dev_filter(struct xf_args *a, const char **dev)
{
	while (arg_more(a)) {
		if (!arg_kw(a, "dev"))
			return arg_unexpected(a);
		if (*dev) {
			fprintf(stderr, "Error: duplicate \"dev\"");
			arg_hint(a);
			return -XF_EUSAGE;
		}
		if (arg_ifname(a, "IFNAME", dev))
			return -XF_EUSAGE;
	}
	return 0;
}

static int arg_addr_or_prefix(struct xf_args *a, const char *what, struct xf_addr *v,
			      bool prefix)
{
	const char *w;

	if (!arg_more(a))
		return arg_missing(a, what);
	w = arg_next(a);
	if (xf_parse_addr(w, v, prefix))
		return arg_invalid(a, what, w);
	return 0;
}

int arg_addr(struct xf_args *a, const char *what, struct xf_addr *v)
{
	return arg_addr_or_prefix(a, what, v, false);
}

int arg_prefix(struct xf_args *a, const char *what, struct xf_addr *v)
{
	return arg_addr_or_prefix(a, what, v, true);
}

int arg_one_of(struct xf_args *a, const char *what, const char *const *words,
	       int *idx)
{
	const char *w;
	int i;

	if (!arg_more(a))
		return arg_missing(a, what);
	w = arg_next(a);
	for (i = 0; words[i]; i++) {
		if (!strcmp(words[i], w)) {
			*idx = i;
			return 0;
		}
	}
	return arg_invalid(a, what, w);
}
