// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member: drops UDP (IPv4 or IPv6) to the port in xf_drop_port[0]
 * (host byte order, 0 = none), passes everything else. The map is the
 * knob an operator turns with bpftool while traffic flows. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xf_drop_port SEC(".maps");

SEC("xdp")
int xf_drop_udp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct udphdr *udp;
	__u32 key = 0, *port;
	__u8 proto;

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->ihl < 5)
			return XDP_PASS;
		/* Only first fragments carry the UDP header. */
		if (ip->frag_off & bpf_htons(0x1fff))
			return XDP_PASS;
		proto = ip->protocol;
		udp = (void *)ip + ip->ihl * 4;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			return XDP_PASS;
		proto = ip6->nexthdr;
		udp = (void *)(ip6 + 1);
	} else {
		return XDP_PASS;
	}
	if (proto != IPPROTO_UDP || (void *)(udp + 1) > end)
		return XDP_PASS;
	port = bpf_map_lookup_elem(&xf_drop_port, &key);
	if (port && *port && udp->dest == bpf_htons(*port))
		return XDP_DROP;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
