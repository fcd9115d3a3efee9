/* SPDX-License-Identifier: GPL-2.0 */
/* The ethtool ioctls that xfwd reads (offloads). */
#ifndef XF_ETHTOOL_H
#define XF_ETHTOOL_H

#include <stdint.h>

/* The value of the ETHTOOL_G* command cmd (ETHTOOL_GTXCSUM, ETHTOOL_GTSO,
 * ...) of the device ifname, asked through the socket sk, whose namespace
 * is the device's; sk -1: a socket of this namespace. 0 or 1, or -errno. */
int xf_ethtool_get(int sk, const char *ifname, uint32_t cmd);

#endif
