// SPDX-License-Identifier: GPL-2.0
/* redirect: attaching a scope (device, direction) with its first rule and
 * detaching it with its last: a tcx link, cls_bpf on clsact, or the XDP
 * chain member "redirect". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "chain/chain.h"
#include "nl_link.h"
#include "nl_tc.h"
#include "probe.h"
#include "redirect/redirect.h"
#include "internal.h"
#include "hook.h"
#include "xbpf.h"
#include "redirect.skel.h"

/* The pin name of the scope's link in the interface's directory. */
static const char *rd_link_name(int dir, bool xdp)
{
	return xdp ? "redirect_xdp" :
	       dir == XF_RD_DIR_INGRESS ? "redirect_ingress" : "redirect_egress";
}

/* The pin of the scope's tcx link (or, with xdp, of its chain member). */
static void rd_link_path(int ifindex, int dir, bool xdp, char *buf, size_t len)
{
	xf_pin_path(buf, len, ifindex, rd_link_name(dir, xdp));
}

/* Whether the scope's link is pinned: redirect runs there by it. */
static bool rd_link_pinned(int ifindex, int dir, bool xdp)
{
	char path[RD_PATH_LEN];

	rd_link_path(ifindex, dir, xdp, path, sizeof(path));
	return !access(path, F_OK);
}

bool xf_redirect_on_tcx(int ifindex)
{
	return rd_link_pinned(ifindex, XF_RD_DIR_INGRESS, false);
}

enum rd_attach rd_attached(struct xf_nl *nl, int ifindex, int dir)
{
	struct xf_tc_filter tf[8];
	int n, i;

	if (rd_link_pinned(ifindex, dir, false))
		return RD_TCX;
	if (dir == XF_RD_DIR_INGRESS && rd_link_pinned(ifindex, dir, true))
		return RD_XDP;
	n = xf_tc_filters(nl, ifindex, dir == XF_RD_DIR_INGRESS, tf, 8);
	if (n < 0)
		return RD_ERR;
	for (i = 0; i < n && i < 8; i++)
		if (!strncmp(tf[i].name, "xf_rd_", 6))
			return RD_CLS;
	return RD_NONE;
}

static bool rd_force_clsact(void)
{
	const char *e = getenv(XF_TC_MODE_ENV);

	return e && !strcmp(e, "clsact");
}

/* Where a clsact qdisc made by xfwd is remembered, so del removes only it:
 * a file of this name in the interface's directory of XF_RUN_ROOT. */
#define RD_CLSACT_MARK "clsact"

/* Remember that xfwd made ifindex's clsact qdisc. 0/-errno. */
static int rd_clsact_mark(int ifindex)
{
	char dir[RD_PATH_LEN], mark[RD_PATH_LEN];
	int fd, err;

	err = xf_run_path(dir, sizeof(dir), ifindex, NULL) ?: xf_pin_mkdir(dir) ?:
	      xf_run_path(mark, sizeof(mark), ifindex, RD_CLSACT_MARK);
	if (err)
		return err;
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : close(fd);
}

static bool rd_clsact_marked(int ifindex)
{
	char mark[RD_PATH_LEN];

	return !xf_run_path(mark, sizeof(mark), ifindex, RD_CLSACT_MARK) && !access(mark, F_OK);
}

/* cls_bpf on a clsact qdisc, for kernels without tcx (or when asked):
 * the qdisc is made when there is none, and then remembered. */
static int rd_attach_cls(struct xf_nl *nl, struct xf_inst *in, const char *dev, int ifindex,
			 bool ing, enum rd_attach *how)
{
	bool made = false;
	int err;

	err = xf_tc_has_clsact(nl, ifindex, &made);
	if (!err && !made) {
		err = xf_tc_clsact_add(nl, ifindex);
		made = !err;
	} else {
		made = false;
	}
	if (made)
		err = rd_clsact_mark(ifindex);
	err = err ?: xf_tc_bpf_add(nl, ifindex, ing, in->fd[ing ? RD_PROG_ING : RD_PROG_EGR],
				   ing ? "xf_rd_ingress" : "xf_rd_egress");
	if (err) {
		fprintf(stderr, "Error: cannot add the cls_bpf filter to %s: %s.\n", dev,
			strerror(-err));
		/* The qdisc made for it goes again, and its mark. */
		if (made) {
			xf_tc_clsact_del(nl, ifindex);
			xf_run_remove(ifindex, RD_CLSACT_MARK);
		}
		return err;
	}
	*how = RD_CLS;
	return 0;
}

int rd_attach(struct xf_nl *nl, struct xf_inst *in, const char *dev, int ifindex,
	      int dir, enum xf_hook hook, enum rd_attach *how)
{
	bool ing = dir == XF_RD_DIR_INGRESS;
	int fd, err;

	if (hook == XF_HOOK_XDP) {
		const struct xf_chain_builtin b = {
			.name = "redirect", .prog = "xf_rd_xdp", .prio = XF_REDIRECT_CHAIN_PRIO,
			.maps = "redirect",
		};
		const void *elf;
		size_t size;

		elf = redirect_bpf__elf_bytes(&size);
		fd = xf_chain_join(nl, dev, &b, elf, size);
		if (fd < 0)
			return fd;
		err = xf_hook_pin(fd, ifindex, dev, rd_link_name(dir, true));
		/* The chain holds its own link; take the member out. */
		if (err)
			xf_chain_del(nl, dev, "redirect");
		*how = RD_XDP;
		return err;
	}
	if (!rd_force_clsact() && xf_tcx_available(ifindex)) {
		*how = RD_TCX;
		return xf_hook_tcx(in->fd[ing ? RD_PROG_ING : RD_PROG_EGR], ifindex, dev, ing,
				   rd_link_name(dir, false));
	}
	return rd_attach_cls(nl, in, dev, ifindex, ing, how);
}

int rd_detach(struct xf_nl *nl, int ifindex, int dir, enum rd_attach how)
{
	char name[IF_NAMESIZE];
	int err;

	if (how == RD_CLS) {
		bool ing = dir == XF_RD_DIR_INGRESS;
		struct xf_tc_filter tf[1];
		int here, other;

		/* The qdisc xfwd made goes with the last filter on it, not
		 * while the other direction (ours or anyone's) has one; then
		 * deleting the qdisc takes our filter with it, in one step. */
		here = xf_tc_filters(nl, ifindex, ing, tf, 1);
		other = xf_tc_filters(nl, ifindex, !ing, tf, 1);
		if (here < 0 || other < 0)
			return here < 0 ? here : other;
		if (here <= 1 && !other && rd_clsact_marked(ifindex)) {
			err = xf_tc_clsact_del(nl, ifindex);
			if (err)
				return err;
			xf_run_remove(ifindex, RD_CLSACT_MARK);
		} else {
			err = xf_tc_bpf_del(nl, ifindex, ing);
			if (err)
				return err;
			xf_run_remove(ifindex, NULL);
		}
		xf_pin_remove(ifindex, NULL);
		return 0;
	}
	/* The chain member first: if that fails, nothing has changed. */
	if (how == RD_XDP && if_indextoname(ifindex, name)) {
		err = xf_chain_del(nl, name, "redirect");
		if (err)
			return err;
	}
	xf_hook_unpin(ifindex, rd_link_name(dir, how == RD_XDP));
	return 0;
}
