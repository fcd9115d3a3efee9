// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* route, lookup flowtable: forward only what netfilter put in a flowtable.
 *
 * An XDP program of its own object, so that route.bpf.c still loads on
 * kernels without the kfunc (before 6.9, or without nf_flow_table). It is
 * the member "route" of the interface's XDP chain like xf_route_xdp, and
 * shares the namespace's route maps (pinned under ns<id>/route/): the set,
 * the egress device map, the counters and the trace. Every map here must
 * be one of those, declared the same way.
 *
 * A packet is forwarded only when bpf_xdp_flow_lookup() finds its flow in
 * the flowtable the ingress device belongs to, that is a flow that an
 * nftables "flow add @ft" rule put there after the ruleset accepted it.
 * What is forwarded leaves as the kernel's own flowtable path
 * (nf_flow_offload_ip_hook and its IPv6 twin) would send it:
 *  - the same packets are left to the kernel: not TCP/UDP, IPv4 fragments
 *    and options, TTL/hop limit <= 1, longer than the flow's MTU, TCP FIN
 *    or RST (the kernel's flowtable hook, which still sees the packet,
 *    tears the flow down);
 *  - NAT as the entry says: SNAT then DNAT, ports then addresses, each an
 *    incremental checksum update done the kernel's way (the zero a UDP
 *    checksum must not become is 0xffff; the IPv4 TTL update is
 *    ip_decrease_ttl()'s), so the bytes are the kernel's;
 *  - out through the entry's device: with the entry's MAC addresses where
 *    the kernel sends "direct" (FLOW_OFFLOAD_XMIT_DIRECT), with the FIB's
 *    neighbour where it sends through the route it cached (XMIT_NEIGH,
 *    what nft gives a veth), and only while the FIB still leaves through
 *    that device. Entries sent through xfrm, a tunnel or a VLAN are left
 *    to the kernel.
 * The egress must be a member of the set that takes XDP frames, as for
 * route's own XDP path. The kernel's structs are read with CO-RE through
 * local definitions (only the fields used), by bpf_probe_read_kernel(): the
 * entry may be torn down at any time, and it stays readable under RCU.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ip_parse.h"
#include "kstructs.h"
#include "xfwd_bpf.h"

struct bpf_flowtable_opts {
	__s32 error;
};

/* Weak: where it is missing the object opens, and the load fails on the
 * call (the probe tells why first). No bpf_ksym_exists(): its ld_imm64
 * would carry an fd of libbpf's that is closed after the load, and the
 * chain loads these instructions again. */
extern struct flow_offload_tuple_rhash *
bpf_xdp_flow_lookup(struct xdp_md *ctx, struct bpf_fib_lookup *fib_tuple,
		    struct bpf_flowtable_opts *opts, __u32 opts_len) __weak __ksym;

/* enum flow_offload_tuple_dir, enum flow_offload_xmit_type and the bits
 * of flow_offload.flags (enum nf_flow_flags): stable since 5.13. */
#define XF_FT_DIR_ORIGINAL 0
#define XF_FT_XMIT_NEIGH 1
#define XF_FT_XMIT_DIRECT 3
#define XF_FT_SNAT 0
#define XF_FT_DNAT 1

/* The route instance's maps, as route.bpf.c has them. */
#include "route_maps.h"
#include "route_nbr.h"

/* One packet's state. */
struct ft_md {
	struct bpf_fib_lookup key;	/* the flow lookup's tuple */
	struct xf_route_trace tr;
	__u32 len;			/* the frame, Ethernet included */
	__u32 l3len;			/* the IP packet, as the skb would hold it */
	__u32 slot;
	__u32 cfl;
	__u32 l4off;			/* from the start of the frame */
	__u8 tos;			/* IPv4 */
	bool traced;
	bool v6;
};

/* ---- one's complement, the kernel's way ---- */

/* The kernel's csum_replace*() and inet_proto_csum_replace*() outside
 * CHECKSUM_PARTIAL: ~fold(~check + ~old + new), where ~check enters as a
 * 32-bit word with its top half all ones. That word makes the sum never
 * +0, which decides between the two zeros; adding 0xffff here is the
 * same. Words are read as they lie in the packet (host order, as the
 * kernel reads them on this machine). */
static __always_inline __u32 ft_add(__u32 s, __u32 w)
{
	s += w;
	return s + (s < w);
}

