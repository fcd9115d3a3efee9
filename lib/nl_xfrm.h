/* SPDX-License-Identifier: GPL-2.0 */
/* IPsec (xfrm) state that forwarded traffic meets: the namespace's
 * policies of direction fwd and out (ip_forward() checks the first and
 * routes through the second), the default policies, and the number of
 * states, read over NETLINK_XFRM, so that a fast path that skips xfrm can
 * say what it would skip. Per-socket policies never see forwarded
 * traffic and are not read. */
#ifndef XF_NL_XFRM_H
#define XF_NL_XFRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"

/* One policy: its selector, direction, action and first template. */
struct xf_xfrm_pol {
	struct xf_addr src, dst;	/* the selector's prefixes */
	uint8_t dir;			/* XFRM_POLICY_IN, _OUT, _FWD */
	uint8_t action;			/* XFRM_POLICY_ALLOW, _BLOCK */
	uint8_t sub;			/* the sub policy type (else main) */
	uint8_t proto;			/* the selector's protocol, 0: any */
	uint32_t priority;
	int ntmpl;			/* templates: encryption required */
	uint8_t tmpl_proto;		/* the first's: IPPROTO_ESP, _AH, _COMP */
	uint8_t tmpl_mode;		/* XFRM_MODE_TRANSPORT, _TUNNEL, ... */
	struct xf_addr tmpl_src, tmpl_dst;	/* its tunnel's ends */
};

struct xf_xfrm_set {
	struct xf_xfrm_pol *p;		/* fwd and out policies only */
	int n, cap;
	/* The default policies (ip xfrm policy setdefault) block. */
	bool block_fwd, block_out;
	uint32_t states;		/* security associations */
	/* Set when something could not be read: what, and why. */
	char unread[128];
};

/* Read this namespace's xfrm state into s (zeroed here; free with
 * xf_xfrm_free()). A kernel without xfrm is no error (an empty set); what
 * cannot be read fills s->unread. 0/-ENOMEM. */
int xf_xfrm_scan(struct xf_xfrm_set *s);
void xf_xfrm_free(struct xf_xfrm_set *s);
/* "dir fwd 198.18.1.0/24 -> 198.18.2.0/24 block", "dir out ... esp
 * tunnel 198.18.1.1 -> 198.18.2.2". Returns buf. */
const char *xf_xfrm_describe(const struct xf_xfrm_pol *p, char *buf, size_t len);

#endif
