// SPDX-License-Identifier: GPL-2.0
/* redirect: one program instance per namespace, pinned under
 * XF_PIN_ROOT/ns<id>/redirect/, whose rules (an LPM trie keyed by device,
 * direction and destination prefix) steer packets to other devices. A
 * device's direction is attached once, with its first rule: a tcx link
 * pinned at <ifindex>/redirect_<dir>, a cls_bpf filter on clsact where
 * tcx is missing or XFWD_TC_MODE=clsact, or the XDP chain member
 * "redirect". Rules come and go in the map under traffic. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "chain_state.h"
#include "nl.h"
#include "nl_link.h"
#include "nl_tc.h"
#include "probe.h"
#include "redirect.h"
#include "xbpf.h"
#include "redirect.skel.h"

#define PATH_LEN 256

enum { RD_PROG_ING, RD_PROG_EGR, RD_PROG_XDP, RD_MAP_RULES, RD_MAP_CNT, RD_MAP_TX, RD_NFDS };

static const char *const rd_obj_names[RD_NFDS] = {
	[RD_PROG_ING] = "prog_ingress", [RD_PROG_EGR] = "prog_egress",
	[RD_PROG_XDP] = "prog_xdp", [RD_MAP_RULES] = "xf_rd_rules",
	[RD_MAP_CNT] = "xf_rd_cnt", [RD_MAP_TX] = "xf_rd_tx",
};

static const char *const mode_names[XF_RD_MODE_MAX] = {
	[XF_RD_EGRESS] = "egress", [XF_RD_INGRESS] = "ingress", [XF_RD_PEER] = "peer",
	[XF_RD_PEER_EGRESS] = "peer-egress", [XF_RD_NEIGH] = "neigh",
	[XF_RD_MIRROR] = "mirror",
};

const char *xf_redirect_mode_name(int mode)
{
	return mode >= 0 && mode < XF_RD_MODE_MAX ? mode_names[mode] : "?";
}

int xf_redirect_mode_parse(const char *word)
{
	int i;

	for (i = 0; i < XF_RD_MODE_MAX; i++)
		if (!strcmp(mode_names[i], word))
			return i;
	return -1;
}

struct rd_inst {
	int fd[RD_NFDS];
	bool created;
	char dir[PATH_LEN];
};

static void rd_close(struct rd_inst *in)
{
	int i;

	for (i = 0; i < RD_NFDS; i++) {
		if (in->fd[i] >= 0)
			close(in->fd[i]);
		in->fd[i] = -1;
	}
}

/* Open the namespace's instance; with create, load and pin it if there is
 * none. -ENOENT without create when there is none. */
static int rd_open(struct rd_inst *in, bool create)
{
	struct redirect_bpf *skel;
	char why[512];
	int i, fd, err;

	for (i = 0; i < RD_NFDS; i++)
		in->fd[i] = -1;
	in->created = false;
	err = xf_pin_path(in->dir, sizeof(in->dir), 0, NULL);
	if (err)
		return err;
	strncat(in->dir, "/redirect", sizeof(in->dir) - strlen(in->dir) - 1);
	for (i = 0; i < RD_NFDS; i++) {
		fd = xf_pin_get(in->dir, rd_obj_names[i]);
		if (fd < 0)
			break;
		in->fd[i] = fd;
	}
	if (i == RD_NFDS)
		return 0;
	err = fd;
	rd_close(in);
	if (err != -ENOENT) {
		fprintf(stderr, "Error: cannot open the redirect program in %s: %s.\n", in->dir,
			strerror(-err));
		return err;
	}
	if (i)		/* a part of one, left by a killed command */
		xf_pin_rmtree(in->dir);
	if (!create)
		return -ENOENT;
	err = xf_bpffs_ensure();
	if (err) {
		fprintf(stderr, "Error: cannot mount bpffs: %s.\n", strerror(-err));
		return err;
	}
	skel = redirect_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "Error: cannot load the redirect program: %s%s%s.\n",
			strerror(-err), *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		return err;
	}
	in->fd[RD_PROG_ING] = bpf_program__fd(skel->progs.xf_rd_ingress);
	in->fd[RD_PROG_EGR] = bpf_program__fd(skel->progs.xf_rd_egress);
	in->fd[RD_PROG_XDP] = bpf_program__fd(skel->progs.xf_rd_xdp);
	in->fd[RD_MAP_RULES] = bpf_map__fd(skel->maps.xf_rd_rules);
	in->fd[RD_MAP_CNT] = bpf_map__fd(skel->maps.xf_rd_cnt);
	in->fd[RD_MAP_TX] = bpf_map__fd(skel->maps.xf_rd_tx);
	err = xf_pin_mkdir(in->dir);
	for (i = 0; i < RD_NFDS; i++) {
		int src = in->fd[i];

		in->fd[i] = fcntl(src, F_DUPFD_CLOEXEC, 3);
		if (!err)
			err = in->fd[i] < 0 ? -errno : xf_pin_obj(src, in->dir, rd_obj_names[i]);
	}
	redirect_bpf__destroy(skel);
	if (err) {
		fprintf(stderr, "Error: cannot pin the redirect program: %s.\n", strerror(-err));
		rd_close(in);
		xf_pin_rmtree(in->dir);
		*strrchr(in->dir, '/') = '\0';
		xf_dir_prune(in->dir, XF_PIN_ROOT);
		return err;
	}
	in->created = true;
	return 0;
}

