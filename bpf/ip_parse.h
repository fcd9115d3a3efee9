/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Ethernet, IPv4 and IPv6 headers as the forwarding programs read and
 * write them, written once for route.bpf.c (both hooks, general and
 * common paths) and route_flow.bpf.c: the header checks, the FIB's input
 * from a header, and the TTL / hop limit decrement with its checksum
 * update. Each path composes the checks it needs:
 *  - route's general path (xf_rt_parse4/6()) names the first check a
 *    packet fails (its reason), in the kernel's order;
 *  - route's common paths (xf_rt_fast4_in(), xf_rt_fast6_in()) take only
 *    the packets every check passes, with the checks merged where one
 *    test covers two (version and length of an IPv4 header as one byte);
 *  - route_flow.bpf.c checks what the kernel's flowtable hook checks,
 *    which runs before ip_rcv(): no IPv4 header checksum, no martians.
 * Included by BPF programs only. */
#ifndef XF_IP_PARSE_H
#define XF_IP_PARSE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XF_AF_INET 2
#define XF_AF_INET6 10
#define XF_IP_MF 0x2000
#define XF_IP_OFFSET 0x1fff
#define XF_IPPROTO_DCCP 33
#define XF_IPPROTO_UDPLITE 136

/* The one's complement sum of the 20-byte header, taken in 32-bit words
 * (the grouping does not change a one's complement sum) and folded to 16
 * bits; a valid header sums to 0xffff. */
static __always_inline int xf_ipv4_csum_ok(const struct iphdr *iph)
{
	const __u32 *w = (const __u32 *)iph;
	__u64 sum = (__u64)w[0] + w[1] + w[2] + w[3] + w[4];

	/* At most 35 bits: three folds leave at most 16. */
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The first octet of an IPv4 address in network order, on any host. */
static __always_inline __u8 xf_ipv4_octet0(const __be32 *a)
{
	return *(const __u8 *)a;
}

/* Sources and destinations that ip_route_input_slow() refuses: 0/8,
 * 127/8, and as source also multicast and the limited broadcast. */
static __always_inline int xf_ipv4_martian(const __be32 *saddr, const __be32 *daddr)
{
	__u8 s0 = xf_ipv4_octet0(saddr), d0 = xf_ipv4_octet0(daddr);

	if (s0 == 0 || s0 == 127 || (s0 & 0xf0) == 0xe0 || *saddr == 0xffffffff)
		return 1;
	return d0 == 0 || d0 == 127;
}

/* The EtherType as one 16-bit load (struct ethhdr is packed, so its field
 * reads as two bytes), network order. */
static __always_inline __u16 xf_eth_proto(const struct ethhdr *eth)
{
	return *(const __u16 *)((const void *)eth + 12);
}

/* Six bytes as three 16-bit words: the packet's MAC fields are packed and
 * the FIB's are 2-aligned on the stack, so byte copies are all clang would
 * emit otherwise. */
static __always_inline void xf_mac_copy(void *to, const void *from)
{
	((__u16 *)to)[0] = ((const __u16 *)from)[0];
	((__u16 *)to)[1] = ((const __u16 *)from)[1];
	((__u16 *)to)[2] = ((const __u16 *)from)[2];
}

/* Whether two MAC addresses (2-aligned) are the same, as 16-bit words. */
static __always_inline int xf_mac_eq(const void *a, const void *b)
{
	const __u16 *x = a, *y = b;

	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]));
}

/* An IPv4 destination ip_route_input_noref() takes the multicast or the
 * broadcast way: 224/4 or the limited broadcast. */
static __always_inline int xf_ipv4_mcast_dst(const __be32 *daddr)
{
	return (xf_ipv4_octet0(daddr) & 0xf0) == 0xe0 || *daddr == 0xffffffff;
}

/* Sources and destinations that ipv6_rcv()/ip6_forward() drop. */
static __always_inline int xf_ipv6_martian(const __u32 *s, const __u32 *d)
{
	if ((s[0] & bpf_htonl(0xff000000)) == bpf_htonl(0xff000000))
		return 1;
	if (!s[0] && !s[1]) {
		if (!s[2] && (!s[3] || s[3] == bpf_htonl(1)))
			return 1;
		if (s[2] == bpf_htonl(0xffff))
			return 1;
	}
	return !d[0] && !d[1] && !d[2] && (!d[3] || d[3] == bpf_htonl(1));
}

