// SPDX-License-Identifier: GPL-2.0
/* xfwd route: the forwarding fast path on XDP or tc. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "nl_link.h"
#include "nl_neigh.h"
#include "out.h"
#include "route/route.h"

#define ROUTE_MAX_DEVS 64

struct route_attach_opts {
	const char *devs[ROUTE_MAX_DEVS];
	int ndev;
	struct xf_route_attach_opts o;
};

static const char *const proto_words[] = { "udp", "tcp", "icmp", NULL };

enum { KW_HOOK, KW_MODE, KW_FAMILY, KW_LOOKUP, KW_NETFILTER, KW_QDISC, KW_FROM, KW_IIF, KW_TTL, KW_LEN,
       KW_PROTO, KW_SPORT, KW_DPORT, KW_VLAN };

static int route_dev_arg(struct xf_args *a, const char **devs, int *n)
{
	int err;

	if (*n == ROUTE_MAX_DEVS) {
		fprintf(stderr, "Error: at most %d devices at once.\n", ROUTE_MAX_DEVS);
		return -XF_EUSAGE;
	}
	err = arg_ifname(a, "IFNAME", &devs[*n]);
	if (!err)
		(*n)++;
	return err;
}

static int route_attach_parse(struct xf_args *a, struct route_attach_opts *o)
{
	int idx = 0, err = 0;

	o->o.family = XF_RTIF_INET | XF_RTIF_INET6;
	while (arg_more(a) && !err) {
		if (arg_kw(a, "dev")) {
			err = route_dev_arg(a, o->devs, &o->ndev);
		} else if (arg_kw(a, "hook")) {
			err = arg_once(a, KW_HOOK, "hook") ?:
			      arg_one_of(a, "HOOK", xf_route_hook_words, &idx);
			o->o.hook = idx == 1 ? XF_HOOK_XDP : idx == 2 ? XF_HOOK_TC : XF_HOOK_AUTO;
		} else if (arg_kw(a, "mode")) {
			err = arg_once(a, KW_MODE, "mode") ?:
			      arg_one_of(a, "MODE", xf_route_mode_words, &idx);
			o->o.mode = idx ? XF_MODE_GENERIC : XF_MODE_NATIVE;
		} else if (arg_kw(a, "family")) {
			err = arg_once(a, KW_FAMILY, "family") ?:
			      arg_one_of(a, "FAMILY", xf_route_family_words, &idx);
			o->o.family = idx == 1 ? XF_RTIF_INET : idx == 2 ? XF_RTIF_INET6 :
				      XF_RTIF_INET | XF_RTIF_INET6;
		} else if (arg_kw(a, "lookup")) {
			err = arg_once(a, KW_LOOKUP, "lookup") ?:
			      arg_one_of(a, "LOOKUP", xf_route_lookup_words, &idx);
			o->o.direct = idx == 1;
			o->o.flowtable = idx == 2;
		} else if (arg_kw(a, "netfilter")) {
			err = arg_once(a, KW_NETFILTER, "netfilter") ?:
			      arg_one_of(a, "NETFILTER", xf_route_netfilter_words, &idx);
			o->o.nf_bypass = idx == 1;
		} else if (arg_kw(a, "qdisc")) {
			err = arg_once(a, KW_QDISC, "qdisc") ?:
			      arg_one_of(a, "QDISC", xf_route_qdisc_words, &idx);
			o->o.qdisc_bypass = idx == 1;
		} else {
			return arg_unexpected(a);
		}
	}
	err = arg_need(a, err, o->ndev, "dev IFNAME");
	if (err)
		return err;
	if (o->o.nf_bypass && o->o.flowtable) {
		fprintf(stderr, "Error: \"netfilter bypass\" does not go with \"lookup "
			"flowtable\", in which netfilter decides.\n");
		return -XF_EUSAGE;
	}
	if (o->o.mode != XF_MODE_AUTO && o->o.hook == XF_HOOK_TC) {
		fprintf(stderr, "Error: \"mode\" is for hook xdp; try \"xfwd route help\".\n");
		return -XF_EUSAGE;
	}
	return 0;
}

static int route_attach(struct xfwd *x, struct xf_args *a)
{
	struct route_attach_opts o = { 0 };
	struct xf_nl *nl;
	int err;

	err = route_attach_parse(a, &o);
	if (err)
		return err;
	err = xfwd_nl_locked(x, &nl);
	if (err)
		return err;
	o.o.force = x->force;
	return xf_route_attach(nl, o.devs, o.ndev, &o.o);
}

static int route_detach(struct xfwd *x, struct xf_args *a)
{
	const char *devs[ROUTE_MAX_DEVS];
	int n = 0, err = 0;
	bool all = false;
	struct xf_nl *nl;

	while (arg_more(a) && !err) {
		if (!n && !all && arg_kw(a, "all"))
			all = true;
		else if (!all && arg_kw(a, "dev"))
			err = route_dev_arg(a, devs, &n);
		else
			return arg_unexpected(a);
	}
	err = arg_need(a, err, n || all, "dev IFNAME or all") ?: xfwd_nl_locked(x, &nl);
	if (err)
		return err;
	return xf_route_detach(nl, devs, n, all);
}

static int route_refresh(struct xfwd *x, struct xf_args *a)
{
	int err;

	if (arg_more(a))
		return arg_unexpected(a);
	err = xfwd_lock(x);
	return err ?: xf_route_refresh(true);
}

static const char *route_family_name(uint32_t flags)
{
	flags = (flags & XF_RTIF_WANT_INET ? XF_RTIF_INET : 0) |
		(flags & XF_RTIF_WANT_INET6 ? XF_RTIF_INET6 : 0);
	return flags == XF_RTIF_INET ? "inet" : flags == XF_RTIF_INET6 ? "inet6" : "all";
}

/* What the member bypasses of netfilter: in JSON every chain, in the
 * table one line ("-" for nothing). */
