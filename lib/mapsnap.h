/* SPDX-License-Identifier: GPL-2.0 */
/* A map's entries saved and written back, for the rollback of a command
 * that rewrites maps in place (route refresh). */
#ifndef XF_MAPSNAP_H
#define XF_MAPSNAP_H

#include <stdbool.h>
#include <stdint.h>

struct xf_map_snap {
	int fd;			/* not owned */
	bool hash;		/* entries come and go (else an array) */
	uint32_t ksz, vsz, n;
	void *keys, *vals;
};

/* Save every entry of the map fd (an array or a hash, in one batch call).
 * 0/-errno; on error s holds nothing to free. */
int xf_map_snap_take(int fd, struct xf_map_snap *s);
/* Make the map hold what s saved: a hash's keys that came since are
 * deleted first, then every saved entry is written in one batch call.
 * 0 or the first -errno. */
int xf_map_snap_put(const struct xf_map_snap *s);
void xf_map_snap_free(struct xf_map_snap *s);

#endif
