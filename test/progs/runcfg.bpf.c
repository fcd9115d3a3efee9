// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member with libxdp's XDP_RUN_CONFIG metadata, written out by hand
 * (libxdp's header is not needed): run priority 20, and XDP_DROP as well as
 * XDP_PASS among its chain-call actions, so that in a chain its drops go on
 * to the next member. Drops UDP to the port in xf_drop_port[0] (host byte
 * order, 0 = none) over IPv4 without options, passes everything else. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xf_drop_port SEC(".maps");

/* What libxdp's XDP_RUN_CONFIG(xf_runcfg) expands to: values are encoded
 * as array sizes in BTF, in the section libxdp reads. */
struct {
	__uint(priority, 20);
	__uint(XDP_PASS, 1);
	__uint(XDP_DROP, 1);
} _xf_runcfg SEC(".xdp_run_config");

SEC("xdp")
int xf_runcfg(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	__u32 key = 0, *port;

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	port = bpf_map_lookup_elem(&xf_drop_port, &key);
	if (port && *port && udp->dest == bpf_htons(*port))
		return XDP_DROP;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