static void route_show_nf(struct xf_out *o, const struct xf_route_iface *ri)
{
	char one[256], line[320];
	int i, n = ri->nnf < XF_ROUTE_NF_MAX ? ri->nnf : XF_ROUTE_NF_MAX;

	if (!out_is_json(o)) {
		if (!ri->nnf) {
			out_str(o, "netfilter", ri->nf_unread && *ri->nf_unread ?
				"not read" : "-");
			return;
		}
		snprintf(line, sizeof(line), "%s%s", ri->nnf > 1 ? "" : "bypassed: ",
			 xf_nf_describe(&ri->nf[0].c, one, sizeof(one)));
		if (ri->nnf > 1)
			snprintf(line, sizeof(line), "bypassed: %d chains", ri->nnf);
		out_str(o, "netfilter", line);
		return;
	}
	out_obj_begin(o, "netfilter");
	out_bool(o, "bypass", ri->flags & XF_RTIF_NF_BYPASS);
	out_str(o, "unread", ri->nf_unread && *ri->nf_unread ? ri->nf_unread : NULL);
	out_list_begin(o, "bypassed");
	for (i = 0; i < n; i++) {
		out_row_begin(o);
		cmd_show_nf_chain(o, &ri->nf[i].c);
		out_bool(o, "accepted", ri->nf[i].acked);
		out_row_end(o);
	}
	out_list_end(o);
	out_obj_end(o);
}

static const char *route_skip_handling(const struct xf_route_skip *s)
{
	return s->passed ? "passed" : s->acked ? "accepted" : "bypassed";
}

/* What else the member skips (xfrm, egress queueing, tc ingress): in JSON
 * each, with how it is handled, in the table one line ("-": nothing). */
static void route_show_skips(struct xf_out *o, const struct xf_route_iface *ri)
{
	int i, n = ri->nskip < XF_ROUTE_SKIP_MAX ? ri->nskip : XF_ROUTE_SKIP_MAX;
	const struct xf_route_skip *s = ri->skip;

	if (!out_is_json(o)) {
		if (!ri->nskip)
			out_str(o, "skips", ri->skip_unread && *ri->skip_unread ? "not read" : "-");
		else if (ri->nskip == 1)
			out_strf(o, "skips", "%s %s%s%s: %s", route_skip_handling(s),
				 xf_route_skip_kind_name(s->kind), s->dev[0] ? " of " : "",
				 s->dev, s->what);
		else
			out_strf(o, "skips", "%d items (-j lists them)", ri->nskip);
		return;
	}
	out_obj_begin(o, "skips");
	out_str(o, "unread", ri->skip_unread && *ri->skip_unread ? ri->skip_unread : NULL);
	out_list_begin(o, "items");
	for (i = 0; i < n; i++, s++) {
		out_row_begin(o);
		out_str(o, "kind", xf_route_skip_kind_name(s->kind));
		out_str(o, "dev", s->dev[0] ? s->dev : NULL);
		out_str(o, "what", s->what);
		if (s->prog_id)
			out_int(o, "prog_id", s->prog_id);
		out_str(o, "handling", route_skip_handling(s));
		out_row_end(o);
	}
	out_list_end(o);
	out_bool(o, "qdisc_bypass", ri->flags & XF_RTIF_QDISC_BYPASS);
	out_obj_end(o);
}

