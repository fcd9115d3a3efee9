/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the route wing: what its files give each other, file by file.
 *
 * The files call each other in layers, each only into lower ones, so
 * their calls form a DAG (test/layers.bats checks it with scripts/layers,
 * from the object files' symbols, against the lines below):
 *   0: inst.c link.c sysctl.c features.c flowtable.c offload.c netfilter.c
 *   1: vlan.c join.c fast.c get.c skips.c
 *   2: show.c
 *   3: ifcfg.c
 *   4: bond.c
 *   5: refresh.c
 *   6: attach.c detach.c
 * inst.c the instance: its maps and programs, the object it loads, the
 *	counters' slots.
 * link.c the members' link pins, and where a link runs (a VLAN device's
 *	on its parent).
 * sysctl.c the forwarding, rp_filter and accept_local sysctls.
 * features.c a device's XDP features and the hook "auto" picks.
 * flowtable.c whether lookup flowtable can run (also `feature`'s probe).
 * offload.c a veth or netkit peer's tx checksum and tx-vlan offloads.
 * netfilter.c the netfilter chains the fast path bypasses.
 * vlan.c the VLAN map, xf_rt_vlan, and its copy xf_rt_vlc.
 * join.c route as the member "route" of an interface's XDP chain.
 * fast.c the fast path's shortcuts and the namespace's address tables.
 * get.c route get; show.c route show and stats reset.
 * skips.c what else than netfilter the fast path would skip: xfrm, and
 *	on hook xdp egress queueing and tc ingress.
 * ifcfg.c a member's xf_rt_ifcfg entry and its copies.
 * bond.c the entries of a natively attached bond's slaves.
 * refresh.c rt_refresh() and route refresh.
 * attach.c route attach; detach.c route detach and gc's sweep. */
#ifndef XF_ROUTE_INTERNAL_H
#define XF_ROUTE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "inst.h"
#include "route/route.h"

struct xf_chain_keep;
struct xf_link;

#define RT_PATH_MAX 256
#define RT_MAX_PINNED (XF_RT_MAX_IF + 1)
/* Devices in one attach or detach command. */
#define RT_MAX_DEVS 64

/* The instance's programs and maps: fd[] of its struct xf_inst. */
enum { RT_PROG_TC, RT_MAP_TX, RT_MAP_IFCFG, RT_MAP_STATS, RT_MAP_TRACE,
       RT_MAP_LOCAL, RT_MAP_IFC, RT_PROG_GENID, RT_MAP_SRC4, RT_MAP_VLAN,
       RT_MAP_LOC6, RT_MAP_VLC, RT_MAP_NBR, RT_NFDS };

/* inst.c: the instance. */
/* The namespace's one route instance, pinned as XF_PIN_ROOT/ns<id>/route/. */
extern const struct xf_inst_desc rt_inst_desc;
/* The route object this kernel and these capabilities allow: the build
 * with XF_KCTX (bpf/route_kctx.h) where bpf_cast_to_kern_ctx() exists and
 * CAP_PERFMON (or CAP_SYS_ADMIN) lets it read kernel memory, else the
 * plain one. As a skeleton's name__elf_bytes(). */
const void *rt_elf(size_t *size);
/* Add xf_route_tc to the open instance in, unless it has it: what an
 * attach on hook tc needs first (xf_inst_add; xf_inst_drop_added() takes
 * it back), from the build the instance's other programs are of (kctx:
 * rt_inst_kctx()), whatever this command's capabilities would choose.
 * Prints its own Error. 0/-errno. */
int rt_inst_tc(struct xf_inst *in, bool kctx);
/* Zero the counters of a member's slot: every reason's, on every CPU, in
 * one call (a new member starts from nothing; stats reset). 0/-errno. */
int rt_slot_zero(struct xf_inst *in, uint32_t slot);
/* The id of the instance's pinned tc program (xf_route_tc), 0 when there
 * is none or it cannot be read. */
uint32_t rt_prog_tc_id(void);

/* link.c: the link pins, and where a link runs. */
/* XF_PIN_ROOT/ns<id>/<ifindex>/route into buf. 0/-errno. */
int rt_link_pin_path(char *buf, size_t len, int ifindex);
/* The pinned link of ifindex as an fd, or -ENOENT. */
int rt_link_open(int ifindex);
/* Every ifindex with a route link pin in this namespace, also of interfaces
 * that have gone, sorted. Returns the count. */
int rt_pinned_ifindexes(int *out, int max);
/* The route link that runs on carrier (pinned for any member, tcx or
 * XDP), as an fd the caller closes, or -ENOENT. */
int rt_carrier_link(int carrier);
/* The ifindex the route link fd runs on (tcx or XDP), or 0. */
int rt_link_carrier(int fd);
/* Whether a member other than except pins a route link running on
 * carrier. */
bool rt_carrier_others(int carrier, int except);
/* Where XDP sends for member ifindex (xf_tx_ports' value): the parent of
 * a VLAN device, which gets XF_RTIF_VLAN in *flags, else ifindex itself
 * (XF_RTIF_VLAN cleared). Reads the member's link pin. */
uint32_t rt_xdp_target(int ifindex, uint32_t *flags);
/* The route link fd is an XDP link. */
bool rt_on_xdp_link(int fd);
/* The parent a member's link runs on when that is not the member itself
 * (a VLAN device), else 0. */
int rt_vlan_parent(int ifindex);

/* sysctl.c: the kernel's sysctls behind a member's flags. */
/* Set XF_RTIF_INET/INET6 from XF_RTIF_WANT_* and the forwarding sysctls. */
void rt_family_flags(uint32_t *flags);

/* features.c: a device's XDP features and the hook "auto" picks. */
/* The XDP features the driver of ifindex reports (0: none, or unknown). */
uint64_t rt_xdp_features(int ifindex);
/* XF_RTIF_XDP_XMIT and XF_RTIF_XMIT_SG for the frames redirected by XDP into
 * ifindex that are delivered, not dropped: single-buffer ones, and
 * multi-buffer ones; reported is xf_xdp_features_reported(). */
uint32_t rt_xdp_xmit_flags(int ifindex, uint32_t cfl, bool reported);
bool rt_l3_dev(const struct xf_link *l);
/* The hook "auto" picks for a device of this kind and XDP features, and why. */
const char *rt_hook_why(const struct xf_link *l, uint64_t features, enum xf_hook *hook);

/* flowtable.c: lookup flowtable's check. */
/* lookup flowtable: refuse (Error line, -EOPNOTSUPP) where the kernel
 * cannot run it. */
int rt_check_flowtable(void);

/* offload.c: a veth or netkit peer's tx offloads that XDP cannot see. */
/* hook xdp on a veth or netkit whose peer has tx checksum or tx-vlan
 * offload on (or cannot be read) is refused unless force: prints the
 * Error. 0/-errno. */
int rt_check_peer_offload(struct xf_nl *nl, const char *dev, const struct xf_link *l, bool force);
/* The warning "route show" gives for such a peer into buf, or NULL. */
/* The devices whose master is bond (its slaves, a bridge's ports), at
 * most max of them into out: how many there are, or -errno. */
int rt_slaves(struct xf_nl *nl, int bond, int *out, int max);
/* l hands what it receives to a master first: a bridge's port (port
 * state, VLAN filtering, locked ports, br_netfilter, learning), a bond's
 * or team's slave (the active slave, LACP), an Open vSwitch port. The fast
 * path on l would run before all of that. Returns what l is to its master
 * ("a port of bridge"), the master in m; NULL for any other device (a
 * VRF's slave too). */
const char *rt_port_of(struct xf_nl *nl, const struct xf_link *l, struct xf_link *m);
const char *rt_peer_offload_warning(struct xf_nl *nl, const struct xf_link *l, char *buf,
				    size_t len);

/* netfilter.c: netfilter and the fast path. */
/* The hooks a member skips on
 * either hook: all of the forwarding path's (test/netfilter.bats shows
 * it; tc's redirect skips netdev egress too, as the kernel marks a packet
 * that tc ingress redirects with nf_skip_egress). */
#define RT_NF_SKIPS (XF_NF_BIT(XF_NF_INGRESS) | XF_NF_BIT(XF_NF_PREROUTING) | \
		     XF_NF_BIT(XF_NF_FORWARD) | XF_NF_BIT(XF_NF_POSTROUTING) | \
		     XF_NF_BIT(XF_NF_EGRESS))
