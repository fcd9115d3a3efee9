/* SPDX-License-Identifier: GPL-2.0 */
/* What one interface can do with XDP: `feature show`'s per-device answers. */
#ifndef XF_IFACE_PROBE_H
#define XF_IFACE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "nl_link.h"
#include "probe.h"

/* What one interface can do, from its link and the driver's xdp_features. */
struct xf_iface_features {
	int ifindex;
	char name[IF_NAMESIZE];
	char kind[16];		/* IFLA_INFO_KIND; "loopback" or "device" if none */
	enum xf_xdp_mode xdp_attached;	/* what is attached now */
	uint64_t xdp_features;	/* NETDEV_XDP_ACT_* as reported (0 before 6.3) */
	bool xdp_native;	/* NETDEV_XDP_ACT_BASIC: the driver runs XDP */
	bool xdp_generic;	/* generic (skb) XDP: any device */
	bool xdp_redirect;	/* NETDEV_XDP_ACT_REDIRECT: its XDP may redirect */
	struct xf_probe redirect_target; /* NDO_XMIT: takes XDP redirects now */
};

/* Probe the interface of link l (as xf_link_list() hands them out): f is
 * always filled as far as it could be read. 0, or -errno when its XDP
 * features cannot be queried (f->redirect_target says so). */
int xf_probe_iface_link(const struct xf_link *l, struct xf_iface_features *f);
/* NETDEV_XDP_ACT_* bits as comma-separated names ("none" for 0). Returns buf. */
const char *xf_xdp_features_str(uint64_t flags, char *buf, size_t len);

#endif