static __always_inline __u16 ft_fold(__u32 s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

static __always_inline __u16 ft_csum_replace(__u16 check, const __u32 *from, const __u32 *to,
					     int words)
{
	__u32 s = ft_add(0xffff0000U, (__u16)~check);
	int i;

	for (i = 0; i < words; i++) {
		s = ft_add(s, ~from[i]);
		s = ft_add(s, to[i]);
	}
	return ft_fold(s);
}

static __always_inline __u16 ft_csum_replace2(__u16 check, __u16 from, __u16 to)
{
	__u32 f = from, t = to;

	return ft_csum_replace(check, &f, &t, 1);
}

/* ---- counting and tracing ---- */

static __always_inline int ft_done(struct ft_md *md, __u32 reason, int verdict)
{
	struct xf_route_stat *st;
	__u32 key;

	if (md->traced) {
		__u32 k = 0;

		md->tr.reason = reason;
		bpf_map_update_elem(&xf_rt_trace, &k, &md->tr, BPF_ANY);
		return verdict;
	}
	key = XF_RT_STATS_KEY(md->slot, reason);
	st = bpf_map_lookup_elem(&xf_rt_stats, &key);
	if (st) {
		st->packets++;
		st->bytes += md->len;
	}
	return verdict;
}

static __always_inline int ft_pass(struct ft_md *md, __u32 reason)
{
	return ft_done(md, reason, XDP_PASS);
}

/* The ingress config (xf_rt_cfg(), route_maps.h). */
static __always_inline bool ft_ifcfg(__u32 iif, struct ft_md *md)
{
	struct xf_route_ifcfg *cfg = xf_rt_cfg(iif);

	if (!cfg)
		return false;
	md->cfl = cfg->flags;
	md->slot = cfg->slot < XF_RT_MAX_IF ? cfg->slot : XF_RT_SLOT_NONE;
	return true;
}

/* ---- NAT ---- */

/* Where the L4 checksum is, and whether it is to be updated at all. */
static __always_inline __u16 *ft_l4_check(void *data, void *end, struct ft_md *md)
{
	if (md->key.l4_protocol == IPPROTO_TCP) {
		struct tcphdr *th = data + md->l4off;

		if ((void *)(th + 1) > end)
			return NULL;
		return &th->check;
	}
	struct udphdr *uh = data + md->l4off;

	if ((void *)(uh + 1) > end)
		return NULL;
	return &uh->check;
}

/* Replace one port (src or dst) and fix the L4 checksum. */
static __always_inline int ft_nat_port(void *data, void *end, struct ft_md *md, bool src,
				       __be16 new)
{
	__be16 *ports = data + md->l4off;
	__u16 *check;
	__be16 old;

	if ((void *)(ports + 2) > end)
		return -1;
	old = src ? ports[0] : ports[1];
	if (src)
		ports[0] = new;
	else
		ports[1] = new;
	check = ft_l4_check(data, end, md);
	if (!check)
		return -1;
	/* UDP without a checksum keeps none; one that becomes 0 is sent
	 * as 0xffff (CSUM_MANGLED_0). */
	if (md->key.l4_protocol == IPPROTO_UDP) {
		if (!*check)
			return 0;
		*check = ft_csum_replace2(*check, old, new) ?: 0xffff;
		return 0;
	}
	*check = ft_csum_replace2(*check, old, new);
	return 0;
}

/* Replace one address (words: 1 IPv4, 4 IPv6): the IPv4 header checksum
 * and the L4 checksum (pseudo header). */
static __always_inline int ft_nat_addr(void *data, void *end, struct ft_md *md, __u32 *addr,
				       const __u32 *new, int words)
{
	__u32 old[4];
	__u16 *check;
	int i;

	for (i = 0; i < words; i++) {
		if ((void *)(addr + i + 1) > end)
			return -1;
		old[i] = addr[i];
		addr[i] = new[i];
	}
	if (!md->v6) {
		struct iphdr *iph = data + ETH_HLEN;

		if ((void *)(iph + 1) > end)
			return -1;
		iph->check = ft_csum_replace(iph->check, old, new, 1);
	}
	check = ft_l4_check(data, end, md);
	if (!check)
		return -1;
	if (md->key.l4_protocol == IPPROTO_UDP) {
		if (!*check)
			return 0;
		*check = ft_csum_replace(*check, old, new, words) ?: 0xffff;
		return 0;
	}
	*check = ft_csum_replace(*check, old, new, words);
	return 0;
}

/* An address of a tuple, 1 or 4 words. */
static __always_inline void ft_read_addr(const struct flow_offload_tuple *t, bool src, bool v6,
					 __u32 *out)
{
	if (v6) {
		if (src)
			bpf_core_read(out, 16, &t->src_v6);
		else
			bpf_core_read(out, 16, &t->dst_v6);
	} else {
		if (src)
			bpf_core_read(out, 4, &t->src_v4);
		else
			bpf_core_read(out, 4, &t->dst_v4);
	}
}

/* SNAT, then DNAT, as nf_flow_nat_ip()/_ipv6(): ports first, then
 * addresses. orig and reply are the entry's two tuples, dir the one the
 * packet matched. */
static __always_inline int ft_nat(void *data, void *end, struct ft_md *md, __u64 flags,
				  const struct flow_offload_tuple *orig,
				  const struct flow_offload_tuple *reply, __u32 dir)
{
	__u32 a[4] = { 0 }, *saddr, *daddr;
	int words = md->v6 ? 4 : 1;
	bool o = dir == XF_FT_DIR_ORIGINAL;
	__be16 port;

	if (md->v6) {
		struct ipv6hdr *ip6 = data + ETH_HLEN;

		if ((void *)(ip6 + 1) > end)
			return -1;
		saddr = ip6->saddr.in6_u.u6_addr32;
		daddr = ip6->daddr.in6_u.u6_addr32;
	} else {
		struct iphdr *iph = data + ETH_HLEN;

		if ((void *)(iph + 1) > end)
			return -1;
		saddr = &iph->saddr;
		daddr = &iph->daddr;
	}
	if (flags & (1UL << XF_FT_SNAT)) {
		/* Original: the source becomes the reply's destination;
		 * reply: the destination becomes the original's source. */
		port = o ? BPF_CORE_READ(reply, dst_port) : BPF_CORE_READ(orig, src_port);
		if (ft_nat_port(data, end, md, o, port))
			return -1;
		ft_read_addr(o ? reply : orig, !o, md->v6, a);
		if (ft_nat_addr(data, end, md, o ? saddr : daddr, a, words))
			return -1;
		md->tr.flags |= XF_RTT_SNAT;
	}
	if (flags & (1UL << XF_FT_DNAT)) {
		/* Original: the destination becomes the reply's source;
		 * reply: the source becomes the original's destination. */
		port = o ? BPF_CORE_READ(reply, src_port) : BPF_CORE_READ(orig, dst_port);
		if (ft_nat_port(data, end, md, !o, port))
			return -1;
		ft_read_addr(o ? reply : orig, o, md->v6, a);
		if (ft_nat_addr(data, end, md, o ? daddr : saddr, a, words))
			return -1;
		md->tr.flags |= XF_RTT_DNAT;
	}
	return 0;
}

/* ---- out ---- */

/* FLOW_OFFLOAD_XMIT_NEIGH: the kernel sends through the route it cached
 * with the entry, to the neighbour of its next hop for the packet's new
 * destination (the other tuple's source). The FIB gives the same route and
 * neighbour while the route stands; where it now leaves elsewhere the
 * kernel's route check would tear the flow down, so it is left to the
 * kernel, as is a neighbour not resolved. XF_RR_* to pass with, or -1 with
 * the MAC addresses in md->tr. */
static __always_inline int ft_neigh(struct xdp_md *ctx, struct ft_md *md,
				    const struct flow_offload_tuple *other, __u32 oif)
{
	struct bpf_fib_lookup fib = { 0 };
	__u32 a[4] = { 0 };
	long rc;

	fib.family = md->key.family;
	fib.l4_protocol = md->key.l4_protocol;
	fib.tot_len = md->l3len;
	fib.ifindex = ctx->ingress_ifindex;
	if (md->v6) {
		ft_read_addr(other, true, true, a);
		__builtin_memcpy(fib.ipv6_dst, a, 16);
		ft_read_addr(other, false, true, a);
		__builtin_memcpy(fib.ipv6_src, a, 16);
	} else {
		fib.tos = md->tos;
		ft_read_addr(other, true, false, a);
		fib.ipv4_dst = a[0];
		ft_read_addr(other, false, false, a);
		fib.ipv4_src = a[0];
	}
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);
	md->tr.fib_rc = rc;
	md->tr.flags |= XF_RTT_FIB;
	if (rc == BPF_FIB_LKUP_RET_NO_NEIGH)
		return XF_RR_NO_NEIGH;
	if (rc != BPF_FIB_LKUP_RET_SUCCESS || fib.ifindex != oif)
		return XF_RR_FLOW_XMIT;
	/* The neighbour used as by the kernel (route_nbr.h); not for
	 * route get. */
	if (!md->traced && xf_rt_nbr_due(&fib))
		return XF_RR_NEIGH_UPKEEP;
	__builtin_memcpy(md->tr.smac, fib.smac, ETH_ALEN);
	__builtin_memcpy(md->tr.dmac, fib.dmac, ETH_ALEN);
	return -1;
}

