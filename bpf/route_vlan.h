/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* route: tagged frames on both hooks (a part of route.bpf.c).
 *
 * Hook tc. A frame tagged V on parent P reaches tc ingress with the tag in skb
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
 * Hook xdp. The tag is in the frame (a tag the driver or a veth peer's
 * tx-vlan offload put in skb metadata is invisible to XDP: attach refuses
 * such a veth, lib/route/vlan.c). Ingress: the same mapping, then the
 * MAC addresses move 4 bytes up over the tag and the decision runs on the
 * untagged frame; passed, the bytes are put back as they came. Forwarded,
 * bpf_xdp_adjust_head(4) drops the gap. (The common paths,
 * route_xdp_fast.h, read the frame where it is and write only once it is
 * forwarded: the untagged header 4 bytes in, then the same head move.)
 * Egress to a VLAN device (XF_RTIF_VLAN): the gap is kept (or made, adjust_head(-4)) and filled
 * with U's tag, whose PCP is U's egress-qos-map of the skb->priority the
 * kernel would have: rt_tos2priority(TOS) for IPv4 (ip_forward()), for
 * IPv6 what the ingress gave it (0, or the ingress VLAN device's
 * ingress-qos-map). xf_tx_ports maps U to its parent, where it leaves.
 * The MTU is the FIB's, U's, which excludes the tag as the kernel's does.
 *
 * The map is as exact as the last xfwd command left it; the device may
 * have gone down since, and vlan_do_receive() drops what reaches a VLAN
 * device that is down. The build with XF_KCTX reads that from the kernel:
 * while net->ipv4.rt_genid is the value the entry was written at, no
 * device has gone down or away since (struct xf_route_vlan); otherwise
 * xf_rt_vlan_live() reads the device the tag goes to from the parent's
 * VLAN group (its flags, ifindex and namespace; vlan_down when it is not
 * up), three kernel reads a packet, until the next command. (A device
 * set down bumps rt_genid, fib_disable_ip(); it leaves IPv6's
 * fib6_sernum alone when it loses no address, keep_addr_on_down.) The
 * types it reads are in vmlinux's BTF wherever 802.1Q is, module or not
 * (vlan_core.o is built in; Debian's 6.1 and 7.2), so a program loaded
 * before 8021q reads them too (test/vlan.bats).
 * The plain build has only the FIB: every route through a device goes
 * when it goes down (IPv4 fib_sync_down_dev(), IPv6 rt6_sync_down_dev()).
 * So a tagged packet is forwarded only while its source routes back
 * through the VLAN device (xf_rt_vlan_back()); otherwise it goes to the
 * kernel (vlan_source), which drops it when the device is down and
 * forwards it otherwise. A device deleted or moved away has no ifindex
 * here any more: the lookup fails (fib_error). A rename changes nothing
 * the kernel forwards by.
 *
 * What is passed, counted: VLAN id 0 (the kernel routes a priority-tagged
 * frame as the parent's, when no device has id 0: vlan_prio0), a tag no
 * device of the set has (vlan_unknown; the kernel drops it as
 * PACKET_OTHERHOST, or it is a device outside the set), a second tag in
 * the frame (vlan_qinq, in xf_rt_decide()). */
#ifndef XF_ROUTE_VLAN_H
#define XF_ROUTE_VLAN_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ip_parse.h"
#include "route_maps.h"
#include "route_defs.h"
#include "xfwd_bpf.h"
#if XF_KCTX
#include <bpf/bpf_core_read.h>

#include "route_kctx.h"
#endif

#define XF_VLAN_VID_MASK 0x0fff
#define XF_VLAN_PRIO_SHIFT 13

/* md->vlan: a tag (tc: in skb metadata, xdp: in the frame), and what
 * became of it. */
#define XF_RT_VLAN_TAG 1	/* present, not (yet) mapped */
#define XF_RT_VLAN_POP 2	/* mapped to md->iif, pop before redirect */
#define XF_RT_VLAN_LIVE 4	/* md->iif read up from the kernel (kctx) */
/* The device's state is known only from the FIB (see above). */
#define XF_RT_VLAN_UNSURE(md) ((md)->vlan && !((md)->vlan & XF_RT_VLAN_LIVE))

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_RT_VLAN_MAX);
	__type(key, __u64);
	__type(value, struct xf_route_vlan);
} xf_rt_vlan SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* route_maps.h */
	__uint(max_entries, XF_RT_VLC_SLOTS);
	__type(key, __u32);
	__type(value, struct xf_route_vlc);
} xf_rt_vlc SEC(".maps");

