// SPDX-License-Identifier: GPL-2.0
/* xfwd: global options, the object table, batch mode and exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "caps.h"
#include "chain/chain.h"
#include "cmd.h"
#include "fault.h"
#include "nl.h"
#include "out.h"
#include "xbpf.h"

#define BATCH_MAX_WORDS 128

static const struct object *const objects[] = {
	&route_object,
	&chain_object,
	&redirect_object,
	&stats_object,
	&feature_object,
	&gc_object,
	&save_object,
	&restore_object,
	&monitor_object,
};
#define N_OBJECTS (int)(sizeof(objects) / sizeof(objects[0]))

static void usage(FILE *f)
{
	const char *sep;
	int i;

	fprintf(f, "Usage: xfwd [ OPTIONS ] OBJECT { COMMAND | help }\n");
	for (i = 0; i < N_OBJECTS; i++)
		if (objects[i]->command)
			fprintf(f, "       xfwd [ OPTIONS ] %s%s%s\n", objects[i]->name,
				*objects[i]->cmds[0].help ? " " : "", objects[i]->cmds[0].help);
	fprintf(f, "       xfwd [ -force ] -batch FILENAME\n"
		   "where  OBJECT := {");
	for (i = 0, sep = ""; i < N_OBJECTS; i++) {
		if (!objects[i]->command) {
			fprintf(f, "%s %s", sep, objects[i]->name);
			sep = " |";
		}
	}
	fprintf(f, " }\n");
	fprintf(f, "       OPTIONS := { -V[ersion] | -j[son] | -p[retty] | -n[etns] NAME |\n"
		   "                    -a[ll] | -b[atch] FILE | -force | -s[tatistics] |\n"
		   "                    -h[uman] | -d[ebug] | -help }\n");
	for (i = 0; i < N_OBJECTS; i++)
		fprintf(f, "       %-9s %s\n", objects[i]->name, objects[i]->summary);
}

struct xf_nl *xfwd_nl(struct xfwd *x)
{
	int err;

	if (x->nl)
		return x->nl;
	err = xf_nl_open(&x->nl, NETLINK_ROUTE);
	if (err) {
		fprintf(stderr, "Error: cannot open netlink socket: %s.\n", strerror(-err));
		return NULL;
	}
	return x->nl;
}

/* A changing verb without CAP_NET_ADMIN, CAP_BPF and CAP_PERFMON fails
 * here, before it touches anything, rather than half-way at the kernel's
 * first EPERM (or the verifier's EACCES, for CAP_PERFMON). */
static int xfwd_caps_check(struct xfwd *x)
{
	char need[64], lack[64];
	uint64_t missing;
	int err;

	if (!x->changing)
		return 0;
	err = xf_caps_missing(XF_CAPS_CHANGE, &missing);
	if (err) {
		fprintf(stderr, "Error: cannot read this process's capabilities: %s.\n",
			strerror(-err));
		return err;
	}
	if (!missing)
		return 0;
	fprintf(stderr, "Error: \"%s %s\" needs %s; missing %s.\n", x->object,
		x->changing->name, xf_caps_names(XF_CAPS_CHANGE, need, sizeof(need)),
		xf_caps_names(missing, lack, sizeof(lack)));
	return -EPERM;
}

/* Test-only: append the command to XFWD_LOCK_LOG once the lock is held, so
 * a test can replay concurrent commands in the order the lock took them.
 * One write() of one line, under the lock. */
static void lock_log(const struct xfwd *x)
{
	char line[1024];
	size_t o;
	int i, fd;

	o = snprintf(line, sizeof(line), "%d", (int)getpid());
	for (i = 0; i < x->argc && o < sizeof(line); i++)
		o += snprintf(line + o, sizeof(line) - o, " %s", x->argv[i]);
	if (o >= sizeof(line) - 1)
		o = sizeof(line) - 2;
	line[o++] = '\n';
	fd = open(x->lock_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, o) != (ssize_t)o)
		fprintf(stderr, "Warning: cannot write %s: %s.\n", x->lock_log, strerror(errno));
	if (fd >= 0)
		close(fd);
}

