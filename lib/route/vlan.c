// SPDX-License-Identifier: GPL-2.0
/* VLAN devices in the forwarding set (hook tc).
 *
 * XDP and tc see trunk traffic on the real device underneath, never on a
 * VLAN device's own receive path, so a VLAN device U of the set is a
 * member (its own xf_rt_ifcfg entry, counter slot and link pin) whose
 * link is the tcx link of the program on its parent P. The link pin is the
 * reference count: U's directory pins the same link as P's (when P is a
 * member too) and as its sibling VLAN devices', and the program leaves P
 * when the last of them is unpinned. xf_rt_vlan (xfwd_bpf.h) maps the tags
 * on P to the devices, and is rewritten from the kernel's links by every
 * command that changes the set (rt_vlan_sync). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <net/if.h>

#include "internal.h"
#include "nl_link.h"
#include "xbpf.h"

/* The ifindex a route link runs on (tcx or, when xdp, XDP), or 0. */
static int rt_link_ifindex(int fd, bool xdp)
{
	struct bpf_link_info li;
	uint32_t len = sizeof(li);

	memset(&li, 0, sizeof(li));
	if (bpf_link_get_info_by_fd(fd, &li, &len))
		return 0;
	if (li.type == BPF_LINK_TYPE_TCX)
		return li.tcx.ifindex;
	if (li.type == BPF_LINK_TYPE_XDP && xdp)
		return li.xdp.ifindex;
	return 0;
}

int rt_carrier_link(int carrier)
{
	int ifx[RT_MAX_PINNED], n, i, fd;

	n = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	for (i = 0; i < n; i++) {
		fd = rt_link_open(ifx[i]);
		if (fd < 0)
			continue;
		if (rt_link_ifindex(fd, false) == carrier)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

bool rt_on_xdp(int ifindex)
{
	int fd = rt_link_open(ifindex);
	bool xdp;

	if (fd < 0)
		return false;
	xdp = rt_link_ifindex(fd, true) && !rt_link_ifindex(fd, false);
	close(fd);
	return xdp;
}

int rt_vlan_parent(int ifindex)
{
	int fd = rt_link_open(ifindex), p;

	if (fd < 0)
		return 0;
	p = rt_link_ifindex(fd, true);
	close(fd);
	return p == ifindex ? 0 : p;
}

struct rt_vlan_ent {
	uint64_t key;
	struct xf_route_vlan v;
};

/* The entry member ifindex gives xf_rt_vlan now, if any: a VLAN device,
 * up, whose parent is in this namespace and runs this member's link. */
static bool rt_vlan_entry(struct xf_nl *nl, uint32_t ifindex, struct rt_vlan_ent *e)
{
	struct xf_link l;

	if (xf_link_get(nl, NULL, ifindex, &l) || !l.vlan.is || l.link_netnsid >= 0 ||
	    !l.link || !(l.flags & IFF_UP))
		return false;
	if (rt_vlan_parent(ifindex) != l.link)
		return false;
	e->key = XF_RT_VLAN_IN((uint64_t)l.link, l.vlan.ad, l.vlan.id);
	e->v.ifindex = ifindex;
	memcpy(e->v.prio, l.vlan.ingress_prio, sizeof(e->v.prio));
	return true;
}

int rt_vlan_sync(struct xf_nl *nl, struct xf_inst *in, const uint32_t *members, int n)
{
	struct rt_vlan_ent ents[XF_RT_VLAN_MAX];
	uint64_t keys[XF_RT_VLAN_MAX], next, *prev = NULL;
	int cnt = 0, nk = 0, i, j, err = 0;

	if (in->fd[RT_MAP_VLAN] < 0)
		return 0;
	/* Without netlink nothing is known: an empty map passes every tag. */
	for (i = 0; nl && i < n && cnt < XF_RT_VLAN_MAX; i++)
		if (rt_vlan_entry(nl, members[i], &ents[cnt]))
			cnt++;
	for (i = 0; i < cnt; i++)
		if (bpf_map_update_elem(in->fd[RT_MAP_VLAN], &ents[i].key, &ents[i].v, BPF_ANY))
			err = -errno;
	/* Then what is no longer so: keys first, as in rt_refresh. */
	while (nk < XF_RT_VLAN_MAX &&
	       !bpf_map_get_next_key(in->fd[RT_MAP_VLAN], prev, &next)) {
		keys[nk] = next;
		prev = &keys[nk++];
	}
	for (i = 0; i < nk; i++) {
		for (j = 0; j < cnt && ents[j].key != keys[i]; j++)
			;
		if (j == cnt && bpf_map_delete_elem(in->fd[RT_MAP_VLAN], &keys[i]) &&
		    errno != ENOENT)
			err = -errno;
	}
	return err;
}
