// SPDX-License-Identifier: GPL-2.0
/* Kernel feature probes: every answer comes from trying the thing (a load,
 * an attach in a throwaway namespace, a BPF_PROG_RUN), never from the
 * kernel's version number. An interface's answers are iface_probe.c's;
 * route's lookup flowtable is probed in lib/route/flowtable.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "xfwd_compat.h"
#include "nl.h"
#include "nl_link.h"
#include "nl_tc.h"
#include "caps.h"
#include "kbtf.h"
#include "netns_run.h"
#include "probe.h"
#include "probe.skel.h"
#include "probe_ext.skel.h"

#define TC_ACT_REDIRECT_VAL 7	/* TC_ACT_REDIRECT */
#define TC_ACT_SHOT_VAL 2	/* TC_ACT_SHOT */

static const char *errno_name(int err)
{
	const char *s = strerrorname_np(err < 0 ? -err : err);

	return s ? s : "unknown error";
}

void xf_probe_set(struct xf_probe *p, bool yes, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	p->yes = yes;
	p->err = err;
	va_start(ap, fmt);
	n = vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	/* "... : EPERM" closes every "no" that has an errno behind it. */
	if (err && n >= 0 && (size_t)n < sizeof(p->why))
		snprintf(p->why + n, sizeof(p->why) - n, ": %s", errno_name(err));
}

/* Load probe.bpf.c with only the programs named name and name2 (or NULL),
 * so that a helper this kernel lacks fails only the probe that needs it. */
static int probe_skel_load(struct probe_bpf **out, const char *name, const char *name2)
{
	struct bpf_program *prog;
	struct probe_bpf *skel;
	int err;

	skel = probe_bpf__open();
	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj) {
		const char *n = bpf_program__name(prog);

		bpf_program__set_autoload(prog, !strcmp(n, name) ||
					  (name2 && !strcmp(n, name2)));
	}
	err = probe_bpf__load(skel);
	if (err) {
		probe_bpf__destroy(skel);
		return err < 0 ? err : -EINVAL;
	}
	*out = skel;
	return 0;
}

/* One BPF_PROG_RUN on a zeroed 64-byte frame; the program's return in *ret. */
static int probe_prog_run(struct bpf_program *prog, uint32_t *ret)
{
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = pkt,
		.data_size_in = sizeof(pkt),
		.repeat = 1,
	);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (err)
		return -errno;
	*ret = opts.retval;
	return 0;
}

static int xf_probe_jit(struct xf_probe *p)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	struct probe_bpf *skel;
	char sysctl[16] = "";
	FILE *f;
	int err;

	/* The sysctl exists only in the initial namespace's view of /proc/sys,
	 * so the answer comes from a loaded program; the sysctl is detail. */
	f = fopen("/proc/sys/net/core/bpf_jit_enable", "re");
	if (f) {
		if (fscanf(f, "%15s", sysctl) != 1)
			sysctl[0] = '\0';
		fclose(f);
	}
	err = probe_skel_load(&skel, "xf_xdp_pass", NULL);
	if (err) {
		xf_probe_set(p, false, err, "cannot load a probe program");
		return err;
	}
	err = bpf_prog_get_info_by_fd(bpf_program__fd(skel->progs.xf_xdp_pass), &info, &len);
	probe_bpf__destroy(skel);
	if (err) {
		xf_probe_set(p, false, err, "cannot read program info");
		return err;
	}
	if (info.jited_prog_len)
		xf_probe_set(p, true, 0, "programs are JIT-compiled%s%s", *sysctl ?
			  ", bpf_jit_enable=" : "", sysctl);
	else
		xf_probe_set(p, false, 0, "programs are interpreted%s%s", *sysctl ?
			  ", bpf_jit_enable=" : "", sysctl);
	return 0;
}

/* One helper for one program type, the way the verifier answers it. */
static void probe_helper(struct xf_probe *p, enum bpf_prog_type type, const char *tname,
			 enum bpf_func_id id, const char *fname)
{
	int ret = libbpf_probe_bpf_helper(type, id, NULL);

	if (ret > 0)
		xf_probe_set(p, true, 0, "%s() available to %s programs", fname, tname);
	else if (ret == 0)
		xf_probe_set(p, false, 0, "%s() unknown to %s programs", fname, tname);
	else
		xf_probe_set(p, false, ret, "cannot probe %s() for %s programs", fname, tname);
}

