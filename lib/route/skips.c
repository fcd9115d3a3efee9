// SPDX-License-Identifier: GPL-2.0
/* What a forwarded packet skips on the fast path, beyond netfilter
 * (netfilter.c): the namespace's IPsec policies (xfrm), and on hook xdp
 * the egress queueing of the set's devices (qdiscs other than the
 * kernel's defaults, tc egress filters and programs) and the tc ingress of
 * its own device, which run after XDP. route attach refuses on each, show
 * lists them per member, and what came after the attach unaccepted gets
 * one Warning line (rt_skip_warn_*).
 *
 * The kernel makes a device's default qdiscs itself (noqueue on virtual
 * devices, or the net.core.default_qdisc kind at the root, or mq with one
 * child of that kind per transmit queue), always with handle 0; tc gives
 * every qdisc it adds another handle. So a handle of 0 is the kernel's
 * default, whatever its kind: a NIC's mq with pfifo_fast or fq_codel
 * children is not refused. So are the kinds that only queue in order as
 * those defaults do, with the parameters a new one gets, whoever added
 * them (noqueue, mq, pfifo_fast, fq_codel: struct xf_tc_qdisc's stock).
 * A kernel-made default whose parameters were changed in place ("tc qdisc
 * change" keeps handle 0) is taken for a default. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_sched.h>

#include "internal.h"
#include "nl_link.h"
#include "nl_tc.h"
#include "nl_xfrm.h"

#define RT_SKIP_TC 8		/* filters or qdiscs read per device */

static struct xf_route_skip *skip_add(struct xf_route_skip *out, int max, int *n,
				      enum xf_route_skip_kind kind, int ifindex)
{
	struct xf_route_skip *s = *n < max ? &out[*n] : NULL;

	(*n)++;
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->ifindex = ifindex;
	if (ifindex && !if_indextoname(ifindex, s->dev))
		snprintf(s->dev, sizeof(s->dev), "%d", ifindex);
	return s;
}

/* s names program id on hook. 0; -errno when the program is there and
 * its name cannot be read (what is accepted at attach is kept by name). */
static int skip_tc_prog(struct xf_route_skip *s, const char *hook, uint32_t id)
{
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);
	int fd, err = 0;

	memset(&info, 0, sizeof(info));
	s->prog_id = id;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0 || bpf_prog_get_info_by_fd(fd, &info, &ilen))
		err = -errno;
	if (fd >= 0)
		close(fd);
	/* Gone since the query: named by its id. */
	if (err == -ENOENT) {
		snprintf(s->what, sizeof(s->what), "%s program id %u", hook, id);
		return 0;
	}
	snprintf(s->what, sizeof(s->what), "%s program %s", hook, info.name);
	return err;
}

/* ifindex's tc hook (ingress or egress): tcx programs (but the program
 * except) and clsact filters. 0, or -errno where they cannot be read
 * (-EPERM: not allowed to). */
static int skip_tc(struct xf_nl *nl, int ifindex, bool ingress, enum xf_route_skip_kind kind,
		   uint32_t except, struct xf_route_skip *out, int max, int *n)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	const char *hook = ingress ? "tcx ingress" : "tcx egress";
	struct xf_tc_filter tf[RT_SKIP_TC];
	uint32_t ids[RT_SKIP_TC], i;
	struct xf_route_skip *s;
	int nf, err = 0;

	q.prog_ids = ids;
	q.count = RT_SKIP_TC;
	if (!bpf_prog_query_opts(ifindex, ingress ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, &q)) {
		for (i = 0; i < q.count && i < RT_SKIP_TC && !err; i++)
			if (ids[i] != except && (s = skip_add(out, max, n, kind, ifindex)))
				err = skip_tc_prog(s, hook, ids[i]);
	} else if (errno == EPERM) {
		err = -EPERM;
	}
	nf = xf_tc_filters(nl, ifindex, ingress, tf, RT_SKIP_TC);
	if (nf < 0 && !err)
		err = nf;
	for (i = 0; nf > 0 && i < (uint32_t)nf && i < RT_SKIP_TC; i++) {
		s = skip_add(out, max, n, kind, ifindex);
		if (s)
			snprintf(s->what, sizeof(s->what), "tc %s filter %.63s (prio %u)",
				 ingress ? "ingress" : "egress", tf[i].name, tf[i].prio);
	}
	return err;
}

/* ifindex's qdiscs that are not the kernel's defaults. 0/-errno. */
static int skip_qdiscs(struct xf_nl *nl, int ifindex, struct xf_route_skip *out, int max,
		       int *n)
{
	struct xf_tc_qdisc q[RT_SKIP_TC];
	struct xf_route_skip *s;
	int i, nq;

	nq = xf_tc_qdiscs(nl, ifindex, q, RT_SKIP_TC);
	for (i = 0; i < nq && i < RT_SKIP_TC; i++) {
		if (!q[i].handle || q[i].stock)
			continue;
		s = skip_add(out, max, n, XF_SKIP_QDISC, ifindex);
		if (s)
			snprintf(s->what, sizeof(s->what), "qdisc %.15s %x: %s", q[i].kind,
				 TC_H_MAJ(q[i].handle) >> 16,
				 q[i].parent == TC_H_ROOT ? "root" : "child");
	}
	return nq < 0 ? nq : 0;
}

static int skip_egress_one(struct xf_nl *nl, int ifindex, struct xf_route_skip *out, int max,
			   int *n)
{
	return skip_qdiscs(nl, ifindex, out, max, n) ?:
	       skip_tc(nl, ifindex, false, XF_SKIP_TC_EGRESS, 0, out, max, n);
}

