// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member: sets the IPv4 TOS byte to xf_tos[0] (0 = leave the default,
 * XF_TOS_DEFAULT) and fixes the header checksum incrementally (RFC 1624);
 * passes every packet. Order against a TOS-reading member is observable. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XF_TOS_DEFAULT 0xb8	/* DSCP EF */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xf_tos SEC(".maps");

SEC("xdp")
int xf_rewrite(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u32 key = 0, *v, sum;
	__u16 old, new;
	__u8 tos;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	v = bpf_map_lookup_elem(&xf_tos, &key);
	tos = v && *v ? *v : XF_TOS_DEFAULT;
	/* The TOS shares a 16-bit checksum word with version/ihl. */
	old = *(__u16 *)ip;
	ip->tos = tos;
	new = *(__u16 *)ip;
	sum = (__u16)~ip->check + (__u16)~old + new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = ~sum;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