/* What a packet takes from key's entry (struct xf_route_vlan): IN, the
 * device, its priority for the PCP, its generation and its configuration;
 * OUT, the tag and the egress-qos-map's PCP bits for skb->priority. */
struct xf_rt_vlan_ent {
	__u32 ifindex;
	__u32 prio;		/* IN: prio[pcp] */
	__u32 gen;		/* IN */
	__u32 gen_ok;		/* IN */
	struct xf_route_ifcfg cfg;	/* IN */
	__u32 qflags;		/* OUT */
	__u16 qos;		/* OUT: qos[prio] */
	__u16 vid;		/* OUT */
	__be16 proto;		/* OUT */
};

/* i: the PCP (IN), or skb->priority (OUT); out: a constant. */
static __always_inline void xf_rt_vlan_take(struct xf_rt_vlan_ent *e,
					    const struct xf_route_vlan *v, __u32 i, int out)
{
	e->ifindex = v->ifindex;
	if (out) {
		e->qflags = v->qflags;
		e->qos = v->qos[i & (XF_RT_VLAN_QOS_N - 1)];
		e->vid = v->vid;
		e->proto = v->proto;
	} else {
		e->prio = v->prio[i & 7];
		e->gen = v->gen;
		e->gen_ok = v->gen_ok;
		e->cfg = v->cfg;
	}
}

/* key's entry into *e (xf_rt_vlan_take()): from the direct-mapped copy
 * when it holds key, else from the hash; 0 when there is none. The copy's
 * values are read before its key (xfwd_bpf.h): a key still there after
 * them means they were its own. */
static __always_inline int xf_rt_vlan_get(__u64 key, __u32 i, int out,
					  struct xf_rt_vlan_ent *e)
{
	__u32 k = XF_RT_VLC_SLOT(key);
	struct xf_route_vlc *c = bpf_map_lookup_elem(&xf_rt_vlc, &k);
	struct xf_route_vlan *v;

	if (c) {
		xf_rt_vlan_take(e, &c->v, i, out);
		asm volatile("" ::: "memory");
		if (c->key == key)
			return 1;
	}
	v = bpf_map_lookup_elem(&xf_rt_vlan, &key);
	if (!v)
		return 0;
	xf_rt_vlan_take(e, v, i, out);
	return 1;
}

#if XF_KCTX
#define XF_IFF_UP 1

/* net.ipv4.ip_forward_update_priority, as ip_forward() reads it: 1, 0,
 * or -1 when the kernel has no such field. */
static __always_inline int xf_rt_vlan_fwd_prio(struct net___xf *net)
{
	if (!bpf_core_field_exists(net->ipv4.sysctl_ip_fwd_update_priority))
		return -1;
	return !!net->ipv4.sysctl_ip_fwd_update_priority;
}

/* net->ipv4.rt_genid (see struct xf_route_vlan), or 0 with *ok 0 when the
 * kernel has no such field. */
static __always_inline __u32 xf_rt_vlan_rtgen(struct net___xf *net, int *ok)
{
	*ok = bpf_core_field_exists(net->ipv4.rt_genid);
	return *ok ? net->ipv4.rt_genid.counter : 0;
}

/* What vlan_do_receive() finds for the tag (ad, vid) on the parent the
 * packet arrived on: 1 when it is the device ifindex of this namespace
 * and up, 0 when not, -1 when the program cannot read it (no 802.1Q
 * types in the kernel's BTF at load: a kernel without 802.1Q, where no
 * VLAN device exists to map a tag to). */