/* XF_RUN_ROOT/ns<id>/<ifindex>/route-netfilter: the chains the operator
 * accepted to bypass with "netfilter bypass", one key per line. */
#define RT_NF_RUN "route-netfilter"
/* The families (XF_NF_INET, XF_NF_INET6 of nf.h) that a member with
 * these XF_RTIF_* flags forwards, or a command with these families. */
uint32_t rt_nf_families(uint32_t rtif_flags);
/* route attach without "netfilter bypass": refuse with one Error line
 * naming what devs[0..n) would bypass, if anything. 0/-EPERM/-errno. */
int rt_nf_refuse(const char *const *devs, int n, uint32_t rtif_flags);
/* Remember what member ifindex (dev) bypasses now, as the operator's
 * "netfilter bypass" accepted it. 0/-errno. */
int rt_nf_ack(int ifindex, const char *dev, uint32_t rtif_flags);
/* Fill ri->nf, nnf and nf_unread from the scan s. */
void rt_nf_member(const struct xf_nf_set *s, struct xf_route_iface *ri);

/* skips.c: xfrm, egress queueing and tc ingress, which the fast path
 * skips. Each appends what it finds to out[*n..max), counting in *n also
 * what does not fit; the tc ones return 0, or -errno where the kernel
 * would not tell (-EPERM without CAP_NET_ADMIN). */
