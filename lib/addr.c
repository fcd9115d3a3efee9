// SPDX-License-Identifier: GPL-2.0
/* Addresses, prefixes and numbers as text: parse and format. No argv here:
 * cmd/arg.c reports what these refuse. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

int xf_parse_u32(const char *s, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n > UINT32_MAX)
		return -EINVAL;
	*v = n;
	return 0;
}

int xf_parse_addr(const char *s, struct xf_addr *v, bool prefix)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	uint32_t plen;
	int max;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(s, '/');
	if (slash) {
		if (!prefix)
			return -EINVAL;
		buf[slash - s] = '\0';
	}
	memset(v, 0, sizeof(*v));
	if (inet_pton(AF_INET, buf, &v->v4) == 1) {
		v->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, &v->v6) == 1) {
		v->family = AF_INET6;
		max = 128;
	} else {
		return -EINVAL;
	}
	v->plen = max;
	if (slash) {
		if (xf_parse_u32(slash + 1, &plen) || plen > (uint32_t)max ||
		    (slash[1] == '0' && slash[2]))
			return -EINVAL;
		v->plen = plen;
	}
	return 0;
}

const char *xf_addr_str(const struct xf_addr *v, bool prefix, char *buf, size_t len)
{
	size_t n;

	if (!inet_ntop(v->family, v->bytes, buf, len)) {
		snprintf(buf, len, "?");
		return buf;
	}
	n = strlen(buf);
	if (prefix && n < len)
		snprintf(buf + n, len - n, "/%u", v->plen);
	return buf;
}
