/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Types, constants and names shared by the BPF programs and userspace. */
#ifndef XFWD_BPF_H
#define XFWD_BPF_H

#include <stddef.h>
#include <linux/types.h>

#include "xfwd_compat.h"

/*
 * route: the forwarding fast path (bpf/route.bpf.c)
 *
 * One loaded instance serves every interface of the forwarding set in a
 * network namespace; see the comment at the top of route.bpf.c for the maps.
 */

/* Interfaces in one forwarding set; each ingress interface gets a counter
 * slot in [0, XF_RT_MAX_IF). XF_RT_SLOT_NONE counts packets that arrived on
 * an interface with no xf_rt_ifcfg entry (a detach racing with traffic). */
#define XF_RT_MAX_IF 255
#define XF_RT_SLOT_NONE XF_RT_MAX_IF

/*
 * Why a packet was forwarded or passed to the kernel. The value is the
 * counter index, so the list is append-only (counters live in pinned maps
 * across xfwd upgrades). The strings are the JSON keys and the words that
 * `route get` prints.
 */
#define XF_ROUTE_REASONS(X)						\
	X(FORWARDED, "forwarded")	/* redirected by the fast path */	\
	X(NOT_IP, "not_ip")		/* not IPv4/IPv6 (ARP, ...) */		\
	X(VLAN, "vlan")			/* 802.1Q/802.1ad tag */		\
	X(FAMILY, "family")		/* family not enabled on iif */		\
	X(MULTICAST, "multicast")	/* L2 or L3 multicast/broadcast dst */	\
	X(OTHER_HOST, "other_host")	/* dst MAC is not the iif's */		\
	X(BAD_LEN, "bad_len")		/* truncated/malformed header */	\
	X(BAD_CSUM, "bad_csum")		/* IPv4 header checksum */		\
	X(IPV4_OPTIONS, "ipv4_options")	/* ihl > 5 */				\
	X(IPV6_EXT, "ipv6_ext")		/* hop-by-hop header */			\
	X(MARTIAN, "martian")		/* address the kernel drops */		\
	X(LINK_LOCAL, "link_local")	/* IPv6 fe80::/10 src or dst */		\
	X(BLACKHOLE, "blackhole")	/* fib: BPF_FIB_LKUP_RET_BLACKHOLE */	\
	X(UNREACHABLE, "unreachable")	/* fib: ..._UNREACHABLE, no route */	\
	X(PROHIBIT, "prohibit")		/* fib: ..._PROHIBIT */			\
	X(NOT_FORWARDED, "not_forwarded") /* fib: ..._NOT_FWDED: local... */	\
	X(FWD_DISABLED, "fwd_disabled")	/* fib: forwarding off on iif */	\
	X(LWT, "lwt")			/* fib: ..._UNSUPP_LWT, encap route */	\
	X(NO_NEIGH, "no_neigh")		/* fib: neighbour not resolved */	\
	X(MTU, "mtu")			/* fib: ..._FRAG_NEEDED, or GSO segs */	\
	X(NO_SRC_ADDR, "no_src_addr")	/* fib: ..._NO_SRC_ADDR */		\
	X(FIB_ERROR, "fib_error")	/* fib: error or unknown code */	\
	X(RP_FILTER, "rp_filter")	/* reverse path check failed */		\
	X(TTL, "ttl")			/* TTL/hop limit <= 1 */		\
	X(HAIRPIN, "hairpin")		/* egress == ingress (ICMP redirect) */	\
	X(NOT_IN_SET, "not_in_set")	/* egress (or iif) not in the set */	\
	X(NO_XMIT, "no_xmit")		/* egress cannot take XDP frames */	\
	/* lookup flowtable (route_flow.bpf.c) */				\
	X(FLOW_PROTO, "flow_proto")	/* not TCP/UDP, or a fragment */	\
	X(FLOW_MISS, "flow_miss")	/* flow not in a flowtable */		\
	X(FLOW_FIN_RST, "flow_fin_rst")	/* TCP FIN/RST: the kernel tears down */ \
	X(FLOW_XMIT, "flow_xmit")	/* vlan/tunnel/xfrm, or route moved */ \
	/* tagged frames (route_vlan.h) */					\
	X(VLAN_UNKNOWN, "vlan_unknown")	/* no VLAN device of the set has it */	\
	X(VLAN_QINQ, "vlan_qinq")	/* a second tag inside the first */	\
	X(VLAN_PRIO0, "vlan_prio0")	/* VLAN id 0: priority tag only */	\
	X(VLAN_SOURCE, "vlan_source")	/* no route back via the VLAN device */ \
	X(VLAN_DOWN, "vlan_down")	/* the VLAN device is down (XF_KCTX) */	\
	X(VLAN_QOS, "vlan_qos")		/* xdp: egress priority not mapped */	\
	X(XFRM, "xfrm")			/* IPsec policies or states (XF_KCTX) */ \
	X(NEIGH_UPKEEP, "neigh_upkeep")	/* the neighbour's periodic use */ \
	X(NO_XMIT_SG, "no_xmit_sg")	/* multi-buffer: egress lacks SG xmit */ \
	/* hook xdp mode native on a bond: its slaves run it (XF_RTIF_SLAVE) */ \
	X(BOND_INACTIVE, "bond_inactive") /* an inactive slave: the bond drops */ \
	X(BOND_LEFT, "bond_left")	/* no longer a slave of that bond */	\
	X(BOND_UNREAD, "bond_unread")	/* the slave's state cannot be read */

