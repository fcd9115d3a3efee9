// SPDX-License-Identifier: GPL-2.0
/* redirect: one program instance per namespace, pinned under
 * XF_PIN_ROOT/ns<id>/redirect/, whose rules (an LPM trie keyed by device,
 * direction and destination prefix) steer packets to other devices. A
 * device's direction is attached once, with its first rule: a tcx link
 * pinned at <ifindex>/redirect_<dir>, a cls_bpf filter on clsact where
 * tcx is missing or XFWD_TC_MODE=clsact, or the XDP chain member
 * "redirect". Rules come and go in the map under traffic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "nl_link.h"
#include "probe.h"
#include "redirect/redirect.h"
#include "internal.h"
#include "xbpf.h"

struct rd_scope_count {
	uint32_t scope;
	int n;
	uint8_t used[XF_RD_MAX_RULES];
};

static int rd_count_cb(struct xf_inst *in __attribute__((unused)), struct rd_walk *w,
		       void *arg)
{
	struct rd_scope_count *c = arg;

	if (w->key.scope == c->scope)
		c->n++;
	if (w->rule.id < XF_RD_MAX_RULES)
		c->used[w->rule.id] = 1;
	return 0;
}

/* The trie keeps IPv4 as ::ffff:a.b.c.d: an IPv6 prefix that contains or
 * lies in ::ffff:0:0/96 (::/0 among them) would match IPv4 packets. */
static bool rd_overlaps_v4(const struct xf_addr *m)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	int bits = m->plen < 96 ? m->plen : 96, i;

	for (i = 0; i < bits; i++) {
		int b = 0x80 >> (i % 8);

		if ((m->bytes[i / 8] & b) != (mapped[i / 8] & b))
			return false;
	}
	return true;
}

/* Everything that can be checked before anything is loaded. */
static int rd_validate(struct xf_nl *nl, const struct xf_redirect_req *r, struct xf_link *tl)
{
	struct xf_probe p;

	if (xf_link_get(nl, r->target, 0, tl)) {
		fprintf(stderr, "Error: target device \"%s\" does not exist.\n", r->target);
		return -ENODEV;
	}
	if (r->hook == XF_HOOK_XDP) {
		LIBBPF_OPTS(bpf_xdp_query_opts, q);

		if (r->mode != XF_RD_EGRESS) {
			fprintf(stderr, "Error: mode %s is for hook tc; XDP redirects only out of "
				"a device (mode egress).\n", xf_redirect_mode_name(r->mode));
			return -XF_EUSAGE;
		}
		if (r->dir != XF_RD_DIR_INGRESS) {
			fprintf(stderr, "Error: hook xdp sees only ingress.\n");
			return -XF_EUSAGE;
		}
		if (!xf_xdp_features_reported()) {
			fprintf(stderr, "Error: hook xdp needs the kernel to report XDP features "
				"(Linux 6.3) to tell whether %s takes XDP frames; this kernel "
				"does not.\n", r->target);
			return -EOPNOTSUPP;
		}
		if (bpf_xdp_query(tl->ifindex, 0, &q) ||
		    !(q.feature_flags & NETDEV_XDP_ACT_NDO_XMIT)) {
			fprintf(stderr, "Error: %s cannot take XDP frames now (no ndo_xmit%s); the "
				"kernel would drop them.\n", r->target, !strcmp(tl->kind, "veth") ?
				": its peer needs an XDP program or GRO" : "");
			return -EOPNOTSUPP;
		}
	}
	if (r->mode == XF_RD_PEER || r->mode == XF_RD_PEER_EGRESS) {
		if (!xf_link_kind_is_pair(tl->kind)) {
			fprintf(stderr, "Error: mode %s needs a veth or netkit target; %s is %s.\n",
				xf_redirect_mode_name(r->mode), r->target,
				tl->kind[0] ? tl->kind : "not one");
			return -XF_EUSAGE;
		}
		if (r->dir != XF_RD_DIR_INGRESS) {
			fprintf(stderr, "Error: mode %s works only on ingress.\n",
				xf_redirect_mode_name(r->mode));
			return -XF_EUSAGE;
		}
	}
	if (r->mode == XF_RD_PEER_EGRESS) {
		xf_probe_peer_egress(&p);
		if (!p.yes) {
			fprintf(stderr, "Error: mode peer-egress needs BPF_F_EGRESS for "
				"bpf_redirect_peer(), and %s; use mode ingress.\n", p.why);
			return -EOPNOTSUPP;
		}
	}
	if (r->has_match && r->match.family == AF_INET6 && rd_overlaps_v4(&r->match)) {
		char buf[64];

		fprintf(stderr, "Error: match %s overlaps ::ffff:0:0/96, where IPv4 rules live; "
			"give IPv4 prefixes, or no match for everything.\n",
			xf_addr_str(&r->match, true, buf, sizeof(buf)));
		return -XF_EUSAGE;
	}
	if (r->has_via && r->mode != XF_RD_NEIGH) {
		fprintf(stderr, "Error: \"via\" goes with mode neigh.\n");
		return -XF_EUSAGE;
	}
	return 0;
}

