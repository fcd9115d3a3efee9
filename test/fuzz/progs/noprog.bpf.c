// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Hostile member for chain add: an object with a map and no program. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} xf_lonely SEC(".maps");

char LICENSE[] SEC("license") = "Dual BSD/GPL";