#define XF_RR_ENUM_(id, name) XF_RR_##id,
enum xf_route_reason {
	XF_ROUTE_REASONS(XF_RR_ENUM_)
	XF_RR_MAX
};
#undef XF_RR_ENUM_

#ifndef __bpf__
#define XF_RR_NAME_(id, name) [XF_RR_##id] = name,
static const char *const xf_route_reason_names[XF_RR_MAX] = {
	XF_ROUTE_REASONS(XF_RR_NAME_)
};
#undef XF_RR_NAME_

/* "forwarded", "no_neigh", ...; NULL for a value this build does not know. */
static inline const char *xf_route_reason_name(unsigned int reason)
{
	return reason < XF_RR_MAX ? xf_route_reason_names[reason] : NULL;
}
#endif

/* xf_rt_stats: PERCPU_ARRAY, key = slot * XF_RR_MAX + reason. */
#define XF_RT_STATS_KEY(slot, reason) ((slot) * XF_RR_MAX + (reason))
#define XF_RT_STATS_ENTRIES ((XF_RT_MAX_IF + 1) * XF_RR_MAX)

struct xf_route_stat {
	__u64 packets;
	__u64 bytes;		/* frame length, Ethernet header included */
};

/* xf_route_ifcfg.flags; bits 16-31 are userspace's own, the programs ignore
 * them. */
#define XF_RTIF_IN_SET (1U << 0)	/* egress allowed: member of the set */
#define XF_RTIF_XDP_XMIT (1U << 1)	/* takes XDP redirects (NDO_XMIT) */
/* IPv4 rp_filter 1 or 2 on the ingress; like XF_RTIF_SRC_ANY, set by the
 * programs in their copy of the flags at each packet (route.bpf.c,
 * xf_rt_src_live()), never in the map. */
#define XF_RTIF_RP_STRICT (1U << 2)
#define XF_RTIF_RP_LOOSE (1U << 3)
#define XF_RTIF_INET (1U << 4)		/* forward IPv4 arriving here */
#define XF_RTIF_INET6 (1U << 5)		/* forward IPv6 arriving here */
#define XF_RTIF_DIRECT (1U << 6)	/* lookup direct: main table only */
#define XF_RTIF_NEIGH (1U << 7)		/* tc: bpf_redirect_neigh on no_neigh */
/* Egress: tc may deliver with bpf_redirect_peer() into its peer (peer_mac)
 * because nothing on the way would act: see rt_peer_ok() in
 * lib/route/fast.c for the conditions, checked at attach and refresh. */
#define XF_RTIF_PEER (1U << 8)
/* IPv4 ingress: the kernel checks no source arriving here, so neither does
 * the fast path (no reverse lookup): accept_local on ("all" or the
 * interface), rp_filter off, and no route in the namespace with a realm. */
#define XF_RTIF_SRC_ANY (1U << 9)
/* A VLAN device: hook xdp pushes its tag (xf_rt_vlan's XF_RT_VLAN_OUT
 * entry) and sends on its parent, xf_tx_ports' value for it. */
#define XF_RTIF_VLAN (1U << 10)
/* Takes XDP redirects of multi-buffer frames (NDO_XMIT_SG): a frame over a
 * page, as at MTU 9000, that hook xdp sends elsewhere is passed. */
