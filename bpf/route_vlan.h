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

#endif