static int xf_probe_helpers(struct xf_kernel_features *kf)
{
	const enum bpf_prog_type tc = BPF_PROG_TYPE_SCHED_CLS, xdp = BPF_PROG_TYPE_XDP;
	struct probe_bpf *skel;
	struct xf_probe tc_fib;
	int err;

	/* libbpf counts a load that fails for any reason other than the
	 * helper as "supported"; first make sure anything loads at all. */
	err = probe_skel_load(&skel, "xf_tc_pass", NULL);
	if (err) {
		xf_probe_set(&kf->fib_lookup, false, err, "cannot load a probe program");
		kf->redirect = kf->redirect_map = kf->redirect_peer = kf->fib_lookup;
		kf->redirect_neigh = kf->clone_redirect = kf->fib_lookup;
		return err;
	}
	probe_bpf__destroy(skel);
	/* The route fast path looks up from both hooks: it needs both. */
	probe_helper(&kf->fib_lookup, xdp, "XDP", BPF_FUNC_fib_lookup, "bpf_fib_lookup");
	probe_helper(&tc_fib, tc, "tc", BPF_FUNC_fib_lookup, "bpf_fib_lookup");
	if (kf->fib_lookup.yes && tc_fib.yes)
		xf_probe_set(&kf->fib_lookup, true, 0,
			  "bpf_fib_lookup() available to XDP and tc programs");
	else if (kf->fib_lookup.yes)
		kf->fib_lookup = tc_fib;
	probe_helper(&kf->redirect, tc, "tc", BPF_FUNC_redirect, "bpf_redirect");
	probe_helper(&kf->redirect_map, xdp, "XDP", BPF_FUNC_redirect_map, "bpf_redirect_map");
	probe_helper(&kf->redirect_peer, tc, "tc", BPF_FUNC_redirect_peer, "bpf_redirect_peer");
	probe_helper(&kf->redirect_neigh, tc, "tc", BPF_FUNC_redirect_neigh,
		     "bpf_redirect_neigh");
	probe_helper(&kf->clone_redirect, tc, "tc", BPF_FUNC_clone_redirect,
		     "bpf_clone_redirect");
	return 0;
}

static int xf_probe_fib_flags(struct xf_kernel_features *kf)
{
	static const struct {
		size_t off;
		uint32_t flag;
		const char *name;
	} flags[] = {
		{ offsetof(struct xf_kernel_features, fib_direct), 1U << 0, "DIRECT" },
		{ offsetof(struct xf_kernel_features, fib_output), 1U << 1, "OUTPUT" },
		{ offsetof(struct xf_kernel_features, fib_skip_neigh), 1U << 2, "SKIP_NEIGH" },
		{ offsetof(struct xf_kernel_features, fib_tbid), 1U << 3, "TBID" },
		{ offsetof(struct xf_kernel_features, fib_src), 1U << 4, "SRC" },
		{ offsetof(struct xf_kernel_features, fib_mark), 1U << 5, "MARK" },
	};
	struct probe_bpf *skel = NULL;
	struct xf_probe *p;
	uint32_t ret;
	size_t i;
	int err, run;

	err = probe_skel_load(&skel, "xf_fib", NULL);
	if (!err) {
		/* Without flags the lookup must not say -EINVAL, or no answer
		 * below would mean anything. */
		skel->bss->xf_fib_flags = 0;
		err = probe_prog_run(skel->progs.xf_fib, &ret);
		if (!err && skel->bss->xf_fib_rc == -EINVAL)
			err = -EINVAL;
	}
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		p = (struct xf_probe *)((char *)kf + flags[i].off);
		if (err) {
			xf_probe_set(p, false, err, "cannot run the bpf_fib_lookup() probe");
			continue;
		}
		skel->bss->xf_fib_flags = flags[i].flag;
		if ((run = probe_prog_run(skel->progs.xf_fib, &ret)))
			xf_probe_set(p, false, run, "BPF_PROG_RUN failed");
		else if (skel->bss->xf_fib_rc == -EINVAL)
			xf_probe_set(p, false, -EINVAL, "BPF_FIB_LOOKUP_%s refused", flags[i].name);
		else
			xf_probe_set(p, true, 0, "BPF_FIB_LOOKUP_%s accepted", flags[i].name);
	}
	probe_bpf__destroy(skel);
	return err;
}