#define XF_RTIF_XMIT_SG (1U << 11)
/* A layer 3 device (ipip, sit, GRE, ip6tnl, WireGuard, tun): no Ethernet
 * header, its packets start at their IP header (skb->protocol says which).
 * hook tc only: the program parses them from there and pushes an Ethernet
 * header only on a packet it forwards; redirected into such a device, the
 * header is taken off again by the kernel (__bpf_redirect_no_mac()). Never
 * an XDP egress: userspace keeps it out of xf_tx_ports. */
#define XF_RTIF_L3 (1U << 12)
/* Not a member: a slave of a member bond on hook xdp mode native. A bond
 * hands its XDP program to its slaves, where it runs with the slave's
 * ifindex, before the bond's receive handler (bond_handle_frame()). The
 * entry holds the bond's ifindex (master) and counter slot, no other flag;
 * the program takes the frame as the bond's when the slave is still that
 * bond's and active (route_kctx.h), and counts it there either way.
 * Written by rt_refresh() alone (lib/route/bond.c), in the XF_KCTX build
 * only: the other one cannot read a slave's state. */
#define XF_RTIF_SLAVE (1U << 13)

/* xf_rt_ifcfg: HASH, key = ifindex (__u32). Written before the program is
 * attached to the interface, deleted after it is detached. */
struct xf_route_ifcfg {
	__u32 flags;		/* XF_RTIF_* */
	__u32 slot;		/* counter slot, < XF_RT_MAX_IF, unique */
	__u8 mac[6];		/* the interface's address (XDP: PACKET_HOST) */
	__u8 pad[2];
	union {
		struct {
			__u8 peer_mac[6];	/* XF_RTIF_PEER: the peer's own address */
			__u8 pad2[2];
		};
		__u32 master;	/* XF_RTIF_SLAVE (never an egress): the bond */
	};
};

/*
 * xf_rt_vlan: HASH, written by userspace at attach and on every refresh
 * from the kernel's VLAN devices of the set (lib/route/vlan.c):
 *   XF_RT_VLAN_IN(parent, 802.1ad, vid) -> the VLAN device's ifindex, for
 *   every VLAN device of the set that is up, in this namespace, on a
 *   parent that carries the program;
 *   XF_RT_VLAN_OUT(VLAN device) -> its parent, tag and egress-qos-map,
 *   for the same devices: what hook xdp needs to send tagged.
 * The VLAN device is a member of the set with its own xf_rt_ifcfg entry:
 * lookups, rp_filter and counters use it as the ingress. The IN entry
 * carries a copy of it (cfg), so that the common paths of a tagged frame
 * make one lookup for the tag and the ingress both: rt_ifcfg_put() and
 * rt_ifcfg_del() (lib/route/fast.c) keep it in step with every write of
 * the device's entry, rt_vlan_sync() writes it from that entry, and a
 * device no longer in the set has zero flags there, which only pass. A
 * tag that maps to nothing goes to the kernel (vlan_unknown), which
 * drops it too.
 * prio[] is the device's ingress-qos-map, the skb->priority that
 * vlan_do_receive() gives each PCP value (all 0 without a map). qos[] is
 * vlan_dev_get_egress_qos_mask() of skb->priority 0..15 (the TCI's PCP
 * bits); XF_RT_VLAN_QOS_HIGH says the map also names priorities above 15,
 * which the fast path does not map (vlan_qos); XF_RT_VLAN_QOS_MAP that it
 * names any (PCP not always 0).
 */
#define XF_RT_VLAN_MAX (2 * XF_RT_MAX_IF)
#define XF_RT_VLAN_IN(parent, ad, vid) \
	(((__u64)(parent) << 32) | ((__u64)!!(ad) << 16) | ((vid) & 0xfff))
#define XF_RT_VLAN_OUT(ifindex) ((1ULL << 63) | (__u32)(ifindex))
#define XF_RT_VLAN_QOS_N 16
#define XF_RT_VLAN_QOS_HIGH 1U
#define XF_RT_VLAN_QOS_MAP 2U

