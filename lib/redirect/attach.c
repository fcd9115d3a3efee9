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
#include "xbpf.h"
#include "redirect.skel.h"

void rd_link_path(int ifindex, int dir, bool xdp, char *buf, size_t len)
{
	xf_pin_path(buf, len, ifindex, xdp ? "redirect_xdp" :
		    dir == XF_RD_DIR_INGRESS ? "redirect_ingress" : "redirect_egress");
}

enum rd_attach rd_attached(struct xf_nl *nl, int ifindex, int dir)
{
	struct xf_tc_filter tf[8];
	char path[RD_PATH_LEN];
	int n, i;

	rd_link_path(ifindex, dir, false, path, sizeof(path));
	if (!access(path, F_OK))
		return RD_TCX;
	rd_link_path(ifindex, dir, true, path, sizeof(path));
	if (dir == XF_RD_DIR_INGRESS && !access(path, F_OK))
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

/* Where a clsact qdisc made by xfwd is remembered, so del removes only it. */
static void rd_clsact_mark(int ifindex, char *buf, size_t len)
{
	uint64_t ns = 0;

	xf_netns_id(&ns);
	snprintf(buf, len, "%s/ns%llu/%d/clsact", XF_CHAIN_RUN_DIR, (unsigned long long)ns,
		 ifindex);
}

int rd_attach(struct xf_nl *nl, struct rd_inst *in, const char *dev, int ifindex,
	      int dir, enum xf_rd_hook hook, enum rd_attach *how)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	char path[RD_PATH_LEN], dir_path[RD_PATH_LEN];
	bool ing = dir == XF_RD_DIR_INGRESS;
	int fd, err;

	err = xf_pin_path(dir_path, sizeof(dir_path), ifindex, NULL) ?: xf_pin_mkdir(dir_path);
	if (err)
		return err;
	if (hook == XF_RDH_XDP) {
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
		*how = RD_XDP;
	} else if (!rd_force_clsact() && xf_tcx_available(ifindex)) {
		fd = bpf_link_create(in->fd[ing ? RD_PROG_ING : RD_PROG_EGR], ifindex,
				     ing ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, &lo);
		if (fd < 0) {
			err = -errno;
			fprintf(stderr, "Error: cannot attach to %s %s: %s.\n", dev,
				ing ? "ingress" : "egress", strerror(-err));
			return err;
		}
		*how = RD_TCX;
	} else {
		char mark[RD_PATH_LEN];

		bool made = false;

		err = xf_tc_has_clsact(nl, ifindex, &made);
		if (!err && !made) {
			err = xf_tc_clsact_add(nl, ifindex);
			made = !err;
		} else {
			made = false;
		}
		if (made) {
			rd_clsact_mark(ifindex, mark, sizeof(mark));
			*strrchr(mark, '/') = '\0';
			err = xf_pin_mkdir(mark);
			strcat(mark, "/clsact");
			fd = err ? -1 : open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			err = fd < 0 ? -errno : close(fd);
		}
		err = err ?: xf_tc_bpf_add(nl, ifindex, ing, in->fd[ing ? RD_PROG_ING : RD_PROG_EGR],
					   ing ? "xf_rd_ingress" : "xf_rd_egress");
		if (err) {
			fprintf(stderr, "Error: cannot add the cls_bpf filter to %s: %s.\n", dev,
				strerror(-err));
			/* The qdisc made for it goes again, and its mark. */
			if (made) {
				xf_tc_clsact_del(nl, ifindex);
				rd_clsact_mark(ifindex, mark, sizeof(mark));
				unlink(mark);
				*strrchr(mark, '/') = '\0';
				xf_dir_prune(mark, XF_CHAIN_RUN_DIR);
			}
			return err;
		}
		*how = RD_CLS;
		return 0;
	}
	rd_link_path(ifindex, dir, hook == XF_RDH_XDP, path, sizeof(path));
	err = bpf_obj_pin(fd, path) ? -errno : 0;
	close(fd);
	if (err) {
		fprintf(stderr, "Error: cannot pin the link of %s at %s: %s.\n", dev, path,
			strerror(-err));
		/* hook xdp: the chain holds its own link; take the member out. */
		if (hook == XF_RDH_XDP)
			xf_chain_del(nl, dev, "redirect");
	}
	return err;
}

int rd_detach(struct xf_nl *nl, int ifindex, int dir, enum rd_attach how)
{
	char path[RD_PATH_LEN], name[IF_NAMESIZE];
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
		rd_clsact_mark(ifindex, path, sizeof(path));
		if (here <= 1 && !other && !access(path, F_OK)) {
			err = xf_tc_clsact_del(nl, ifindex);
			if (err)
				return err;
			unlink(path);
		} else {
			err = xf_tc_bpf_del(nl, ifindex, ing);
			if (err)
				return err;
		}
		*strrchr(path, '/') = '\0';
		xf_dir_prune(path, XF_CHAIN_RUN_DIR);
		if (!xf_pin_path(path, sizeof(path), ifindex, NULL))
			xf_dir_prune(path, XF_PIN_ROOT);
		return 0;
	}
	/* The chain member first: if that fails, nothing has changed. */
	if (how == RD_XDP && if_indextoname(ifindex, name)) {
		err = xf_chain_del(nl, name, "redirect");
		if (err)
			return err;
	}
	rd_link_path(ifindex, dir, how == RD_XDP, path, sizeof(path));
	unlink(path);
	*strrchr(path, '/') = '\0';
	xf_dir_prune(path, XF_PIN_ROOT);
	return 0;
}
