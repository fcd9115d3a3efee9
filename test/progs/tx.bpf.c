// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test member: bounces every Ethernet frame back out of the interface it
 * came in on (XDP_TX) with source and destination MAC swapped. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xf_tx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	unsigned char tmp[ETH_ALEN];

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