struct xf_route_vlan {
	__u32 ifindex;		/* IN: the VLAN device; OUT: its parent */
	__u32 prio[8];		/* IN: skb->priority by PCP (ingress-qos-map) */
	__be16 proto;		/* OUT: the tag's protocol (TPID) */
	__u16 vid;		/* OUT: the VLAN id */
	__u32 qflags;		/* OUT: XF_RT_VLAN_QOS_* */
	__u16 qos[XF_RT_VLAN_QOS_N];	/* OUT: PCP << 13 by skb->priority */
	/* IN, the build with XF_KCTX: the device was up while the
	 * namespace's net->ipv4.rt_genid was gen (gen_ok 1). The kernel
	 * bumps that counter whenever a device goes down or away (IPv4's
	 * fib_disable_ip() flushes the route cache), so a program reading
	 * the same value needs to read nothing else; another value sends
	 * it to the device itself (route_vlan.h). xf_route_genid writes the
	 * counter to xf_rt_src4[XF_RT_SRC4_PROBE] as probe.rt_genid. */
	__u32 gen;
	__u32 gen_ok;
	struct xf_route_ifcfg cfg;	/* IN: the VLAN device's xf_rt_ifcfg */
};

/*
 * xf_rt_vlc: ARRAY[XF_RT_VLC_SLOTS], a direct-mapped copy of xf_rt_vlan,
 * entry key at XF_RT_VLC_SLOT(key), as xf_rt_ifc is of xf_rt_ifcfg: a
 * tagged packet's lookups are then array lookups, inlined by the verifier,
 * instead of hash lookups (what a tag costs: bench/vlan-ratio). An entry
 * counts only when its key is the one asked for; otherwise the hash,
 * which stays the authority, answers. An IN slot is vid + 512 * 802.1ad +
 * 37 * parent, modulo the slots, so the ids of one parent and protocol
 * fill distinct slots while they differ by less than XF_RT_VLC_SLOTS; an
 * OUT slot is the VLAN device's ifindex, modulo the slots.
 * Userspace (lib/route/vlan.c) changes either the key or the values of an
 * entry in one write, never both: the key goes to 0 (never a key) before
 * the values change, and comes back after. The program reads the values
 * before it checks the key (route_vlan.h), so that the values it takes are
 * the key's own.
 */
#define XF_RT_VLC_SLOTS 1024
#define XF_RT_VLC_SLOT(key) \
	(((__u32)(key) + ((__u32)(key) >> 16) * 512 + (__u32)((key) >> 32) * 37) & \
	 (XF_RT_VLC_SLOTS - 1))

struct xf_route_vlc {
	__u64 key;		/* 0: empty */
	struct xf_route_vlan v;
};

/*
 * xf_rt_ifc: ARRAY[XF_RT_IFC_SLOTS], a direct-mapped copy of xf_rt_ifcfg
 * indexed by ifindex % XF_RT_IFC_SLOTS, so that the per-packet lookups are
 * array lookups (inlined by the verifier) instead of hash lookups. An entry
 * counts only when its ifindex is the one asked for; otherwise the hash,
 * which stays the authority, answers. Userspace writes both together
 * (lib/route_fast.c: rt_ifcfg_put/del): the entry is zeroed before it is
 * written, so a reader racing with a write sees the old interface's
 * values, zeros or the new values, never another interface's. Zero flags
 * and MACs only ever pass a packet.
 */
#define XF_RT_IFC_SLOTS 256

struct xf_route_ifc {
	__u32 ifindex;		/* 0: empty */
	struct xf_route_ifcfg cfg;
};

/* The hash of the direct-mapped address tables (xf_rt_local, xf_rt_src4,
 * xf_rt_loc6): the four bytes of a 32-bit word (an IPv4 address, or an
 * IPv6 address's last 32 bits, as they lie in memory) xored into its low
 * byte, whose low bits pick the slot. Addresses of one /24 (IPv4) or
 * differing in their last byte only fill distinct slots. */
#define XF_RT_FOLD(w) (((w) >> 24) ^ ((w) >> 16) ^ ((w) >> 8) ^ (w))

/*
 * xf_rt_local: ARRAY[XF_RT_LOCAL_SLOTS], this namespace's own addresses,
 * written by userspace at attach and refresh, direct-mapped by
 * XF_RT_LOCAL_SLOT() of the address's last 32 bits. A hint, never the
 * authority: a packet whose destination is there is passed to the kernel
 * before the FIB lookup (what the lookup would answer: not_forwarded), and
 * an address that is missing (slot taken, or added since) is found by the
 * lookup as before. Passing is always exact, so a stale entry costs only a
 * lookup's worth of time.
 */
