/* SPDX-License-Identifier: GPL-2.0 */
/* The ethtool ioctls that xfwd reads (offloads). */
#ifndef XF_ETHTOOL_H
#define XF_ETHTOOL_H

#include <stdint.h>

/* The value of the ETHTOOL_G* command cmd (ETHTOOL_GTXCSUM, ETHTOOL_GTSO,
 * ...) of the device ifname, asked through the socket sk, whose namespace
 * is the device's; sk -1: a socket of this namespace. 0 or 1, or -errno. */
int xf_ethtool_get(int sk, const char *ifname, uint32_t cmd);
/* One SIOCETHTOOL ioctl on ifname through sk, data the ETHTOOL_* command's
 * struct. 0/-errno. */
int xf_ethtool_ioctl(int sk, const char *ifname, void *data);
/* Whether the feature named name ("tx-vlan-hw-insert", as ethtool -k
 * prints it) is on for ifname, through sk as above: 0 or 1; -ENOENT when
 * the kernel has no such feature, or -errno. */
int xf_ethtool_feature(int sk, const char *ifname, const char *name);

#endif
