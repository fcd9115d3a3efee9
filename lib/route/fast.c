// SPDX-License-Identifier: GPL-2.0
/* The route fast path's shortcuts, and the conditions under which each is
 * exactly what the kernel would do. Both are decided here, at attach and on
 * every refresh; the programs only read the result.
 *
 * redirect_peer (hook tc). The kernel forwards out of a veth through
 * dev_queue_xmit(): tc egress, the qdisc, the taps and
 * veth_xmit(), which hands the skb to the peer (____dev_forward_skb(): the
 * peer must be up and its MTU big enough; a cross-namespace scrub, priority
 * 0; eth_type_trans() with the peer's address) and to the peer's NAPI (its
 * XDP program, GRO) when the peer has one and the skb may use it.
 * bpf_redirect_peer() skips all of that and re-enters the peer's receive
 * path. It gives the same packet in the same place when, for an egress E:
 *  - E is a veth whose peer is in another namespace (redirect_peer drops
 *    otherwise), up, without an XDP program, with an MTU >= E's;
 *  - E's root qdisc is noqueue and E has no tc egress program (tcx or
 *    clsact). Netfilter egress is no condition: the kernel skips it for a
 *    packet that tc ingress redirects (nf_skip_egress() around
 *    sch_handle_ingress()), so bpf_redirect() skips it too; the fast path
 *    bypasses netfilter on either way, as documented;
 *  - E has TSO and tx checksumming on (the veth defaults): the kernel then
 *    neither segments nor finishes checksums on E, and veth does not use
 *    the peer's NAPI (GRO) for a forwarded skb;
 *  - per packet (the program): the FIB's neighbour MAC is the peer's own,
 *    so PACKET_HOST is what eth_type_trans() would give; mark and priority
 *    are cleared as the scrub and veth clear them. The timestamp is left:
 *    a receive timestamp it carries was taken on r1 (the peer's
 *    netif_rx() would take a new one, under the same switch, a few hundred
 *    ns later), and a delivery time goes through as the kernel lets it.
 * What differs and is not forwarding: E's tx counters and packet taps on E
 * do not see these packets (the peer's rx counters do).
 *
 * The IPv4 source check's settings (rp_filter, accept_local, realms) are
 * not copied: the programs read them at the packet or do without them
 * (route.bpf.c, xf_rt_src_live()).
 *
 * xf_rt_local: the namespace's addresses, so traffic to r1 itself is
 * passed before the FIB lookup (IPv4 in the kctx build: xf_rt_src4's
 * buckets). A hint that only ever passes: see xfwd_bpf.h.
 *
 * xf_rt_src4 and xf_rt_loc6 (the kctx build): the namespace's IPv4
 * addresses for the source check, and its IPv6 local table so that the
 * main table alone is looked up; authorities, each valid only while a
 * counter of the kernel's is what it was at the walk (xfwd_bpf.h). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/ethtool.h>

#include "ethtool.h"
#include "nl.h"
#include "nl_addr.h"
#include "nl_link.h"
#include "nl_route.h"
#include "nl_tc.h"
#include "internal.h"

static bool rt_peer_ok(struct rt_fast *f, int ifindex, uint8_t *mac)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	struct xf_link e, p;

	if (!f->nl)
		return false;
	if (xf_link_get(f->nl, NULL, ifindex, &e))
		return false;
	if (strcmp(e.kind, "veth") || strcmp(e.qdisc, "noqueue") || !e.link ||
	    e.link_netnsid < 0)
		return false;
	if (xf_tc_filters(f->nl, ifindex, false, NULL, 0))
		return false;
	/* Kernels before 6.6 have no tcx: EINVAL, and no program there. */
	if (bpf_prog_query_opts(ifindex, XF_BPF_TCX_EGRESS, &q) ? errno != EINVAL : q.count)
		return false;
	/* Off, or unknown: no shortcut. */
	if (xf_ethtool_get(-1, e.name, ETHTOOL_GTSO) != 1 ||
	    xf_ethtool_get(-1, e.name, ETHTOOL_GTXCSUM) != 1)
		return false;
	if (xf_link_get_nsid(f->nl, e.link_netnsid, e.link, &p))
		return false;
	if (!(p.flags & IFF_UP) || p.xdp.mode != XF_XDP_NONE || p.xdp.prog_id ||
	    p.mtu < e.mtu || p.addr_len != 6)
		return false;
	memcpy(mac, p.addr, 6);
	return true;
}

