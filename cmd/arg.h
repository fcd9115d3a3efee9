/* SPDX-License-Identifier: GPL-2.0 */
/* Keyword/value argument cursor; every helper reports and returns, never exits. */
#ifndef XF_ARG_H
#define XF_ARG_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

/* Returned (negated) for a usage error: above every errno value, so main()
 * can tell "bad input" (exit 2) from "the kernel said no" (exit 1). */
#define XF_EUSAGE 4096

/* A cursor over one command's words. object/verb name the help hint. */
struct xf_args {
	int argc;
	char **argv;
	const char *object;
	const char *verb;
	uint64_t seen;		/* bit per keyword id given to arg_once() */
};

/* An IPv4 or IPv6 address, with a prefix length when parsed as a prefix. */
struct xf_addr {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t plen;
	union {
		struct in_addr v4;
		struct in6_addr v6;
		uint8_t bytes[16];
	};
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

/* Text parsers without a cursor, shared with the tests. 0/-EINVAL */
int xf_parse_u32(const char *s, uint32_t *v);
int xf_parse_addr(const char *s, struct xf_addr *v, bool prefix);
/* Format an address (with "/plen" when prefix). Returns buf. */
const char *xf_addr_str(const struct xf_addr *v, bool prefix, char *buf, size_t len);

#endif