struct xf_xfrm_set;
/* What a packet redirected by XDP into ifindex skips of its egress: the
 * qdiscs that are not the kernel's defaults and the tc egress filters and
 * programs, of ifindex and, for a VLAN device, of its parent. */
int rt_skip_egress(struct xf_nl *nl, int ifindex, struct xf_route_skip *out, int max, int *n);
/* The tc ingress filters and tcx programs of carrier but the program
 * except (route's own on hook tc): XDP runs before them all, and a packet
 * route redirects from tcx never reaches the filters after it. */
int rt_skip_ingress(struct xf_nl *nl, int carrier, uint32_t except, struct xf_route_skip *out,
		    int max, int *n);
/* The xfrm state of x that forwarded traffic of a member with these
 * XF_RTIF_* flags would meet. */
void rt_skip_xfrm(const struct xf_xfrm_set *x, uint32_t rtif_flags, struct xf_route_skip *out,
		  int max, int *n);
/* "qdisc tbf 8001: root on veth2", "xfrm dir fwd ... block". */
const char *rt_skip_describe(const struct xf_route_skip *s, char *buf, size_t len);
/* Append s[0..n)'s descriptions not in line yet to line ("; " between),
 * counting each in *named, of which only the first few are written. */
void rt_skip_line(char *line, size_t len, const struct xf_route_skip *s, int n, int *named);
/* The Warning of xf_route_list: what members skip (netfilter too) that
 * the operator did not accept and the program does not pass, gathered
 * over the members, printed once. */
struct rt_skip_warn {
	char what[640];
	char devs[160];
	int n;
	bool nf, qdisc;		/* "netfilter bypass", "qdisc bypass" would
				 * accept some */
};
void rt_skip_warn_add(struct rt_skip_warn *w, const struct xf_route_iface *ri);
void rt_skip_warn_print(const struct rt_skip_warn *w);

/* vlan.c: the VLAN map, xf_rt_vlan, and its copy xf_rt_vlc. */
/* Whether the instance's programs read kernel state (the XF_KCTX build:
 * its xf_route_genid reads the namespace's rt_genid). */
bool rt_inst_kctx(struct xf_inst *in);
/* Rewrite xf_rt_vlan from the kernel's view of members[0..n): only what
 * is exact now is left in it (nl NULL: nothing). 0/-errno. */
int rt_vlan_sync(struct xf_nl *nl, struct xf_inst *in, const uint32_t *members, int n);
/* Put cfg (NULL: zeros, which pass) into the copy of ifindex's
 * xf_rt_ifcfg entry that xf_rt_vlan's IN entry for it carries, if it has
 * one (struct xf_route_vlan). 0/-errno. */
