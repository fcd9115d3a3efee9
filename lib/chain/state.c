// SPDX-License-Identifier: GPL-2.0
/* chain: the changes to an existing chain (set, order, del), its listing
 * and counters, and the built-in members route and redirect join with. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "usage.h"
#include "internal.h"
#include "chain/chain.h"
#include "xbpf.h"

/* Open dev's chain for a change of an existing one. */
static int chain_if_existing(struct xf_nl *nl, const char *dev, struct chain_if *c)
{
	int err = chain_if_open(nl, dev, true, c);

	if (!err && !c->d.n) {
		fprintf(stderr, "Error: %s has no xfwd chain.\n", dev);
		err = -ENOENT;
	}
	return err;
}

int xf_chain_set(struct xf_nl *nl, const char *dev, const char *name,
		 const struct xf_chain_add *rules)
{
	struct xf_chain_desc d;
	struct chain_if c;
	int i, err;

	err = chain_if_existing(nl, dev, &c);
	if (err)
		goto out;
	d = c.d;
	i = chain_find_member(&d, name);
	if (i < 0) {
		fprintf(stderr, "Error: no member \"%s\" on %s.\n", name, dev);
		err = -XF_EUSAGE;
		goto out;
	}
	err = chain_apply_rules(&d, i, rules) ?: chain_commit(&c, &d);
out:
	chain_if_close(&c);
	return err;
}