/* ---- the program ---- */

/* Parse up to the ports into md->key. XF_RR_* to pass with, or -1. */
static __always_inline int ft_parse(void *data, void *end, struct ft_md *md)
{
	struct ethhdr *eth = data;
	__be16 *ports;
	__u8 proto;

	if ((void *)(eth + 1) > end)
		return XF_RR_BAD_LEN;
	if (eth->h_proto == bpf_htons(ETH_P_8021Q) || eth->h_proto == bpf_htons(ETH_P_8021AD))
		return XF_RR_VLAN;
	if (eth->h_dest[0] & 1)
		return XF_RR_MULTICAST;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = (void *)(eth + 1);

		if (!(md->cfl & XF_RTIF_INET))
			return XF_RR_FAMILY;
		if ((void *)(iph + 1) > end)
			return XF_RR_BAD_LEN;
		if (iph->ihl != 5)
			return XF_RR_IPV4_OPTIONS;
		if (xf_ipv4_frag(iph))
			return XF_RR_FLOW_PROTO;
		proto = iph->protocol;
		if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
			return XF_RR_FLOW_PROTO;
		if (iph->ttl <= 1)
			return XF_RR_TTL;
		md->key.family = XF_AF_INET;
		md->tos = iph->tos;
		md->key.ipv4_src = iph->saddr;
		md->key.ipv4_dst = iph->daddr;
		md->l3len = bpf_ntohs(iph->tot_len);
		md->l4off = ETH_HLEN + sizeof(*iph);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if (!(md->cfl & XF_RTIF_INET6))
			return XF_RR_FAMILY;
		if ((void *)(ip6 + 1) > end)
			return XF_RR_BAD_LEN;
		proto = ip6->nexthdr;
		if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
			return XF_RR_FLOW_PROTO;
		if (ip6->hop_limit <= 1)
			return XF_RR_TTL;
		md->v6 = true;
		md->key.family = XF_AF_INET6;
		__builtin_memcpy(md->key.ipv6_src, &ip6->saddr, 16);
		__builtin_memcpy(md->key.ipv6_dst, &ip6->daddr, 16);
		md->l3len = sizeof(*ip6) + bpf_ntohs(ip6->payload_len);
		md->l4off = ETH_HLEN + sizeof(*ip6);
	} else {
		return XF_RR_NOT_IP;
	}
	ports = data + md->l4off;
	if ((void *)ports + (proto == IPPROTO_TCP ? sizeof(struct tcphdr) :
			     sizeof(struct udphdr)) > end)
		return XF_RR_BAD_LEN;
	md->key.l4_protocol = proto;
	md->key.sport = ports[0];
	md->key.dport = ports[1];
	return -1;
}