int xfwd_lock(struct xfwd *x)
{
	int err;

	if (x->lock_fd >= 0)
		return 0;
	err = xfwd_caps_check(x);
	if (err)
		return err;
	err = xf_lock(&x->lock_fd, false);
	if (err)
		fprintf(stderr, "Error: cannot take %s: %s.\n", XF_LOCK_PATH, strerror(-err));
	else if (x->lock_log)
		lock_log(x);
	/* A chain profile killed before it swapped back: the normal build
	 * returns with the next command that takes the lock. */
	if (!err)
		xf_chain_profile_recover();
	return err;
}

int xfwd_nl_get(struct xfwd *x, struct xf_nl **nl)
{
	*nl = xfwd_nl(x);
	return *nl ? 0 : -EIO;
}

int xfwd_nl_locked(struct xfwd *x, struct xf_nl **nl)
{
	return xfwd_nl_get(x, nl) ?: xfwd_lock(x);
}

static int run_object(struct xfwd *x, int argc, char **argv)
{
	const char *names[N_OBJECTS];
	struct xf_args a;
	int i, err;

	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "-help") ||
	    !strcmp(argv[0], "--help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < N_OBJECTS; i++)
		names[i] = objects[i]->name;
	i = cmd_match("object", argv[0], names, N_OBJECTS);
	if (i == -ENOENT) {
		fprintf(stderr, "Error: unknown object \"%s\"; try \"xfwd help\".\n", argv[0]);
		return -XF_EUSAGE;
	}
	if (i < 0)
		return -XF_EUSAGE;
	if (x->all && objects[i] != &monitor_object) {
		fprintf(stderr, "Error: -all is for monitor only, not \"%s\".\n", objects[i]->name);
		return -XF_EUSAGE;
	}
	x->argc = argc;
	x->argv = argv;
	arg_init(&a, argc - 1, argv + 1, objects[i]->name);
	err = cmd_dispatch(x, objects[i], &a);
	if (err && err != -XF_EDIFFER)
		out_discard(x->out);
	else
		out_flush(x->out);
	xf_unlock(x->lock_fd);
	x->lock_fd = -1;
	return err;
}

static int exit_code(int err)
{
	if (!err)
		return 0;
	return err == -XF_EUSAGE ? 2 : err == -XF_EDIFFER ? 3 : 1;
}

/* Split a batch line into words: blanks separate, quotes group, a backslash
 * escapes the next character (but not the line's end: a word never holds a
 * newline), '#' at the start of a word begins a comment. Returns the count
 * or -XF_EUSAGE. */
static int batch_split(char *line, char **words, int max)
{
	int n = 0;
	char *r = line, *w;

	for (;;) {
		char q = 0;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			return n;
		if (n == max)
			return -XF_EUSAGE;
		words[n++] = w = r;
		for (; *r; r++) {
			if (q) {
				if (*r == q)
					q = 0;
				else
					*w++ = *r;
			} else if (*r == '"' || *r == '\'') {
				q = *r;
			} else if (*r == '\\' && r[1] && r[1] != '\n' && r[1] != '\r') {
				*w++ = *++r;
			} else if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') {
				break;
			} else {
				*w++ = *r;
			}
		}
		if (q)
			return -XF_EUSAGE;
		if (*r)
			r++;
		*w = '\0';
	}
}

static int run_batch(struct xfwd *x, const char *file)
{
	char *words[BATCH_MAX_WORDS];
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, first_err = 0, n, err;
	FILE *f;

	f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f) {
		fprintf(stderr, "Error: cannot open batch file \"%s\": %s.\n", file,
			strerror(errno));
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		n = batch_split(line, words, BATCH_MAX_WORDS);
		if (n == 0)
			continue;
		if (n < 0) {
			fprintf(stderr, "Error: cannot parse line %d of \"%s\".\n", lineno, file);
			err = n;
		} else {
			err = run_object(x, n, words);
		}
		if (!err)
			continue;
		if (n > 0)
			fprintf(stderr, "Error: batch line %d of \"%s\" failed.\n", lineno, file);
		if (!first_err)
			first_err = err;
		if (!x->force)
			break;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return first_err;
}

