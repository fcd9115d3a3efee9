// SPDX-License-Identifier: GPL-2.0
/* xfwd save and xfwd restore: a namespace's whole state as one document,
 * and back. Commands of their own, like gc: they span every object. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "file.h"
#include "out.h"
#include "save/save.h"

/* A document larger than this is refused unread. */
#define SAVE_DOC_MAX (16 << 20)

enum { KW_FILE, KW_KEEP, KW_CHECK };

static int save_to(const char *file, const struct xf_save *s)
{
	char tmp[4096];
	FILE *f;
	int fd, err;

	if (!file || !strcmp(file, "-"))
		return xf_save_write(stdout, s) ?: fflush(stdout) ? -errno : 0;
	if (snprintf(tmp, sizeof(tmp), "%s.%d.new", file, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = xf_save_write(f, s);
	if (!err && (fflush(f) || fsync(fd)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return xf_file_commit(tmp, file, err);
}

static int save_run(struct xfwd *x, struct xf_args *a)
{
	const char *file = NULL, *keep = NULL;
	struct xf_save s;
	struct xf_nl *nl;
	int err = 0;

	while (arg_more(a) && !err) {
		if (arg_kw(a, "file"))
			err = arg_once(a, KW_FILE, "file") ?: arg_str(a, "FILE", &file);
		else if (arg_kw(a, "keep"))
			err = arg_once(a, KW_KEEP, "keep") ?: arg_str(a, "DIR", &keep);
		else
			return arg_unexpected(a);
	}
	if (err)
		return err;
	err = xfwd_nl_locked(x, &nl);
	if (err)
		return err;
	err = xf_save_read(nl, keep, &s);
	if (err)
		return err;
	err = save_to(file, &s);
	if (err)
		fprintf(stderr, "Error: cannot write \"%s\": %s.\n", file ?: "-", strerror(-err));
	xf_save_free(&s);
	return err;
}

/* The whole document, from file or standard input ("-"), bounded. */
static int restore_read(const char *file, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	ssize_t r;
	char *b = NULL, *nb;
	int fd, err = 0;

	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!b || n == cap) {
			if (b)
				cap *= 2;
			nb = n < SAVE_DOC_MAX ? realloc(b, cap + 1) : NULL;
			if (!nb) {
				err = n < SAVE_DOC_MAX ? -ENOMEM : -EFBIG;
				break;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

static void restore_print(struct xf_out *o, const struct xf_diffs *d)
{
	int i;

	out_list_begin(o, "differences");
	for (i = 0; i < d->n; i++) {
		out_row_begin(o);
		out_str(o, "object", xf_diff_obj_name(d->d[i].obj));
		out_str(o, "action", xf_diff_op_name(d->d[i].op));
		out_str(o, "what", d->d[i].what);
		out_row_end(o);
	}
	out_list_end(o);
}

static int restore_run(struct xfwd *x, struct xf_args *a)
{
	struct xf_save have = { 0 }, want = { 0 };
	struct xf_diffs d = { 0 };
	const char *file = "-";
	bool check = false;
	struct xf_nl *nl;
	char *buf = NULL;
	size_t len = 0;
	int err = 0;

	while (arg_more(a) && !err) {
		if (arg_kw(a, "file"))
			err = arg_once(a, KW_FILE, "file") ?: arg_str(a, "FILE", &file);
		else if (arg_kw(a, "check"))
			err = arg_once(a, KW_CHECK, "check") ?: (check = true, 0);
		else
			return arg_unexpected(a);
	}
	if (err)
		return err;
	err = restore_read(file, &buf, &len);
	if (err) {
		fprintf(stderr, "Error: cannot read \"%s\": %s.\n", file,
			err == -EFBIG ? "larger than 16 MiB" : strerror(-err));
		return err;
	}
	err = xf_save_parse(buf, len, strcmp(file, "-") ? file : "<stdin>", &want);
	free(buf);
	if (err)
		return err;
	err = xfwd_nl_locked(x, &nl) ?: xf_save_check(nl, &want, x->force) ?:
	      xf_save_read(nl, NULL, &have) ?: xf_save_diff(&have, &want, &d);
	if (!err && check) {
		restore_print(x->out, &d);
		if (d.n)
			err = -XF_EDIFFER;
	} else if (!err && d.n) {
		err = xf_save_apply(nl, &have, &want, &d, x->force);
	}
	xf_diffs_free(&d);
	xf_save_free(&have);
	xf_save_free(&want);
	return err;
}

static const struct cmd save_cmds[] = {
	{ "save", save_run, "[ file FILE ] [ keep DIR ]", XF_CMD_READS },
	{ }
};

static const struct cmd restore_cmds[] = {
	{ "restore", restore_run, "[ file { FILE | - } ] [ check ]", XF_CMD_CHANGES },
	{ }
};

const struct object save_object = {
	.name = "save", .cmds = save_cmds, .dflt = "save",
	.summary = "write the namespace's whole state as one JSON document",
	.command = true,
};

const struct object restore_object = {
	.name = "restore", .cmds = restore_cmds, .dflt = "restore",
	.summary = "make the namespace's state what a saved document says",
	.command = true,
};