int xf_chain_order(struct xf_nl *nl, const char *dev, const char *const *names, int n)
{
	struct xf_chain_desc d;
	struct chain_if c;
	int i, j, k, err;

	err = chain_if_existing(nl, dev, &c);
	if (err)
		goto out;
	d = c.d;
	err = -XF_EUSAGE;
	if ((uint32_t)n != c.d.n) {
		fprintf(stderr, "Error: order names %d members; %s has %u.\n", n, dev, c.d.n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		j = chain_find_member(&c.d, names[i]);
		if (j < 0) {
			fprintf(stderr, "Error: no member \"%s\" on %s.\n", names[i], dev);
			goto out;
		}
		for (k = 0; k < i; k++) {
			if (!strcmp(names[k], names[i])) {
				fprintf(stderr, "Error: duplicate \"%s\".\n", names[i]);
				goto out;
			}
		}
		d.m[i] = c.d.m[j];
	}
	err = chain_commit(&c, &d);
out:
	chain_if_close(&c);
	return err;
}

/* The last member is gone: unpin everything, the link last. */
static void chain_remove_all(struct chain_if *c)
{
	char p[CHAIN_PATH_LEN + 32];

	snprintf(p, sizeof(p), "%s/maps", c->pin);
	xf_pin_rmtree(p);
	chain_unpin(c);
	/* The copies, then the namespace's directories when nothing else is
	 * in them. */
	xf_rmtree_prune(c->run);
}

/* A member that one of xfwd's own objects put there (route, redirect):
 * it shares that object's maps, and leaves with its detach or del. */
static bool chain_member_builtin(const struct xf_chain_desc_member *m)
{
	return m->maps[0];
}

/* The members' files and own maps, after a commit without them. */
static void chain_forget(const struct chain_if *c, const struct xf_chain_desc_member *gone)
{
	char p[CHAIN_PATH_LEN + 64];

	chain_obj_path(c, gone->name, p, sizeof(p));
	unlink(p);
	chain_src_path(c, gone->name, p, sizeof(p));
	unlink(p);
	if (!gone->maps[0]) {
		chain_map_dir(c, gone, p, sizeof(p));
		xf_pin_rmtree(p);
	}
}

/* Every member of d but the built-in ones; gotos to a member that goes
 * fall back to the verdict's default, as the member had before. The
 * members that go into gone (*ngone of them). */
static void chain_keep_builtin(struct xf_chain_desc *d, struct xf_chain_desc_member *gone,
			       uint32_t *ngone)
{
	uint32_t i, k, v, n = 0;

	*ngone = 0;
	for (i = 0; i < d->n; i++) {
		if (chain_member_builtin(&d->m[i]))
			d->m[n++] = d->m[i];
		else
			gone[(*ngone)++] = d->m[i];
	}
	d->n = n;
	for (i = 0; i < n; i++)
		for (v = 0; v < XF_V_N; v++)
			for (k = 0; k < *ngone; k++)
				if (d->m[i].act[v] == XF_ACT_GOTO &&
				    d->m[i].target[v] == gone[k].slot)
					d->m[i].act[v] = XF_ACT_DEFAULT;
}

/* name: that member; NULL: every member but the built-in ones (the whole
 * chain when there are none). own: refuse a built-in name. */
static int chain_del(struct xf_nl *nl, const char *dev, const char *name, bool own)
{
	struct xf_chain_desc_member gone[XF_CHAIN_MAX];
	struct xf_chain_desc d;
	struct chain_if c;
	uint32_t v, k, ngone = 1;
	int i, err;

	err = chain_if_existing(nl, dev, &c);
	if (err)
		goto out;
	d = c.d;
	if (!name) {
		chain_keep_builtin(&d, gone, &ngone);
		if (!d.n) {
			chain_remove_all(&c);
			goto out;
		}
		if (!ngone)
			goto out;
		goto commit;
	}
	i = chain_find_member(&d, name);
	if (i < 0) {
		fprintf(stderr, "Error: no member \"%s\" on %s.\n", name, dev);
		err = -XF_EUSAGE;
		goto out;
	}
	if (own && chain_member_builtin(&d.m[i])) {
		fprintf(stderr, "Error: member \"%s\" on %s belongs to xfwd %s; it leaves "
			"with \"xfwd %s %s dev %s\".\n", name, dev, name, name,
			strcmp(name, "route") ? "del" : "detach", dev);
		err = -XF_EUSAGE;
		goto out;
	}
	if (d.n == 1) {
		chain_remove_all(&c);
		goto out;
	}
	for (k = 0; k < d.n; k++) {
		for (v = 0; v < XF_V_N; v++) {
			if (d.m[k].act[v] == XF_ACT_GOTO && d.m[k].target[v] == d.m[i].slot) {
				fprintf(stderr, "Error: member %s goes to %s on %s; change that "
					"rule first.\n", d.m[k].name, name, xf_chain_verdict_name(v));
				err = -XF_EUSAGE;
				goto out;
			}
		}
	}
	gone[0] = d.m[i];
	memmove(&d.m[i], &d.m[i + 1], (d.n - i - 1) * sizeof(d.m[0]));
	d.n--;
commit:
	err = chain_commit(&c, &d);
	for (k = 0; !err && k < ngone; k++)
		chain_forget(&c, &gone[k]);
out:
	chain_if_close(&c);
	return err;
}

int xf_chain_del(struct xf_nl *nl, const char *dev, const char *name)
{
	return chain_del(nl, dev, name, false);
}

int xf_chain_del_own(struct xf_nl *nl, const char *dev, const char *name)
{
	return chain_del(nl, dev, name, true);
}

static int chain_info(struct chain_if *c, struct xf_chain_info *ci, uint64_t *percpu,
		      struct xf_chain_profile *prof)
{
	struct bpf_link_info li = { 0 };
	uint32_t len = sizeof(li);

	memset(ci, 0, sizeof(*ci));
	ci->ifindex = c->l.ifindex;
	memcpy(ci->dev, c->l.name, sizeof(ci->dev));
	ci->desc = c->d;
	if (!bpf_link_get_info_by_fd(c->link_fd, &li, &len)) {
		ci->link_id = li.id;
		ci->prog_id = li.prog_id;
	}
	ci->mode = c->l.xdp.mode == XF_XDP_SKB ? "generic" : "native";
	ci->percpu = percpu;
	ci->ncpu = xf_ncpus();
	ci->prof = xf_chain_profile_last(c->l.ifindex, prof, &ci->profiling) ? NULL : prof;
	return xf_chain_counters_read_percpu(c->cnt_fd, ci->cnt, percpu);
}

struct chain_walk {
	int ifx[256];
	int n;
};

static int chain_walk_cb(const struct xf_link *l, void *arg)
{
	struct chain_walk *w = arg;

	if (w->n < 256)
		w->ifx[w->n++] = l->ifindex;
	return 0;
}

int xf_chain_list(struct xf_nl *nl, const char *dev,
		  int (*cb)(const struct xf_chain_info *ci, void *arg), void *arg)
{
	struct chain_walk *w;
	struct xf_chain_profile *prof;
	struct xf_chain_info *ci;
	struct chain_if c;
	uint64_t *percpu;
	int i, err = 0;

	w = calloc(1, sizeof(*w));
	ci = malloc(sizeof(*ci));
	prof = malloc(sizeof(*prof));
	percpu = calloc((size_t)xf_ncpus() * XF_CHAIN_CNT_N, sizeof(*percpu));
	if (!w || !ci || !prof || !percpu) {
		err = -ENOMEM;
		goto out;
	}
	if (dev) {
		struct xf_link l;

		err = xf_link_find(nl, dev, &l);
		if (err)
			goto out;
		w->ifx[w->n++] = l.ifindex;
	} else {
		err = xf_link_list(nl, chain_walk_cb, w);
		if (err)
			goto out;
	}
	for (i = 0; i < w->n && !err; i++) {
		char name[IF_NAMESIZE];

		if (!if_indextoname(w->ifx[i], name))
			continue;
		if (chain_if_open(nl, name, false, &c))
			continue;
		if (c.d.n && !chain_info(&c, ci, percpu, prof))
			err = cb(ci, arg);
		chain_if_close(&c);
	}
out:
	free(w);
	free(ci);
	free(prof);
	free(percpu);
	return err < 0 ? err : 0;
}

int xf_chain_counters_reset(struct xf_nl *nl, const char *dev)
{
	struct chain_if c;
	uint32_t key = 0;
	int err;

	err = chain_if_open(nl, dev, false, &c);
	if (err)
		return err;
	err = c.d.n && c.cnt_fd >= 0 ? xf_percpu_zero(c.cnt_fd, &key, XF_CHAIN_CNT_N) : -ENOENT;
	chain_if_close(&c);
	return err;
}

int xf_chain_link_fd(int ifindex)
{
	char dir[CHAIN_PATH_LEN];
	int err;

	err = xf_pin_path(dir, sizeof(dir), ifindex, NULL);
	return err ?: xf_pin_get(dir, "xdp_link");
}

/* Temporary objects of name left by killed commands: under the lock, no
 * other xfwd is writing one. */
static void chain_tidy_tmp(const char *name)
{
	char pre[32], p[CHAIN_PATH_LEN];
	struct dirent *e;
	DIR *dir;

	snprintf(pre, sizeof(pre), ".%s-", name);
	dir = opendir(XF_CHAIN_RUN_DIR);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, pre, strlen(pre)))
			continue;
		snprintf(p, sizeof(p), "%s/%s", XF_CHAIN_RUN_DIR, e->d_name);
		unlink(p);
	}
	closedir(dir);
}

