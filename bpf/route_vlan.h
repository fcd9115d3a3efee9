/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: tagged frames on hook tc (included by route.bpf.c).
 *
 * A frame tagged V on parent P reaches tc ingress with the tag in skb
 * metadata: __netif_receive_skb_core() takes it off (skb_vlan_untag())
 * before tc runs, and vlan_do_receive() hands the frame to the VLAN device
 * only after. When (P, V) is a VLAN device U of the set (xf_rt_vlan), the
 * fast path decides as the kernel does once U has the frame: U is the
 * ingress of the lookup, of rp_filter and of the counters; the tag goes
 * (bpf_skb_vlan_pop() clears the metadata, as vlan_do_receive() does),
 * skb->priority is U's ingress-qos-map of the PCP, and PACKET_OTHERHOST
 * becomes PACKET_HOST when the destination is U's own address.
 *
 * Egress to a VLAN device needs nothing here: the redirect to U runs U's
 * own xmit (vlan_dev_hard_start_xmit()), which pushes the tag with the
 * egress-qos-map's priority bits and sends on the parent, as the kernel's
 * neighbour output does.
 *
 * The map is as exact as the last xfwd command left it; the device may
 * have gone down since, and vlan_do_receive() drops what reaches a VLAN
 * device that is down. Nothing the program can read says so but the FIB:
 * every route through a device goes when it goes down (IPv4
 * fib_sync_down_dev(), IPv6 rt6_sync_down_dev()). So a tagged packet is
 * forwarded only while its source routes back through the VLAN device
 * (xf_rt_vlan_back()); otherwise it goes to the kernel (vlan_source),
 * which drops it when the device is down and forwards it otherwise. A
 * device deleted or moved away has no ifindex here any more: the lookup
 * fails (fib_error). A rename changes nothing the kernel forwards by.
 *
 * What is passed, counted: VLAN id 0 (the kernel routes a priority-tagged
 * frame as the parent's, when no device has id 0: vlan_prio0), a tag no
 * device of the set has (vlan_unknown; the kernel drops it as
 * PACKET_OTHERHOST, or it is a device outside the set), a second tag in
 * the frame (vlan_qinq, in xf_rt_decide()). */
#ifndef XF_ROUTE_VLAN_H
#define XF_ROUTE_VLAN_H

#define XF_VLAN_VID_MASK 0x0fff
#define XF_VLAN_PRIO_SHIFT 13

/* md->vlan: a tag in skb metadata, and what became of it. */
#define XF_RT_VLAN_TAG 1	/* present, not (yet) mapped */
#define XF_RT_VLAN_POP 2	/* mapped to md->iif, pop before redirect */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_RT_VLAN_MAX);
	__type(key, __u64);
	__type(value, struct xf_route_vlan);
} xf_rt_vlan SEC(".maps");

/* tc: the tag in skb metadata (proto, tci as in struct __sk_buff) on the
 * parent md->iif. XF_RR_FORWARDED with md->iif the VLAN device, md->vlan
 * XF_RT_VLAN_POP and md->vprio its priority when the set has that device;
 * else why not. */
static __always_inline __u32 xf_rt_vlan_in(struct xf_rt_md *md, __u32 proto, __u32 tci)
{
	struct xf_route_vlan *v;
	__u32 vid = tci & XF_VLAN_VID_MASK;
	__u64 key;

	if (!vid)
		return XF_RR_VLAN_PRIO0;
	key = XF_RT_VLAN_IN(md->iif, proto == bpf_htons(ETH_P_8021AD), vid);
	v = bpf_map_lookup_elem(&xf_rt_vlan, &key);
	if (!v)
		return XF_RR_VLAN_UNKNOWN;
	md->iif = v->ifindex;
	md->vprio = v->prio[(tci >> XF_VLAN_PRIO_SHIFT) & 7];
	md->vlan = XF_RT_VLAN_POP;
	/* vlan_do_receive(): the VLAN device's own address is "host". */
	if (md->pkt_type == PACKET_OTHERHOST)
		md->pkt_type = XF_PKT_BY_MAC;
	return XF_RR_FORWARDED;
}

/* A reverse lookup's answer (rc, its egress oif): through md->iif. */
static __always_inline __u32 xf_rt_vlan_back_rc(int rc, __u32 oif, const struct xf_rt_md *md)
{
	if ((rc == BPF_FIB_LKUP_RET_SUCCESS || rc == BPF_FIB_LKUP_RET_NO_NEIGH) &&
	    oif == md->iif)
		return XF_RR_FORWARDED;
	return XF_RR_VLAN_SOURCE;
}

/* The source of a tagged packet routes back through its VLAN device
 * md->iif, so the device is up (see above): XF_RR_FORWARDED, else
 * XF_RR_VLAN_SOURCE. An input lookup from md->iif, as the reverse path
 * filter's; for IPv6 the addresses come from the packet (the FIB wrote
 * the next hop over md->fib's). */
static __always_inline __u32 xf_rt_vlan_back(void *ctx, void *data, void *data_end,
					     struct xf_rt_md *md, __u32 flags)
{
	struct bpf_fib_lookup rp;
	int rc;

	__builtin_memset(&rp, 0, sizeof(rp));
	rp.l4_protocol = md->fib.l4_protocol;
	rp.tot_len = 1;		/* no MTU check */
	rp.ifindex = md->iif;
	if (md->v4) {
		rp.family = XF_AF_INET;
		rp.tos = md->tos;
		rp.ipv4_src = md->daddr4;
		rp.ipv4_dst = md->saddr4;
	} else {
		struct ipv6hdr *ip6h = data + ETH_HLEN;

		if ((void *)(ip6h + 1) > data_end)
			return XF_RR_BAD_LEN;
		rp.family = XF_AF_INET6;
		__builtin_memcpy(rp.ipv6_src, &ip6h->daddr, 16);
		__builtin_memcpy(rp.ipv6_dst, &ip6h->saddr, 16);
	}
	rc = bpf_fib_lookup(ctx, &rp, sizeof(rp), flags & BPF_FIB_LOOKUP_DIRECT);
	return xf_rt_vlan_back_rc(rc, rp.ifindex, md);
}

#endif
