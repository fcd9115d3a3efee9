/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The maps of the route instance that both route programs use: route.bpf.c
 * and route_flow.bpf.c, whose "route" member shares the instance's pins, so
 * their definitions must be one; and the lookup of an interface's
 * configuration in them. Included by BPF programs only. */
#ifndef XF_ROUTE_MAPS_H
#define XF_ROUTE_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfwd_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XF_RT_MAX_IF);
	__type(key, __u32);
	__type(value, struct xf_route_ifcfg);
} xf_rt_ifcfg SEC(".maps");

/* The arrays a packet reads are BPF_F_MMAPABLE for their layout, never
 * mapped: their values then start on a page of their own. Otherwise they
 * start right after struct bpf_array, whose size is no multiple of a
 * cache line, and an entry may straddle two lines: two misses where one
 * would do. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, XF_RT_IFC_SLOTS);
	__type(key, __u32);
	__type(value, struct xf_route_ifc);
} xf_rt_ifc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, XF_RT_MAX_IF);
	__type(key, __u32);
	__type(value, __u32);
} xf_tx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XF_RT_STATS_ENTRIES);
	__type(key, __u32);
	__type(value, struct xf_route_stat);
} xf_rt_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xf_route_trace);
} xf_rt_trace SEC(".maps");

/* The configuration of ifindex: the direct-mapped copy when it holds this
 * interface, else the hash (XF_RT_IFC_SLOTS in xfwd_bpf.h). */
static __always_inline struct xf_route_ifcfg *xf_rt_cfg(__u32 ifindex)
{
	__u32 k = ifindex & (XF_RT_IFC_SLOTS - 1);
	struct xf_route_ifc *c = bpf_map_lookup_elem(&xf_rt_ifc, &k);

	if (c && c->ifindex == ifindex)
		return &c->cfg;
	return bpf_map_lookup_elem(&xf_rt_ifcfg, &ifindex);
}

#endif