/* A VLAN member's parent and tag: "vlan": {...} or null; a line in the
 * table. */
static void route_show_vlan(struct xf_out *o, const struct xf_route_iface *ri)
{
	const char *parent = ri->vlan.parent_name[0] ? ri->vlan.parent_name : "?";

	if (!ri->vlan.parent) {
		if (out_is_json(o))
			out_str(o, "vlan", NULL);
		return;
	}
	if (!out_is_json(o)) {
		out_strf(o, "vlan", "id %u on %s%s", ri->vlan.id, parent,
			 ri->vlan.ad ? " (802.1ad)" : "");
		return;
	}
	out_obj_begin(o, "vlan");
	out_str(o, "parent", parent);
	out_int(o, "parent_ifindex", ri->vlan.parent);
	out_int(o, "id", ri->vlan.id);
	out_str(o, "protocol", ri->vlan.ad ? "802.1ad" : "802.1Q");
	out_obj_end(o);
}

static int route_show_one(const struct xf_route_iface *ri, void *arg)
{
	struct xfwd *x = arg;
	struct xf_out *o = x->out;
	uint64_t passed = 0, passed_bytes = 0;
	int r;

	for (r = 1; r < XF_RR_MAX; r++) {
		passed += ri->stat[r].packets;
		passed_bytes += ri->stat[r].bytes;
	}
	out_row_begin(o);
	out_str(o, "dev", ri->name[0] ? ri->name : "-");
	out_int(o, "ifindex", ri->ifindex);
	/* ifindex 0: the row of route_show_outside(). */
	out_str(o, "hook", ri->ifindex ? xf_hook_name(ri->hook) : "-");
	out_str(o, "mode", ri->mode);
	out_str(o, "family", ri->ifindex ? route_family_name(ri->flags) : "-");
	out_str(o, "lookup", !ri->ifindex ? "-" : ri->flags & XF_RTIF_FLOWTABLE ? "flowtable" :
			     ri->flags & XF_RTIF_DIRECT ? "direct" : "full");
	out_int(o, "prog_id", ri->prog_id);
	out_u64(o, "forwarded", ri->stat[XF_RR_FORWARDED].packets);
	out_unit(o, "forwarded_bytes", ri->stat[XF_RR_FORWARDED].bytes, OUT_BYTES);
	out_u64(o, "passed", passed);
	out_unit(o, "passed_bytes", passed_bytes, OUT_BYTES);
	out_str(o, "why", ri->why);
	out_str(o, "warning", ri->warning[0] ? ri->warning : NULL);
	route_show_vlan(o, ri);
	route_show_nf(o, ri);
	route_show_skips(o, ri);
	out_list_begin(o, "pass_reasons");
	for (r = 1; r < XF_RR_MAX; r++) {
		if (!ri->stat[r].packets)
			continue;
		out_row_begin(o);
		out_str(o, "reason", xf_route_reason_name(r));
		out_u64(o, "packets", ri->stat[r].packets);
		out_unit(o, "bytes", ri->stat[r].bytes, OUT_BYTES);
		out_row_end(o);
	}
	out_list_end(o);
	out_row_end(o);
	return 0;
}

/* The row "*" of st, what ran the program on a device outside the set,
 * when anything did: all of it passed, never forwarded. */
static int route_show_outside(struct xfwd *x, const struct xf_route_stat *st)
{
	struct xf_route_iface *ri;
	uint64_t n = 0;
	int r, err;

	for (r = 0; r < XF_RR_MAX; r++)
		n += st[r].packets;
	if (!n)
		return 0;
	ri = calloc(1, sizeof(*ri));
	if (!ri)
		return -ENOMEM;
	memcpy(ri->stat, st, sizeof(ri->stat));
	snprintf(ri->name, sizeof(ri->name), "*");
	ri->mode = "-";
	ri->why = "outside the set: a device the program runs on that is no member";
	err = route_show_one(ri, x);
	free(ri);
	return err;
}