void rt_fast_begin(struct rt_fast *f, bool walk)
{
	f->walk = walk;
	f->nl = NULL;
	if (xf_nl_open(&f->nl, NETLINK_ROUTE))
		f->nl = NULL;
}

void rt_fast_peer(struct rt_fast *f, int ifindex, struct xf_route_ifcfg *cfg)
{
	cfg->flags &= ~XF_RTIF_PEER;
	memset(cfg->peer_mac, 0, sizeof(cfg->peer_mac));
	if (rt_peer_ok(f, ifindex, cfg->peer_mac))
		cfg->flags |= XF_RTIF_PEER;
}

/* What one walk of the namespace's addresses fills. */
struct rt_addrs {
	struct xf_route_local local[XF_RT_LOCAL_SLOTS];
	struct xf_route_src4 src4[XF_RT_SRC4_BUCKETS];
	uint64_t src4_bits;		/* the header's bits (xfwd_bpf.h) */
	bool src4_full;			/* an address found no room */
	struct xf_route_loc6 loc6[XF_RT_LOC6_BUCKETS];
	uint64_t loc6_bits;		/* the header's bits (xfwd_bpf.h) */
	bool loc6_full;
	uint32_t loc6_mtu;		/* the smallest IPv6 route MTU metric */
};

static void rt_addr_add(int family, const uint8_t *addr, void *arg)
{
	struct rt_addrs *t = arg;
	struct xf_route_local *l;
	struct xf_route_src4 *b;
	uint32_t w3, a;
	int i;

	/* 127/8 is never forwarded: both paths pass it as martian
	 * (xf_ipv4_martian()), where the kernel drops it. In the tables it
	 * would only take a slot and a bucket bit, and have traffic to it
	 * counted as "not forwarded" where the common paths read the table
	 * before that check. */
	if (family == AF_INET && addr[0] == 127)
		return;
	memcpy(&w3, addr + (family == AF_INET ? 0 : 12), sizeof(w3));
	l = &t->local[XF_RT_LOCAL_SLOT(w3)];
	if (family == AF_INET && !l->v4 && w3)
		l->v4 = w3;
	else if (family == AF_INET6 && !l->v6_set) {
		memcpy(l->v6, addr, 16);
		l->v6_set = 1;
	}
	if (family != AF_INET || !w3)
		return;
	/* 0.0.0.0 marks an empty way; a source in 0/8 is passed before. */
	a = w3;
	t->src4_bits |= 1ULL << XF_RT_SRC4_BIT(a);
	b = &t->src4[XF_RT_SRC4_BUCKET(a)];
	for (i = 0; i < XF_RT_SRC4_WAYS; i++) {
		if (b->a[i] == a)
			return;
		if (!b->a[i]) {
			b->a[i] = a;
			return;
		}
	}
	t->src4_full = true;
}

/* The kernel's counters as the programs read them, xf_route_genid run
 * once: the namespace's dev_addr_genid and fib6_sernum. 0, -EOPNOTSUPP
 * from the plain build (no tables), or -errno. */
static int rt_genids(struct xf_inst *in, uint32_t *genid, uint32_t *sernum, uint32_t *seq4,
		     bool *seq4_ok)
{
	uint8_t pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = 1);
	struct xf_route_src4 p = { 0 };
	struct xf_route_loc6 p6 = { 0 };
	uint32_t key = XF_RT_SRC4_PROBE, key6 = XF_RT_LOC6_PROBE;

	if (bpf_map_update_elem(in->fd[RT_MAP_SRC4], &key, &p, BPF_ANY) ||
	    bpf_map_update_elem(in->fd[RT_MAP_LOC6], &key6, &p6, BPF_ANY) ||
	    bpf_prog_test_run_opts(in->fd[RT_PROG_GENID], &o) ||
	    bpf_map_lookup_elem(in->fd[RT_MAP_SRC4], &key, &p) ||
	    bpf_map_lookup_elem(in->fd[RT_MAP_LOC6], &key6, &p6))
		return -errno;
	if (!p.probe.genid_ok || !p6.probe.sernum_ok)
		return -EOPNOTSUPP;
	*genid = p.probe.genid;
	*sernum = p6.probe.sernum;
	*seq4 = p6.probe.fib_seq;
	*seq4_ok = p6.probe.fib_seq_ok;
	return 0;
}

_Static_assert(XF_RT_LOC6_BUCKETS <= 64, "one bit of the header a bucket");

