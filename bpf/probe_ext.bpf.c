/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The freplace probe: an extension program for xf_fr_func in probe.bpf.c.
 * It is a skeleton of its own because its target must be loaded first. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xfwd_compat.h"

SEC("freplace/xf_fr_func")
int xf_fr_repl(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