int xf_probe_peer_egress(struct xf_probe *p)
{
	struct probe_bpf *skel;
	uint32_t ret;
	int err;

	err = probe_skel_load(&skel, "xf_peer_egress", NULL);
	if (err) {
		xf_probe_set(p, false, err, "cannot load a bpf_redirect_peer() program");
		return err;
	}
	/* The helper without flags must redirect, or the kernel's answer to
	 * the flag would prove nothing. */
	skel->data->xf_peer_flags = 0;
	err = probe_prog_run(skel->progs.xf_peer_egress, &ret);
	if (err) {
		xf_probe_set(p, false, err, "BPF_PROG_RUN failed");
		goto out;
	}
	if (ret != TC_ACT_REDIRECT_VAL) {
		xf_probe_set(p, false, 0, "bpf_redirect_peer() without flags returned %u", ret);
		goto out;
	}
	skel->data->xf_peer_flags = BPF_F_EGRESS;
	err = probe_prog_run(skel->progs.xf_peer_egress, &ret);
	if (err)
		xf_probe_set(p, false, err, "BPF_PROG_RUN failed");
	else if (ret == TC_ACT_REDIRECT_VAL)
		xf_probe_set(p, true, 0, "bpf_redirect_peer(BPF_F_EGRESS) redirects");
	else if (ret == TC_ACT_SHOT_VAL)
		xf_probe_set(p, false, 0, "kernel lacks BPF_F_EGRESS: bpf_redirect_peer() "
			  "returns TC_ACT_SHOT, the packet would be dropped");
	else
		xf_probe_set(p, false, 0, "bpf_redirect_peer(BPF_F_EGRESS) returned %u", ret);
out:
	probe_bpf__destroy(skel);
	return err;
}

static int xf_probe_freplace(struct xf_probe *p)
{
	struct probe_ext_bpf *ext = NULL;
	struct probe_bpf *skel;
	struct bpf_link *link;
	int err, fd;

	err = probe_skel_load(&skel, "xf_fr_target", NULL);
	if (err) {
		xf_probe_set(p, false, err, "cannot load the target program");
		return err;
	}
	fd = bpf_program__fd(skel->progs.xf_fr_target);
	ext = probe_ext_bpf__open();
	if (!ext) {
		err = -errno;
		xf_probe_set(p, false, err, "cannot open the extension program");
		goto out;
	}
	err = bpf_program__set_attach_target(ext->progs.xf_fr_repl, fd, "xf_fr_func");
	if (!err)
		err = probe_ext_bpf__load(ext);
	if (err) {
		/* As root, EPERM here is the kernel's policy, not ours. */
		xf_probe_set(p, false, err, "BPF_PROG_TYPE_EXT load refused%s",
			  err == -EPERM && !geteuid() ?
			  " (kernel lockdown or an LSM)" : "");
		err = 0;
		goto out;
	}
	link = bpf_program__attach_freplace(ext->progs.xf_fr_repl, fd, "xf_fr_func");
	if (!link) {
		xf_probe_set(p, false, -errno, "extension loads, attaching it fails");
		goto out;
	}
	bpf_link__destroy(link);
	xf_probe_set(p, true, 0, "an extension program loads and replaces a function");
out:
	probe_ext_bpf__destroy(ext);
	probe_bpf__destroy(skel);
	return err;
}

/* ---- probes in a throwaway network namespace ---- */

struct attach_res {
	struct xf_probe xdp_link, tcx, cls_bpf, netkit, vlan;
};

static void attach_all_no(struct attach_res *r, int err, const char *what)
{
	xf_probe_set(&r->xdp_link, false, err, "%s", what);
	r->tcx = r->cls_bpf = r->netkit = r->vlan = r->xdp_link;
}

/* The answer of an attach that returned fd (or -1 and errno). */
static void attach_answer(struct xf_probe *p, int fd, const char *what)
{
	if (fd < 0)
		xf_probe_set(p, false, -errno, "%s", what);
	else
		xf_probe_set(p, true, 0, "%s works on a veth", what);
}

/* XDP link and tcx on if0; clsact and cls_bpf on if1. */
static void attach_links(struct attach_res *r, struct xf_nl *nl, struct probe_bpf *skel,
			 int if0, int if1)
{
	int xdp = bpf_program__fd(skel->progs.xf_xdp_pass);
	int tc = bpf_program__fd(skel->progs.xf_tc_pass);
	int err;

	attach_answer(&r->xdp_link, bpf_link_create(xdp, if0, BPF_XDP, NULL),
		      "bpf_link_create(BPF_XDP)");
	/* The same question route and redirect ask before they choose a
	 * hook, then the link itself. */
	if (!xf_tcx_available(if0))
		xf_probe_set(&r->tcx, false, -EINVAL, "no BPF_TCX_INGRESS attach type");
	else
		attach_answer(&r->tcx, bpf_link_create(tc, if0, (enum bpf_attach_type)
						       XF_BPF_TCX_INGRESS, NULL),
			      "bpf_link_create(BPF_TCX_INGRESS)");
	err = xf_tc_clsact_add(nl, if1);
	if (err)
		xf_probe_set(&r->cls_bpf, false, err, "cannot add a clsact qdisc");
	else if ((err = xf_tc_bpf_add(nl, if1, true, tc, "xf_tc_pass")))
		xf_probe_set(&r->cls_bpf, false, err, "cannot add a cls_bpf filter");
	else
		xf_probe_set(&r->cls_bpf, true, 0, "clsact qdisc and cls_bpf direct-action filter");
}