/* An address of the IPv6 local table into its bucket of t->loc6. */
static void rt_loc6_add(const uint8_t *addr, void *arg)
{
	static const uint32_t none[4];
	struct rt_addrs *t = arg;
	struct xf_route_loc6 *b;
	uint32_t w[4], k;
	int i;

	memcpy(w, addr, sizeof(w));
	k = XF_RT_LOC6_BUCKET(w[3]);
	t->loc6_bits |= 1ULL << k;
	b = &t->loc6[k];
	for (i = 0; i < XF_RT_LOC6_WAYS; i++) {
		if (!memcmp(b->a[i], w, sizeof(w)))
			return;
		if (!memcmp(b->a[i], none, sizeof(none))) {
			memcpy(b->a[i], w, sizeof(w));
			return;
		}
	}
	t->loc6_full = true;
}

/* Entries 0..n-1 of an array map from vals, in one call. 0/-errno. */
static int rt_array_write(int fd, const void *vals, uint32_t n)
{
	_Static_assert(XF_RT_SRC4_BUCKETS >= XF_RT_LOCAL_SLOTS &&
		       XF_RT_SRC4_BUCKETS >= XF_RT_LOC6_BUCKETS, "keys[] too small");
	uint32_t keys[XF_RT_SRC4_BUCKETS], i, count = n;

	if (n > sizeof(keys) / sizeof(keys[0]))
		return -E2BIG;
	for (i = 0; i < n; i++)
		keys[i] = i;
	return bpf_map_update_batch(fd, keys, vals, &count, NULL) ? -errno : 0;
}

/* A guarded table (xf_rt_src4, xf_rt_loc6), in the order xfwd_bpf.h
 * gives: marked invalid by the caller before its walk, buckets 0..n-1
 * written, then the header hdr at key n (valid, with the counter c0),
 * only if the counter read now is still c0 (nothing came or went
 * meanwhile). A table that does not fit stays invalid: the lookups
 * decide. */
static int rt_table_write(struct xf_inst *in, int map, const void *buckets, uint32_t n,
			  uint32_t c0, const void *hdr)
{
	uint32_t g1, s1, q1, key = n;
	bool q1_ok;
	int err;

	err = rt_array_write(in->fd[map], buckets, n);
	if (!err)
		err = rt_genids(in, &g1, &s1, &q1, &q1_ok);
	if (err || (map == RT_MAP_SRC4 ? g1 : s1) != c0)
		return err;
	return bpf_map_update_elem(in->fd[map], &key, hdr, BPF_ANY) ? -errno : 0;
}

/* IPv4's part of xf_rt_loc6's header (xfwd_bpf.h): the smallest route
 * MTU, valid with q0, the fib_seq read before the caller's walk, if the
 * counter has not moved by the end of the dump. Left invalid otherwise:
 * the programs then take only packets of up to 1280 bytes. */
static void rt_mtu4(struct rt_fast *f, struct xf_inst *in, uint32_t q0,
		    const struct xf_route_loc6 *old, struct xf_route_loc6 *hdr)
{
	uint32_t g1, s1, q1, mtu;
	bool q1_ok;

	/* The last dump's answer, valid as long as fib_seq is what it was
	 * then (xfwd_bpf.h): the programs trust it on the same terms. */
	if (!f->walk && old->hdr.mtu4_valid && old->hdr.fib_seq == q0) {
		hdr->hdr.mtu4_valid = 1;
		hdr->hdr.fib_seq = q0;
		hdr->hdr.min_mtu4 = old->hdr.min_mtu4;
		return;
	}
	if (!f->nl || xf_route4_min_mtu(f->nl, &mtu) ||
	    rt_genids(in, &g1, &s1, &q1, &q1_ok) || !q1_ok || q1 != q0)
		return;
	hdr->hdr.mtu4_valid = 1;
	hdr->hdr.fib_seq = q0;
	hdr->hdr.min_mtu4 = mtu;
}

/* The IPv6 local table and smallest route MTU that xf_rt_loc6 holds, into
 * t, when its header old is valid with the counter s0 read now: nothing
 * came since the dump it was made from (a route that went since leaves
 * it as the programs take it, xfwd_bpf.h), so no dump, as long as the
 * FIB, is needed to write it again. 0, or 1 when the caller dumps. */
