// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Not a chain member: on a host's tc egress, tags every IPv4 packet with
 * VLAN 100 the way a VLAN device with tx-vlan offload does, in skb
 * metadata (bpf_skb_vlan_push()), for test/route_offload.bats. A veth
 * with tx-vlan-hw-insert on hands the tag on in metadata; with it off,
 * in the frame. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int xf_vlan_push(struct __sk_buff *skb)
{
	if (skb->protocol == bpf_htons(ETH_P_IP))
		bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), 100);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