static int route_walk(struct xfwd *x, struct xf_nl *nl, const char *dev)
{
	struct xf_route_stat outside[XF_RR_MAX];
	struct xf_link l = { .ifindex = 0 };
	int err;

	if (dev && xf_link_find(nl, dev, &l))
		return -ENODEV;
	/* One reading of the members for the rows, the Warning and the row
	 * "*" (route show dev leaves it out). */
	err = xf_route_list_warn(nl, l.ifindex, route_show_one, x, dev ? NULL : outside);
	return err || dev ? err : route_show_outside(x, outside);
}

static int route_show(struct xfwd *x, struct xf_args *a)
{
	return cmd_show_list(x, a, "interfaces", route_walk);
}

static int route_get_parse(struct xfwd *x, struct xf_args *a, struct xf_route_get_req *r)
{
	const char *iif = NULL;
	bool has_dst = false;
	int idx = 0, err = 0;
	uint32_t port = 0;

	r->ttl = 64;
	r->proto = IPPROTO_UDP;
	while (arg_more(a) && !err) {
		if (arg_kw(a, "from")) {
			err = arg_once(a, KW_FROM, "from") ?: arg_addr(a, "from ADDRESS", &r->src);
			r->has_src = true;
		} else if (arg_kw(a, "iif")) {
			err = arg_once(a, KW_IIF, "iif") ?: arg_ifname(a, "IFNAME", &iif);
		} else if (arg_kw(a, "ttl")) {
			err = arg_once(a, KW_TTL, "ttl") ?: arg_u32_range(a, "TTL", 0, 255, &r->ttl);
		} else if (arg_kw(a, "len")) {
			err = arg_once(a, KW_LEN, "len") ?:
			      arg_u32_range(a, "LEN", 20, 65535, &r->len);
		} else if (arg_kw(a, "proto")) {
			err = arg_once(a, KW_PROTO, "proto") ?:
			      arg_one_of(a, "PROTO", proto_words, &idx);
			r->proto = idx == 1 ? IPPROTO_TCP : idx == 2 ? IPPROTO_ICMP : IPPROTO_UDP;
		} else if (arg_kw(a, "sport")) {
			err = arg_once(a, KW_SPORT, "sport") ?:
			      arg_u32_range(a, "PORT", 1, 65535, &port);
			r->sport = port;
		} else if (arg_kw(a, "dport")) {
			err = arg_once(a, KW_DPORT, "dport") ?:
			      arg_u32_range(a, "PORT", 1, 65535, &port);
			r->dport = port;
		} else if (arg_kw(a, "vlan")) {
			err = arg_once(a, KW_VLAN, "vlan") ?:
			      arg_u32_range(a, "VLANID", 0, 4094, &port);
			r->has_vlan = true;
			r->vlan = port;
		} else if (!has_dst) {
			err = arg_addr(a, "ADDRESS", &r->dst);
			has_dst = true;
		} else {
			return arg_unexpected(a);
		}
	}
	err = arg_need(a, err, has_dst, "ADDRESS");
	if (err)
		return err;
	if (r->has_src && r->src.family != r->dst.family) {
		fprintf(stderr, "Error: \"from\" and ADDRESS are of different families.\n");
		return -XF_EUSAGE;
	}
	if (iif) {
		struct xf_link l;
		struct xf_nl *nl = xfwd_nl(x);

		if (!nl)
			return -EIO;
		if (xf_link_find(nl, iif, &l))
			return -ENODEV;
		r->iif = l.ifindex;
	}
	return 0;
}