/* The trie key of a rule: IPv4 as ::ffff:a.b.c.d; no match: scope only. */
static void rd_key(int ifindex, int dir, const struct xf_addr *m, struct xf_redir_key *k)
{
	memset(k, 0, sizeof(*k));
	k->scope = XF_RD_SCOPE(ifindex, dir);
	k->prefixlen = 32;
	if (!m)
		return;
	if (m->family == AF_INET) {
		k->addr[10] = k->addr[11] = 0xff;
		memcpy(k->addr + 12, m->bytes, 4);
		k->prefixlen += 96 + m->plen;
	} else {
		memcpy(k->addr, m->bytes, 16);
		k->prefixlen += m->plen;
	}
}

/* The rule's prefix from its key; false for a catch-all. */
static bool rd_key_match(const struct xf_redir_key *k, struct xf_addr *m)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(m, 0, sizeof(*m));
	if (k->prefixlen <= 32)
		return false;
	if (k->prefixlen >= 32 + 96 && !memcmp(k->addr, mapped, 12)) {
		m->family = AF_INET;
		m->plen = k->prefixlen - 32 - 96;
		memcpy(m->bytes, k->addr + 12, 4);
	} else {
		m->family = AF_INET6;
		m->plen = k->prefixlen - 32;
		memcpy(m->bytes, k->addr, 16);
	}
	return true;
}

/* Mask host bits, so 198.18.1.7/24 and 198.18.1.0/24 are one rule. */
static void rd_mask(struct xf_addr *m)
{
	int n = m->family == AF_INET ? 4 : 16, i;

	for (i = 0; i < n; i++) {
		int bits = m->plen - i * 8;

		if (bits <= 0)
			m->bytes[i] = 0;
		else if (bits < 8)
			m->bytes[i] &= 0xff << (8 - bits);
	}
}

struct rd_walk {
	struct xf_redir_key key;
	struct xf_redir_rule rule;
};

/* Call fn for every rule; keys are read first, as the walk must not see
 * its own deletions. Returns the count, or fn's error. */
static int rd_each(struct rd_inst *in, int (*fn)(struct rd_inst *, struct rd_walk *, void *),
		   void *arg)
{
	struct xf_redir_key *keys, *prev = NULL;
	struct rd_walk w;
	int n = 0, i, err = 0;

	keys = calloc(XF_RD_MAX_RULES, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	while (n < XF_RD_MAX_RULES &&
	       !bpf_map_get_next_key(in->fd[RD_MAP_RULES], prev, &keys[n])) {
		prev = &keys[n];
		n++;
	}
	/* A walk cut short is an error, not fewer rules: a caller counts
	 * rules to decide what to detach. */
	if (n < XF_RD_MAX_RULES && errno != ENOENT)
		err = -errno;
	for (i = 0; i < n && !err; i++) {
		w.key = keys[i];
		if (bpf_map_lookup_elem(in->fd[RD_MAP_RULES], &w.key, &w.rule)) {
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		err = fn ? fn(in, &w, arg) : 0;
	}
	free(keys);
	return err < 0 ? err : n;
}

struct rd_scope_count {
	uint32_t scope;
	int n;
	uint8_t used[XF_RD_MAX_RULES];
};

static int rd_count_cb(struct rd_inst *in __attribute__((unused)), struct rd_walk *w,
		       void *arg)
{
	struct rd_scope_count *c = arg;

	if (w->key.scope == c->scope)
		c->n++;
	if (w->rule.id < XF_RD_MAX_RULES)
		c->used[w->rule.id] = 1;
	return 0;
}

/* How the scope (device, direction) is attached now. */
enum rd_attach { RD_ERR = -1, RD_NONE, RD_TCX, RD_CLS, RD_XDP };

static void rd_link_path(int ifindex, int dir, bool xdp, char *buf, size_t len)
{
	xf_pin_path(buf, len, ifindex, xdp ? "redirect_xdp" :
		    dir == XF_RD_DIR_INGRESS ? "redirect_ingress" : "redirect_egress");
}

static enum rd_attach rd_attached(struct xf_nl *nl, int ifindex, int dir)
{
	struct xf_tc_filter tf[8];
	char path[PATH_LEN];
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

struct rd_qdisc_walk {
	int ifindex;
	bool found;
};

static int rd_clsact_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct rd_qdisc_walk *w = arg;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWQDISC || t->tcm_ifindex != w->ifindex)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*t))
		if (mnl_attr_get_type(a) == TCA_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0 &&
		    !strcmp(mnl_attr_get_str(a), "clsact"))
			w->found = true;
	return 0;
}

