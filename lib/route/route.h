/* SPDX-License-Identifier: GPL-2.0 */
/* The route fast path: attach, detach, list and explain, on XDP or tc. */
#ifndef XF_ROUTE_H
#define XF_ROUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "addr.h"
#include "hook.h"
#include "nf.h"
#include "usage.h"
#include "xfwd_bpf.h"

struct xf_nl;
struct xf_gc_report;
struct xf_probe;

/* Bits 16-31 of xf_route_ifcfg.flags are userspace's; the programs ignore
 * them. AUTO: the hook was "auto". WANT_*: the families asked for, of which
 * XF_RTIF_INET/INET6 are what the kernel's sysctls allow now. */
#define XF_RTIF_AUTO (1U << 16)
#define XF_RTIF_WANT_INET (1U << 17)
#define XF_RTIF_WANT_INET6 (1U << 18)
/* Attached with "netfilter bypass": the operator knows (lib/route/netfilter.c). */
#define XF_RTIF_NF_BYPASS (1U << 19)
/* lookup flowtable: the member runs xf_route_flow (route_flow.bpf.c). */
#define XF_RTIF_FLOWTABLE (1U << 20)
/* Attached with "qdisc bypass": the operator knows that hook xdp skips the
 * set's egress queueing (lib/route/skips.c). */
#define XF_RTIF_QDISC_BYPASS (1U << 21)

/* On hook xdp, route is the member "route" of the interface's XDP chain,
 * with this run priority: after the members of libxdp's default (50), so
 * filters added to the chain see packets before the fast path forwards. */
#define XF_ROUTE_CHAIN_PRIO 1000
enum xf_xdp_attach { XF_MODE_AUTO, XF_MODE_NATIVE, XF_MODE_GENERIC };

/* The words of route attach's options, NULL-terminated, for the command
 * line and the saved state alike. Indexes: hook auto, xdp, tc (enum
 * xf_hook's order); mode native, generic; family all, inet, inet6; lookup
 * full, direct, flowtable; netfilter check, bypass. */
extern const char *const xf_route_hook_words[];
extern const char *const xf_route_mode_words[];
extern const char *const xf_route_family_words[];
extern const char *const xf_route_lookup_words[];
extern const char *const xf_route_netfilter_words[];
/* qdisc check, bypass. */
extern const char *const xf_route_qdisc_words[];

struct xf_route_attach_opts {
	enum xf_hook hook;
	enum xf_xdp_attach mode;
	uint32_t family;	/* XF_RTIF_INET | XF_RTIF_INET6 */
	bool direct;		/* BPF_FIB_LOOKUP_DIRECT */
	/* lookup flowtable: forward only flows in a netfilter flowtable
	 * (hook xdp only). Netfilter decides what is forwarded, so nothing
	 * is bypassed. */
	bool flowtable;
	bool force;		/* -force: attach despite a peer's checksum offload */
	bool nf_bypass;		/* netfilter bypass: attach where netfilter acts */
	/* qdisc bypass: hook xdp where the set's egress has queueing or tc
	 * egress programs of its own, which XDP's redirect skips. */
	bool qdisc_bypass;
};

/* What else than netfilter a member's forwarded packets would skip. */
enum xf_route_skip_kind {
	XF_SKIP_XFRM,		/* an IPsec policy, default policy or state */
	XF_SKIP_QDISC,		/* hook xdp: a qdisc that is not the default */
	XF_SKIP_TC_EGRESS,	/* hook xdp: a tc egress filter or program */
	XF_SKIP_TC_INGRESS,	/* hook xdp: a tc ingress filter or program */
};
struct xf_route_skip {
	enum xf_route_skip_kind kind;
	int ifindex;		/* the device it is on; 0 for xfrm */
	char dev[IF_NAMESIZE];	/* its name, "" for xfrm */
	char what[160];		/* "qdisc tbf 8001: root", "dir fwd ... block" */
	uint32_t prog_id;	/* a tcx program's, else 0 */
	bool acked;		/* the operator's "qdisc bypass" accepted it */
	bool passed;		/* the program passes what it would meet (xfrm,
				 * where the build reads the policy counts) */
};
#define XF_ROUTE_SKIP_MAX 8
/* "xfrm", "qdisc", "tc egress", "tc ingress". */
const char *xf_route_skip_kind_name(enum xf_route_skip_kind k);

/* A netfilter chain a member bypasses now, and whether the operator knew
 * of it: it was there, as it is, when the member was attached with
 * "netfilter bypass". */
#define XF_ROUTE_NF_MAX 8
struct xf_route_nf {
	struct xf_nf_chain c;
	bool acked;
};

