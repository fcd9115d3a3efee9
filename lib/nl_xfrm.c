// SPDX-License-Identifier: GPL-2.0
/* The namespace's xfrm policies, default policies and state count, read
 * over NETLINK_XFRM (see nl_xfrm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/xfrm.h>

#include "nl.h"
#include "nl_xfrm.h"
#include "vec.h"

static void xfrm_addr(struct xf_addr *a, uint16_t family, const xfrm_address_t *x, uint8_t plen)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	a->plen = plen;
	memcpy(a->bytes, x, family == AF_INET ? 4 : 16);
}

static int xfrm_policy_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct xfrm_userpolicy_info *pi = mnl_nlmsg_get_payload(nlh);
	const struct xfrm_user_tmpl *t;
	struct xf_xfrm_set *s = arg;
	const struct nlattr *a;
	struct xf_xfrm_pol *p;

	if (nlh->nlmsg_type != XFRM_MSG_NEWPOLICY ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*pi))
		return 0;
	/* ip_forward() checks fwd and routes through out; in is for
	 * traffic to this host. */
	if (pi->dir != XFRM_POLICY_FWD && pi->dir != XFRM_POLICY_OUT)
		return 0;
	p = xf_vec_push(&s->p, &s->n, &s->cap, sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	xfrm_addr(&p->src, pi->sel.family, &pi->sel.saddr, pi->sel.prefixlen_s);
	xfrm_addr(&p->dst, pi->sel.family, &pi->sel.daddr, pi->sel.prefixlen_d);
	p->dir = pi->dir;
	p->action = pi->action;
	p->proto = pi->sel.proto;
	p->priority = pi->priority;
	mnl_attr_for_each(a, nlh, sizeof(*pi)) {
		switch (mnl_attr_get_type(a)) {
		case XFRMA_TMPL:
			p->ntmpl = mnl_attr_get_payload_len(a) / sizeof(*t);
			if (!p->ntmpl)
				break;
			t = mnl_attr_get_payload(a);
			p->tmpl_proto = t->id.proto;
			p->tmpl_mode = t->mode;
			xfrm_addr(&p->tmpl_src, t->family, &t->saddr, 0);
			xfrm_addr(&p->tmpl_dst, t->family, &t->id.daddr, 0);
			break;
		case XFRMA_POLICY_TYPE:
			if (mnl_attr_get_payload_len(a) >= sizeof(struct xfrm_userpolicy_type))
				p->sub = ((const struct xfrm_userpolicy_type *)
					  mnl_attr_get_payload(a))->type == XFRM_POLICY_TYPE_SUB;
			break;
		}
	}
	return 0;
}

static int xfrm_default_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct xfrm_userpolicy_default *d = mnl_nlmsg_get_payload(nlh);
	struct xf_xfrm_set *s = arg;

	if (nlh->nlmsg_type != XFRM_MSG_GETDEFAULT ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*d))
		return 0;
	s->block_fwd = d->fwd == XFRM_USERPOLICY_BLOCK;
	s->block_out = d->out == XFRM_USERPOLICY_BLOCK;
	return 0;
}

static int xfrm_sadinfo_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct xf_xfrm_set *s = arg;
	const struct nlattr *a;

	if (nlh->nlmsg_type != XFRM_MSG_NEWSADINFO)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(uint32_t))
		if (mnl_attr_get_type(a) == XFRMA_SAD_CNT &&
		    mnl_attr_get_payload_len(a) >= sizeof(uint32_t))
			s->states = mnl_attr_get_u32(a);
	return 0;
}

static void xfrm_unread(struct xf_xfrm_set *s, const char *what, int err)
{
	if (!s->unread[0])
		snprintf(s->unread, sizeof(s->unread), "xfrm %s: %s", what, strerror(-err));
}

int xf_xfrm_scan(struct xf_xfrm_set *s)
{
	struct nlmsghdr *nlh;
	struct xf_nl *nl;
	int err;

	memset(s, 0, sizeof(*s));
	err = xf_nl_open(&nl, NETLINK_XFRM);
	if (err == -EPROTONOSUPPORT)
		return 0;		/* no xfrm in this kernel */
	if (err) {
		xfrm_unread(s, "socket", err);
		return 0;
	}
	nlh = xf_nl_msg(nl, XFRM_MSG_GETPOLICY, NLM_F_DUMP);
	err = xf_nl_dump(nl, nlh, xfrm_policy_cb, s);
	if (err == -ENOMEM)
		goto out;
	if (err)
		xfrm_unread(s, "policies", err);

	/* Before Linux 5.16 there is no default policy: it accepts. */
	nlh = xf_nl_msg(nl, XFRM_MSG_GETDEFAULT, 0);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct xfrm_userpolicy_default));
	err = xf_nl_dump(nl, nlh, xfrm_default_cb, s);
	if (err && err != -EINVAL && err != -EOPNOTSUPP)
		xfrm_unread(s, "default policies", err);

	nlh = xf_nl_msg(nl, XFRM_MSG_GETSADINFO, 0);
	*(uint32_t *)mnl_nlmsg_put_extra_header(nlh, sizeof(uint32_t)) = 0;
	err = xf_nl_dump(nl, nlh, xfrm_sadinfo_cb, s);
	if (err)
		xfrm_unread(s, "states", err);
	err = 0;
out:
	xf_nl_close(nl);
	if (err)
		xf_xfrm_free(s);
	return err;
}

void xf_xfrm_free(struct xf_xfrm_set *s)
{
	free(s->p);
	s->p = NULL;
	s->n = s->cap = 0;
}

static const char *xfrm_proto_name(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_ESP:
		return "esp";
	case IPPROTO_AH:
		return "ah";
	case IPPROTO_COMP:
		return "comp";
	}
	return "proto";
}

const char *xf_xfrm_describe(const struct xf_xfrm_pol *p, char *buf, size_t len)
{
	char s[64], d[64], ts[64], td[64];
	int n;

	n = snprintf(buf, len, "dir %s %s -> %s%s %s",
		     p->dir == XFRM_POLICY_FWD ? "fwd" : "out",
		     xf_addr_str(&p->src, true, s, sizeof(s)),
		     xf_addr_str(&p->dst, true, d, sizeof(d)),
		     p->sub ? " (sub)" : "",
		     p->action == XFRM_POLICY_BLOCK ? "block" : "allow");
	if (!p->ntmpl || n < 0 || (size_t)n >= len)
		return buf;
	if (p->tmpl_mode == XFRM_MODE_TUNNEL)
		snprintf(buf + n, len - n, " %s tunnel %s -> %s", xfrm_proto_name(p->tmpl_proto),
			 xf_addr_str(&p->tmpl_src, false, ts, sizeof(ts)),
			 xf_addr_str(&p->tmpl_dst, false, td, sizeof(td)));
	else
		snprintf(buf + n, len - n, " %s transport", xfrm_proto_name(p->tmpl_proto));
	return buf;
}