int xf_redirect_add(struct xf_nl *nl, const char *dev, const struct xf_redirect_req *r)
{
	struct rd_scope_count *cnt;
	struct xf_redir_rule rule = { 0 };
	struct xf_redir_key key;
	struct xf_route_stat *zero;
	struct xf_link l, tl;
	struct xf_addr m;
	enum rd_attach how, now;
	struct xf_inst in;
	uint32_t id;
	int err;

	if (xf_link_find(nl, dev, &l))
		return -ENODEV;
	err = rd_validate(nl, r, &tl);
	if (err)
		return err;
	now = rd_attached(nl, l.ifindex, r->dir);
	if (now == RD_ERR) {
		fprintf(stderr, "Error: cannot read the tc filters of %s.\n", dev);
		return -EIO;
	}
	if (now != RD_NONE && (now == RD_XDP) != (r->hook == XF_HOOK_XDP)) {
		fprintf(stderr, "Error: %s %s has rules on hook %s; delete them to change "
			"hook.\n", dev, r->dir ? "egress" : "ingress", now == RD_XDP ? "xdp" : "tc");
		return -XF_EUSAGE;
	}
	m = r->match;
	if (r->has_match)
		rd_mask(&m);
	rd_key(l.ifindex, r->dir, r->has_match ? &m : NULL, &key);
	err = rd_open(&in, RD_CREATE);
	if (err)
		return err;
	cnt = calloc(1, sizeof(*cnt));
	zero = calloc(xf_ncpus(), sizeof(*zero));
	if (!cnt || !zero) {
		err = -ENOMEM;
		goto out;
	}
	cnt->scope = key.scope;
	rd_each(&in, rd_count_cb, cnt);
	for (id = 0; id < XF_RD_MAX_RULES && cnt->used[id]; id++)
		;
	if (id == XF_RD_MAX_RULES) {
		fprintf(stderr, "Error: at most %d redirect rules.\n", XF_RD_MAX_RULES);
		err = -ENOSPC;
		goto out;
	}
	rule.target = tl.ifindex;
	rule.mode = r->mode;
	rule.id = id;
	if (r->has_via) {
		rule.via_family = r->via.family;
		memcpy(rule.via, r->via.bytes, sizeof(rule.via));
	}
	if (bpf_map_update_elem(in.fd[RD_MAP_CNT], &id, zero, BPF_ANY) ||
	    (r->hook == XF_HOOK_XDP &&
	     bpf_map_update_elem(in.fd[RD_MAP_TX], &tl.ifindex, &tl.ifindex, BPF_ANY))) {
		err = -errno;
		fprintf(stderr, "Error: cannot add the rule: %s.\n", strerror(-err));
		goto out;
	}
	if (bpf_map_update_elem(in.fd[RD_MAP_RULES], &key, &rule, BPF_NOEXIST)) {
		char buf[64];

		err = -errno;
		if (err == -EEXIST) {
			fprintf(stderr, "Error: %s %s already has a rule for %s; delete it first.\n",
				dev, r->dir ? "egress" : "ingress", r->has_match ?
				xf_addr_str(&m, true, buf, sizeof(buf)) : "everything (no match)");
			err = -XF_EUSAGE;
		} else {
			fprintf(stderr, "Error: cannot add the rule: %s.\n", strerror(-err));
		}
		goto out;
	}
	/* The first rule of a device and direction attaches the program. */
	if (now == RD_NONE) {
		err = rd_attach(nl, &in, dev, l.ifindex, r->dir, r->hook, &how);
		if (err) {
			bpf_map_delete_elem(in.fd[RD_MAP_RULES], &key);
			xf_pin_remove(l.ifindex, NULL);
		}
	}
out:
	if (err && in.created) {
		xf_inst_remove(&in);
	}
	free(cnt);
	free(zero);
	xf_inst_close(&in);
	return err;
}

struct rd_del {
	uint32_t scope_ing, scope_egr;
	int dir;		/* -1: both */
	int deleted;
	struct rd_walk *gone;	/* what was deleted, to put back */
};

static int rd_del_cb(struct xf_inst *in, struct rd_walk *w, void *arg)
{
	struct rd_del *d = arg;

	if ((d->dir != XF_RD_DIR_EGRESS && w->key.scope == d->scope_ing) ||
	    (d->dir != XF_RD_DIR_INGRESS && w->key.scope == d->scope_egr)) {
		if (bpf_map_delete_elem(in->fd[RD_MAP_RULES], &w->key))
			return errno == ENOENT ? 0 : -errno;
		d->gone[d->deleted++] = *w;
	}
	return 0;
}

/* Put deleted rules back after a failure. */
static void rd_undelete(struct xf_inst *in, const struct rd_del *d)
{
	int i;

	for (i = 0; i < d->deleted; i++)
		if (bpf_map_update_elem(in->fd[RD_MAP_RULES], &d->gone[i].key, &d->gone[i].rule,
					BPF_NOEXIST))
			fprintf(stderr, "Error: cannot put a deleted rule back: %s.\n",
				strerror(errno));
}

