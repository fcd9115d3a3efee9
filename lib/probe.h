/* SPDX-License-Identifier: GPL-2.0 */
/* What this kernel can do: the probes every command consults before it
 * loads or attaches anything (an interface's answers: iface_probe.h). */
#ifndef XF_PROBE_H
#define XF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One probe's answer and why, in a few words. Plain data (no pointers), so
 * that a child process can send it back through a pipe. */
struct xf_probe {
	bool yes;
	int err;		/* the -errno behind a "no", else 0 */
	char why[112];
};

/* Groups of probes for xf_probe_kernel(); each costs a few program loads,
 * XF_PROBE_ATTACH a fork into a throwaway network namespace. */
enum {
	XF_PROBE_JIT = 1 << 0,		/* jit */
	XF_PROBE_HELPERS = 1 << 1,	/* fib_lookup, redirect* , clone_redirect */
	XF_PROBE_FIB_FLAGS = 1 << 2,	/* fib_* */
	XF_PROBE_PEER_EGRESS = 1 << 3,	/* peer_egress */
	XF_PROBE_ATTACH = 1 << 4,	/* xdp_link, tcx, cls_bpf, netkit, vlan */
	XF_PROBE_FREPLACE = 1 << 5,	/* freplace */
	XF_PROBE_TRACING = 1 << 6,	/* xdp_tracepoints */
	XF_PROBE_KCTX = 1 << 7,		/* kern_ctx */
	XF_PROBE_ALL = (1 << 8) - 1,
};

struct xf_kernel_features {
	struct xf_probe jit;		/* programs are JIT-compiled */
	struct xf_probe xdp_link;	/* XDP through bpf_link (atomic update) */
	struct xf_probe tcx;		/* tcx links (6.6+) */
	struct xf_probe cls_bpf;	/* clsact qdisc + cls_bpf direct-action */
	struct xf_probe netkit;		/* netkit devices can be created */
	struct xf_probe vlan;		/* 802.1Q devices can be created */
	struct xf_probe freplace;	/* BPF_PROG_TYPE_EXT loads and attaches */
	struct xf_probe fib_lookup;	/* bpf_fib_lookup() from XDP and tc */
	struct xf_probe fib_direct;	/* BPF_FIB_LOOKUP_* flags it accepts */
	struct xf_probe fib_output;
	struct xf_probe fib_skip_neigh;
	struct xf_probe fib_tbid;
	struct xf_probe fib_src;
	struct xf_probe fib_mark;
	struct xf_probe redirect;	/* bpf_redirect() from tc */
	struct xf_probe redirect_map;	/* bpf_redirect_map() from XDP */
	struct xf_probe redirect_peer;	/* bpf_redirect_peer() from tc */
	struct xf_probe redirect_neigh;	/* bpf_redirect_neigh() from tc */
	struct xf_probe clone_redirect;	/* bpf_clone_redirect() from tc */
	struct xf_probe peer_egress;	/* bpf_redirect_peer(.., BPF_F_EGRESS) */
	struct xf_probe xdp_flowtable;	/* bpf_xdp_flow_lookup() (6.9, nf_flow_table):
					 * xf_route_probe_flowtable() (route.h) */
	struct xf_probe xdp_tracepoints; /* tracing programs on xdp:xdp_redirect_err
					  * and xdp:xdp_exception */
	struct xf_probe kern_ctx;	/* route's build that reads kernel state */
};

/* Run the probes in what (XF_PROBE_*); the others, and xdp_flowtable
 * (route's to answer), read "not probed". A
 * probe that cannot run says no with its reason. 0, or -errno when kf was
 * not filled at all. */
int xf_probe_kernel(struct xf_kernel_features *kf, unsigned int what);
/* The i-th probe of kf and its stable snake_case key (also the JSON key),
 * in the order `feature show` prints them; NULL past the last. */
const struct xf_probe *xf_probe_kernel_at(const struct xf_kernel_features *kf, int i,
					  const char **key);

/* Two of the probes behind xf_probe_kernel(), which other commands ask
 * alone; each fills its answer and returns 0, or -errno when the probe
 * itself could not run (the answer is then a "no" saying so). */
int xf_probe_peer_egress(struct xf_probe *p);
/* bpf_cast_to_kern_ctx() (6.2), and CAP_PERFMON or CAP_SYS_ADMIN to read
 * what it reaches: yes when route loads its build that reads kernel state
 * (lib/route/inst.c), which spares the second lookups the other makes. */
int xf_probe_kern_ctx(struct xf_probe *p);

/* Whether this kernel has tcx (Linux 6.6): one cheap query on ifindex,
 * which an older kernel refuses with EINVAL for the unknown attach type. */
bool xf_tcx_available(int ifindex);
/* Whether this kernel reports devices' XDP features (the netdev genetlink
 * family, Linux 6.3). Before, bpf_xdp_query() gives 0 for every device:
 * "unknown", not "nothing". */
bool xf_xdp_features_reported(void);

/* Fill p: yes, the -errno behind a "no" (or 0), and why from fmt, to which
 * a "no" with an errno gets ": ENAME" appended. For every probe, here and
 * in the wings. */
__attribute__((format(printf, 4, 5)))
void xf_probe_set(struct xf_probe *p, bool yes, int err, const char *fmt, ...);

#endif
