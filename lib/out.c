// SPDX-License-Identifier: GPL-2.0
/* The one printer: every command builds a tree through out_*, and only
 * here is it decided whether that tree is dumped as JSON or laid out as
 * aligned tables. This is the only file that includes jansson.h. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "out.h"

#define OUT_DEPTH 16

struct xf_out {
	FILE *f;
	unsigned int flags;
	json_t *root;
	json_t *stack[OUT_DEPTH];
	int depth;		/* stack[depth - 1] is the open container */
};

struct xf_out *out_new(FILE *f, unsigned int flags)
{
	struct xf_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->f = f;
	o->flags = flags;
	return o;
}

void out_discard(struct xf_out *o)
{
	json_decref(o->root);
	o->root = NULL;
	o->depth = 0;
}

void out_free(struct xf_out *o)
{
	if (!o)
		return;
	out_discard(o);
	free(o);
}

bool out_is_json(const struct xf_out *o)
{
	return o->flags & OUT_JSON;
}

static json_t *out_top(struct xf_out *o)
{
	if (!o->root) {
		o->root = json_object();
		o->stack[0] = o->root;
		o->depth = 1;
	}
	return o->stack[o->depth - 1];
}

/* Attach v under key in the open container (appended if it is a list). */
static void out_put(struct xf_out *o, const char *key, json_t *v)
{
	json_t *top = out_top(o);

	if (!v)
		return;
	if (json_is_array(top))
		json_array_append_new(top, v);
	else
		json_object_set_new(top, key, v);
}

static void out_push(struct xf_out *o, const char *key, json_t *v)
{
	out_put(o, key, v);
	if (o->depth < OUT_DEPTH)
		o->stack[o->depth++] = v;
}

static void out_pop(struct xf_out *o)
{
	if (o->depth > 1)
		o->depth--;
}

void out_list_begin(struct xf_out *o, const char *key)
{
	out_push(o, key, json_array());
}

void out_list_end(struct xf_out *o)
{
	out_pop(o);
}

void out_row_begin(struct xf_out *o)
{
	out_push(o, NULL, json_object());
}

void out_row_end(struct xf_out *o)
{
	out_pop(o);
}

void out_obj_begin(struct xf_out *o, const char *key)
{
	out_push(o, key, json_object());
}

void out_obj_end(struct xf_out *o)
{
	out_pop(o);
}

void out_str(struct xf_out *o, const char *key, const char *v)
{
	if (v)
		out_put(o, key, json_string(v));
}

void out_strf(struct xf_out *o, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out_put(o, key, json_string(buf));
}

void out_bool(struct xf_out *o, const char *key, bool v)
{
	if (o->flags & OUT_JSON)
		out_put(o, key, json_boolean(v));
	else
		out_put(o, key, json_string(v ? "yes" : "no"));
}