#define XF_RT_LOCAL_SLOTS 64
#define XF_RT_LOCAL_SLOT(w3) (XF_RT_FOLD(w3) & (XF_RT_LOCAL_SLOTS - 1))

struct xf_route_local {
	__u32 v4;		/* IPv4 address, network order; 0 = none */
	__u32 v6_set;		/* v6 holds an address */
	__u32 v6[4];		/* IPv6 address, network order */
};

/*
 * xf_rt_src4: ARRAY[XF_RT_SRC4_BUCKETS + 2], this namespace's IPv4
 * addresses as fib_validate_source() looks them up when rp_filter is off
 * (inet_lookup_ifaddr_rcu(): every address of every device, primary or
 * not), for the route programs built with XF_KCTX. Unlike xf_rt_local this
 * is an authority, and a guarded one:
 *  - bucket XF_RT_SRC4_BUCKET(addr) holds up to XF_RT_SRC4_WAYS addresses
 *    (0 = empty); an address set that does not fit is not written at all;
 *  - entry XF_RT_SRC4_HDR is hdr { valid, genid, bits }: the table holds
 *    the whole set as it was when the kernel's net->ipv4.dev_addr_genid
 *    was genid. The kernel bumps that counter on every IPv4 address added
 *    or removed (and on every device going up), so a program that reads
 *    the same value there uses the table, and one that reads another
 *    falls back to the reverse lookup until the next refresh. Bit
 *    XF_RT_SRC4_BIT(addr) of bits is set when bucket XF_RT_SRC4_BUCKET(addr)
 *    or the one 64 buckets away holds an address: an address whose bit is
 *    clear is none of the namespace's, known from the header's cache line
 *    alone. Invalid, the header is { 0, 0, all ones };
 *  - the buckets are also the kctx build's hint for IPv4 destinations
 *    (the plain build's is xf_rt_local), used whatever the header says:
 *    an address found there was one of the namespace's, and passing is
 *    exact;
 *  - entry XF_RT_SRC4_PROBE is written by xf_route_genid (BPF_PROG_RUN):
 *    probe { genid, 1, rt_genid, 1 }, how userspace learns the counters.
 * Userspace (rt_fast_end()) clears valid (bits all ones), writes the
 * buckets, and sets valid with the genid read before its address dump, if
 * the genid read after the dump is the same. A header read while it is
 * written mixes the two values: the invalid one's bits only add bits, so
 * a torn read costs a bucket lookup at most.
 */
#define XF_RT_SRC4_BUCKETS 128
#define XF_RT_SRC4_WAYS 4
#define XF_RT_SRC4_HDR XF_RT_SRC4_BUCKETS
#define XF_RT_SRC4_PROBE (XF_RT_SRC4_BUCKETS + 1)
#define XF_RT_SRC4_BUCKET(a) (XF_RT_FOLD(a) & (XF_RT_SRC4_BUCKETS - 1))
#define XF_RT_SRC4_BIT(a) (XF_RT_SRC4_BUCKET(a) & 63)

struct xf_route_src4 {
	union {
		__u32 a[XF_RT_SRC4_WAYS];	/* a bucket: addresses, network order */
		struct {			/* entry XF_RT_SRC4_HDR */
			__u32 valid;
			__u32 genid;		/* dev_addr_genid */
			__u32 bits[2];		/* bucket bits 0-31, 32-63 */
		} hdr;
		struct {			/* entry XF_RT_SRC4_PROBE */
			__u32 genid;		/* dev_addr_genid */
			__u32 genid_ok;		/* 1: genid was read */
			__u32 rt_genid;		/* rt_genid (struct xf_route_vlan) */
			__u32 rt_genid_ok;	/* 1: rt_genid was read */
		} probe;
	};
};

