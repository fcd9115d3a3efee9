// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Not a chain member: an object with a tc program and no XDP program, which
 * "chain add" must refuse with a clear error and change nothing. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int xf_tc_only(struct __sk_buff *skb)
{
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
