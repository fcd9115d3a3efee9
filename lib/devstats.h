/* SPDX-License-Identifier: GPL-2.0 */
/* A device's own counters, as its driver and the kernel keep them: the
 * link statistics of rtnetlink (IFLA_STATS64) and the driver's XDP
 * counters from the ethtool ioctls (ETHTOOL_GSTRINGS, ETHTOOL_GSTATS),
 * summed over the queues under names shared by every driver. */
#ifndef XF_DEVSTATS_H
#define XF_DEVSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

struct xf_nl;

/* rtnetlink's link statistics, in this order. */
enum {
	XF_DEV_RX_PACKETS, XF_DEV_RX_BYTES, XF_DEV_RX_ERRORS, XF_DEV_RX_DROPPED,
	XF_DEV_TX_PACKETS, XF_DEV_TX_BYTES, XF_DEV_TX_ERRORS, XF_DEV_TX_DROPPED,
	XF_DEV_NSTD,
};

/* The drivers' XDP counters under their stable names (the JSON keys). */
enum {
	XF_DEV_XDP_PACKETS,	/* frames the XDP program saw */
	XF_DEV_XDP_BYTES,
	XF_DEV_XDP_REDIRECT,	/* XDP_REDIRECT the driver carried out */
	XF_DEV_XDP_DROPS,	/* XDP_DROP, and frames lost on the way in */
	XF_DEV_XDP_TX,		/* XDP_TX sent back out */
	XF_DEV_XDP_TX_ERRORS,	/* XDP_TX that failed */
	XF_DEV_XDP_XMIT,	/* frames redirected into this device */
	XF_DEV_XDP_XMIT_ERRORS,	/* ... that it could not send */
	XF_DEV_RX_QUEUE_DROPS,	/* veth: drops of the receive queues (a
				 * redirect that failed included) */
	XF_DEV_NXDP,
};

struct xf_devstats {
	int ifindex;
	char dev[IF_NAMESIZE];
	char driver[32];		/* ETHTOOL_GDRVINFO, "" if none */
	bool has_std;
	uint64_t std[XF_DEV_NSTD];
	/* has[i]: the driver has a counter named so (xdp[i] its sum) */
	bool has[XF_DEV_NXDP];
	uint64_t xdp[XF_DEV_NXDP];
};

const char *xf_devstats_std_name(int i);
const char *xf_devstats_xdp_name(int i);
/* The stable name of a driver's ethtool counter, its queue number left
 * out ("rx_queue_3_xdp_drops" -> XF_DEV_XDP_DROPS), or -1 for a counter
 * xfwd does not show. Exposed for the unit tests. */
int xf_devstats_map(const char *ethtool_name);
/* Read the counters of the device ifindex of this namespace into d (its
 * earlier contents are lost). A device without ethtool statistics has
 * only the standard ones. 0, -ENODEV when it has gone, or -errno. */
int xf_devstats_read(struct xf_nl *nl, int ifindex, struct xf_devstats *d);

#endif