static __always_inline int xf_rt_vlan_live(void *ctx, enum xf_rt_hook hook, __u32 ad,
					   __u32 vid, __u32 ifindex)
{
	struct net_device___xf *p, *u;
	struct net___xf *net;
	__u64 vi = 0, arr = 0, dev = 0, off;

	if (!bpf_core_type_exists(struct vlan_info___xf))
		return -1;
	if (hook == XF_RT_XDP)
		p = (void *)((struct xdp_buff___xf *)bpf_cast_to_kern_ctx(ctx))->rxq->dev;
	else
		p = (void *)((struct sk_buff___xf *)bpf_cast_to_kern_ctx(ctx))->dev;
	if (bpf_core_read(&vi, sizeof(vi), &p->vlan_info) || !vi)
		return 0;
	off = bpf_core_field_offset(struct vlan_info___xf, grp) +
	      bpf_core_field_offset(struct vlan_group___xf, vlan_devices_arrays);
	off += ((ad & 1) * 8 + ((vid >> 9) & 7)) * sizeof(void *);
	if (bpf_probe_read_kernel(&arr, sizeof(arr), (void *)(vi + off)) || !arr)
		return 0;
	if (bpf_probe_read_kernel(&dev, sizeof(dev), (void *)(arr + (vid & 511) * sizeof(void *))) ||
	    !dev)
		return 0;
	u = bpf_rdonly_cast((void *)dev, bpf_core_type_id_kernel(struct net_device___xf));
	net = xf_kctx_net(ctx, hook == XF_RT_XDP);
	return u->ifindex == (int)ifindex && (u->flags & XF_IFF_UP) && u->nd_net.net == net;
}
#endif

/* The tag (proto in network order, tci in host order: as struct
 * __sk_buff has them) on the parent md->iif. XF_RR_FORWARDED with md->iif
 * the VLAN device, md->vlan XF_RT_VLAN_POP and md->vprio its priority when
 * the set has that device, and its entry's copy of the device's
 * configuration in *cfg unless cfg is NULL (a constant); else why not
 * (vlan_down with md->iif the device: counted there). */
static __always_inline __u32 xf_rt_vlan_in(void *ctx, enum xf_rt_hook hook, struct xf_rt_md *md,
					   __u32 proto, __u32 tci, struct xf_route_ifcfg *cfg)
{
	struct xf_rt_vlan_ent v;
	__u32 vid = tci & XF_VLAN_VID_MASK;
	__u64 key;

	if (!vid)
		return XF_RR_VLAN_PRIO0;
	key = XF_RT_VLAN_IN(md->iif, proto == bpf_htons(ETH_P_8021AD), vid);
	if (!xf_rt_vlan_get(key, tci >> XF_VLAN_PRIO_SHIFT, 0, &v))
		return XF_RR_VLAN_UNKNOWN;
	md->iif = v.ifindex;
	md->vprio = v.prio;
	md->vlan = XF_RT_VLAN_POP;
	if (cfg)
		*cfg = v.cfg;
	/* vlan_do_receive(): the VLAN device's own address is "host". */
	if (md->pkt_type == PACKET_OTHERHOST)
		md->pkt_type = XF_PKT_BY_MAC;
#if XF_KCTX
	{
		int live = 0, ok;
		__u32 gen = xf_rt_vlan_rtgen(md->net, &ok);

		/* Up then, and no device has gone down or away since. */
		if (ok && v.gen_ok && v.gen == gen)
			live = 1;
		else
			live = xf_rt_vlan_live(ctx, hook, proto == bpf_htons(ETH_P_8021AD), vid,
					       v.ifindex);
		if (!live)
			return XF_RR_VLAN_DOWN;
		if (live > 0)
			md->vlan |= XF_RT_VLAN_LIVE;
	}
#endif
	return XF_RR_FORWARDED;
}

/* xdp: the tag after the MAC addresses, if any. XF_RR_FORWARDED with
 * *tag the TPID and TCI as they are in the frame (0: untagged, md
 * untouched), mapped as by xf_rt_vlan_in(); else why not. */