static int enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!*name || strchr(name, '/') || strlen(name) > 200) {
		fprintf(stderr, "Error: invalid value \"%s\" for NETNS.\n", name);
		return -XF_EUSAGE;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "Error: cannot open network namespace \"%s\": %s.\n", name,
			strerror(errno));
		return -errno;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "Error: cannot enter network namespace \"%s\": %s%s.\n", name,
			strerror(errno), errno == EPERM ? " (needs CAP_SYS_ADMIN)" : "");
		close(fd);
		return -errno;
	}
	close(fd);
	return 0;
}

/* The heap's first 32 MB in huge pages where the kernel gives them on
 * request (transparent_hugepage "madvise", the default): a BTF parse then
 * faults in ten pages instead of five thousand. Only virtual memory until
 * touched; freed at once, and kept (M_TRIM_THRESHOLD) for what follows. */
static void heap_huge(void)
{
	const uintptr_t huge = 2 << 20, len = 32 << 20;
	char *p = malloc(len);
	uintptr_t a, e;

	if (!p)
		return;
	a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	e = ((uintptr_t)p + len) & ~(huge - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
	free(p);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "Version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "netns", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "batch", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'F' },
		{ "statistics", no_argument, NULL, 's' },
		{ "human", no_argument, NULL, 'h' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 }
	};
	struct xfwd x = { .lock_fd = -1 };
	unsigned int oflags = 0;	/* OUT_*: -j, -p, -h */
	const char *batch = NULL;
	int c, err;

	/* libbpf parses the kernel's BTF (megabytes, several times that once
	 * parsed) for every object it loads that needs it, route's more
	 * than once per attach. Freed memory stays in the heap for the next
	 * parse: giving it back and faulting it in again would be a large
	 * share of an attach's time. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	heap_huge();
	opterr = 0;
	/* '+' stops at the object name; long options may take one dash. */
	while ((c = getopt_long_only(argc, argv, "+Vjpn:ab:shd", opts, NULL)) != -1) {
		switch (c) {
		case 'V':
			/* libbpf says "v1.4"; print 1.4 like every other version. */
			printf("xfwd %s (libbpf %s)\n", XFWD_VERSION,
			       libbpf_version_string() + (libbpf_version_string()[0] == 'v'));
			return 0;
		case 'j': oflags |= OUT_JSON; break;
		case 'p': oflags |= OUT_JSON | OUT_PRETTY; break;
		case 'n': x.netns = optarg; break;
		case 'a': x.all = true; break;
		case 'b': batch = optarg; break;
		case 'F': x.force = true; break;
		case 's': x.stats = true; break;
		case 'h': oflags |= OUT_HUMAN; break;
		case 'd': x.verbose = true; break;
		case 'H':
			usage(stdout);
			return 0;
		default:
			if (optopt && strchr("nb", optopt))
				fprintf(stderr, "Error: option \"%s\" needs an argument.\n",
					argv[optind - 1]);
			else
				fprintf(stderr, "Error: unknown option \"%s\"; try \"xfwd -help\".\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (!batch && optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (batch && optind < argc) {
		fprintf(stderr, "Error: unexpected \"%s\" after -batch.\n", argv[optind]);
		return 2;
	}
	if (x.all && (x.netns || batch)) {
		fprintf(stderr, "Error: -all serves every named namespace: not with %s.\n",
			x.netns ? "-netns" : "-batch");
		return 2;
	}
	if (x.netns) {
		err = enter_netns(x.netns);
		if (err)
			return exit_code(err);
	}
	if (xf_fault_init(getenv(XF_FAULT_ENV)))
		return 2;
	x.lock_log = getenv("XFWD_LOCK_LOG");
	xf_bpf_log_init(x.verbose);
	x.out = out_new(stdout, oflags);
	if (!x.out)
		return 1;
	if (batch)
		err = run_batch(&x, batch);
	else
		err = run_object(&x, argc - optind, argv + optind);
	out_free(x.out);
	xf_nl_close(x.nl);
	return exit_code(err);
}
