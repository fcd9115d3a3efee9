// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/out.c: one set of calls, a table and JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "out.h"

/* What one command would print: a scalar, a group and a list. */
static void build(struct xf_out *o)
{
	out_str(o, "kernel", "6.18");
	out_obj_begin(o, "jit");
	out_bool(o, "enabled", true);
	out_obj_end(o);
	out_list_begin(o, "interfaces");
	out_row_begin(o);
	out_str(o, "dev", "veth1");
	out_u64(o, "packets", 1234567);
	out_unit(o, "bytes", 2048, OUT_BYTES);
	out_row_end(o);
	out_row_begin(o);
	out_str(o, "dev", "eth0");
	out_u64(o, "packets", 5);
	out_unit(o, "bytes", 64, OUT_BYTES);
	out_list_begin(o, "reasons");
	out_row_begin(o);
	out_str(o, "reason", "no_neigh");
	out_u64(o, "packets", 1);
	out_row_end(o);
	out_list_end(o);
	out_row_end(o);
	out_list_end(o);
}

static const char *render(unsigned int flags, char *buf, size_t len)
{
	FILE *f = tmpfile();
	struct xf_out *o = out_new(f, flags);
	size_t n;

	build(o);
	out_flush(o);
	out_free(o);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_json(struct check *c)
{
	char buf[4096];

	check_str(c, render(OUT_JSON, buf, sizeof(buf)),
		  "{\"kernel\":\"6.18\",\"jit\":{\"enabled\":true},\"interfaces\":["
		  "{\"dev\":\"veth1\",\"packets\":1234567,\"bytes\":2048},"
		  "{\"dev\":\"eth0\",\"packets\":5,\"bytes\":64,\"reasons\":"
		  "[{\"reason\":\"no_neigh\",\"packets\":1}]}]}\n", __LINE__);
}

static void test_table(struct check *c)
{
	char buf[4096];

	check_str(c, render(0, buf, sizeof(buf)),
		  "kernel: 6.18\n"
		  "jit:\n"
		  "  enabled: yes\n"
		  "interfaces:\n"
		  "  DEV    PACKETS  BYTES\n"
		  "  veth1  1234567   2048\n"
		  "  eth0         5     64\n"
		  "      reasons:\n"
		  "        REASON    PACKETS\n"
		  "        no_neigh        1\n", __LINE__);
	check_str(c, render(OUT_HUMAN, buf, sizeof(buf)),
		  "kernel: 6.18\n"
		  "jit:\n"
		  "  enabled: yes\n"
		  "interfaces:\n"
		  "  DEV    PACKETS   BYTES\n"
		  "  veth1     1.2M  2.0KiB\n"
		  "  eth0         5     64B\n"
		  "      reasons:\n"
		  "        REASON    PACKETS\n"
		  "        no_neigh        1\n", __LINE__);
}

static void test_human(struct check *c)
{
	char buf[32];

	check_str(c, out_human(999, OUT_COUNT, buf, sizeof(buf)), "999", __LINE__);
	check_str(c, out_human(1000, OUT_COUNT, buf, sizeof(buf)), "1.0K", __LINE__);
	check_str(c, out_human(34000000000ULL, OUT_BITRATE, buf, sizeof(buf)), "34Gbit",
		  __LINE__);
	check_str(c, out_human(1536, OUT_BYTES, buf, sizeof(buf)), "1.5KiB", __LINE__);
	check_str(c, out_human(98, OUT_NS, buf, sizeof(buf)), "98ns", __LINE__);
	check_str(c, out_human(1500, OUT_NS, buf, sizeof(buf)), "1.5us", __LINE__);
}

static void test_clamp_and_discard(struct check *c)
{
	FILE *f = tmpfile();
	struct xf_out *o = out_new(f, OUT_JSON);
	char buf[256];
	size_t n;

	out_u64(o, "dropped", 1);
	out_discard(o);
	out_u64(o, "big", UINT64_MAX);
	out_flush(o);
	out_flush(o);		/* nothing built: prints nothing */
	out_free(o);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	check_str(c, buf, "{\"big\":9223372036854775807}\n", __LINE__);
}

int main(void)
{
	struct check c = { 0 };

	test_json(&c);
	test_table(&c);
	test_human(&c);
	test_clamp_and_discard(&c);
	return check_done(&c, "test_out");
}
