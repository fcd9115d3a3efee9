/* SPDX-License-Identifier: GPL-2.0 */
/* Keyword/value argument cursor; every helper reports and returns, never exits. */
#ifndef XF_ARG_H
#define XF_ARG_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "usage.h"

/* A cursor over one command's words. object/verb name the help hint. */
struct xf_args {
	int argc;
	char **argv;
	const char *object;
	const char *verb;
	uint64_t seen;		/* bit per keyword id given to arg_once() */
};

void arg_init(struct xf_args *a, int argc, char **argv, const char *object);
bool arg_more(const struct xf_args *a);
/* The current word, or NULL at the end; does not consume. */
const char *arg_peek(const struct xf_args *a);
/* Consume and return the current word, or NULL at the end. */
char *arg_next(struct xf_args *a);
/* Consume the current word if it equals kw exactly. */
bool arg_kw(struct xf_args *a, const char *kw);
/* Refuse a keyword given twice; id is a small per-parser number.
 * 0/-XF_EUSAGE */
int arg_once(struct xf_args *a, unsigned int id, const char *kw);

/* Value parsers: consume the word that "what" names. 0/-XF_EUSAGE */
int arg_str(struct xf_args *a, const char *what, const char **v);
int arg_u32(struct xf_args *a, const char *what, uint32_t *v);
int arg_u32_range(struct xf_args *a, const char *what, uint32_t lo, uint32_t hi,
		  uint32_t *v);
/* A number of seconds, decimals allowed ("0.5"), in [lo, hi]. */
int arg_seconds(struct xf_args *a, const char *what, double lo, double hi, double *v);
int arg_ifname(struct xf_args *a, const char *what, const char **name);
int arg_addr(struct xf_args *a, const char *what, struct xf_addr *v);
int arg_prefix(struct xf_args *a, const char *what, struct xf_addr *v);
/* The whole of a "[ dev IFNAME ]" argument list, as show verbs take it;
 * *dev stays NULL without one. */
int arg_dev_filter(struct xf_args *a, const char **dev);
/* One of a NULL-terminated list of words; *idx is its position. */
int arg_one_of(struct xf_args *a, const char *what, const char *const *words,
	       int *idx);

/* Error reporters: print one "Error: ..." line, return -XF_EUSAGE. */
int arg_unexpected(const struct xf_args *a);
int arg_missing(const struct xf_args *a, const char *what);
int arg_invalid(const struct xf_args *a, const char *what, const char *value);
/* The end of a verb's words: err when the parse failed, else
 * arg_missing(a, what) when the verb lacks what (have false), else 0. */
int arg_need(const struct xf_args *a, int err, bool have, const char *what);

#endif
