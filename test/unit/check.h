/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal assertion helper for the C unit tests: no test framework. */
#ifndef XF_CHECK_H
#define XF_CHECK_H

#include <stdio.h>
#include <string.h>

struct check {
	int passed;
	int failed;
};

static inline void check_true(struct check *c, int ok, const char *what, int line)
{
	if (ok) {
		c->passed++;
		return;
	}
	c->failed++;
	fprintf(stdout, "FAIL line %d: %s\n", line, what);
}

static inline void check_str(struct check *c, const char *got, const char *want, int line)
{
	int ok = got && !strcmp(got, want);

	if (!ok)
		fprintf(stdout, "  got:  \"%s\"\n  want: \"%s\"\n", got ? got : "(null)", want);
	check_true(c, ok, "string compare", line);
}

static inline int check_done(const struct check *c, const char *name)
{
	printf("%s: %d passed, %d failed\n", name, c->passed, c->failed);
	/* A test that checked nothing proves nothing: it fails. */
	if (!c->passed && !c->failed) {
		printf("%s: FAIL no checks ran\n", name);
		return 1;
	}
	return c->failed ? 1 : 0;
}

#endif