int rt_vlan_cfg(struct xf_inst *in, uint32_t ifindex, const struct xf_route_ifcfg *cfg);

/* join.c: route in an interface's XDP chain. */
/* Join the XDP chain of l (the device as this command read it, not read
 * again) as the member "route" (a new chain in xdp_flags' mode), running
 * xf_route_flow (route_flow.bpf.c) when flowtable, else xf_route_xdp: the
 * chain's link fd, or -errno. keep (or NULL) shares xf_route_xdp's
 * object, and its bytes, with the command's other joins. */
int rt_chain_join(struct xf_nl *nl, const struct xf_link *l, uint32_t xdp_flags, bool flowtable,
		  struct xf_chain_keep *keep);
/* The route member's object for one command's chain builds, loaded by the
 * first of them (its bytes chosen by the first rt_chain_join()).
 * xf_chain_keep_close() at the end. */
void rt_chain_keep(struct xf_chain_keep *k);

/* fast.c: the fast path's shortcuts, read at attach and on every refresh. */
struct rt_fast {
	struct xf_nl *nl;	/* NULL: no shortcut is granted */
	bool walk;		/* dump the routes even where the kernel's
				 * counters say the last dump still holds */
};
/* Start a refresh: open what the checks need. walk: see struct rt_fast. */
void rt_fast_begin(struct rt_fast *f, bool walk);
/* Set (or clear) XF_RTIF_PEER and peer_mac of ifindex's cfg. */
void rt_fast_peer(struct rt_fast *f, int ifindex, struct xf_route_ifcfg *cfg);
/* Write this namespace's addresses into xf_rt_local and xf_rt_src4, its
 * IPv6 local table into xf_rt_loc6, and close. 0/-errno. */
int rt_fast_end(struct rt_fast *f, struct xf_inst *in);

/* ifcfg.c: a member's configuration entry and its copies. */
/* Write (or delete) ifindex's xf_rt_ifcfg entry and its copies: the
 * direct-mapped one in xf_rt_ifc, and a VLAN device's in its tag's
 * xf_rt_vlan entry (rt_vlan_cfg), in the order that keeps them exact (see
 * xfwd_bpf.h). flags as for bpf_map_update_elem(). 0/-errno (errno set). */
int rt_ifcfg_put(struct xf_inst *in, uint32_t ifindex, const struct xf_route_ifcfg *cfg,
		 uint64_t flags);
int rt_ifcfg_del(struct xf_inst *in, uint32_t ifindex);
/* xf_rt_ifcfg's keys (members and slaves), at most max, into keys: all
 * read before the caller writes, as an update or delete while walking a
 * hash map may walk in circles or start again. The count, or -errno. */
int rt_ifcfg_keys(struct xf_inst *in, uint32_t *keys, int max);

/* bond.c: the entries of a member bond's slaves on hook xdp mode native
 * (XF_RTIF_SLAVE in xfwd_bpf.h). */
/* At most this many slaves of one bond get an entry; the frames of the
 * others are passed (not_in_set). */
#define RT_BOND_SLAVES 16
/* Whether ifindex runs the program natively on its slaves: a bond whose
 * XDP link is in driver mode. */
bool rt_bond_native(struct xf_nl *nl, int ifindex);
/* Give the slaves of every such bond among keys[0..n) (xf_rt_ifcfg's
 * keys, members and slaves) an entry, and delete the entries of devices
 * that are no such slave any more. 0/-errno. */
int rt_bond_sync(struct xf_nl *nl, struct xf_inst *in, const uint32_t *keys, int n);
/* Delete the slaves' entries whose bond has none: after members went
 * (detach, an attach taken back). 0/-errno. */
int rt_bond_prune(struct xf_inst *in);

/* refresh.c: the members' flags and tables read again. */
/* Re-read what can change under the members (their XDP redirect targets,
 * rp_filter, the forwarding and accept_local sysctls, the fast path's
 * shortcuts and tables, the VLAN map) and rewrite their entries. The
 * routes are dumped (every table: a walk as long as the FIB) only when
 * walk, or when the kernel's counters moved since the dump the tables
 * hold (rt_fast_end). 0/-errno. */
int rt_refresh(struct xf_inst *in, bool walk);

#endif