static __always_inline int xf_ipv6_link_local(const __u32 *a)
{
	return (a[0] & bpf_htonl(0xffc00000)) == bpf_htonl(0xfe800000);
}

/* Protocols whose first four bytes are the ports, as the flow dissector
 * reads them for FIB rules and multipath hashing. */
static __always_inline int xf_has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == XF_IPPROTO_UDPLITE ||
	       proto == XF_IPPROTO_DCCP;
}

/* Whether the IPv4 header at iph is a fragment (MF set or an offset):
 * looked up without ports by route, left to the kernel by route_flow. */
static __always_inline int xf_ipv4_frag(const struct iphdr *iph)
{
	return !!(iph->frag_off & bpf_htons(XF_IP_MF | XF_IP_OFFSET));
}

/* The ports into fib, for the protocols that have them, when the first
 * four bytes of l4 are there. 0 when a protocol with ports has them beyond
 * data_end (the lookup goes without), else 1. */
static __always_inline int xf_rt_ports(struct bpf_fib_lookup *fib, void *l4,
				       void *data_end, __u8 proto)
{
	if (!xf_has_ports(proto))
		return 1;
	if (l4 + 4 > data_end)
		return 0;
	fib->sport = *(__be16 *)l4;
	fib->dport = *(__be16 *)(l4 + 2);
	return 1;
}

/* The lookup's input from the IPv4 header at iph: family, TOS, protocol
 * and addresses (the caller sets ports, tot_len and ifindex). */
static __always_inline void xf_ipv4_fib_in(struct bpf_fib_lookup *fib, const struct iphdr *iph)
{
	fib->family = XF_AF_INET;
	fib->tos = iph->tos;
	fib->l4_protocol = iph->protocol;
	fib->ipv4_src = iph->saddr;
	fib->ipv4_dst = iph->daddr;
}

/* The same from the IPv6 header at ip6h, in two steps (the common path
 * takes the ports between them): family, flow label and traffic class,
 * next header; then the addresses. Macros: as functions, clang orders
 * the general path's loads around them otherwise, with more spills. */
#define xf_ipv6_fib_in(fib, ip6h) do {						\
	(fib)->family = XF_AF_INET6;						\
	(fib)->flowinfo = *(__be32 *)(ip6h) & bpf_htonl(0x0fffffff);		\
	(fib)->l4_protocol = (ip6h)->nexthdr;					\
} while (0)

#define xf_ipv6_fib_addrs(fib, ip6h) do {					\
	__builtin_memcpy((fib)->ipv6_src, &(ip6h)->saddr, 16);			\
	__builtin_memcpy((fib)->ipv6_dst, &(ip6h)->daddr, 16);			\
} while (0)

/* The TTL of the IPv4 header at iph (above 1) made one less, the header
 * checksum updated by the kernel's ip_decrease_ttl() arithmetic, so the
 * bytes are what ip_forward() sends (0xffff becomes 0). */
static __always_inline void xf_ipv4_ttl_dec(struct iphdr *iph)
{
	__u32 check = iph->check;

	check += bpf_htons(0x0100);
	iph->check = (__u16)(check + (check >= 0xffff));
	iph->ttl--;
}

/* The hop limit of the IPv6 header at ip6h (above 1) made one less. Next
 * header and hop limit as one word: the hop limit is its low byte in
 * network order, so the word minus one is the decrement. Written as the
 * word, not read back after a byte store (which would stall on the
 * store's forwarding). Returns the word as it was, for
 * xf_ipv6_hop_diff(). */
static __always_inline __u16 xf_ipv6_hop_dec(struct ipv6hdr *ip6h)
{
	__u16 *w = (__u16 *)&ip6h->nexthdr, old = *w;

	*w = old - bpf_htons(1);
	return old;
}

/* The one's complement change of the header that xf_ipv6_hop_dec() made
 * to the word old (for CHECKSUM_COMPLETE on tc). */
static __always_inline __u32 xf_ipv6_hop_diff(__u16 old)
{
	__u16 new = old - bpf_htons(1);

	return (__u16)~old + (__u32)new;
}

/* rt_tos2priority(): the TC_PRIO_* band ip_forward() gives a TOS. */
static __always_inline __u32 xf_tos2prio(__u8 tos)
{
	switch ((tos >> 3) & 3) {
	case 1:
		return TC_PRIO_BULK;
	case 2:
		return TC_PRIO_INTERACTIVE;
	case 3:
		return TC_PRIO_INTERACTIVE_BULK;
	default:
		return TC_PRIO_BESTEFFORT;
	}
}

#endif
