/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kernel's structs as the BPF programs read them, with CO-RE: one
 * local definition per kernel struct, holding only the fields some
 * program reads (libbpf relocates each access to the running kernel's
 * layout; a field a kernel lacks is tested with bpf_core_field_exists()
 * where it may be missing). The ___xf suffix keeps them apart from the
 * uapi headers' names; libbpf ignores it. Also the kfuncs that reach
 * them. Included by BPF programs only. */
#ifndef XF_KSTRUCTS_H
#define XF_KSTRUCTS_H

#include <linux/types.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <bpf/bpf_helpers.h>

typedef struct {
	int counter;
} atomic_t___xf;

/* route_kctx.h (the source check, IPv6's local table), route_vlan.h
 * (rt_genid, ip_forward_update_priority). */
struct ipv4_devconf___xf;

struct netns_ipv4___xf {
	struct ipv4_devconf___xf *devconf_all;	/* route_kctx.h: "all" */
	_Bool fib_has_custom_rules;	/* CONFIG_IP_MULTIPLE_TABLES */
	_Bool fib_has_custom_local_routes;
	atomic_t___xf fib_num_tclassid_users;	/* CONFIG_IP_ROUTE_CLASSID */
	atomic_t___xf dev_addr_genid;
	__u8 sysctl_ip_fwd_update_priority;	/* since 4.19 */
	atomic_t___xf rt_genid;
	unsigned int fib_seq;		/* route.bpf.c: IPv4 route MTUs */
} __attribute__((preserve_access_index));

struct netns_ipv6___xf {
	_Bool fib6_has_custom_rules;	/* CONFIG_IPV6_MULTIPLE_TABLES */
	atomic_t___xf fib6_sernum;
} __attribute__((preserve_access_index));

/* route_kctx.h (xf_kctx_xfrm): what ip_forward() asks of xfrm. Indexed
 * by XFRM_POLICY_IN, _OUT, _FWD; policy_count's second half counts
 * per-socket policies, which forwarded traffic never meets. */
struct netns_xfrm___xf {
	unsigned int state_num;
	unsigned int policy_count[6];
	__u8 policy_default[3];		/* since 5.16 */
} __attribute__((preserve_access_index));

struct net___xf {
	struct netns_ipv4___xf ipv4;
	struct netns_ipv6___xf ipv6;
	struct netns_xfrm___xf xfrm;	/* CONFIG_XFRM */
} __attribute__((preserve_access_index));

/* route_kctx.h (xf_kctx_src()): an interface's IPv4 sysctls, or the
 * namespace's "all"; data[] is indexed by the uapi's IPV4_DEVCONF_* - 1. */
struct ipv4_devconf___xf {
	int data[32];
} __attribute__((preserve_access_index));

struct in_device___xf {
	struct ipv4_devconf___xf cnf;
} __attribute__((preserve_access_index));

struct net_device___xf {
	struct in_device___xf *ip_ptr;	/* NULL: no IPv4 on it */
	void *rx_handler_data;		/* a bond's slave: its struct slave */
	void *vlan_info;		/* struct vlan_info___xf, 802.1Q */
	unsigned int flags;
	int ifindex;
	struct {
		struct net___xf *net;
	} nd_net;
} __attribute__((preserve_access_index));

struct xdp_rxq_info___xf {
	struct net_device___xf *dev;
} __attribute__((preserve_access_index));

struct xdp_buff___xf {
	struct xdp_rxq_info___xf *rxq;
} __attribute__((preserve_access_index));

struct sk_buff___xf {
	struct net_device___xf *dev;
} __attribute__((preserve_access_index));

/* struct vlan_info is 8021q.ko's own, found in the module's BTF when it is
 * loaded as the program is (route_vlan.h). */
struct vlan_group___xf {
	void *vlan_devices_arrays[2][8];	/* [802.1Q, 802.1ad][vid / 512] */
} __attribute__((preserve_access_index));

struct vlan_info___xf {
	struct vlan_group___xf grp;
} __attribute__((preserve_access_index));

/* struct slave and struct bonding are bonding.ko's own, found in the
 * module's BTF when it is loaded as the program is (route_kctx.h). */
struct bonding___xf {
	struct net_device___xf *dev;
} __attribute__((preserve_access_index));

struct slave___xf {
	struct bonding___xf *bond;
	__u8 inactive:1;		/* bond_is_slave_inactive() */
} __attribute__((preserve_access_index));

/* route_flow.bpf.c: nf_flow_table's entry, as bpf_xdp_flow_lookup()
 * returns it. Named as the kernel names them: the kfunc's prototype
 * below uses them. */
struct flow_offload_tuple {
	union {
		struct in_addr src_v4;
		struct in6_addr src_v6;
	};
	union {
		struct in_addr dst_v4;
		struct in6_addr dst_v6;
	};
	struct {
		__be16 src_port;
		__be16 dst_port;
	};
	__u16 dir:2;
	__u16 xmit_type:3;
	__u16 encap_num:2;
	__u16 in_vlan_ingress:2;
	__u16 tun_num:2;
	__u16 mtu;
	union {
		struct {
			__u32 ifidx;
			__u8 h_source[6];
			__u8 h_dest[6];
		} out;
	};
} __attribute__((preserve_access_index));

struct flow_offload_tuple_rhash {
	struct flow_offload_tuple tuple;
} __attribute__((preserve_access_index));

struct flow_offload {
	struct flow_offload_tuple_rhash tuplehash[2];
	unsigned long flags;
} __attribute__((preserve_access_index));

/* Since 6.2: the program's context as the kernel's struct (xdp_buff,
 * sk_buff); and any kernel pointer as a read-only one of a BTF type. */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

#endif