int xf_chain_join(struct xf_nl *nl, const char *dev, const struct xf_chain_builtin *b,
		  const void *elf, size_t size)
{
	struct xf_link l;
	int err;

	err = xf_link_find(nl, dev, &l);
	return err ?: xf_chain_join_link(nl, &l, b, elf, size);
}

int xf_chain_join_link(struct xf_nl *nl, const struct xf_link *l,
		       const struct xf_chain_builtin *b, const void *elf, size_t size)
{
	struct xf_chain_add a = {
		.prog = b->prog, .name = b->name, .has_prio = true, .prio = b->prio,
		.maps = b->maps, .xdp_flags = b->xdp_flags, .keep = b->keep,
	};
	const char *dev = l->name;
	struct chain_if c;
	char tmp[64];
	int fd, err;

	/* The member already there was left by a command killed before it
	 * pinned its own link (the caller found none): it is reused. */
	err = chain_if_open_link(nl, l, false, &c);
	if (err)
		return err;
	fd = chain_find_member(&c.d, b->name) >= 0 ? fcntl(c.link_fd, F_DUPFD_CLOEXEC, 3) : -ENOENT;
	chain_if_close(&c);
	if (fd >= 0)
		return fd;
	/* The object goes through a file like any member's, so a rebuild by
	 * any later xfwd finds its copy under XF_CHAIN_RUN_DIR. */
	chain_tidy_tmp(b->name);
	snprintf(tmp, sizeof(tmp), "%s/.%s-%d.o", XF_CHAIN_RUN_DIR, b->name, (int)getpid());
	err = xf_pin_mkdir(XF_CHAIN_RUN_DIR);
	fd = err ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, elf, size) != (ssize_t)size) {
		err = -errno ?: -EIO;
		fprintf(stderr, "Error: cannot write %s: %s.\n", tmp, strerror(-err));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return err;
	}
	close(fd);
	a.obj = tmp;
	err = chain_add_link(nl, l, &a);
	unlink(tmp);
	if (err)
		return err;
	fd = xf_chain_link_fd(l->ifindex);
	if (fd < 0) {
		fprintf(stderr, "Error: cannot open the chain link of %s: %s.\n", dev,
			strerror(-fd));
		xf_chain_del(nl, dev, b->name);
	}
	return fd;
}

