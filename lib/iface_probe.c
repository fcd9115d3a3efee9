// SPDX-License-Identifier: GPL-2.0
/* What one interface can do with XDP, from its link and the features its
 * driver reports. */
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/netdev.h>

#include "iface_probe.h"

const char *xf_xdp_features_str(uint64_t flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"basic", "redirect", "ndo_xmit", "xsk_zerocopy", "hw_offload", "rx_sg",
		"ndo_xmit_sg",
	};
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < 64 && o < len; i++) {
		if (!(flags & (1ULL << i)))
			continue;
		if (i < sizeof(names) / sizeof(names[0]))
			o += snprintf(buf + o, len - o, "%s%s", o ? "," : "", names[i]);
		else
			o += snprintf(buf + o, len - o, "%sbit%zu", o ? "," : "", i);
	}
	if (!flags)
		snprintf(buf, len, "none");
	return buf;
}

int xf_probe_iface_link(const struct xf_link *l, struct xf_iface_features *f)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	bool veth = !strcmp(l->kind, "veth");
	int err;

	memset(f, 0, sizeof(*f));
	f->ifindex = l->ifindex;
	snprintf(f->name, sizeof(f->name), "%s", l->name);
	if (l->kind[0])
		snprintf(f->kind, sizeof(f->kind), "%s", l->kind);
	else
		snprintf(f->kind, sizeof(f->kind), "%s",
			 l->flags & IFF_LOOPBACK ? "loopback" : "device");
	f->xdp_attached = l->xdp.mode;
	f->xdp_generic = true;

	/* libbpf asks the netdev genetlink family (6.3+); an older kernel
	 * leaves the flags 0, which reads as "nothing native". */
	err = bpf_xdp_query(l->ifindex, 0, &q);
	if (err) {
		xf_probe_set(&f->redirect_target, false, err, "cannot query xdp_features");
		return err;
	}
	if (!xf_xdp_features_reported()) {
		xf_probe_set(&f->redirect_target, false, 0,
			  "kernel does not report XDP features (Linux 6.3): unknown");
		return 0;
	}
	f->xdp_features = q.feature_flags;
	f->xdp_native = q.feature_flags & NETDEV_XDP_ACT_BASIC;
	f->xdp_redirect = q.feature_flags & NETDEV_XDP_ACT_REDIRECT;
	if (q.feature_flags & NETDEV_XDP_ACT_NDO_XMIT)
		xf_probe_set(&f->redirect_target, true, 0, "%s",
			  veth ? "veth peer has an XDP program or GRO on"
			       : "driver transmits XDP frames (ndo_xdp_xmit)");
	else if (veth)
		/* The kernel drops frames redirected into such a veth without
		 * a trace; xfwd passes them to the stack instead. */
		xf_probe_set(&f->redirect_target, false, 0,
			  "veth peer has no XDP program and GRO off: redirects would be dropped");
	else
		xf_probe_set(&f->redirect_target, false, 0,
			  "driver does not take XDP redirects (no ndo_xmit)");
	return 0;
}
