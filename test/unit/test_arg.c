// SPDX-License-Identifier: GPL-2.0
/* Unit tests for cmd/arg.c and lib/addr.c: parsing, duplicates and usage errors. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "arg.h"
#include "check.h"

static void test_u32(struct check *c)
{
	uint32_t v = 7;

	check_true(c, !xf_parse_u32("42", &v) && v == 42, "42", __LINE__);
	check_true(c, !xf_parse_u32("0x10", &v) && v == 16, "hex", __LINE__);
	check_true(c, !xf_parse_u32("4294967295", &v) && v == 4294967295u, "max", __LINE__);
	check_true(c, xf_parse_u32("4294967296", &v) == -EINVAL, "overflow", __LINE__);
	check_true(c, xf_parse_u32("-1", &v) == -EINVAL, "negative", __LINE__);
	check_true(c, xf_parse_u32("", &v) == -EINVAL, "empty", __LINE__);
	check_true(c, xf_parse_u32("12ab", &v) == -EINVAL, "trailing", __LINE__);
}

static void test_addr(struct check *c)
{
	struct xf_addr a;
	char buf[64];

	check_true(c, !xf_parse_addr("198.18.0.1", &a, false) && a.family == AF_INET &&
		   a.plen == 32, "v4", __LINE__);
	check_str(c, xf_addr_str(&a, false, buf, sizeof(buf)), "198.18.0.1", __LINE__);
	check_true(c, !xf_parse_addr("2001:2::1", &a, false) && a.family == AF_INET6 &&
		   a.plen == 128, "v6", __LINE__);
	check_true(c, !xf_parse_addr("198.18.0.0/15", &a, true) && a.plen == 15, "v4 prefix",
		   __LINE__);
	check_str(c, xf_addr_str(&a, true, buf, sizeof(buf)), "198.18.0.0/15", __LINE__);
	check_true(c, !xf_parse_addr("2001:2::/48", &a, true) && a.plen == 48, "v6 prefix",
		   __LINE__);
	check_true(c, xf_parse_addr("198.18.0.0/33", &a, true) == -EINVAL, "/33", __LINE__);
	check_true(c, xf_parse_addr("2001:2::/129", &a, true) == -EINVAL, "/129", __LINE__);
	check_true(c, xf_parse_addr("198.18.0.0/15", &a, false) == -EINVAL,
		   "prefix where an address is wanted", __LINE__);
	check_true(c, xf_parse_addr("198.18.0.256", &a, false) == -EINVAL, "octet", __LINE__);
	check_true(c, xf_parse_addr("host", &a, false) == -EINVAL, "name", __LINE__);
	check_true(c, xf_parse_addr("198.18.0.0/08", &a, true) == -EINVAL, "leading 0",
		   __LINE__);
}

/* Run a parser step with stderr captured; returns what it printed. */
static const char *captured(FILE *tmp, char *buf, size_t len)
{
	size_t n;

	fflush(stderr);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	rewind(tmp);
	if (ftruncate(fileno(tmp), 0))
		buf[0] = '\0';
	return buf;
}

static void test_cursor(struct check *c, FILE *tmp)
{
	char *argv[] = { "dev", "veth0", "ttl", "300", "mode", "native", "ttl", "2",
			 "bogus", NULL };
	static const char *const modes[] = { "native", "generic", NULL };
	struct xf_args a;
	const char *name;
	uint32_t ttl;
	char buf[256];
	int idx = -1;

	arg_init(&a, 9, argv, "route");
	check_true(c, arg_kw(&a, "dev") && !arg_ifname(&a, "IFNAME", &name), "dev", __LINE__);
	check_str(c, name, "veth0", __LINE__);
	check_true(c, !arg_kw(&a, "mode") && arg_kw(&a, "ttl"), "kw order", __LINE__);
	check_true(c, !arg_once(&a, 1, "ttl"), "first ttl", __LINE__);
	check_true(c, arg_u32_range(&a, "TTL", 1, 255, &ttl) == -XF_EUSAGE, "ttl range",
		   __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)),
		  "Error: invalid value \"300\" for TTL; try \"xfwd route help\".\n", __LINE__);
	check_true(c, arg_kw(&a, "mode") && !arg_one_of(&a, "MODE", modes, &idx) && idx == 0,
		   "one_of", __LINE__);
	check_true(c, arg_kw(&a, "ttl") && arg_once(&a, 1, "ttl") == -XF_EUSAGE, "dup",
		   __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)),
		  "Error: duplicate \"ttl\"; try \"xfwd route help\".\n", __LINE__);
	arg_next(&a);
	check_true(c, arg_unexpected(&a) == -XF_EUSAGE, "unexpected", __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)),
		  "Error: unexpected \"bogus\"; try \"xfwd route help\".\n", __LINE__);
	arg_next(&a);
	check_true(c, !arg_more(&a) && arg_u32(&a, "N", &ttl) == -XF_EUSAGE, "missing",
		   __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)),
		  "Error: missing N; try \"xfwd route help\".\n", __LINE__);
}

static void test_ifname(struct check *c, FILE *tmp)
{
	char *argv[] = { "0123456789abcdefg", "a/b", "ok0" };
	struct xf_args a;
	const char *name;
	char buf[256];

	arg_init(&a, 3, argv, "feature");
	check_true(c, arg_ifname(&a, "IFNAME", &name) == -XF_EUSAGE, "too long", __LINE__);
	check_true(c, arg_ifname(&a, "IFNAME", &name) == -XF_EUSAGE, "slash", __LINE__);
	check_true(c, !arg_ifname(&a, "IFNAME", &name), "fine", __LINE__);
	captured(tmp, buf, sizeof(buf));
}

/* arg_need(): an earlier error wins and prints nothing more; a verb
 * lacking what is missing says so once; otherwise nothing. */
static void test_need(struct check *c, FILE *tmp)
{
	char *argv[] = { "dev", "veth0" };
	struct xf_args a;
	char buf[256];

	arg_init(&a, 2, argv, "redirect");
	check_true(c, arg_need(&a, -XF_EUSAGE, false, "dev IFNAME") == -XF_EUSAGE,
		   "earlier error", __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)), "", __LINE__);
	check_true(c, arg_need(&a, -ENOENT, true, "dev IFNAME") == -ENOENT, "error kept",
		   __LINE__);
	check_true(c, !arg_need(&a, 0, true, "dev IFNAME"), "present", __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)), "", __LINE__);
	check_true(c, arg_need(&a, 0, false, "dev IFNAME") == -XF_EUSAGE, "missing", __LINE__);
	check_str(c, captured(tmp, buf, sizeof(buf)),
		  "Error: missing dev IFNAME; try \"xfwd redirect help\".\n", __LINE__);
}

int main(void)
{
	struct check c = { 0 };
	FILE *tmp = tmpfile();

	if (!tmp || dup2(fileno(tmp), STDERR_FILENO) < 0)
		return 1;
	setvbuf(stderr, NULL, _IONBF, 0);
	test_u32(&c);
	test_addr(&c);
	test_cursor(&c, tmp);
	test_ifname(&c, tmp);
	test_need(&c, tmp);
	return check_done(&c, "test_arg");
}
