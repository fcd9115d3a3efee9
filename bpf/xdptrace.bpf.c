// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdptrace: the kernel's own XDP error tracepoints, counted per device of
 * one network namespace while stats watch shows them (lib/xdptrace.c
 * loads and attaches both programs).
 *
 * Raw tracepoints, not tp_btf: BTF tracing programs (like fentry) are
 * refused on a kernel in lockdown, raw tracepoints are not. Their
 * arguments are the tracepoints' prototypes (TP_PROTO), one u64 each:
 *   xdp_redirect_err(dev, xdp, tgt, err, map_type, map_id, index)
 *   xdp_exception(dev, xdp, act)
 * which the loader checks against the kernel's btf_trace_* prototypes.
 * The device's fields are read with CO-RE, so the kernel's own layout
 * applies. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "xfwd_bpf.h"

struct ns_common___xt {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct net___xt {
	struct ns_common___xt ns;
} __attribute__((preserve_access_index));

struct net_device___xt {
	int ifindex;
	struct {
		struct net___xt *net;
	} nd_net;
} __attribute__((preserve_access_index));

/* The namespace counted: its nsfs inode number, set before the load. */
const volatile __u32 xf_netns_inum = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_XDPTRACE_MAX);
	__type(key, struct xf_xdptrace_key);
	__type(value, __u64);
} xf_xdptrace SEC(".maps");

static __always_inline int xf_xt_count(__u64 arg0, __u32 tp, __s32 code)
{
	struct net_device___xt *dev = (void *)arg0;
	struct xf_xdptrace_key k = { .tp = tp, .code = code };
	__u64 one = 1, *v;

	if (BPF_CORE_READ(dev, nd_net.net, ns.inum) != xf_netns_inum)
		return 0;
	k.ifindex = BPF_CORE_READ(dev, ifindex);
	v = bpf_map_lookup_elem(&xf_xdptrace, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	else	/* Two CPUs inserting the same key at once lose one count. */
		bpf_map_update_elem(&xf_xdptrace, &k, &one, BPF_NOEXIST);
	return 0;
}

SEC("raw_tracepoint/xdp_redirect_err")
int xf_xt_redirect_err(struct bpf_raw_tracepoint_args *ctx)
{
	return xf_xt_count(ctx->args[0], XF_XDPTRACE_REDIRECT_ERR, (__s32)ctx->args[3]);
}

SEC("raw_tracepoint/xdp_exception")
int xf_xt_exception(struct bpf_raw_tracepoint_args *ctx)
{
	return xf_xt_count(ctx->args[0], XF_XDPTRACE_EXCEPTION, (__s32)ctx->args[2]);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