/*
 * xf_rt_loc6: ARRAY[XF_RT_LOC6_BUCKETS + 2], this namespace's IPv6 local
 * table, for the route programs built with XF_KCTX. Without policy rules
 * (fib6_has_custom_rules), fib6_lookup() searches the local table and
 * then the main one; where the local table holds only /128 local and
 * anycast routes (and, left out, routes under ff00::/8 and fe80::/10 and
 * ::1's, whose destinations are never forwarded: passed before any lookup,
 * or answered so by the helper), a destination found here
 * is what the local table would answer (not forwarded), and any other
 * takes the main table's answer: one lookup with BPF_FIB_LOOKUP_DIRECT
 * instead of two tables searched. An authority, guarded as xf_rt_src4:
 *  - bucket XF_RT_LOC6_BUCKET(last 32 bits) holds up to XF_RT_LOC6_WAYS
 *    addresses (all zero = empty way; :: is passed before the lookup);
 *    a table that does not fit, or holds any other route, is not used;
 *  - entry XF_RT_LOC6_HDR is hdr { valid, sernum, min_mtu, bits }: the
 *    table is the
 *    local table as it was when the kernel's net->ipv6.fib6_sernum was
 *    sernum. The kernel bumps that counter on every IPv6 route added
 *    or changed in any table and on every address removed
 *    (rt_genid_bump_ipv6()), so a program that reads the same value uses
 *    the table, and one that reads another looks up both tables. A route
 *    deleted, or a device set down that keeps its addresses, leaves it
 *    as it was (so 6.18 does): the table can only have shrunk since,
 *    and an address still in the copy is passed, which is exact.
 *    min_mtu is the smallest MTU metric of any IPv6 route then
 *    (0xffffffff: none has one): ip6_finish_output() holds a forwarded
 *    packet to its route's metric, which bpf_fib_lookup() does not see
 *    unless it is locked, so a packet longer than min_mtu is passed; one
 *    of at most IPV6_MIN_MTU bytes and min_mtu no route's MTU can stop
 *    (route.bpf.c, xf_rt_decide()). Bit b of bits is set when bucket b
 *    holds an address, so a destination whose bit is clear is known to
 *    take the main table's answer from the header's cache line alone.
 *    Invalid, the header is all zero but bits, all ones;
 *  - the header also carries IPv4's smallest route MTU (min_mtu4, any
 *    table, locked or not: ip_forward() holds a packet to it, and
 *    bpf_fib_lookup() reports it only locked), valid (mtu4_valid) while
 *    the kernel's net->ipv4.fib_seq is fib_seq: the kernel moves that
 *    counter on every IPv4 route notification, under the RTNL: a route
 *    added, replaced, changed or deleted in any table moves it (6.18; a
 *    second route of a prefix behind the one in use, appended, does
 *    not, until it comes into use). Written whatever the IPv6 part
 *    holds (route_tables.h, xf_rt_mtu4_ok());
 *  - entry XF_RT_LOC6_PROBE is written by xf_route_genid: probe { sernum,
 *    1, fib_seq, 1 }.
 * Userspace writes it in the order of xf_rt_src4 (rt_fast_end()), and a
 * torn read of the header costs a bucket lookup at most, as there.
 */
#define XF_RT_LOC6_BUCKETS 64
#define XF_RT_LOC6_WAYS 4
#define XF_RT_LOC6_HDR XF_RT_LOC6_BUCKETS
#define XF_RT_LOC6_PROBE (XF_RT_LOC6_BUCKETS + 1)
#define XF_RT_LOC6_BUCKET(w3) (XF_RT_FOLD(w3) & (XF_RT_LOC6_BUCKETS - 1))

struct xf_route_loc6 {
	union {
		__u32 a[XF_RT_LOC6_WAYS][4];	/* a bucket: addresses, network order */
		struct {			/* entry XF_RT_LOC6_HDR */
			__u32 valid;
			__u32 sernum;		/* fib6_sernum */
			__u32 min_mtu;
			__u32 mtu4_valid;	/* IPv4: fib_seq, min_mtu4 */
			__u32 bits[2];		/* bucket bits 0-31, 32-63 */
			__u32 fib_seq;		/* net->ipv4.fib_seq */
			__u32 min_mtu4;
			__u32 pad2[XF_RT_LOC6_WAYS * 4 - 8];
		} hdr;
		struct {			/* entry XF_RT_LOC6_PROBE */
			__u32 sernum;		/* fib6_sernum */
			__u32 sernum_ok;	/* 1: sernum was read */
			__u32 fib_seq;		/* net->ipv4.fib_seq */
			__u32 fib_seq_ok;	/* 1: fib_seq was read */
			__u32 pad[XF_RT_LOC6_WAYS * 4 - 4];
		} probe;
	};
};

_Static_assert(sizeof(struct xf_route_src4) == XF_RT_SRC4_WAYS * 4, "src4 entry");
_Static_assert(sizeof(struct xf_route_loc6) == XF_RT_LOC6_WAYS * 16, "loc6 entry");