void out_int(struct xf_out *o, const char *key, int64_t v)
{
	char buf[32];

	if (o->flags & OUT_JSON) {
		out_put(o, key, json_integer(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	out_put(o, key, json_string(buf));
}

const char *out_human(uint64_t v, enum out_unit unit, char *buf, size_t len)
{
	static const char *const count[] = { "", "K", "M", "G", "T", "P", "E" };
	static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	static const char *const bits[] = { "bit", "Kbit", "Mbit", "Gbit", "Tbit", "Pbit", "Ebit" };
	static const char *const ns[] = { "ns", "us", "ms", "s" };
	const char *const *names = count;
	double base = 1000, d = v;
	int i = 0, max = 6;

	if (unit == OUT_BYTES) {
		names = bytes;
		base = 1024;
	} else if (unit == OUT_BITRATE) {
		names = bits;
	} else if (unit == OUT_NS) {
		names = ns;
		max = 3;
	}
	while (d >= base && i < max) {
		d /= base;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%" PRIu64 "%s", v, names[0]);
	else
		snprintf(buf, len, "%.*f%s", d < 10 ? 1 : 0, d, names[i]);
	return buf;
}

void out_unit(struct xf_out *o, const char *key, uint64_t v, enum out_unit unit)
{
	char buf[32];

	if (o->flags & OUT_JSON) {
		/* 2^63 packets or bytes is out of reach: clamping costs nothing. */
		out_put(o, key, json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v));
		return;
	}
	if (o->flags & OUT_HUMAN)
		out_human(v, unit, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	out_put(o, key, json_string(buf));
}

void out_real(struct xf_out *o, const char *key, double v, int decimals)
{
	char buf[64];

	if (o->flags & OUT_JSON) {
		out_put(o, key, json_real(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	out_put(o, key, json_string(buf));
}

void out_redraw(struct xf_out *o)
{
	if (!(o->flags & OUT_JSON) && isatty(fileno(o->f)))
		fputs("\033[H\033[2J", o->f);
}

void out_u64(struct xf_out *o, const char *key, uint64_t v)
{
	out_unit(o, key, v, OUT_COUNT);
}

/* ---- table layout ---- */

static bool is_scalar(const json_t *v)
{
	return !json_is_object(v) && !json_is_array(v);
}

static const char *scalar_str(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_true(v))
		return "yes";
	else if (json_is_false(v))
		return "no";
	else
		snprintf(buf, len, "-");
	return buf;
}

static void print_upper(FILE *f, const char *s, int width, bool right)
{
	int n = strlen(s);

	if (right)
		fprintf(f, "%*s", width - n, "");
	for (; *s; s++)
		fputc(toupper((unsigned char)*s), f);
	if (!right)
		fprintf(f, "%*s", width - n, "");
}

static bool looks_numeric(const char *s)
{
	return isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]));
}

static void render_obj(FILE *f, json_t *obj, int indent);

#define MAX_COLS 48

/* Rows of a list as aligned columns; the header is the union of the rows'
 * scalar keys in order of appearance. Nested lists or groups of a row are
 * printed indented under it. */
static void render_table(FILE *f, json_t *arr, int indent)
{
	const char *cols[MAX_COLS];
	int width[MAX_COLS];
	bool right[MAX_COLS];
	int ncols = 0, c;
	char buf[64];
	const char *key;
	json_t *row, *v;
	size_t r;

	json_array_foreach(arr, r, row) {
		if (!json_is_object(row))
			continue;
		json_object_foreach(row, key, v) {
			if (!is_scalar(v))
				continue;
			for (c = 0; c < ncols && strcmp(cols[c], key); c++)
				;
			if (c == ncols && ncols < MAX_COLS) {
				cols[ncols] = key;
				width[ncols] = strlen(key);
				right[ncols] = true;
				ncols++;
			}
			if (c < ncols) {
				const char *s = scalar_str(v, buf, sizeof(buf));
				int n = strlen(s);

				if (n > width[c])
					width[c] = n;
				if (!looks_numeric(s) && strcmp(s, "-"))
					right[c] = false;
			}
		}
	}
	if (!ncols)
		return;
	fprintf(f, "%*s", indent, "");
	for (c = 0; c < ncols; c++) {
		bool last = c + 1 == ncols;

		print_upper(f, cols[c], last && !right[c] ? (int)strlen(cols[c]) : width[c],
			    right[c]);
		fputs(last ? "\n" : "  ", f);
	}
	json_array_foreach(arr, r, row) {
		if (!json_is_object(row))
			continue;
		fprintf(f, "%*s", indent, "");
		for (c = 0; c < ncols; c++) {
			const char *s;

			v = json_object_get(row, cols[c]);
			s = v ? scalar_str(v, buf, sizeof(buf)) : "-";
			if (c + 1 == ncols && !right[c])
				fputs(s, f);
			else
				fprintf(f, right[c] ? "%*s" : "%-*s", width[c], s);
			fputs(c + 1 < ncols ? "  " : "\n", f);
		}
		json_object_foreach(row, key, v) {
			if (is_scalar(v))
				continue;
			if (json_is_array(v) && !json_array_size(v))
				continue;
			fprintf(f, "%*s%s:\n", indent + 4, "", key);
			if (json_is_array(v))
				render_table(f, v, indent + 6);
			else
				render_obj(f, v, indent + 6);
		}
	}
}

/* A group whose every member is a group of scalars ({"jit": {"supported":
 * true, ...}, ...}) reads best as a table with the member names first. */
static bool is_record_map(json_t *obj)
{
	const char *key, *k2;
	json_t *v, *v2;

	if (!json_object_size(obj))
		return false;
	json_object_foreach(obj, key, v) {
		if (!json_is_object(v))
			return false;
		json_object_foreach(v, k2, v2)
			if (!is_scalar(v2))
				return false;
	}
	return true;
}

static void render_record_map(FILE *f, json_t *obj, int indent)
{
	json_t *arr = json_array(), *v, *row;
	const char *key, *k2;
	json_t *v2;

	json_object_foreach(obj, key, v) {
		row = json_object();
		json_object_set_new(row, "name", json_string(key));
		json_object_foreach(v, k2, v2)
			json_object_set(row, k2, v2);
		json_array_append_new(arr, row);
	}
	render_table(f, arr, indent);
	json_decref(arr);
}

static void render_obj(FILE *f, json_t *obj, int indent)
{
	int keyw = 0, n;
	const char *key;
	char buf[64];
	json_t *v;

	json_object_foreach(obj, key, v) {
		n = strlen(key);
		if (is_scalar(v) && n > keyw)
			keyw = n;
	}
	json_object_foreach(obj, key, v) {
		if (is_scalar(v)) {
			fprintf(f, "%*s%s:%*s %s\n", indent, "", key,
				keyw - (int)strlen(key), "", scalar_str(v, buf, sizeof(buf)));
		} else if (json_is_array(v)) {
			if (json_object_size(obj) > 1 || indent)
				fprintf(f, "%*s%s:\n", indent, "", key);
			render_table(f, v, indent + (json_object_size(obj) > 1 ? 2 : 0));
		} else {
			fprintf(f, "%*s%s:\n", indent, "", key);
			if (is_record_map(v))
				render_record_map(f, v, indent + 2);
			else
				render_obj(f, v, indent + 2);
		}
	}
}

void out_flush(struct xf_out *o)
{
	if (!o->root)
		return;
	if (o->flags & OUT_JSON) {
		size_t flags = JSON_PRESERVE_ORDER | JSON_COMPACT;

		if (o->flags & OUT_PRETTY)
			flags = JSON_PRESERVE_ORDER | JSON_INDENT(2);
		json_dumpf(o->root, o->f, flags);
		fputc('\n', o->f);
	} else {
		render_obj(o->f, o->root, 0);
	}
	fflush(o->f);
	out_discard(o);
}
