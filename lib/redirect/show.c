// SPDX-License-Identifier: GPL-2.0
/* redirect: listing the rules with their counters, resetting the counters,
 * and sweeping the rules of interfaces that have gone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gc.h"
#include "nl_link.h"
#include "redirect/redirect.h"
#include "internal.h"
#include "xbpf.h"

struct rd_list {
	struct xf_nl *nl;
	int ifindex;		/* 0: all */
	int (*cb)(const struct xf_redirect_info *ri, void *arg);
	void *arg;
	struct xf_redirect_info ri;
	uint64_t *percpu;	/* xf_ncpus() * 2 */
};

/* Programs on this hook that are not ours, for show. */
static void rd_foreign(int ifindex, int dir, struct xf_inst *in, char *buf, size_t len)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	struct bpf_prog_info info;
	uint32_t ids[8], ours = 0, ilen;
	size_t o = 0;
	uint32_t i;

	buf[0] = '\0';
	ilen = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (!bpf_prog_get_info_by_fd(in->fd[dir ? RD_PROG_EGR : RD_PROG_ING], &info, &ilen))
		ours = info.id;
	q.prog_ids = ids;
	q.count = 8;
	if (bpf_prog_query_opts(ifindex, dir ? BPF_TCX_EGRESS : BPF_TCX_INGRESS, &q)) {
		/* Say so rather than show "no other program". */
		if (errno == EPERM)
			snprintf(buf, len, "unknown (needs CAP_NET_ADMIN)");
		return;
	}
	for (i = 0; i < q.count && o < len; i++) {
		int fd;

		if (ids[i] == ours)
			continue;
		memset(&info, 0, sizeof(info));
		ilen = sizeof(info);
		fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd >= 0) {
			bpf_prog_get_info_by_fd(fd, &info, &ilen);
			close(fd);
		}
		o += snprintf(buf + o, len - o, "%s%u %s", o ? ", " : "", ids[i],
			      info.name[0] ? info.name : "?");
	}
}

static int rd_list_cb(struct xf_inst *in, struct rd_walk *w, void *arg)
{
	struct rd_list *ls = arg;
	struct xf_redirect_info *ri = &ls->ri;
	int ifindex = w->key.scope >> 1, dir = w->key.scope & 1;
	uint64_t sum[2] = { 0 };
	enum rd_attach how;

	if (ls->ifindex && ifindex != ls->ifindex)
		return 0;
	memset(ri, 0, sizeof(*ri));
	ri->ifindex = ifindex;
	ri->dir = dir;
	if (!if_indextoname(ifindex, ri->dev))
		ri->dev[0] = '\0';
	how = rd_attached(ls->nl, ifindex, dir);
	ri->attach = how == RD_TCX ? "tcx" : how == RD_CLS ? "cls_bpf" :
		     how == RD_XDP ? "xdp" : how == RD_ERR ? "unknown" : "none";
	ri->has_match = rd_key_match(&w->key, &ri->match);
	ri->mode = w->rule.mode;
	ri->target_ifindex = w->rule.target;
	if (!if_indextoname(w->rule.target, ri->target))
		snprintf(ri->target, sizeof(ri->target), "%u", w->rule.target);
	if (w->rule.via_family) {
		ri->has_via = true;
		ri->via.family = w->rule.via_family;
		memcpy(ri->via.bytes, w->rule.via, sizeof(ri->via.bytes));
	}
	if (xf_percpu_read(in->fd[RD_MAP_CNT], &w->rule.id, sum, ls->percpu, 2))
		memset(ls->percpu, 0, (size_t)xf_ncpus() * 2 * sizeof(*ls->percpu));
	ri->packets = sum[0];
	ri->bytes = sum[1];
	ri->percpu = ls->percpu;
	ri->ncpu = xf_ncpus();
	{
		int pfd = in->fd[how == RD_XDP ? RD_PROG_XDP : dir ? RD_PROG_EGR : RD_PROG_ING];
		struct bpf_prog_info pi;
		uint32_t plen = sizeof(pi);

		memset(&pi, 0, sizeof(pi));
		if (pfd >= 0 && !bpf_prog_get_info_by_fd(pfd, &pi, &plen))
			ri->prog_id = pi.id;
	}
	if (how == RD_TCX)
		rd_foreign(ifindex, dir, in, ri->foreign, sizeof(ri->foreign));
	return ls->cb(ri, ls->arg);
}

