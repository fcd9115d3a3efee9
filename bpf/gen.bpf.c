// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* gen: the packet generator's XDP program, run by BPF_PROG_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES. Live frames reuse their pages, and on a veth
 * a page travels on and is changed in place (TTL, MACs) by whoever
 * forwards it, so every run writes the whole header again from a template
 * before it transmits the frame out of the interface it was run on.
 *
 * Many destinations: when userspace fills xf_gen_dsts (a prefix file,
 * or one dst-range), each frame goes to a random entry's prefix with
 * random host bits, both drawn from an xorshift64 generator whose state
 * is a global seeded by userspace. BPF_PROG_RUN runs the program on the
 * calling CPU with migration off, one frame after the other, so a seed,
 * a prefix set and a count give the same destinations in the same order.
 * The IPv4 header checksum and the UDP checksum are adjusted for the new
 * address incrementally (RFC 1624): from the template's own values, just
 * written, never from what a recycled page held before, since whether
 * and how the page of a live frame keeps the last run's writes is not
 * something to build on (Documentation/bpf/bpf_prog_run.rst leaves the
 * data of recycled pages to the program). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfwd_bpf.h"

/* Written by userspace before load: the first XF_GEN_HDR bytes of every
 * frame, and how many of them to copy (a multiple of 8). Not const: clang
 * folds copies from const volatile arrays to zeros. */
__u8 xf_gen_tmpl[XF_GEN_HDR] SEC(".data.tmpl");
__u32 xf_gen_hdr_len SEC(".data.tmpl") = 0;
/* Random destinations: 4 or 6 (0: one destination, the template's),
 * how many entries of xf_gen_dsts to draw from, and the generator's
 * state (never 0). */
__u32 xf_gen_family SEC(".data.tmpl") = 0;
__u32 xf_gen_ndst SEC(".data.tmpl") = 0;
__u64 xf_gen_state SEC(".data.tmpl") = 1;

/* One prefix: its address and its host bits (set bits are random), each
 * as eight 16-bit words in network order (IPv4: the first two). xfgen
 * sizes the array and fills it through mmap before the first run. */
struct xf_gen_dst {
	__u16 addr[8];
	__u16 mask[8];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xf_gen_dst);
} xf_gen_dsts SEC(".maps");

/* Offsets in the frame (Ethernet, then IPv4 without options or IPv6). */
#define XF_GEN_V4_CSUM	(14 + 10)
#define XF_GEN_V4_DST	(14 + 16)
#define XF_GEN_V4_UDPC	(14 + 20 + 6)
#define XF_GEN_V6_DST	(14 + 24)
#define XF_GEN_V6_UDPC	(14 + 40 + 6)

static __always_inline __u64 xf_gen_next(void)
{
	__u64 x = xf_gen_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	xf_gen_state = x;
	return x;
}

/* A random entry's address with random host bits into the n 16-bit
 * words at d (the template's address, just written); the one's-complement
 * sum of (new - old) over the words, or -1 when there is no entry. */
static __always_inline __s64 xf_gen_rand_dst(__u16 *d, int n)
{
	struct xf_gen_dst *e;
	__u32 diff = 0, key;
	__u64 r;
	int i;

	key = ((xf_gen_next() >> 32) * (__u64)xf_gen_ndst) >> 32;
	e = bpf_map_lookup_elem(&xf_gen_dsts, &key);
	if (!e)
		return -1;
	r = 0;
	for (i = 0; i < 8; i++) {
		__u16 m, old, nw;

		if (i >= n)
			break;
		if (!(i & 3))
			r = xf_gen_next();
		m = e->mask[i];
		old = d[i];
		nw = (e->addr[i] & ~m) | ((__u16)r & m);
		r >>= 16;
		d[i] = nw;
		diff += (__u16)~old + nw;
	}
	return diff;
}

/* RFC 1624's HC' = ~(~HC + ~m + m'), with the sum of ~m + m' given. */
static __always_inline __u16 xf_gen_csum_fix(__u16 c, __u32 diff)
{
	__u32 s = (__u16)~c + diff;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return ~s;
}

SEC("xdp")
int xf_gen_tx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 *dst = data;
	__u64 *src = (__u64 *)xf_gen_tmpl;
	__u32 i, n = xf_gen_hdr_len / 8;
	__u16 *udpc, c;
	__s64 diff;

	if (data + XF_GEN_HDR > data_end)
		return XDP_ABORTED;
	for (i = 0; i < XF_GEN_HDR / 8; i++) {
		if (i >= n)
			break;
		dst[i] = src[i];
	}
	if (xf_gen_family == 4) {
		diff = xf_gen_rand_dst(data + XF_GEN_V4_DST, 2);
		if (diff < 0)
			return XDP_ABORTED;
		*(__u16 *)(data + XF_GEN_V4_CSUM) =
			xf_gen_csum_fix(*(__u16 *)(data + XF_GEN_V4_CSUM), diff);
		udpc = data + XF_GEN_V4_UDPC;
	} else if (xf_gen_family == 6) {
		diff = xf_gen_rand_dst(data + XF_GEN_V6_DST, 8);
		if (diff < 0)
			return XDP_ABORTED;
		udpc = data + XF_GEN_V6_UDPC;
	} else {
		return XDP_TX;
	}
	/* UDP: 0 means "no checksum" (and is invalid on IPv6): 0xffff. */
	c = xf_gen_csum_fix(*udpc, diff);
	*udpc = c ?: 0xffff;
	return XDP_TX;
}

/* The receiving end of a benchmark: count and drop. Having an XDP program
 * also lets the veth peer in front of it take XDP redirects. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);		/* 1: what the own sink did not count */
	__type(key, __u32);
	__type(value, struct xf_route_stat);
} xf_gen_count SEC(".maps");

SEC("xdp")
int xf_gen_sink(struct xdp_md *ctx)
{
	struct xf_route_stat *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&xf_gen_count, &key);
	if (st) {
		st->packets++;
		st->bytes += ctx->data_end - ctx->data;
	}
	return XDP_DROP;
}

/* Count only the generator's own frames (UDP to port 9001), for a count
 * run that compares delivered frames exactly: whatever else the router
 * sends the host (an ARP probe, a neighbour solicitation) stays out. */
__u32 xf_gen_sink_own SEC(".data.tmpl") = 0;

static __always_inline int xf_gen_ours(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	__u8 *p = data;

	if (data + 14 + 40 + 4 > data_end)
		return 0;
	if (p[12] == 0x08 && p[13] == 0x00)
		return p[14] == 0x45 && p[14 + 9] == 17 &&
		       p[14 + 20 + 2] == 0x23 && p[14 + 20 + 3] == 0x29;
	if (p[12] == 0x86 && p[13] == 0xdd)
		return p[14 + 6] == 17 && p[14 + 40 + 2] == 0x23 && p[14 + 40 + 3] == 0x29;
	return 0;
}

/* The same on tc ingress, for the redirect benchmark: a peer redirect
 * hands its skb straight to the veth's ingress and skips the veth's XDP,
 * while every path, that one included, passes tc ingress. 2 is
 * TC_ACT_SHOT. */
SEC("tc")
int xf_gen_sink_tc(struct __sk_buff *skb)
{
	struct xf_route_stat *st;
	__u32 key = 0;

	if (xf_gen_sink_own && !xf_gen_ours(skb))
		key = 1;
	st = bpf_map_lookup_elem(&xf_gen_count, &key);
	if (st) {
		st->packets++;
		st->bytes += skb->len;
	}
	return 2;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