/* After a delete: detach a scope left without rules, and drop the
 * instance when no rule is left at all. 0, or -errno after an Error with
 * every scope it detached attached again. */
static int rd_tidy(struct xf_nl *nl, struct xf_inst *in, const char *dev, int ifindex, int dir)
{
	struct rd_scope_count *c = calloc(1, sizeof(*c));
	enum rd_attach how[2] = { RD_NONE, RD_NONE }, again;
	bool gone[2] = { false, false };
	int d, total, err = 0;

	if (!c)
		return -ENOMEM;
	/* Everything is read before anything is detached. */
	for (d = XF_RD_DIR_INGRESS; d <= XF_RD_DIR_EGRESS && !err; d++) {
		if (dir >= 0 && d != dir)
			continue;
		memset(c, 0, sizeof(*c));
		c->scope = XF_RD_SCOPE(ifindex, d);
		err = rd_each(in, rd_count_cb, c);
		if (err >= 0)
			err = 0;
		how[d] = rd_attached(nl, ifindex, d);
		if (how[d] == RD_ERR)
			err = -EIO;
		gone[d] = !c->n && how[d] > RD_NONE;
	}
	total = err ? 0 : rd_each(in, NULL, NULL);
	if (total < 0)
		err = total;
	if (err)
		fprintf(stderr, "Error: cannot read the redirect rules: %s.\n", strerror(-err));
	for (d = XF_RD_DIR_INGRESS; d <= XF_RD_DIR_EGRESS && !err; d++) {
		if (!gone[d])
			continue;
		err = rd_detach(nl, ifindex, d, how[d]);
		if (err) {
			gone[d] = false;
			fprintf(stderr, "Error: cannot detach redirect from %s %s: %s.\n", dev,
				d ? "egress" : "ingress", strerror(-err));
		}
	}
	if (err) {
		for (d = XF_RD_DIR_INGRESS; d <= XF_RD_DIR_EGRESS; d++)
			if (gone[d])
				rd_attach(nl, in, dev, ifindex, d, how[d] == RD_XDP ? XF_HOOK_XDP :
					  XF_HOOK_TC, &again);
		free(c);
		return err;
	}
	if (total == 0) {
		xf_inst_close(in);
		xf_inst_remove(in);
	}
	free(c);
	return 0;
}

int xf_redirect_del(struct xf_nl *nl, const char *dev, int dir, const struct xf_addr *match,
		    bool all)
{
	struct rd_del d = { .dir = dir };
	struct xf_addr m;
	struct xf_inst in;
	struct xf_link l;
	int err;

	if (xf_link_find(nl, dev, &l))
		return -ENODEV;
	err = rd_open(&in, RD_CHANGE);
	if (err == -ENOENT) {
		fprintf(stderr, "Error: %s has no redirect rules.\n", dev);
		return err;
	}
	if (err)
		return err;
	d.gone = calloc(XF_RD_MAX_RULES, sizeof(*d.gone));
	if (!d.gone) {
		xf_inst_close(&in);
		return -ENOMEM;
	}
	if (all) {
		d.scope_ing = XF_RD_SCOPE(l.ifindex, XF_RD_DIR_INGRESS);
		d.scope_egr = XF_RD_SCOPE(l.ifindex, XF_RD_DIR_EGRESS);
		err = rd_each(&in, rd_del_cb, &d);
		if (err < 0) {
			fprintf(stderr, "Error: cannot delete the rules of %s: %s.\n", dev,
				strerror(-err));
		} else if (!d.deleted) {
			fprintf(stderr, "Error: %s has no redirect rules.\n", dev);
			err = -ENOENT;
		} else {
			err = 0;
		}
	} else {
		struct rd_walk *w = &d.gone[0];

		if (match) {
			m = *match;
			rd_mask(&m);
		}
		rd_key(l.ifindex, dir < 0 ? XF_RD_DIR_INGRESS : dir, match ? &m : NULL, &w->key);
		if (bpf_map_lookup_elem(in.fd[RD_MAP_RULES], &w->key, &w->rule) ||
		    bpf_map_delete_elem(in.fd[RD_MAP_RULES], &w->key)) {
			char buf[64];

			err = -errno;
			if (err == -ENOENT)
				fprintf(stderr, "Error: %s %s has no rule for %s.\n", dev,
					dir == XF_RD_DIR_EGRESS ? "egress" : "ingress",
					match ? xf_addr_str(&m, true, buf, sizeof(buf)) :
					"everything");
			else
				fprintf(stderr, "Error: cannot delete the rule: %s.\n",
					strerror(-err));
		} else {
			d.deleted = 1;
		}
	}
	/* "del all" also tidies a scope left attached with no rule (by a
	 * killed command), even though it deleted nothing. */
	if (!err || (all && err == -ENOENT)) {
		int e = rd_tidy(nl, &in, dev, l.ifindex,
				all ? -1 : dir < 0 ? XF_RD_DIR_INGRESS : dir);

		err = err ?: e;
	}
	if (err && in.fd[RD_MAP_RULES] >= 0)
		rd_undelete(&in, &d);
	free(d.gone);
	xf_inst_close(&in);
	return err;
}