/* One interface of the forwarding set, as the kernel has it now. */
struct xf_route_iface {
	int ifindex;
	char name[IF_NAMESIZE];	/* "" when the interface has gone or err */
	int err;		/* -errno: the interface could not be read */
	enum xf_hook hook;
	const char *mode;	/* "native", "generic" or "tcx" */
	const char *why;	/* why this hook (for hook auto) */
	char warning[192];	/* what may go wrong now, or "" */
	uint32_t flags;		/* XF_RTIF_* */
	uint32_t prog_id;
	uint32_t link_id;
	/* A VLAN device: its parent (which runs the program) and its tag. */
	struct {
		int parent;		/* 0: not a VLAN device */
		char parent_name[IF_NAMESIZE];	/* "" when it cannot be read */
		uint16_t id;
		bool ad;		/* 802.1ad, else 802.1Q */
	} vlan;
	struct xf_route_stat stat[XF_RR_MAX];
	/* The same per CPU: packets and bytes of reason r on cpu c at
	 * percpu[(r * ncpu + c) * 2 + {0,1}]; NULL when not read. Valid
	 * during the callback only. */
	const uint64_t *percpu;
	int ncpu;
	/* The netfilter chains this member bypasses now: nf[0..min(nnf,
	 * XF_ROUTE_NF_MAX)); nf_unread says what could not be read, or "". */
	struct xf_route_nf nf[XF_ROUTE_NF_MAX];
	int nnf;
	const char *nf_unread;
	/* The rest it skips now: skip[0..min(nskip, XF_ROUTE_SKIP_MAX)). */
	struct xf_route_skip skip[XF_ROUTE_SKIP_MAX];
	int nskip;
	const char *skip_unread;	/* what could not be read, or "" */
};
/* Zero the counters of ifindex (every reason, every CPU). 0/-errno. */
int xf_route_stats_reset(int ifindex);

/* Attach the fast path to n devices with one shared program instance.
 * All or nothing: on failure every device is as it was. Prints its own
 * Error line. 0/-errno (-XF_EUSAGE for a refusal the user can fix). */
int xf_route_attach(struct xf_nl *nl, const char *const *devs, int n,
		    const struct xf_route_attach_opts *o);
/* Detach from n devices (all: every member of this namespace, also of
 * interfaces that have gone). All or nothing. 0/-errno. */
int xf_route_detach(struct xf_nl *nl, const char *const *devs, int n, bool all);
/* Read again what the fast path decides by and can change under it
 * (rt_refresh(): the peers' XDP, rp_filter, forwarding and accept_local
 * sysctls, the namespace's addresses, the VLAN devices), as attach and
 * detach do, without touching a link. The routes are dumped (a walk as
 * long as the FIB) when walk, else only where the kernel's counters say
 * the tables' last dump no longer holds. 0 also when nothing is attached;
 * all or nothing; prints its own Error. */
int xf_route_refresh(bool walk);
/* Detach the members whose interface has gone, telling r of each (for
 * xfwd gc). All or nothing. 0/-errno. */
int xf_route_sweep(struct xf_nl *nl, const struct xf_gc_report *r);
/* Call cb for each attached interface (only ifindex when it is not 0). */
int xf_route_list(struct xf_nl *nl, int ifindex,
		  int (*cb)(const struct xf_route_iface *ri, void *arg), void *arg);
/* The same, then xf_route_nf_warn()'s Warning for the members listed, from
 * the same reading of netfilter and counters (route show). outside, when
 * not NULL, gets the counters of what ran the program on a device outside
 * the set (a VLAN device's parent that is no member, a detach under
 * traffic): outside[0..XF_RR_MAX), all zero when nothing is attached or
 * the counters cannot be read (the members say why). */
int xf_route_list_warn(struct xf_nl *nl, int ifindex,
		       int (*cb)(const struct xf_route_iface *ri, void *arg), void *arg,
		       struct xf_route_stat *outside);

/* lookup flowtable's probe for `feature show`'s xdp_flowtable: whether
 * route's flowtable program (route_flow.bpf.c) loads, which needs the
 * kfunc bpf_xdp_flow_lookup() of nf_flow_table (Linux 6.9). A "no" says
 * what is missing: the kernel has no NF_FLOW_TABLE, the module is not
 * loaded, or it has no such kfunc. Fills p; 0, or -errno when the probe
 * itself could not run (p then says so). */
int xf_route_probe_flowtable(struct xf_probe *p);

/* One Warning line on stderr naming the netfilter chains that members of
 * the set bypass without the operator's "netfilter bypass" (nothing when
 * there are none): for the commands that read state. */
void xf_route_nf_warn(struct xf_nl *nl);

/* route get: a synthetic packet run through the loaded program. */
struct xf_route_get_req {
	struct xf_addr dst, src;
	bool has_src;
	int iif;		/* 0: the only attached interface */
	uint32_t ttl;
	uint32_t len;		/* IP total length; 0: the smallest */
	uint8_t proto;		/* IPPROTO_UDP, _TCP, _ICMP (_ICMPV6) */
	uint16_t sport, dport;	/* UDP/TCP ports; 0: 40000, and 53 or 80 */
	bool has_vlan;		/* "vlan N": tagged N on iif (the parent) */
	uint16_t vlan;
};

struct xf_route_get_res {
	int iif;
	char iif_name[IF_NAMESIZE];
	enum xf_hook hook;
	uint32_t prog_id;
	struct xf_addr src;	/* the source address that was used */
	int verdict;		/* XDP_* or TC_ACT_* as returned */
	const char *verdict_name;
	struct xf_route_trace trace;
	char oif_name[IF_NAMESIZE];
	uint32_t ttl_out;	/* TTL/hop limit of the packet after the run */
	int neigh;		/* NUD state of the next hop's entry on oif now:
				 * 0 none, -1 no next hop or not read */
	/* Tagged runs: the tag, the parent it arrived on and the VLAN device
	 * of the set it mapped to ("" when none). */
	bool tagged;
	uint16_t vlan;
	char vlan_parent[IF_NAMESIZE];
	char vlan_dev[IF_NAMESIZE];
};

/* Run the request through the program attached on its iif. 0/-errno. */
int xf_route_get(struct xf_nl *nl, const struct xf_route_get_req *req,
		 struct xf_route_get_res *res);

#endif