/* Whether ifindex has a clsact qdisc (in *has): asked first, as adding one
 * where there is one makes the kernel answer with an extack error line.
 * 0/-errno. */
static int rd_has_clsact(struct xf_nl *nl, int ifindex, bool *has)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETQDISC, NLM_F_DUMP);
	struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	struct rd_qdisc_walk w = { .ifindex = ifindex };
	int err;

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	err = xf_nl_dump(nl, nlh, rd_clsact_cb, &w);
	*has = w.found;
	return err;
}

static int rd_attach(struct xf_nl *nl, struct rd_inst *in, const char *dev, int ifindex,
		     int dir, enum xf_rd_hook hook, enum rd_attach *how)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	char path[PATH_LEN], dir_path[PATH_LEN];
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
		char mark[PATH_LEN];

		bool made = false;

		err = rd_has_clsact(nl, ifindex, &made);
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

static int rd_detach(struct xf_nl *nl, int ifindex, int dir, enum rd_attach how)
{
	char path[PATH_LEN], name[IF_NAMESIZE];
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
static int rd_validate(struct xf_nl *nl, const char *dev, const struct xf_redirect_req *r,
		       struct xf_link *tl)
{
	struct xf_probe p;

	if (xf_link_get(nl, r->target, 0, tl)) {
		fprintf(stderr, "Error: target device \"%s\" does not exist.\n", r->target);
		return -ENODEV;
	}
	if (r->hook == XF_RDH_XDP) {
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
		if (strcmp(tl->kind, "veth") && strcmp(tl->kind, "netkit")) {
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
	(void)dev;
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
	struct rd_inst in;
	uint32_t id;
	int err;

	if (xf_link_find(nl, dev, &l))
		return -ENODEV;
	err = rd_validate(nl, dev, r, &tl);
	if (err)
		return err;
	now = rd_attached(nl, l.ifindex, r->dir);
	if (now == RD_ERR) {
		fprintf(stderr, "Error: cannot read the tc filters of %s.\n", dev);
		return -EIO;
	}
	if (now != RD_NONE && (now == RD_XDP) != (r->hook == XF_RDH_XDP)) {
		fprintf(stderr, "Error: %s %s has rules on hook %s; delete them to change "
			"hook.\n", dev, r->dir ? "egress" : "ingress", now == RD_XDP ? "xdp" : "tc");
		return -XF_EUSAGE;
	}
	m = r->match;
	if (r->has_match)
		rd_mask(&m);
	rd_key(l.ifindex, r->dir, r->has_match ? &m : NULL, &key);
	err = rd_open(&in, true);
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
	    (r->hook == XF_RDH_XDP &&
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
			char dir[PATH_LEN];

			bpf_map_delete_elem(in.fd[RD_MAP_RULES], &key);
			if (!xf_pin_path(dir, sizeof(dir), l.ifindex, NULL))
				xf_dir_prune(dir, XF_PIN_ROOT);
		}
	}
out:
	if (err && in.created) {
		xf_pin_rmtree(in.dir);
		*strrchr(in.dir, '/') = '\0';
		xf_dir_prune(in.dir, XF_PIN_ROOT);
	}
	free(cnt);
	free(zero);
	rd_close(&in);
	return err;
}

struct rd_del {
	uint32_t scope_ing, scope_egr;
	int dir;		/* -1: both */
	int deleted;
	struct rd_walk *gone;	/* what was deleted, to put back */
};

static int rd_del_cb(struct rd_inst *in, struct rd_walk *w, void *arg)
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
static void rd_undelete(struct rd_inst *in, const struct rd_del *d)
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
static int rd_tidy(struct xf_nl *nl, struct rd_inst *in, const char *dev, int ifindex, int dir)
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
				rd_attach(nl, in, dev, ifindex, d, how[d] == RD_XDP ? XF_RDH_XDP :
					  XF_RDH_TC, &again);
		free(c);
		return err;
	}
	if (total == 0) {
		rd_close(in);
		xf_pin_rmtree(in->dir);
		*strrchr(in->dir, '/') = '\0';
		xf_dir_prune(in->dir, XF_PIN_ROOT);
	}
	free(c);
	return 0;
}