int rt_skip_egress(struct xf_nl *nl, int ifindex, struct xf_route_skip *out, int max, int *n)
{
	int parent = rt_vlan_parent(ifindex), bond, sl[RT_BOND_SLAVES], ns, i, err;
	struct xf_link l;

	err = skip_egress_one(nl, ifindex, out, max, n);
	/* A VLAN device's frames leave through its parent: XDP pushes the
	 * tag and redirects there. */
	if (!err && parent > 0)
		err = skip_egress_one(nl, parent, out, max, n);
	/* A bond's through a slave: its ndo_xdp_xmit hands the frame to the
	 * slave's, past the slave's queueing. */
	bond = parent > 0 ? parent : ifindex;
	if (err || xf_link_get(nl, NULL, bond, &l) || strcmp(l.kind, "bond"))
		return err;
	ns = rt_slaves(nl, bond, sl, RT_BOND_SLAVES);
	if (ns < 0)
		return ns;
	for (i = 0; i < ns && i < RT_BOND_SLAVES && !err; i++)
		err = skip_egress_one(nl, sl[i], out, max, n);
	return err;
}

int rt_skip_ingress(struct xf_nl *nl, int carrier, uint32_t except, struct xf_route_skip *out,
		    int max, int *n)
{
	return skip_tc(nl, carrier, true, XF_SKIP_TC_INGRESS, except, out, max, n);
}

void rt_skip_xfrm(const struct xf_xfrm_set *x, uint32_t rtif_flags, struct xf_route_skip *out,
		  int max, int *n)
{
	uint32_t families = rt_nf_families(rtif_flags);
	struct xf_route_skip *s;
	int i;

	for (i = 0; i < x->n; i++) {
		if (!(families & (x->p[i].src.family == AF_INET6 ? XF_NF_INET6 : XF_NF_INET)))
			continue;
		s = skip_add(out, max, n, XF_SKIP_XFRM, 0);
		if (s)
			xf_xfrm_describe(&x->p[i], s->what, sizeof(s->what));
	}
	if (x->block_fwd || x->block_out) {
		s = skip_add(out, max, n, XF_SKIP_XFRM, 0);
		if (s)
			snprintf(s->what, sizeof(s->what), "default policy %s block",
				 x->block_fwd ? "fwd" : "out");
	}
	if (x->states) {
		s = skip_add(out, max, n, XF_SKIP_XFRM, 0);
		if (s)
			snprintf(s->what, sizeof(s->what), "%u state%s", x->states,
				 x->states == 1 ? "" : "s");
	}
}

const char *xf_route_skip_kind_name(enum xf_route_skip_kind k)
{
	switch (k) {
	case XF_SKIP_XFRM:
		return "xfrm";
	case XF_SKIP_QDISC:
		return "qdisc";
	case XF_SKIP_TC_EGRESS:
		return "tc egress";
	case XF_SKIP_TC_INGRESS:
		return "tc ingress";
	}
	return "?";
}

const char *rt_skip_describe(const struct xf_route_skip *s, char *buf, size_t len)
{
	if (s->prog_id)
		snprintf(buf, len, "%s (id %u) on %s", s->what, s->prog_id, s->dev);
	else if (s->dev[0])
		snprintf(buf, len, "%s on %s", s->what, s->dev);
	else
		snprintf(buf, len, "xfrm %s", s->what);
	return buf;
}

/* At most this many are named in one line. */
#define RT_SKIP_NAMED 3

void rt_skip_line(char *line, size_t len, const struct xf_route_skip *s, int n, int *named)
{
	char one[256];
	int i;

	for (i = 0; i < n; i++) {
		rt_skip_describe(&s[i], one, sizeof(one));
		if (strstr(line, one))
			continue;
		if ((*named)++ < RT_SKIP_NAMED)
			snprintf(line + strlen(line), len - strlen(line), "%s%s",
				 *line ? "; " : "", one);
	}
}

void rt_skip_warn_add(struct rt_skip_warn *w, const struct xf_route_iface *ri)
{
	char one[256], *line = w->what;
	size_t len = sizeof(w->what);
	bool any = false;
	int i, named = w->n;

	for (i = 0; i < ri->nnf && i < XF_ROUTE_NF_MAX; i++) {
		if (ri->nf[i].acked)
			continue;
		any = w->nf = true;
		xf_nf_describe(&ri->nf[i].c, one, sizeof(one));
		if (strstr(line, one))
			continue;
		if (named++ < RT_SKIP_NAMED)
			snprintf(line + strlen(line), len - strlen(line), "%s%s",
				 *line ? "; " : "", one);
	}
	for (i = 0; i < ri->nskip && i < XF_ROUTE_SKIP_MAX; i++) {
		const struct xf_route_skip *s = &ri->skip[i];

		if (s->acked || s->passed)
			continue;
		any = true;
		if (s->kind == XF_SKIP_QDISC || s->kind == XF_SKIP_TC_EGRESS)
			w->qdisc = true;
		rt_skip_line(line, len, s, 1, &named);
	}
	w->n = named;
	if (any)
		snprintf(w->devs + strlen(w->devs), sizeof(w->devs) - strlen(w->devs), "%s%s",
			 w->devs[0] ? ", " : "", ri->name);
}

void rt_skip_warn_print(const struct rt_skip_warn *w)
{
	if (!w->n)
		return;
	fprintf(stderr, "Warning: the fast path on %s bypasses what was not there at its "
		"attach: %s%s; detach it%s%s%s%s%s.\n", w->devs, w->what,
		w->n > RT_SKIP_NAMED ? "; and more" : "",
		w->qdisc ? ", use hook tc" : "",
		w->nf || w->qdisc ? ", or attach it again with " : "",
		w->nf ? "\"netfilter bypass\"" : "", w->nf && w->qdisc ? " and " : "",
		w->qdisc ? "\"qdisc bypass\"" : "");
}