static void route_mac(struct xf_out *o, const char *key, const uint8_t *m)
{
	out_strf(o, key, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* lookup flowtable: whether the flow was in the flowtable, and its NAT. */
static void route_get_flow(struct xf_out *o, const struct xf_route_trace *t)
{
	bool snat = t->flags & XF_RTT_SNAT, dnat = t->flags & XF_RTT_DNAT;

	if (!(t->flags & XF_RTT_FLOW_HIT)) {
		out_str(o, "flowtable", t->reason == XF_RR_FLOW_MISS ? "miss" : "not looked up");
		return;
	}
	out_str(o, "flowtable", t->ft_dir ? "hit reply" : "hit original");
	if (t->reason == XF_RR_FORWARDED)
		out_str(o, "nat", snat && dnat ? "snat,dnat" : snat ? "snat" :
				  dnat ? "dnat" : "none");
}

static int route_get(struct xfwd *x, struct xf_args *a)
{
	struct xf_route_get_req req = { 0 };
	struct xf_route_get_res res;
	struct xf_out *o = x->out;
	struct xf_nl *nl;
	struct xf_addr nh;
	char buf[64];
	int err;

	err = route_get_parse(x, a, &req) ?: xfwd_nl_get(x, &nl);
	if (err)
		return err;
	err = xf_route_get(nl, &req, &res);
	if (err)
		return err;
	out_str(o, "dst", xf_addr_str(&req.dst, false, buf, sizeof(buf)));
	out_str(o, "from", xf_addr_str(&res.src, false, buf, sizeof(buf)));
	out_str(o, "iif", res.iif_name);
	if (res.tagged) {
		out_int(o, "vlan", res.vlan);
		out_str(o, "vlan_dev", res.vlan_dev[0] ? res.vlan_dev : NULL);
	}
	out_str(o, "hook", xf_hook_name(res.hook));
	out_int(o, "prog_id", res.prog_id);
	out_str(o, "verdict", res.verdict_name);
	out_str(o, "reason", xf_route_reason_name(res.trace.reason));
	if (res.trace.flags & XF_RTT_FIB)
		out_int(o, "fib_rc", res.trace.fib_rc);
	if (res.trace.flags & (XF_RTT_SRC4 | XF_RTT_SRC_LOOKUP | XF_RTT_RP))
		out_str(o, "source_check", res.trace.flags & XF_RTT_SRC4 ? "addresses" :
			res.trace.flags & XF_RTT_RP ? "rp_filter" : "lookup");
	if (req.dst.family == AF_INET6 && (res.trace.flags & (XF_RTT_LOC6 | XF_RTT_FIB)))
		out_str(o, "local_table", res.trace.flags & XF_RTT_LOC6 ? "addresses" : "lookup");
	if (res.trace.oif) {
		out_str(o, "oif", res.oif_name);
		memset(&nh, 0, sizeof(nh));
		nh.family = res.trace.nh_family;
		memcpy(nh.bytes, res.trace.nh, sizeof(nh.bytes));
		if (nh.family == AF_INET || nh.family == AF_INET6)
			out_str(o, "via", xf_addr_str(&nh, false, buf, sizeof(buf)));
		if (res.neigh >= 0)
			out_str(o, "neigh", xf_neigh_state_name(res.neigh));
	}
	/* Also without oif: the FIB gives no egress with "frag needed". */
	if (res.trace.mtu)
		out_int(o, "mtu", res.trace.mtu);
	if (res.trace.reason == XF_RR_FORWARDED) {
		route_mac(o, "src_mac", res.trace.smac);
		route_mac(o, "dst_mac", res.trace.dmac);
		out_int(o, "ttl", res.ttl_out);
	}
	if (res.trace.flags & XF_RTT_FLOW)
		route_get_flow(o, &res.trace);
	return 0;
}

static const struct cmd route_cmds[] = {
	{ "attach", route_attach, "dev IFNAME [ dev IFNAME ... ] [ hook { auto | xdp | tc } ] "
		"[ mode { native | generic } ] [ family { all | inet | inet6 } ] "
		"[ lookup { full | direct | flowtable } ] [ netfilter { check | bypass } ] "
		"[ qdisc { check | bypass } ]",
		XF_CMD_CHANGES },
	{ "detach", route_detach, "{ dev IFNAME ... | all }", XF_CMD_CHANGES },
	{ "refresh", route_refresh, "", XF_CMD_CHANGES },
	{ "show", route_show, "[ dev IFNAME ]", XF_CMD_READS },
	{ "get", route_get, "ADDRESS [ from ADDRESS ] [ iif IFNAME ] [ ttl N ] [ len N ] "
		"[ proto { udp | tcp | icmp } ] [ sport PORT ] [ dport PORT ] [ vlan VLANID ]", XF_CMD_READS },
	{ }
};

const struct object route_object = {
	.name = "route", .cmds = route_cmds, .dflt = "show",
	.summary = "IPv4/IPv6 forwarding fast path on XDP or tc",
};
