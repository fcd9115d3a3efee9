/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink addresses, as the route fast path's hint needs them. */
#ifndef XF_NL_ADDR_H
#define XF_NL_ADDR_H

#include <stdint.h>

struct xf_nl;

/* Call cb with every address of this namespace (IFA_LOCAL, else
 * IFA_ADDRESS): family AF_INET (4 bytes) or AF_INET6 (16). 0/-errno. */
int xf_addr_walk(struct xf_nl *nl, void (*cb)(int family, const uint8_t *addr, void *arg),
		 void *arg);

#endif
