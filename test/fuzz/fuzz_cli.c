// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: xfwd's command line and batch files, parsed but never run.
 *
 * cmd/xfwd.c is compiled in here, so main() (global options), the object
 * table, run_object() and the batch reader and line splitter are the real
 * ones, and so are the verbs of cmd/ that they dispatch to. The seam is
 * where a verb would first touch the kernel: every verb gets its netlink
 * socket and the lock from xfwd_nl(), xfwd_nl_get() or xfwd_nl_locked(),
 * and here those fail (with an Error, as the real ones do when they
 * fail). The shipped binary
 * is not changed for this.
 *
 * fuzz_cli: the input is argv, words separated by NUL or newline; "-b FILE"
 * reads the input itself as the batch file, and no file is ever opened.
 * fuzz_batch (-DFUZZ_BATCH): the first byte picks global options (bits:
 * -force -j -p -h -s), the rest is the batch file read with "-b -".
 *
 * Besides the sanitizers, every run is held to the rule for bad input:
 * success prints nothing on stderr; a failure prints exactly one line
 * "Error: ..." (the bare "xfwd" prints its usage instead), and in a batch
 * each failed line one Error and then "batch line N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cmd.h"
#include "nl.h"
#include "out.h"
#include "xbpf.h"

static const uint8_t *fuzz_data;
static size_t fuzz_size;
static FILE *fuzz_stdin;
static bool fuzz_batch_read;	/* a batch was opened: the batch's rule */

/* Any batch file is the fuzzer's input: nothing on disk is read. */
static FILE *fuzz_fopen(const char *path, const char *mode)
{
	static char empty[1];

	(void)path;
	(void)mode;
	fuzz_batch_read = true;
	return fuzz_size ? fmemopen((void *)fuzz_data, fuzz_size, "r") :
			   fmemopen(empty, 1, "r");
}

static int fuzz_setns(int fd, int type)
{
	(void)fd;
	(void)type;
	return 0;
}

struct xf_nl *xfwd_nl_real(struct xfwd *x);
int xfwd_nl_get_real(struct xfwd *x, struct xf_nl **nl);
int xfwd_lock_real(struct xfwd *x);
int xfwd_nl_locked_real(struct xfwd *x, struct xf_nl **nl);
int xfwd_main(int argc, char **argv);

#define main xfwd_main
#define xfwd_nl xfwd_nl_real
#define xfwd_nl_get xfwd_nl_get_real
#define xfwd_lock xfwd_lock_real
#define xfwd_nl_locked xfwd_nl_locked_real
#define setns fuzz_setns
#define fopen fuzz_fopen
#undef stdin
#define stdin (fuzz_batch_read = true, fuzz_stdin)
#include "../../cmd/xfwd.c"
#undef main
#undef xfwd_nl
#undef xfwd_nl_get
#undef xfwd_lock
#undef xfwd_nl_locked
#undef setns
#undef fopen
#undef stdin

/* The seam: where a verb would open netlink or take the lock, it stops. */
struct xf_nl *xfwd_nl(struct xfwd *x)
{
	(void)x;
	fprintf(stderr, "Error: no kernel in the fuzzer.\n");
	return NULL;
}

int xfwd_lock(struct xfwd *x)
{
	(void)x;
	fprintf(stderr, "Error: no lock in the fuzzer.\n");
	return -EIO;
}

int xfwd_nl_get(struct xfwd *x, struct xf_nl **nl)
{
	*nl = xfwd_nl(x);
	return -EIO;
}

int xfwd_nl_locked(struct xfwd *x, struct xf_nl **nl)
{
	return xfwd_nl_get(x, nl);
}

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

enum { ONE_COMMAND, BATCH };

/* The rule for what a command prints on stderr; abort() when broken. */
static void check_stderr(FILE *out, const char *err, int rc, int mode)
{
	bool batch = mode != ONE_COMMAND;
	const char *p = err, *nl;
	int pending = 0, lines = 0;

	if (!rc && !*err)
		return;
	if (mode != BATCH && rc == 2 && starts(err, "Usage: "))
		return;
	for (; rc && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl || !starts(p, "Error: "))
			goto bad;
		lines++;
		if (!batch)
			continue;
		if (starts(p, "Error: batch line ")) {
			if (pending != 1)
				goto bad;
			pending = 0;
		} else if (starts(p, "Error: cannot parse line ")) {
			if (pending)
				goto bad;
		} else if (++pending > 1) {
			goto bad;
		}
	}
	if (rc && lines && (batch ? !pending : lines == 1))
		return;
bad:
	fprintf(out, "exit %d, stderr breaks the one-Error rule:\n%s\n", rc, err);
	abort();
}

#define MAX_WORDS 256

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Help and version text are not what is tested. */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words[MAX_WORDS + 1], *buf, *err = NULL;
	FILE *real_stderr = stderr, *cap;
	size_t err_len = 0, i;
	int argc = 0, rc, mode = ONE_COMMAND;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	words[argc++] = "xfwd";
#ifdef FUZZ_BATCH
	{
		static const char *const opt[] = { "-force", "-j", "-p", "-h", "-s" };
		uint8_t flags = size ? data[0] : 0;

		for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
			if (flags & (1u << i))
				words[argc++] = (char *)opt[i];
		words[argc++] = "-b";
		words[argc++] = "-";
		fuzz_data = data + !!size;
		fuzz_size = size - !!size;
		mode = BATCH;
	}
#else
	fuzz_data = data;
	fuzz_size = size;
	for (i = 0; i < size && argc < MAX_WORDS; ) {
		words[argc++] = buf + i;
		while (i < size && buf[i] && buf[i] != '\n')
			i++;
		buf[i++] = '\0';
	}
#endif
	words[argc] = NULL;
	fuzz_stdin = fuzz_fopen("-", "r");
	fuzz_batch_read = false;
	cap = open_memstream(&err, &err_len);
	if (!fuzz_stdin || !cap)
		abort();
	stderr = cap;
	optind = 0;	/* getopt starts afresh on every run */
	rc = xfwd_main(argc, words);
	stderr = real_stderr;
	fclose(cap);
	fclose(fuzz_stdin);
	check_stderr(real_stderr, err, rc, fuzz_batch_read ? BATCH : mode);
	free(err);
	free(buf);
	return 0;
}
