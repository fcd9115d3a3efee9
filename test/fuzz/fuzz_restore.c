// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: a hostile document on its way into "xfwd restore".
 *
 * xf_save_parse() takes the fuzzer's bytes as a document. Whatever it
 * takes must write back (xf_save_write) into a document that parses again
 * and writes back the same bytes: the parser accepts nothing the writer
 * cannot say, and the writer says nothing the parser refuses. What it
 * refuses is refused with one Error line (in the fuzzer's log; the words
 * are test/save.bats' to check). Nothing touches the kernel: the
 * machine's checks (devices, files) and the apply are test/save.bats'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "save/save.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static char *fz_write(const struct xf_save *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || xf_save_write(f, s) || fclose(f))
		abort();
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xf_save s, t;
	char *a, *b;
	size_t alen, blen;

	if (xf_save_parse((const char *)data, size, "fuzz", &s))
		return 0;
	a = fz_write(&s, &alen);
	if (xf_save_parse(a, alen, "again", &t))
		abort();
	b = fz_write(&t, &blen);
	if (alen != blen || memcmp(a, b, alen))
		abort();
	free(a);
	free(b);
	xf_save_free(&s);
	xf_save_free(&t);
	return 0;
}