int xf_redirect_del(struct xf_nl *nl, const char *dev, int dir, const struct xf_addr *match,
		    bool all)
{
	struct rd_del d = { .dir = dir };
	struct xf_addr m;
	struct rd_inst in;
	struct xf_link l;
	int err;

	if (xf_link_find(nl, dev, &l))
		return -ENODEV;
	err = rd_open(&in, false);
	if (err == -ENOENT) {
		fprintf(stderr, "Error: %s has no redirect rules.\n", dev);
		return err;
	}
	if (err)
		return err;
	d.gone = calloc(XF_RD_MAX_RULES, sizeof(*d.gone));
	if (!d.gone) {
		rd_close(&in);
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
	rd_close(&in);
	return err;
}

struct rd_list {
	struct xf_nl *nl;
	int ifindex;		/* 0: all */
	int (*cb)(const struct xf_redirect_info *ri, void *arg);
	void *arg;
	struct xf_redirect_info ri;
	uint64_t *percpu;	/* xf_ncpus() * 2 */
};

/* Programs on this hook that are not ours, for show. */
static void rd_foreign(int ifindex, int dir, struct rd_inst *in, char *buf, size_t len)
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

static int rd_list_cb(struct rd_inst *in, struct rd_walk *w, void *arg)
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
	struct rd_inst in;
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
	/* A reader who may not enter the pins sees no rules; the dispatcher
	 * has said so once (xf_pins_readable). */
	err = access(XF_PIN_ROOT, X_OK) && errno == EACCES ? -ENOENT :
	      rd_open(&in, false);
	if (!err) {
		err = rd_each(&in, rd_list_cb, ls);
		rd_close(&in);
	}
	free(ls->percpu);
	free(ls);
	return err == -ENOENT || err > 0 ? 0 : err;
}

static int rd_reset_cb(struct rd_inst *in, struct rd_walk *w, void *arg)
{
	int ifindex = *(int *)arg;

	if (ifindex && (int)(w->key.scope >> 1) != ifindex)
		return 0;
	return xf_percpu_zero(in->fd[RD_MAP_CNT], &w->rule.id, 2);
}

int xf_redirect_reset(struct xf_nl *nl, const char *dev)
{
	struct rd_inst in;
	struct xf_link l;
	int ifindex = 0, err;

	if (dev) {
		if (xf_link_find(nl, dev, &l))
			return -ENODEV;
		ifindex = l.ifindex;
	}
	err = rd_open(&in, false);
	if (err)
		return err == -ENOENT ? 0 : err;
	err = rd_each(&in, rd_reset_cb, &ifindex);
	rd_close(&in);
	return err > 0 ? 0 : err;
}

static int rd_sweep_cb(struct rd_inst *in, struct rd_walk *w, void *arg)
{
	char name[IF_NAMESIZE];
	int *n = arg;

	if (if_indextoname(w->key.scope >> 1, name))
		return 0;
	if (!bpf_map_delete_elem(in->fd[RD_MAP_RULES], &w->key))
		(*n)++;
	return 0;
}

int xf_redirect_sweep(void)
{
	struct rd_inst in;
	int n = 0, left;

	if (rd_open(&in, false))
		return 0;
	rd_each(&in, rd_sweep_cb, &n);
	left = rd_each(&in, NULL, NULL);
	rd_close(&in);
	if (!left) {
		xf_pin_rmtree(in.dir);
		*strrchr(in.dir, '/') = '\0';
		xf_dir_prune(in.dir, XF_PIN_ROOT);
	}
	return n;
}
