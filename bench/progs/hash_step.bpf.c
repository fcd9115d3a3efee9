// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Benchmark step of a chain-call chain in the manner of seed 001: after
 * its own work (pass), a step looks up the next program in a hash map
 * keyed by (its own program id, its return code) and tail-calls it; with
 * no entry the chain ends and the step's verdict stands. Every step is
 * its own object; chainstep shares both maps between the steps of one
 * chain and writes each step's kernel program id into its .bss after
 * load. A tail call that fails returns XDP_ABORTED, so a broken chain
 * shows. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct xf_hs_key {
	__u32 prog_id;
	__u32 ret;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct xf_hs_key);
	__type(value, __u32);
} xf_hs_next SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 32);
	__type(key, __u32);
	__type(value, __u32);
} xf_hs_jmp SEC(".maps");

/* This program's id, written by userspace once it is loaded. */
volatile __u32 xf_hs_id;

SEC("xdp")
int xf_hash_step(struct xdp_md *ctx)
{
	struct xf_hs_key key = { .prog_id = xf_hs_id, .ret = XDP_PASS };
	__u32 *next;

	next = bpf_map_lookup_elem(&xf_hs_next, &key);
	if (!next)
		return XDP_PASS;
	bpf_tail_call(ctx, &xf_hs_jmp, *next);
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