/*
 * route get: BPF_PROG_RUN with this 16-byte record in front of the packet,
 * as XDP metadata (ctx_in.data = 16) or in __sk_buff cb[0..2] (tc). A run
 * that carries it is not counted, and its decision is written to
 * xf_rt_trace[0] with the cookie copied, so the caller can tell its own
 * record from a stale one.
 */
#define XF_RT_TRACE_MAGIC0 0x78667764U	/* "xfwd" */
#define XF_RT_TRACE_MAGIC1 0x72746765U	/* "rtge" */

struct xf_route_trace_in {
	__u32 magic[2];
	__u32 cookie;
	__u32 pad;
};

/* tc: a run may carry a VLAN tag too, as test runs cannot set the skb's:
 * cb[3] = XF_RT_TRACE_VLAN | TCI, cb[4] = the tag's protocol (network
 * order), read where a received skb's vlan_tci and vlan_proto are. */
#define XF_RT_TRACE_VLAN 0x10000U

/*
 * xf_rt_nbr: ARRAY[XF_RT_NBR_SETS] of two-way sets, the neighbour upkeep.
 * bpf_fib_lookup() answers with a neighbour entry's address whatever its
 * NUD state and never uses the entry, while the kernel's own forwarding
 * goes through neigh_event_send() on every packet: that use is what moves
 * a STALE entry on to DELAY and PROBE. So the first packet to a
 * next hop (egress ifindex, family, address as the lookup leaves them)
 * and then one every XF_RT_NBR_NS is passed to the kernel
 * (XF_RR_NEIGH_UPKEEP), which forwards it through the entry. A way is
 * taken by a next hop of its set's hash (XF_RT_NBR_SET()) when it is free
 * or holds the older due time; a next hop that finds no way of its own is
 * passed, so a full set costs passes, never a missed use. Written by the
 * programs alone.
 */
#define XF_RT_NBR_SETS 4096
#define XF_RT_NBR_NS 500000000ULL
#define XF_RT_NBR_SET(ifindex, a0, a3) \
	((XF_RT_FOLD((a0) ^ (a3)) ^ (ifindex)) & (XF_RT_NBR_SETS - 1))

struct xf_route_nbr_way {
	__u32 ifindex;		/* egress; 0: free */
	__u32 family;		/* AF_INET or AF_INET6, as the lookup says */
	__u32 addr[4];		/* next hop, network order (IPv4: addr[0]) */
	__u64 due;		/* bpf_ktime_get_coarse_ns() of the next pass */
};

struct xf_route_nbr {
	struct xf_route_nbr_way w[2];
};

/* xf_route_trace.flags */
#define XF_RTT_FIB (1U << 0)	/* bpf_fib_lookup ran: fib_rc valid */
#define XF_RTT_RP (1U << 1)	/* reverse path lookup ran: rp_* valid */
#define XF_RTT_NEIGH (1U << 2)	/* tc: sent with bpf_redirect_neigh */
#define XF_RTT_TRIM (1U << 3)	/* bytes after the IP packet were cut */
#define XF_RTT_XDP (1U << 4)	/* decided by the XDP program */
#define XF_RTT_TC (1U << 5)	/* decided by the tc program */
#define XF_RTT_PEER (1U << 6)	/* tc: sent with bpf_redirect_peer */
#define XF_RTT_FLOW (1U << 7)	/* lookup flowtable: looked up */
#define XF_RTT_FLOW_HIT (1U << 8) /* ... found in a flowtable: ft_dir valid */
#define XF_RTT_SNAT (1U << 9)	/* ... source NAT applied */
#define XF_RTT_DNAT (1U << 10)	/* ... destination NAT applied */
#define XF_RTT_SRC4 (1U << 11)	/* IPv4 source checked in xf_rt_src4 */
#define XF_RTT_SRC_LOOKUP (1U << 12) /* ... by a reverse lookup, rp_filter off or not known */
#define XF_RTT_LOC6 (1U << 13)	/* IPv6 local table from xf_rt_loc6: main
				 * table looked up alone (DIRECT) */

