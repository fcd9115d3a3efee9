// SPDX-License-Identifier: GPL-2.0
/* hook xdp and a veth or netkit peer's offloads. A peer that leaves its
 * TCP and UDP checksums to the device hands them on unfinished
 * (CHECKSUM_PARTIAL travels with the skb). The kernel's forwarding
 * finishes them on the way out; XDP never sees that state, so what it
 * redirects arrives with wrong checksums and the receiver drops it. A peer
 * with tx-vlan offload hands its VLAN devices' tags on in skb metadata,
 * which XDP does not see either: the frame looks untagged, and the fast
 * path would forward what the kernel takes for a VLAN's (and drops where
 * no device has the id). Such an ingress is refused (unless -force) and
 * "route show" warns when a peer turns either on later. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nl_link.h"
#include "peer.h"
#include "internal.h"

int rt_check_peer_offload(struct xf_nl *nl, const char *dev, const struct xf_link *l, bool force)
{
	struct xf_peer p;
	char name[IF_NAMESIZE + NAME_MAX + 16];
	int err;

	if (force || !xf_link_kind_is_pair(l->kind))
		return 0;
	err = xf_peer_get(nl, l, &p);
	if (err == -ENOENT) {
		fprintf(stderr, "Error: cannot tell whether %s's peer sends with tx checksum "
			"offload: its namespace is neither under /run/netns nor a process's; "
			"use hook tc, or -force.\n", dev);
		return -EOPNOTSUPP;
	}
	if (err) {
		fprintf(stderr, "Error: cannot read %s's peer: %s; use hook tc, or -force.\n",
			dev, strerror(-err));
		return err;
	}
	/* A tag in metadata is one XDP cannot see: the kernel takes the
	 * frame as its VLAN's (and drops it where no device has the id),
	 * the fast path as untagged. Unknown counts as on. */
	if (p.tx_csum && p.tx_vlan) {
		fprintf(stderr, "Error: %s's peer %s has tx checksum and tx-vlan offload on: XDP "
			"would forward its TCP and UDP with unfinished checksums and its tagged "
			"frames as untagged ones; run \"ethtool -K %s tx off txvlan off "
			"tx-vlan-stag-hw-insert off\"%s, use hook tc, or -force.\n", dev,
			xf_peer_str(&p, name, sizeof(name)), p.name,
			p.netns[0] ? " in its namespace" : "");
		return -EOPNOTSUPP;
	}
	if (p.tx_csum) {
		fprintf(stderr, "Error: %s's peer %s has tx checksum offload on, and XDP would "
			"forward its TCP and UDP with unfinished checksums; run \"ethtool -K %s tx "
			"off\"%s, use hook tc, or -force.\n", dev, xf_peer_str(&p, name, sizeof(name)),
			p.name, p.netns[0] ? " in its namespace" : "");
		return -EOPNOTSUPP;
	}
	if (p.tx_vlan) {
		fprintf(stderr, "Error: %s's peer %s has tx-vlan offload on, and XDP would forward "
			"its tagged frames as untagged ones; run \"ethtool -K %s txvlan off "
			"tx-vlan-stag-hw-insert off\"%s, use hook tc, or -force.\n", dev,
			xf_peer_str(&p, name, sizeof(name)), p.name,
			p.netns[0] ? " in its namespace" : "");
		return -EOPNOTSUPP;
	}
	return 0;
}

const char *rt_peer_offload_warning(struct xf_nl *nl, const struct xf_link *l, char *buf,
				    size_t len)
{
	struct xf_peer p;
	char name[IF_NAMESIZE + NAME_MAX + 16];

	if (!xf_link_kind_is_pair(l->kind) || xf_peer_get(nl, l, &p) ||
	    (!p.tx_csum && p.tx_vlan <= 0))
		return NULL;
	if (p.tx_csum)
		snprintf(buf, len, "peer %s has tx checksum offload on: its TCP and UDP leave "
			 "the fast path with unfinished checksums", xf_peer_str(&p, name, sizeof(name)));
	else
		snprintf(buf, len, "peer %s has tx-vlan offload on: its tagged frames look "
			 "untagged to the fast path", xf_peer_str(&p, name, sizeof(name)));
	return buf;
}