SEC("xdp")
int xf_route_flow(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	void *meta = (void *)(long)ctx->data_meta;
	const struct flow_offload_tuple *t, *orig, *reply;
	struct flow_offload_tuple_rhash *th;
	struct bpf_flowtable_opts opts = { 0 };
	struct xf_route_trace_in *tin = meta;
	__u32 dir, xmit, oif, mtu, rsz;
	struct ft_md md = { 0 };
	struct ethhdr *eth;
	__u64 flags = 0;
	int r;

	md.len = end - data;
	md.tr.iif = ctx->ingress_ifindex;
	md.tr.flags = XF_RTT_XDP | XF_RTT_FLOW;
	if ((void *)(tin + 1) <= data && tin->magic[0] == XF_RT_TRACE_MAGIC0 &&
	    tin->magic[1] == XF_RT_TRACE_MAGIC1) {
		md.traced = true;
		md.tr.cookie = tin->cookie;
	}
	if (!ft_ifcfg(ctx->ingress_ifindex, &md)) {
		md.slot = XF_RT_SLOT_NONE;
		return ft_pass(&md, XF_RR_NOT_IN_SET);
	}
	r = ft_parse(data, end, &md);
	if (r >= 0)
		return ft_pass(&md, r);
	md.key.ifindex = ctx->ingress_ifindex;
	th = bpf_xdp_flow_lookup(ctx, &md.key, &opts, sizeof(opts));
	if (!th)
		return ft_pass(&md, XF_RR_FLOW_MISS);
	md.tr.flags |= XF_RTT_FLOW_HIT;

	t = &th->tuple;
	dir = BPF_CORE_READ_BITFIELD_PROBED(t, dir);
	xmit = BPF_CORE_READ_BITFIELD_PROBED(t, xmit_type);
	md.tr.ft_dir = dir;
	/* The other tuple: the entry holds both, original first. */
	rsz = bpf_core_type_size(struct flow_offload_tuple_rhash);
	if (dir == XF_FT_DIR_ORIGINAL) {
		orig = t;
		reply = (void *)t + rsz;
	} else {
		reply = t;
		orig = (void *)t - rsz;
	}
	bpf_probe_read_kernel(&flags, sizeof(flags),
			      (void *)orig - bpf_core_field_offset(struct flow_offload_tuple_rhash,
								   tuple) +
			      bpf_core_field_offset(struct flow_offload, flags));

	mtu = BPF_CORE_READ(t, mtu);
	md.tr.mtu = mtu;
	/* nf_flow_exceeds_mtu(): the skb's length from the IP header on.
	 * XDP frames are never GSO. */
	if (md.len - ETH_HLEN > mtu)
		return ft_pass(&md, XF_RR_MTU);
	if (md.key.l4_protocol == IPPROTO_TCP) {
		struct tcphdr *tcp = data + md.l4off;

		if ((void *)(tcp + 1) > end)
			return ft_pass(&md, XF_RR_BAD_LEN);
		if (tcp->fin || tcp->rst)
			return ft_pass(&md, XF_RR_FLOW_FIN_RST);
	}
	if ((xmit != XF_FT_XMIT_DIRECT && xmit != XF_FT_XMIT_NEIGH) ||
	    BPF_CORE_READ_BITFIELD_PROBED(t, encap_num) ||
	    (bpf_core_field_exists(t->in_vlan_ingress) &&
	     BPF_CORE_READ_BITFIELD_PROBED(t, in_vlan_ingress)) ||
	    (bpf_core_field_exists(t->tun_num) && BPF_CORE_READ_BITFIELD_PROBED(t, tun_num)))
		return ft_pass(&md, XF_RR_FLOW_XMIT);
	/* The egress device, in the same place for both kinds. */
	oif = BPF_CORE_READ(t, out.ifidx);
	md.tr.oif = oif;
	if (!bpf_map_lookup_elem(&xf_tx_ports, &oif))
		return ft_pass(&md, XF_RR_NOT_IN_SET);
	if (xmit == XF_FT_XMIT_DIRECT) {
		bpf_core_read(md.tr.dmac, ETH_ALEN, &t->out.h_dest);
		bpf_core_read(md.tr.smac, ETH_ALEN, &t->out.h_source);
	} else {
		r = ft_neigh(ctx, &md, dir == XF_FT_DIR_ORIGINAL ? reply : orig, oif);
		if (r >= 0)
			return ft_pass(&md, r);
	}

	/* From here on the packet changes: nothing fails but a bounds check
	 * the parse has already passed. */
	if (ft_nat(data, end, &md, flags, orig, reply, dir))
		return ft_pass(&md, XF_RR_BAD_LEN);
	if (md.v6) {
		struct ipv6hdr *ip6 = data + ETH_HLEN;

		if ((void *)(ip6 + 1) > end)
			return ft_pass(&md, XF_RR_BAD_LEN);
		xf_ipv6_hop_dec(ip6);
	} else {
		struct iphdr *iph = data + ETH_HLEN;

		if ((void *)(iph + 1) > end)
			return ft_pass(&md, XF_RR_BAD_LEN);
		xf_ipv4_ttl_dec(iph);	/* ip_decrease_ttl(), to the bit */
	}
	eth = data;
	if ((void *)(eth + 1) > end)
		return ft_pass(&md, XF_RR_BAD_LEN);
	__builtin_memcpy(eth->h_dest, md.tr.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, md.tr.smac, ETH_ALEN);
	return ft_done(&md, XF_RR_FORWARDED, bpf_redirect_map(&xf_tx_ports, oif, XDP_PASS));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