/* xf_rt_trace: ARRAY, one entry, key 0. */
struct xf_route_trace {
	__u32 cookie;		/* from xf_route_trace_in */
	__u32 reason;		/* enum xf_route_reason */
	__u32 flags;		/* XF_RTT_* */
	__u32 iif;
	__s32 fib_rc;		/* bpf_fib_lookup() return value */
	__u32 oif;		/* egress ifindex (fib success or no_neigh) */
	__u32 mtu;		/* fib mtu_result (success or frag needed) */
	__u32 nh_family;	/* AF_INET/AF_INET6 of nh (may differ from pkt) */
	__u32 nh[4];		/* next hop, network order (IPv4: nh[0]) */
	__u8 smac[6];		/* fib result: egress MAC */
	__u8 dmac[6];		/* fib result: neighbour MAC */
	__s32 rp_rc;		/* reverse lookup return value */
	__u32 rp_oif;		/* reverse lookup egress ifindex */
	__u32 ft_dir;		/* XF_RTT_FLOW_HIT: 0 original, 1 reply */
};

/* gen (bench/xfgen): bytes of each frame rewritten from the template on
 * every run: Ethernet + IPv6 + UDP is 62, rounded up to 8. */
#define XF_GEN_HDR 64

/*
 * redirect (bpf/redirect.bpf.c): rules steer packets of one device and
 * direction to another device. One instance per namespace; maps:
 *
 *  xf_rd_rules  LPM_TRIE struct xf_redir_key -> struct xf_redir_rule.
 *               The first 32 data bits are the scope (ifindex << 1 | dir)
 *               and always match; IPv4 addresses are IPv4-mapped IPv6
 *               (::ffff:a.b.c.d), so one trie serves both families. A rule
 *               without "match" has prefixlen 32: it catches every packet
 *               of its scope, IP or not, that no longer prefix matches.
 *               IP packets are looked up with prefixlen 32 + 128, others
 *               with 32, so only the catch-all applies to them. An IPv6
 *               prefix that contains ::ffff:0:0/96 (::/8, ...) or lies in
 *               it would match IPv4 packets: userspace must refuse it.
 *  xf_rd_cnt    PERCPU_ARRAY [rule id] -> struct xf_route_stat.
 *  xf_rd_tx     DEVMAP_HASH ifindex -> ifindex, for hook xdp.
 */
#define XF_RD_DIR_INGRESS 0
#define XF_RD_DIR_EGRESS 1
#define XF_RD_SCOPE(ifindex, dir) (((__u32)(ifindex) << 1) | (dir))
#define XF_RD_MAX_RULES 1024

struct xf_redir_key {
	__u32 prefixlen;	/* 32 + 96 + IPv4 plen, 32 + IPv6 plen, or 32 */
	__u32 scope;		/* XF_RD_SCOPE(), always matched whole */
	__u8 addr[16];
};

enum xf_redir_mode {
	XF_RD_EGRESS,		/* bpf_redirect(ifindex, 0) */
	XF_RD_INGRESS,		/* bpf_redirect(ifindex, BPF_F_INGRESS) */
	XF_RD_PEER,		/* bpf_redirect_peer(ifindex, 0) */
	XF_RD_PEER_EGRESS,	/* bpf_redirect_peer(ifindex, BPF_F_EGRESS) */
	XF_RD_NEIGH,		/* bpf_redirect_neigh(ifindex, via or NULL) */
	XF_RD_MIRROR,		/* bpf_clone_redirect(skb, ifindex, 0), go on */
	XF_RD_MODE_MAX
};

struct xf_redir_rule {
	__u32 target;		/* ifindex */
	__u32 mode;		/* enum xf_redir_mode */
	__u32 id;		/* counter index, < XF_RD_MAX_RULES */
	__u32 via_family;	/* neigh: AF_INET/AF_INET6, 0 for none */
	__u8 via[16];		/* neigh: next hop, network order; IPv4 in
				 * via[0..3], as in struct bpf_redir_neigh */
};

/*
 * xdptrace.bpf.c: the kernel's XDP error tracepoints, counted by stats
 * watch. HASH (struct xf_xdptrace_key) -> __u64 events, for the devices
 * of one namespace.
 */
#define XF_XDPTRACE_REDIRECT_ERR 0	/* xdp:xdp_redirect_err, code -errno */
#define XF_XDPTRACE_EXCEPTION 1		/* xdp:xdp_exception, code the action */
#define XF_XDPTRACE_MAX 1024

struct xf_xdptrace_key {
	__u32 ifindex;
	__u32 tp;		/* XF_XDPTRACE_* */
	__s32 code;
	__u32 pad;
};

#endif
