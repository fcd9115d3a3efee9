/* SPDX-License-Identifier: GPL-2.0 */
/* One output path: the same calls print a table or build JSON. */
#ifndef XF_OUT_H
#define XF_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
	OUT_JSON = 1 << 0,	/* JSON instead of tables */
	OUT_PRETTY = 1 << 1,	/* indent JSON */
	OUT_HUMAN = 1 << 2,	/* tables: 1.2M instead of 1234567 */
};

/* How a number is shown in human mode; JSON always gets the raw integer. */
enum out_unit {
	OUT_COUNT,		/* 1.2M */
	OUT_BYTES,		/* 1.2MiB */
	OUT_BITRATE,		/* 1.2Gbit */
	OUT_NS,			/* 1.2us */
};

struct xf_out;

/* Allocate an output context writing to f. NULL on ENOMEM. */
struct xf_out *out_new(FILE *f, unsigned int flags);
/* Free the context and anything not flushed (it is discarded). */
void out_free(struct xf_out *o);
/* Print what was built since the last flush: one JSON document, or tables. */
void out_flush(struct xf_out *o);
/* Drop what was built since the last flush (a command failed). */
void out_discard(struct xf_out *o);
bool out_is_json(const struct xf_out *o);

/* A list of rows under key: a table in table mode, an array in JSON. */
void out_list_begin(struct xf_out *o, const char *key);
void out_list_end(struct xf_out *o);
/* A row of the innermost list. */
void out_row_begin(struct xf_out *o);
void out_row_end(struct xf_out *o);
/* A named group: "key:" with indented lines in tables, an object in JSON. */
void out_obj_begin(struct xf_out *o, const char *key);
void out_obj_end(struct xf_out *o);

/* Values; NULL strings are left out. */
void out_str(struct xf_out *o, const char *key, const char *v);
void out_strf(struct xf_out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void out_bool(struct xf_out *o, const char *key, bool v);
void out_int(struct xf_out *o, const char *key, int64_t v);
/* Clamped at INT64_MAX for JSON: jansson integers are signed. */
void out_u64(struct xf_out *o, const char *key, uint64_t v);
void out_unit(struct xf_out *o, const char *key, uint64_t v, enum out_unit unit);
/* A real number: a JSON real, or with that many decimals in tables. */
void out_real(struct xf_out *o, const char *key, double v, int decimals);
/* Tables on a terminal only: clear the screen before what comes next, so
 * that each flush redraws one screen. Elsewhere nothing. */
void out_redraw(struct xf_out *o);

/* Format v in human units into buf (shared with the tests). Returns buf. */
const char *out_human(uint64_t v, enum out_unit unit, char *buf, size_t len);

#endif
