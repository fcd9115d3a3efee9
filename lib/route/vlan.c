// SPDX-License-Identifier: GPL-2.0
/* VLAN devices in the forwarding set (hook tc and hook xdp).
 *
 * XDP and tc see trunk traffic on the real device underneath, never on a
 * VLAN device's own receive path, so a VLAN device U of the set is a
 * member (its own xf_rt_ifcfg entry, counter slot and link pin) whose
 * link is the link of the program on its parent P: the tcx link, or the
 * XDP link of P's chain, of which route is then a member. The link pins
 * are the reference count: U's directory pins the same link as P's (when
 * P is a member too) and as its sibling VLAN devices', and the program
 * leaves P when the last of them goes (tc: the last pin; xdp: detach
 * takes route out of P's chain then, rt_carrier_others). xf_rt_vlan
 * (xfwd_bpf.h) maps the tags on P to the devices and the devices to their
 * tags, and is rewritten from the kernel's links by every
 * command that changes the set (rt_vlan_sync). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <net/if.h>

#include "internal.h"
#include "nl_link.h"
#include "xbpf.h"

struct rt_vlan_ent {
	uint64_t key;
	struct xf_route_vlan v;
};

/* The entries member ifindex gives xf_rt_vlan now, if any: a VLAN
 * device, up, whose parent is in this namespace and runs this member's
 * link; e[0] its tag on the parent (with its xf_rt_ifcfg entry; zeros,
 * which pass, where that cannot be read), e[1] the tag it sends with. */
static bool rt_vlan_entry(struct xf_nl *nl, struct xf_inst *in, uint32_t ifindex,
			  struct rt_vlan_ent *e)
{
	struct xf_link l;
	int i;

	if (xf_link_get(nl, NULL, ifindex, &l) || !l.vlan.is || l.link_netnsid >= 0 ||
	    !l.link || !(l.flags & IFF_UP))
		return false;
	if (rt_vlan_parent(ifindex) != l.link)
		return false;
	memset(e, 0, 2 * sizeof(*e));
	e[0].key = XF_RT_VLAN_IN((uint64_t)l.link, l.vlan.ad, l.vlan.id);
	e[0].v.ifindex = ifindex;
	memcpy(e[0].v.prio, l.vlan.ingress_prio, sizeof(e[0].v.prio));
	if (bpf_map_lookup_elem(in->fd[RT_MAP_IFCFG], &ifindex, &e[0].v.cfg))
		memset(&e[0].v.cfg, 0, sizeof(e[0].v.cfg));
	e[1].key = XF_RT_VLAN_OUT(ifindex);
	e[1].v.ifindex = l.link;
	e[1].v.proto = htons(l.vlan.ad ? ETH_P_8021AD : ETH_P_8021Q);
	e[1].v.vid = l.vlan.id;
	for (i = 0; i < XF_RT_VLAN_QOS_N; i++)
		e[1].v.qos[i] = (uint16_t)(l.vlan.egress_pcp[i] << 13);
	e[1].v.qflags = (l.vlan.egress_high ? XF_RT_VLAN_QOS_HIGH : 0) |
			(l.vlan.egress_qos ? XF_RT_VLAN_QOS_MAP : 0);
	return true;
}

/* The namespace's rt_genid as the kctx build reads it (xf_route_genid run
 * once, struct xf_route_vlan): 0, or -errno (-EOPNOTSUPP: not readable). */
static int rt_vlan_rtgen(struct xf_inst *in, uint32_t *gen)
{
	uint8_t pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);
	struct xf_route_src4 p = { 0 };
	uint32_t key = XF_RT_SRC4_PROBE;

	if (in->fd[RT_PROG_GENID] < 0 || in->fd[RT_MAP_SRC4] < 0)
		return -EOPNOTSUPP;
	if (bpf_map_update_elem(in->fd[RT_MAP_SRC4], &key, &p, BPF_ANY) ||
	    bpf_prog_test_run_opts(in->fd[RT_PROG_GENID], &o) ||
	    bpf_map_lookup_elem(in->fd[RT_MAP_SRC4], &key, &p))
		return -errno;
	if (!p.probe.rt_genid_ok)
		return -EOPNOTSUPP;
	*gen = p.probe.rt_genid;
	return 0;
}

bool rt_inst_kctx(struct xf_inst *in)
{
	uint32_t gen;

	return !rt_vlan_rtgen(in, &gen);
}

/* key's slot of the direct-mapped copy xf_rt_vlc made to hold v (NULL:
 * to hold no key, where it holds key). Each write changes either the key
 * or the values, never both, so that a packet reading the values and then
 * the key never takes another key's values (xfwd_bpf.h). 0/-errno. */