static __always_inline __u32 xf_rt_vlan_xdp_in(void *ctx, void *data, void *data_end,
					       struct xf_rt_md *md, __u32 *tag)
{
	__u16 *w = data + 12;

	*tag = 0;
	if ((void *)(w + 1) > data_end)
		return XF_RR_FORWARDED;
	if (w[0] != bpf_htons(ETH_P_8021Q) && w[0] != bpf_htons(ETH_P_8021AD))
		return XF_RR_FORWARDED;
	/* The tag and the type after it, as skb_vlan_untag() needs. */
	if ((void *)(w + 3) > data_end)
		return XF_RR_VLAN;
	*tag = *(__u32 *)w;
	return xf_rt_vlan_in(ctx, XF_RT_XDP, md, w[0], bpf_ntohs(w[1]), NULL);
}

/* Twelve bytes (the MAC addresses) from src to dst, which may overlap:
 * loaded whole before stored. */
static __always_inline void xf_vlan_macs(void *dst, const void *src)
{
	__u32 a = ((const __u32 *)src)[0], b = ((const __u32 *)src)[1],
	      c = ((const __u32 *)src)[2];

	((__u32 *)dst)[0] = a;
	((__u32 *)dst)[1] = b;
	((__u32 *)dst)[2] = c;
}


/* xdp: the tag a packet forwarded to md->fib.ifindex leaves with, into
 * *tag as it goes in the frame (TPID, TCI), 0 when the egress is no VLAN
 * device; XF_RR_FORWARDED, else why not. */
static __always_inline __u32 xf_rt_vlan_xdp_out(struct xf_rt_md *md, __u32 *tag)
{
	struct xf_route_ifcfg *ocfg = xf_rt_cfg(md->fib.ifindex);
	struct xf_rt_vlan_ent v;
	int fwd_prio = -1;
	__u32 prio;
	__u16 qos;

	*tag = 0;
	if (!ocfg || !(ocfg->flags & XF_RTIF_VLAN))
		return XF_RR_FORWARDED;
	/* skb->priority as vlan_dev_hard_start_xmit() would see it: what the
	 * ingress gave it (0, or the ingress VLAN device's map), which
	 * ip_forward() replaces by rt_tos2priority(TOS) unless
	 * ip_forward_update_priority is 0. Only the build with XF_KCTX reads
	 * that sysctl; without it, an IPv4 packet that the map could give
	 * another PCP goes to the kernel. */
	prio = md->vlan ? md->vprio : 0;
	if (md->v4) {
#if XF_KCTX
		fwd_prio = xf_rt_vlan_fwd_prio(md->net);
#endif
		if (fwd_prio)
			prio = xf_tos2prio(md->tos);
	}
	if (!xf_rt_vlan_get(XF_RT_VLAN_OUT(md->fib.ifindex), prio, 1, &v))
		return XF_RR_NOT_IN_SET;
	if (md->v4 && fwd_prio < 0 && (v.qflags & XF_RT_VLAN_QOS_MAP))
		return XF_RR_VLAN_QOS;
	/* v.qos is the map's entry for prio masked to the map's size. */
	qos = v.qos;
	if (prio >= XF_RT_VLAN_QOS_N) {
		if (v.qflags & XF_RT_VLAN_QOS_HIGH)
			return XF_RR_VLAN_QOS;
		qos = 0;	/* not in the map: PCP 0 */
	}
	*tag = v.proto | ((__u32)bpf_htons(v.vid | qos) << 16);
	return XF_RR_FORWARDED;
}

#if XF_KCTX
/* xf_route_genid: the namespace's rt_genid for userspace (struct
 * xf_route_vlan), into p's probe.rt_genid, with probe.rt_genid_ok 1 where
 * the kernel has it. */
static __always_inline void xf_rt_vlan_genid_probe(struct net___xf *net, struct xf_route_src4 *p)
{
	int ok;
	__u32 gen = xf_rt_vlan_rtgen(net, &ok);

	p->probe.rt_genid = gen;
	p->probe.rt_genid_ok = ok;
}
#endif

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
