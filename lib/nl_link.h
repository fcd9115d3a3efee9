/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink links as plain structs. */
#ifndef XF_NL_LINK_H
#define XF_NL_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "addr.h"

struct xf_nl;

enum xf_xdp_mode {
	XF_XDP_NONE,
	XF_XDP_DRV,
	XF_XDP_SKB,
	XF_XDP_HW,
	XF_XDP_MULTI,
};

struct xf_link {
	int ifindex;
	char name[IF_NAMESIZE];
	char kind[16];		/* IFLA_INFO_KIND: "veth", "netkit", "" */
	unsigned int flags;	/* IFF_* */
	uint16_t type;		/* ifi_type: ARPHRD_* */
	uint32_t mtu;
	uint8_t addr[6];
	uint8_t addr_len;
	int link;		/* IFLA_LINK: the peer of a veth, 0 if none */
	int link_netnsid;	/* -1 when the peer is in this namespace */
	int master;
	uint32_t gro_max_size;
	char qdisc[16];		/* IFLA_QDISC: the root qdisc's kind */
	struct {
		bool is;		/* kind "vlan": the rest is valid */
		bool ad;		/* protocol 802.1ad, else 802.1Q */
		bool egress_qos;	/* an egress-qos-map entry is set */
		bool egress_high;	/* one for a priority above 15 */
		uint16_t id;
		uint32_t ingress_prio[8];	/* ingress-qos-map by PCP */
		uint8_t egress_pcp[16];	/* egress-qos-map of priority 0..15 */
	} vlan;			/* the parent is link, in this namespace
				 * when link_netnsid is -1 */
	struct {
		enum xf_xdp_mode mode;
		uint32_t prog_id;	/* the single program, or 0 */
		uint32_t drv_id, skb_id, hw_id;
	} xdp;
};

/* A device of one of the kernel's pair kinds, veth or netkit, whose other
 * end (IFLA_LINK) may live in another namespace. */
bool xf_link_kind_is_pair(const char *kind);
/* Fill l for the link named name (or, if name is NULL, with ifindex).
 * -ENODEV when there is none. */
int xf_link_get(struct xf_nl *nl, const char *name, int ifindex, struct xf_link *l);
/* xf_link_get() of ifindex in the namespace that netnsid names here (a
 * veth's IFLA_LINK_NETNSID). 0, -ENODEV or -errno. */
int xf_link_get_nsid(struct xf_nl *nl, int netnsid, int ifindex, struct xf_link *l);
/* xf_link_get() by name for a device the user named: prints the Error
 * line ("device ... does not exist" for -ENODEV). 0/-errno. */
int xf_link_find(struct xf_nl *nl, const char *name, struct xf_link *l);
/* Call cb for every link in this namespace; a non-zero return stops. */
int xf_link_list(struct xf_nl *nl, int (*cb)(const struct xf_link *l, void *arg),
		 void *arg);
const char *xf_xdp_mode_name(enum xf_xdp_mode m);
/* Create a veth pair name <-> peer in this namespace. 0/-errno */
int xf_link_add_veth(struct xf_nl *nl, const char *name, const char *peer);
/* Create a netkit pair with the kernel's defaults. 0/-errno (-EOPNOTSUPP
 * where the kernel has no netkit). */
int xf_link_add_netkit(struct xf_nl *nl, const char *name);
/* Create the 802.1Q device name with VLAN id on parent. 0/-errno
 * (-EOPNOTSUPP where the kernel has no 802.1Q). */
int xf_link_add_vlan(struct xf_nl *nl, const char *name, int parent, uint16_t id);
/* Create a netkit pair name <-> peer in mode l2 or l3 (the mode bookworm's
 * ip cannot set). 0/-errno. */
int xf_link_add_netkit_pair(struct xf_nl *nl, const char *name, const char *peer, bool l2);
/* The first global address of family on ifindex, with its prefix length.
 * 0, -EADDRNOTAVAIL when it has none, or -errno. */
int xf_addr_first(struct xf_nl *nl, int ifindex, int family, struct xf_addr *out);

/* The id this namespace gives the network namespace open at fd (as in
 * IFLA_LINK_NETNSID), -1 when it gives none. 0/-errno. */
int xf_netns_nsid(struct xf_nl *nl, int fd, int *nsid);

#endif
