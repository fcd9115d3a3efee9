// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* redirect: steer a device's packets to another device by destination prefix, on tc and XDP.
 *
 * One loaded instance serves every device of a network namespace: the same
 * xf_rd_ingress / xf_rd_egress fds are attached to each device and
 * direction that has rules, xf_rd_xdp to each device with hook xdp. The
 * scope in the key (ifindex << 1 | direction) says whose rules apply, so a
 * rule is added or deleted with one map update and no reload. The maps are
 * described with the types in xfwd_bpf.h.
 *
 * The key is the destination address, IPv4 as ::ffff:a.b.c.d, looked up
 * with the whole address (prefixlen 32 + 128). Packets without one (ARP,
 * VLAN-tagged, truncated) are looked up with the scope alone (prefixlen
 * 32): the trie then considers only rules of at most 32 bits, which is the
 * catch-all, whatever IPv6 prefixes near :: the device may carry.
 *
 * tc reads the address relative to the network header the stack has set,
 * not at a fixed offset after an Ethernet header: that is right on devices
 * without a link-layer header too (netkit in l3 mode, tun, wireguard) and
 * when the header is not in the linear data. XDP only exists on Ethernet
 * devices here, and parses the frame.
 *
 * No rule: the packet goes on untouched (TC_ACT_UNSPEC: the next tcx
 * program or, with cls_bpf in direct-action mode, the stack; XDP_PASS).
 * A rule counts the packet and returns what its helper returns, so a
 * refused flag or target is the kernel's verdict (TC_ACT_SHOT), not ours.
 */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xfwd_bpf.h"

/* Key lengths: the scope alone, and the scope with a whole address. */
#define XF_RD_PLEN_SCOPE 32
#define XF_RD_PLEN_ADDR (32 + 128)

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, XF_RD_MAX_RULES);
	__type(key, struct xf_redir_key);
	__type(value, struct xf_redir_rule);
} xf_rd_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XF_RD_MAX_RULES);
	__type(key, __u32);
	__type(value, struct xf_route_stat);
} xf_rd_cnt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} xf_rd_tx SEC(".maps");

static __always_inline void xf_rd_count(__u32 id, __u32 len)
{
	struct xf_route_stat *st = bpf_map_lookup_elem(&xf_rd_cnt, &id);

	if (st) {
		st->packets++;
		st->bytes += len;
	}
}

/* The tc key; key is zeroed by the caller. A hardware-accelerated VLAN tag
 * leaves skb->protocol at the inner type, hence the explicit test; an
 * in-band tag (egress) makes the protocol 802.1Q/802.1ad, not IP. */
static __always_inline void xf_rd_tc_key(struct __sk_buff *skb, __u32 dir,
					 struct xf_redir_key *key)
{
	key->scope = XF_RD_SCOPE(skb->ifindex, dir);
	key->prefixlen = XF_RD_PLEN_SCOPE;
	if (skb->vlan_present)
		return;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes_relative(skb, offsetof(struct iphdr, daddr),
						&key->addr[12], 4, BPF_HDR_START_NET))
			return;
		key->addr[10] = 0xff;
		key->addr[11] = 0xff;
		key->prefixlen = XF_RD_PLEN_ADDR;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		if (bpf_skb_load_bytes_relative(skb, offsetof(struct ipv6hdr, daddr),
						key->addr, 16, BPF_HDR_START_NET))
			return;
		key->prefixlen = XF_RD_PLEN_ADDR;
	}
}

/* via[] holds an IPv4 next hop in its first 4 bytes, which is where the
 * union puts ipv4_nh, so one copy serves both families. */
static __always_inline long xf_rd_neigh(const struct xf_redir_rule *r)
{
	struct bpf_redir_neigh nh;

	if (!r->via_family)
		return bpf_redirect_neigh(r->target, NULL, 0, 0);
	__builtin_memset(&nh, 0, sizeof(nh));
	nh.nh_family = r->via_family;
	__builtin_memcpy(nh.ipv6_nh, r->via, sizeof(nh.ipv6_nh));
	return bpf_redirect_neigh(r->target, &nh, sizeof(nh), 0);
}

static __always_inline int xf_rd_tc(struct __sk_buff *skb, __u32 dir)
{
	struct xf_redir_key key;
	struct xf_redir_rule *r;

	__builtin_memset(&key, 0, sizeof(key));
	xf_rd_tc_key(skb, dir, &key);
	r = bpf_map_lookup_elem(&xf_rd_rules, &key);
	if (!r || r->mode >= XF_RD_MODE_MAX)
		return TC_ACT_UNSPEC;
	xf_rd_count(r->id, skb->len);

	switch (r->mode) {
	case XF_RD_EGRESS:
		return bpf_redirect(r->target, 0);
	case XF_RD_INGRESS:
		return bpf_redirect(r->target, BPF_F_INGRESS);
	case XF_RD_PEER:
		return bpf_redirect_peer(r->target, 0);
	case XF_RD_PEER_EGRESS:
		return bpf_redirect_peer(r->target, BPF_F_EGRESS);
	case XF_RD_NEIGH:
		return xf_rd_neigh(r);
	default:
		/* XF_RD_MIRROR: the copy leaves through the target; a failed
		 * clone must not cost the original. */
		bpf_clone_redirect(skb, r->target, 0);
		return TC_ACT_UNSPEC;
	}
}

SEC("tc")
int xf_rd_ingress(struct __sk_buff *skb)
{
	return xf_rd_tc(skb, XF_RD_DIR_INGRESS);
}

SEC("tc")
int xf_rd_egress(struct __sk_buff *skb)
{
	return xf_rd_tc(skb, XF_RD_DIR_EGRESS);
}

/* Only mode egress exists on XDP (userspace refuses the others); a rule of
 * another mode, or a target missing from xf_rd_tx, passes the frame. */
SEC("xdp")
int xf_rd_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct xf_redir_key key;
	struct xf_redir_rule *r;

	__builtin_memset(&key, 0, sizeof(key));
	key.scope = XF_RD_SCOPE(ctx->ingress_ifindex, XF_RD_DIR_INGRESS);
	key.prefixlen = XF_RD_PLEN_SCOPE;
	if ((void *)(eth + 1) <= data_end) {
		if (eth->h_proto == bpf_htons(ETH_P_IP)) {
			struct iphdr *iph = (void *)(eth + 1);

			if ((void *)(iph + 1) <= data_end) {
				__builtin_memcpy(&key.addr[12], &iph->daddr, 4);
				key.addr[10] = 0xff;
				key.addr[11] = 0xff;
				key.prefixlen = XF_RD_PLEN_ADDR;
			}
		} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
			struct ipv6hdr *ip6h = (void *)(eth + 1);

			if ((void *)(ip6h + 1) <= data_end) {
				__builtin_memcpy(key.addr, &ip6h->daddr, 16);
				key.prefixlen = XF_RD_PLEN_ADDR;
			}
		}
	}

	r = bpf_map_lookup_elem(&xf_rd_rules, &key);
	if (!r || r->mode != XF_RD_EGRESS)
		return XDP_PASS;
	xf_rd_count(r->id, data_end - data);
	return bpf_redirect_map(&xf_rd_tx, r->target, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