static int rt_loc6_kept(struct rt_fast *f, struct xf_inst *in, const struct xf_route_loc6 *old,
			uint32_t s0, struct rt_addrs *t)
{
	uint32_t k;

	if (f->walk || !old->hdr.valid || old->hdr.sernum != s0)
		return 1;
	for (k = 0; k < XF_RT_LOC6_BUCKETS; k++) {
		if (bpf_map_lookup_elem(in->fd[RT_MAP_LOC6], &k, &t->loc6[k])) {
			memset(t->loc6, 0, sizeof(t->loc6));
			return 1;
		}
	}
	t->loc6_bits = old->hdr.bits[0] | (uint64_t)old->hdr.bits[1] << 32;
	t->loc6_mtu = old->hdr.min_mtu;
	return 0;
}

int rt_fast_end(struct rt_fast *f, struct xf_inst *in)
{
	/* The invalid headers have every bit set (xfwd_bpf.h). */
	struct xf_route_src4 hdr4 = { .hdr.bits = { ~0U, ~0U } };
	struct xf_route_loc6 hdr6 = { .hdr.bits = { ~0U, ~0U } };
	uint32_t key = XF_RT_SRC4_HDR, key6 = XF_RT_LOC6_HDR, g0 = 0, s0 = 0, q0 = 0;
	int err, gerr, lerr = 1, werr;
	struct xf_route_loc6 old6 = { 0 };
	bool q0_ok = false;
	struct rt_addrs *t;

	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	/* What the last refresh wrote, read before it is invalidated. */
	if (bpf_map_lookup_elem(in->fd[RT_MAP_LOC6], &key6, &old6))
		memset(&old6, 0, sizeof(old6));
	/* The tables stop counting before anything in them changes. */
	gerr = rt_genids(in, &g0, &s0, &q0, &q0_ok);
	if (bpf_map_update_elem(in->fd[RT_MAP_SRC4], &key, &hdr4, BPF_ANY) ||
	    bpf_map_update_elem(in->fd[RT_MAP_LOC6], &key6, &hdr6, BPF_ANY))
		gerr = -errno;
	/* Without the addresses the hint is empty and the tables invalid:
	 * every packet is looked up, as before. */
	err = f->nl ? xf_addr_walk(f->nl, rt_addr_add, t) : -ENOTCONN;
	if (!err && !gerr && rt_loc6_kept(f, in, &old6, s0, t))
		lerr = xf_route6_local(f->nl, rt_loc6_add, t, &t->loc6_mtu);
	else if (!err && !gerr)
		lerr = 0;
	if (err)
		memset(t, 0, sizeof(*t));
	werr = rt_array_write(in->fd[RT_MAP_LOCAL], t->local, XF_RT_LOCAL_SLOTS);
	if (!err)
		err = werr;
	if (!err && !gerr && !t->src4_full) {
		hdr4.hdr.valid = 1;
		hdr4.hdr.genid = g0;
		hdr4.hdr.bits[0] = (uint32_t)t->src4_bits;
		hdr4.hdr.bits[1] = (uint32_t)(t->src4_bits >> 32);
		err = rt_table_write(in, RT_MAP_SRC4, t->src4, XF_RT_SRC4_BUCKETS, g0, &hdr4);
	} else if (!err && gerr != -EOPNOTSUPP)
		err = gerr;
	if (!err && !gerr && q0_ok)
		rt_mtu4(f, in, q0, &old6, &hdr6);
	/* A local table with another route, or too full: both tables are
	 * looked up. The header carries IPv4's part either way. */
	if (!err && !gerr && !lerr && !t->loc6_full) {
		hdr6.hdr.valid = 1;
		hdr6.hdr.sernum = s0;
		hdr6.hdr.min_mtu = t->loc6_mtu;
		hdr6.hdr.bits[0] = (uint32_t)t->loc6_bits;
		hdr6.hdr.bits[1] = (uint32_t)(t->loc6_bits >> 32);
		err = rt_table_write(in, RT_MAP_LOC6, t->loc6, XF_RT_LOC6_BUCKETS, s0, &hdr6);
	} else if (!err && lerr < 0) {
		err = lerr;
	} else if (!err && hdr6.hdr.mtu4_valid &&
		   bpf_map_update_elem(in->fd[RT_MAP_LOC6], &key6, &hdr6, BPF_ANY)) {
		err = -errno;
	}
	free(t);
out:
	if (f->nl)
		xf_nl_close(f->nl);
	f->nl = NULL;
	return err;
}
