/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink neighbours: the entry a forwarded packet meets, for route get. */
#ifndef XF_NL_NEIGH_H
#define XF_NL_NEIGH_H

#include <stdint.h>

struct xf_nl;

/* The NUD state (NUD_REACHABLE, NUD_STALE, ...) of the neighbour entry
 * for addr (family AF_INET or AF_INET6, 4 or 16 bytes) on ifindex, in
 * *state. 0, -ENOENT when there is no entry, -errno when it cannot be
 * read. */
int xf_neigh_state(struct xf_nl *nl, int ifindex, int family, const uint8_t *addr,
		   uint16_t *state);

/* "reachable", "stale", ..., "none" for 0; the lowest state bit set. */
const char *xf_neigh_state_name(uint16_t state);

#endif
