/* SPDX-License-Identifier: GPL-2.0 */
/* The other end of a veth or netkit pair, read in the namespace it lives in. */
#ifndef XF_PEER_H
#define XF_PEER_H

#include <limits.h>
#include <net/if.h>

struct xf_nl;
struct xf_link;

struct xf_peer {
	char name[IF_NAMESIZE];
	/* Where it lives: "" for this namespace, else its name under
	 * /run/netns, or "pid N" for a namespace only a process holds. */
	char netns[NAME_MAX + 1];
	int tx_csum;		/* transmit checksum offload: 1 on, 0 off */
	/* tx-vlan-hw-insert or tx-vlan-stag-hw-insert: its VLAN devices'
	 * tags travel in skb metadata (1), in the frame (0), unknown (-1). */
	int tx_vlan;
};

/* Read the peer of l (a veth or netkit device). Its namespace is found
 * among /run/netns and the processes' namespaces by the id this namespace
 * gives it. 0; -ENOENT when l has no peer or its namespace is not found;
 * -errno (setns needs CAP_SYS_ADMIN). */
int xf_peer_get(struct xf_nl *nl, const struct xf_link *l, struct xf_peer *p);
/* The peer as a user would name it: "veth0" or "veth0 (netns h1)". */
const char *xf_peer_str(const struct xf_peer *p, char *buf, size_t len);

#endif
