/* SPDX-License-Identifier: GPL-2.0 */
/* Addresses and prefixes (and the numbers in them): parse and format. */
#ifndef XF_ADDR_H
#define XF_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

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

/* Parse text. 0/-EINVAL */
int xf_parse_u32(const char *s, uint32_t *v);
int xf_parse_addr(const char *s, struct xf_addr *v, bool prefix);
/* Format an address (with "/plen" when prefix). Returns buf. */
const char *xf_addr_str(const struct xf_addr *v, bool prefix, char *buf, size_t len);

#endif