int xf_redirect_list(struct xf_nl *nl, const char *dev,
		     int (*cb)(const struct xf_redirect_info *ri, void *arg), void *arg)
{
	struct rd_list *ls;
	struct xf_inst in;
	struct xf_link l;
	int err;

	ls = calloc(1, sizeof(*ls));
	if (ls)
		ls->percpu = calloc((size_t)xf_ncpus() * 2, sizeof(*ls->percpu));
	if (!ls || !ls->percpu) {
		free(ls);
		return -ENOMEM;
	}
	ls->nl = nl;
	ls->cb = cb;
	ls->arg = arg;
	if (dev) {
		if (xf_link_find(nl, dev, &l)) {
			free(ls->percpu);
			free(ls);
			return -ENODEV;
		}
		ls->ifindex = l.ifindex;
	}
	err = rd_open(&in, RD_READ);
	if (!err) {
		err = rd_each(&in, rd_list_cb, ls);
		xf_inst_close(&in);
	}
	free(ls->percpu);
	free(ls);
	return err == -ENOENT || err > 0 ? 0 : err;
}

static int rd_reset_cb(struct xf_inst *in, struct rd_walk *w, void *arg)
{
	int ifindex = *(int *)arg;

	if (ifindex && (int)(w->key.scope >> 1) != ifindex)
		return 0;
	return xf_percpu_zero(in->fd[RD_MAP_CNT], &w->rule.id, 2);
}

int xf_redirect_reset(struct xf_nl *nl, const char *dev)
{
	struct xf_inst in;
	struct xf_link l;
	int ifindex = 0, err;

	if (dev) {
		if (xf_link_find(nl, dev, &l))
			return -ENODEV;
		ifindex = l.ifindex;
	}
	err = rd_open(&in, RD_CHANGE);
	if (err)
		return err == -ENOENT ? 0 : err;
	err = rd_each(&in, rd_reset_cb, &ifindex);
	xf_inst_close(&in);
	return err > 0 ? 0 : err;
}

struct rd_sweep {
	const struct xf_gc_report *r;
	int n;
};

static int rd_sweep_cb(struct xf_inst *in, struct rd_walk *w, void *arg)
{
	struct rd_sweep *sw = arg;
	char name[IF_NAMESIZE], m[64], what[96];
	int ifindex = w->key.scope >> 1;
	struct xf_addr match;

	if (if_indextoname(ifindex, name))
		return 0;
	if (bpf_map_delete_elem(in->fd[RD_MAP_RULES], &w->key))
		return errno == ENOENT ? 0 : -errno;
	snprintf(what, sizeof(what), "rule %s %s",
		 (w->key.scope & 1) == XF_RD_DIR_EGRESS ? "egress" : "ingress",
		 rd_key_match(&w->key, &match) ? xf_addr_str(&match, true, m, sizeof(m)) : "all");
	xf_gc_tell(sw->r, "redirect", ifindex, what);
	sw->n++;
	return 0;
}

int xf_redirect_sweep(const struct xf_gc_report *r)
{
	struct rd_sweep sw = { .r = r };
	struct xf_inst in;
	int left, err;

	err = rd_open(&in, RD_CHANGE);
	if (err)
		return err == -ENOENT ? 0 : err;
	err = rd_each(&in, rd_sweep_cb, &sw);
	left = rd_each(&in, NULL, NULL);
	xf_inst_close(&in);
	if (!left)
		xf_inst_remove(&in);
	return err < 0 ? err : sw.n;
}