/* In the child: a scratch veth xf0 <-> xf1 for the attach probes, then a
 * netkit pair. Nothing is cleaned up: the namespace dies with the child. */
static int attach_child(void *arg __attribute__((unused)), void *res,
			size_t len __attribute__((unused)))
{
	struct probe_bpf *skel = NULL;
	struct attach_res *r = res;
	struct xf_nl *nl;
	int err, if0, if1;

	err = xf_nl_open(&nl, NETLINK_ROUTE);
	if (err) {
		attach_all_no(r, err, "no netlink socket");
		return 0;
	}
	err = xf_link_add_veth(nl, "xf0", "xf1");
	if0 = if_nametoindex("xf0");
	if1 = if_nametoindex("xf1");
	if (err || !if0 || !if1)
		attach_all_no(r, err ? err : -ENODEV, "cannot create a scratch veth");
	else if ((err = probe_skel_load(&skel, "xf_xdp_pass", "xf_tc_pass")))
		attach_all_no(r, err, "cannot load the probe programs");
	else
		attach_links(r, nl, skel, if0, if1);
	probe_bpf__destroy(skel);

	err = xf_link_add_netkit(nl, "xfnk0");
	if (!err)
		xf_probe_set(&r->netkit, true, 0, "a netkit pair can be created");
	else if (err == -EOPNOTSUPP)
		xf_probe_set(&r->netkit, false, err, "no netkit device type in this kernel");
	else
		xf_probe_set(&r->netkit, false, err, "cannot create a netkit pair");
	/* The kernel loads 8021q for the link type if it can. */
	err = if0 ? xf_link_add_vlan(nl, "xf0.7", if0, 7) : -ENODEV;
	if (!err)
		xf_probe_set(&r->vlan, true, 0, "an 802.1Q device can be created on a veth");
	else if (err == -EOPNOTSUPP)
		xf_probe_set(&r->vlan, false, err, "no vlan device type in this kernel "
			  "(802.1Q: CONFIG_VLAN_8021Q, module 8021q)");
	else
		xf_probe_set(&r->vlan, false, err, "cannot create an 802.1Q device");
	xf_nl_close(nl);
	return 0;
}

/* xdp_link, tcx, cls_bpf, netkit and vlan, tried on scratch devices in a
 * child process inside a new network namespace. */
static int xf_probe_attach(struct xf_kernel_features *kf)
{
	struct attach_res r;
	int err;

	memset(&r, 0, sizeof(r));
	err = xf_netns_run(attach_child, NULL, &r, sizeof(r), true);
	if (err)
		attach_all_no(&r, err, "the namespace probe failed");
	kf->xdp_link = r.xdp_link;
	kf->tcx = r.tcx;
	kf->cls_bpf = r.cls_bpf;
	kf->netkit = r.netkit;
	kf->vlan = r.vlan;
	return err;
}

/* ---- all of them ---- */

static const struct {
	const char *key;
	size_t off;
} kernel_keys[] = {
#define KEY(m) { #m, offsetof(struct xf_kernel_features, m) }
	KEY(jit), KEY(xdp_link), KEY(tcx), KEY(cls_bpf), KEY(netkit), KEY(vlan), KEY(freplace),
	KEY(fib_lookup), KEY(fib_direct), KEY(fib_output), KEY(fib_skip_neigh),
	KEY(fib_tbid), KEY(fib_src), KEY(fib_mark), KEY(redirect), KEY(redirect_map),
	KEY(redirect_peer), KEY(redirect_neigh), KEY(clone_redirect), KEY(peer_egress),
	KEY(xdp_flowtable), KEY(xdp_tracepoints), KEY(kern_ctx),
#undef KEY
};

/* The tracepoints a redirect or an XDP program that fails goes through. */
static const char *const xdp_tps[] = { "xdp_redirect_err", "xdp_exception" };