static int rt_vlc_set(struct xf_inst *in, uint64_t key, const struct xf_route_vlan *v)
{
	uint32_t k = XF_RT_VLC_SLOT(key);
	struct xf_route_vlc c;

	memset(&c, 0, sizeof(c));
	if (bpf_map_lookup_elem(in->fd[RT_MAP_VLC], &k, &c))
		return -errno;
	if (v && c.key == key && !memcmp(&c.v, v, sizeof(*v)))
		return 0;
	if (!v && c.key != key)
		return 0;
	if (c.key) {
		c.key = 0;
		if (bpf_map_update_elem(in->fd[RT_MAP_VLC], &k, &c, BPF_ANY))
			return -errno;
	}
	if (!v)
		return 0;
	if (memcmp(&c.v, v, sizeof(*v))) {
		c.v = *v;
		if (bpf_map_update_elem(in->fd[RT_MAP_VLC], &k, &c, BPF_ANY))
			return -errno;
	}
	c.key = key;
	return bpf_map_update_elem(in->fd[RT_MAP_VLC], &k, &c, BPF_ANY) ? -errno : 0;
}

int rt_vlan_cfg(struct xf_inst *in, uint32_t ifindex, const struct xf_route_ifcfg *cfg)
{
	uint64_t key = XF_RT_VLAN_OUT(ifindex);
	struct xf_route_vlan v;
	struct xf_route_vlc c;
	uint32_t k;
	int err;

	if (in->fd[RT_MAP_VLAN] < 0)
		return 0;
	if (bpf_map_lookup_elem(in->fd[RT_MAP_VLAN], &key, &v))
		return errno == ENOENT ? 0 : -errno;
	key = XF_RT_VLAN_IN((uint64_t)v.ifindex, v.proto == htons(ETH_P_8021AD), v.vid);
	if (bpf_map_lookup_elem(in->fd[RT_MAP_VLAN], &key, &v))
		return errno == ENOENT ? 0 : -errno;
	if (v.ifindex != ifindex)
		return 0;
	if (cfg)
		v.cfg = *cfg;
	else
		memset(&v.cfg, 0, sizeof(v.cfg));
	/* The copy only where it holds the key (rt_vlan_sync chose). */
	k = XF_RT_VLC_SLOT(key);
	if (in->fd[RT_MAP_VLC] >= 0) {
		if (bpf_map_lookup_elem(in->fd[RT_MAP_VLC], &k, &c))
			return -errno;
		if (c.key == key && (err = rt_vlc_set(in, key, &v)))
			return err;
	}
	return bpf_map_update_elem(in->fd[RT_MAP_VLAN], &key, &v, BPF_EXIST) ? -errno : 0;
}

int rt_vlan_sync(struct xf_nl *nl, struct xf_inst *in, const uint32_t *members, int n)
{
	uint8_t claimed[XF_RT_VLC_SLOTS / 8] = { 0 };
	struct rt_vlan_ent ents[XF_RT_VLAN_MAX];
	uint64_t keys[XF_RT_VLAN_MAX], next, *prev = NULL;
	int cnt = 0, nk = 0, i, j, err = 0;
	uint32_t gen = 0;
	bool gen_ok;

	if (in->fd[RT_MAP_VLAN] < 0)
		return 0;
	/* The counter before the links are read: a device that goes down
	 * after it was read up bumps it (struct xf_route_vlan). */
	gen_ok = !rt_vlan_rtgen(in, &gen);
	/* Without netlink nothing is known: an empty map passes every tag. */
	for (i = 0; nl && i < n && cnt + 2 <= XF_RT_VLAN_MAX; i++) {
		if (!rt_vlan_entry(nl, in, members[i], &ents[cnt]))
			continue;
		ents[cnt].v.gen = gen;
		ents[cnt].v.gen_ok = gen_ok;
		cnt += 2;
	}
	for (i = 0; i < cnt; i++) {
		uint32_t k = XF_RT_VLC_SLOT(ents[i].key);
		int e;

		if (bpf_map_update_elem(in->fd[RT_MAP_VLAN], &ents[i].key, &ents[i].v, BPF_ANY)) {
			err = -errno;
			continue;
		}
		/* The copy: the first key of the set to want a slot has it;
		 * the others are answered by the hash. */
		if (in->fd[RT_MAP_VLC] < 0 || (claimed[k / 8] & (1U << (k % 8))))
			continue;
		claimed[k / 8] |= 1U << (k % 8);
		e = rt_vlc_set(in, ents[i].key, &ents[i].v);
		if (e)
			err = e;
	}
	/* Then what is no longer so: keys first, as in rt_refresh. */
	while (nk < XF_RT_VLAN_MAX &&
	       !bpf_map_get_next_key(in->fd[RT_MAP_VLAN], prev, &next)) {
		keys[nk] = next;
		prev = &keys[nk++];
	}
	for (i = 0; i < nk; i++) {
		for (j = 0; j < cnt && ents[j].key != keys[i]; j++)
			;
		if (j < cnt)
			continue;
		/* The copy first: no packet may find the key there once
		 * the hash has lost it. */
		if (in->fd[RT_MAP_VLC] >= 0) {
			int e = rt_vlc_set(in, keys[i], NULL);

			if (e) {
				err = e;
				continue;
			}
		}
		if (bpf_map_delete_elem(in->fd[RT_MAP_VLAN], &keys[i]) && errno != ENOENT)
			err = -errno;
	}
	return err;
}