/* A raw tracepoint program loads and attaches to xdp:xdp_redirect_err and
 * xdp:xdp_exception (and is gone again). A "no" says which step the
 * kernel refused. */
static int xf_probe_xdp_tracepoints(struct xf_probe *p)
{
	/* r0 = 0; exit: the smallest program a tracepoint takes. */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	size_t i;
	int fd, lfd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "xf_probe_tp", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0) {
		err = fd;
		xf_probe_set(p, false, err, "tracing programs refused%s",
			  err == -EPERM && !geteuid() ? " (kernel lockdown or an LSM)" : "");
		return 0;
	}
	for (i = 0; i < sizeof(xdp_tps) / sizeof(xdp_tps[0]); i++) {
		lfd = bpf_raw_tracepoint_open(xdp_tps[i], fd);
		if (lfd < 0) {
			xf_probe_set(p, false, lfd, "cannot attach to xdp:%s", xdp_tps[i]);
			close(fd);
			return 0;
		}
		close(lfd);
	}
	close(fd);
	xf_probe_set(p, true, 0, "programs attach to xdp:xdp_redirect_err and xdp:xdp_exception");
	return 0;
}

int xf_probe_kern_ctx(struct xf_probe *p)
{
	uint64_t missing;
	int err;

	if (!xf_kernel_has_func("bpf_cast_to_kern_ctx", NULL)) {
		xf_probe_set(p, false, 0, "no bpf_cast_to_kern_ctx() (6.2): route looks sources "
			  "and VLAN tags up backwards");
		return 0;
	}
	/* CAP_SYS_ADMIN stands in for it (xf_caps_missing()). */
	err = xf_caps_missing(1ULL << XF_CAP_PERFMON, &missing);
	if (err || missing) {
		xf_probe_set(p, false, err, "bpf_cast_to_kern_ctx() is there, but neither "
			  "CAP_PERFMON nor CAP_SYS_ADMIN");
		return 0;
	}
	xf_probe_set(p, true, 0, "bpf_cast_to_kern_ctx(): route reads the kernel's state "
		  "instead of second lookups");
	return 0;
}

const struct xf_probe *xf_probe_kernel_at(const struct xf_kernel_features *kf, int i,
					  const char **key)
{
	if (i < 0 || (size_t)i >= sizeof(kernel_keys) / sizeof(kernel_keys[0]))
		return NULL;
	*key = kernel_keys[i].key;
	return (const struct xf_probe *)((const char *)kf + kernel_keys[i].off);
}

int xf_probe_kernel(struct xf_kernel_features *kf, unsigned int what)
{
	const char *key;
	struct xf_probe *p;
	int i;

	memset(kf, 0, sizeof(*kf));
	for (i = 0; (p = (struct xf_probe *)xf_probe_kernel_at(kf, i, &key)); i++)
		xf_probe_set(p, false, 0, "not probed");
	/* Each probe records its own failure as a "no" with the reason. */
	if (what & XF_PROBE_JIT)
		xf_probe_jit(&kf->jit);
	if (what & XF_PROBE_HELPERS)
		xf_probe_helpers(kf);
	if (what & XF_PROBE_FIB_FLAGS)
		xf_probe_fib_flags(kf);
	if (what & XF_PROBE_PEER_EGRESS)
		xf_probe_peer_egress(&kf->peer_egress);
	if (what & XF_PROBE_ATTACH)
		xf_probe_attach(kf);
	if (what & XF_PROBE_FREPLACE)
		xf_probe_freplace(&kf->freplace);
	if (what & XF_PROBE_TRACING)
		xf_probe_xdp_tracepoints(&kf->xdp_tracepoints);
	if (what & XF_PROBE_KCTX)
		xf_probe_kern_ctx(&kf->kern_ctx);
	return 0;
}

/* ---- what the kernel tells of devices ---- */

bool xf_xdp_features_reported(void)
{
	struct xf_nl *nl;
	int err;

	/* The netdev family came with the reports (6.3). Without a socket,
	 * or an answer, trust what bpf_xdp_query() says. */
	if (xf_nl_open(&nl, NETLINK_GENERIC))
		return true;
	err = xf_nl_genl_family(nl, "netdev", NULL);
	xf_nl_close(nl);
	return err != -ENOENT;
}

bool xf_tcx_available(int ifindex)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);

	return bpf_prog_query_opts(ifindex, BPF_TCX_INGRESS, &q) != -EINVAL;
}
