// SPDX-License-Identifier: GPL-2.0
/* chain: the kernel holds each interface's chain. Under
 * XF_PIN_ROOT/ns<id>/<ifindex>/ are the XDP link ("xdp_link", swapped with
 * bpf_link_update), the counters ("chain_cnt"), the order and rules
 * ("chain_desc", a one-entry map) and the members' own maps
 * ("maps/<member>/<map>", kept across rebuilds so operators can fill them
 * with bpftool). Member objects are copied to XF_CHAIN_RUN_DIR. Every
 * change builds and verifies a whole new program before anything is
 * swapped or written. */
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
#include "elf_check.h"
#include "file.h"
#include "xbpf.h"

void chain_if_close(struct chain_if *c)
{
	xf_fd_close(&c->link_fd);
	xf_fd_close(&c->desc_fd);
	xf_fd_close(&c->cnt_fd);
}

/* strerror() that also knows libbpf's own codes (LIBBPF_ERRNO__FORMAT...). */
const char *chain_err_str(int err, char *buf, size_t len)
{
	libbpf_strerror(err, buf, len);
	return buf;
}

static uint32_t desc_size(int fd)
{
	struct bpf_map_info mi = { 0 };
	uint32_t len = sizeof(mi);

	return bpf_map_get_info_by_fd(fd, &mi, &len) ? 0 : mi.value_size;
}

void chain_unpin(const struct chain_if *c)
{
	xf_pin_remove(c->l.ifindex, "chain_desc");
	xf_pin_remove(c->l.ifindex, "chain_cnt");
	xf_pin_remove(c->l.ifindex, "xdp_link");
	xf_pin_remove(c->l.ifindex, "chain_normal");
	xf_run_remove(c->l.ifindex, "profiling");
}

/* Open dev's chain, or an empty one. A foreign XDP program is refused. */
/* Some of the chain's pins and not all, each either there or absent: a
 * read that failed otherwise (a fault) proves nothing. */
static bool chain_remains(const struct chain_if *c)
{
	const int fds[] = { c->link_fd, c->desc_fd, c->cnt_fd };
	int i, there = 0;

	for (i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			there++;
		else if (fds[i] != -ENOENT)
			return false;
	}
	return there && there < 3;
}

int chain_if_open(struct xf_nl *nl, const char *dev, bool for_change, struct chain_if *c)
{
	struct xf_link l;
	int err;

	memset(c, 0, sizeof(*c));
	c->link_fd = c->desc_fd = c->cnt_fd = -1;
	err = xf_link_find(nl, dev, &l);
	return err ?: chain_if_open_link(nl, &l, for_change, c);
}

int chain_if_open_link(struct xf_nl *nl, const struct xf_link *l, bool for_change,
		       struct chain_if *c)
{
	const char *dev = l->name;
	uint32_t key = 0;
	int err;

	memset(c, 0, sizeof(*c));
	c->link_fd = c->desc_fd = c->cnt_fd = -1;
	c->l = *l;
	err = xf_pin_path(c->pin, sizeof(c->pin), c->l.ifindex, NULL) ?:
	      xf_run_path(c->run, sizeof(c->run), c->l.ifindex, NULL);
	if (err)
		return err;
	c->link_fd = xf_pin_get(c->pin, "xdp_link");
	c->desc_fd = xf_pin_get(c->pin, "chain_desc");
	c->cnt_fd = xf_pin_get(c->pin, "chain_cnt");
	/* A description of another layout (another xfwd) is not read: the
	 * kernel would copy its value size into ours. */
	if (c->desc_fd >= 0 && desc_size(c->desc_fd) == sizeof(c->d) &&
	    !bpf_map_lookup_elem(c->desc_fd, &key, &c->d) &&
	    c->d.magic == XF_CHAIN_MAGIC && c->d.n <= XF_CHAIN_MAX && c->link_fd >= 0 &&
	    c->cnt_fd >= 0)
		return 0;
	/* Nothing, or the remains of a command killed while it attached the
	 * first chain: start afresh. The link is pinned last, so remains
	 * without it never ran; with it but without the description or the
	 * counters (an xfwd that pinned the link first), the link is
	 * unpinned, and detached as our last reference to it goes. A
	 * description of another layout is not ours to remove. */
	c->remains = chain_remains(c);
	if (for_change && c->remains)
		chain_unpin(c);
	chain_if_close(c);
	memset(&c->d, 0, sizeof(c->d));
	if (for_change && c->remains) {
		err = xf_link_get(nl, NULL, c->l.ifindex, &c->l);
		if (err)
			return err;
	}
	if (for_change && c->l.xdp.prog_id) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(c->l.xdp.prog_id);

		if (fd >= 0) {
			bpf_prog_get_info_by_fd(fd, &info, &len);
			close(fd);
		}
		fprintf(stderr, "Error: %s already has XDP program %u (%s) that is not an xfwd "
			"chain; detach it first.\n", dev, c->l.xdp.prog_id,
			info.name[0] ? info.name : "?");
		return -EBUSY;
	}
	return 0;
}

int chain_find_member(const struct xf_chain_desc *d, const char *name)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->m[i].name, name))
			return i;
	return -1;
}

int chain_find_slot(const struct xf_chain_desc *d, int slot)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		if (d->m[i].slot == slot)
			return i;
	return -1;
}

void chain_obj_path(const struct chain_if *c, const char *member, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.o", c->run, member);
}

void chain_map_dir(const struct chain_if *c, const struct xf_chain_desc_member *dm,
		    char *buf, size_t len)
{
	if (dm->maps[0])
		xf_pin_path(buf, len, 0, dm->maps);
	else
		snprintf(buf, len, "%s/maps/%s", c->pin, dm->name);
}

/* Open a member's object with only its program loaded, its maps pinned
 * (or reused from their pins) below chain_map_dir(). */
static struct bpf_object *chain_member_open(const struct chain_if *c, const char *path,
					     const struct xf_chain_desc_member *dm,
					     struct bpf_program **prog, char *msg, size_t len)
{
	char dir[CHAIN_PATH_LEN + 32], pin[CHAIN_PATH_LEN + 64], why[256], ebuf[128];
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *map;
	int err;

	if (xf_elf_check_file(path, why, sizeof(why))) {
		snprintf(msg, len, "member %s: %s", dm->name, why);
		return NULL;
	}
	obj = xf_bpf_open_file(path);
	if (!obj) {
		snprintf(msg, len, "member %s: cannot open its object: %s", dm->name,
			 chain_err_str(errno, ebuf, sizeof(ebuf)));
		return NULL;
	}
	*prog = NULL;
	bpf_object__for_each_program(p, obj) {
		bool mine = !strcmp(bpf_program__name(p), dm->prog);

		bpf_program__set_autoload(p, mine);
		if (mine)
			*prog = p;
	}
	if (!*prog) {
		snprintf(msg, len, "member %s: no program \"%s\" in its object", dm->name, dm->prog);
		goto err;
	}
	chain_map_dir(c, dm, dir, sizeof(dir));
	err = xf_pin_mkdir(dir);
	bpf_object__for_each_map(map, obj) {
		int fd;

		if (err || bpf_map__is_internal(map))
			continue;
		snprintf(pin, sizeof(pin), "%s/%s", dir, bpf_map__name(map));
		if (!dm->maps[0]) {
			err = bpf_map__set_pin_path(map, pin);
			continue;
		}
		/* Shared maps exist already; take them as they are (the kernel
		 * adds flags of its own, e.g. to device maps, that libbpf's
		 * compatibility check of a pinned map would refuse). */
		fd = bpf_obj_get(pin);
		err = fd < 0 ? -errno : bpf_map__reuse_fd(map, fd);
		if (fd >= 0)
			close(fd);
	}
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		snprintf(msg, len, "member %s: %s%s%s", dm->name,
			 chain_err_str(err, ebuf, sizeof(ebuf)),
			 *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		goto err;
	}
	return obj;
err:
	bpf_object__close(obj);
	return NULL;
}

/* Whether member dm takes its instructions from k: its name and program,
 * and its object file holds k's bytes (a copy left by another xfwd may
 * not). */
static bool chain_keep_fits(const struct xf_chain_keep *k, const struct xf_chain_desc_member *dm,
			    const char *path)
{
	return k && !strcmp(dm->name, k->member) && !strcmp(dm->prog, k->prog) &&
	       xf_file_is(path, k->elf, k->size);
}

void xf_chain_keep_close(struct xf_chain_keep *k)
{
	bpf_object__close(k->obj);
	k->obj = NULL;
	k->prog_p = NULL;
}

/* The Error of an XDP attach or swap on c that failed with err: ERANGE is a
 * driver's "not at this MTU", which says nothing by its text. */
static void chain_xdp_err(const struct chain_if *c, const char *what, int err)
{
	if (err == -ERANGE)
		fprintf(stderr, "Error: cannot %s %s: its driver takes no XDP program at "
			"MTU %u (or at its peer's): frames over a page need every program "
			"of the chain to be xdp.frags, and a driver with multi-buffer XDP; "
			"lower the MTU, or use hook tc.\n", what, c->l.name, c->l.mtu);
	else
		fprintf(stderr, "Error: cannot %s %s: %s.\n", what, c->l.name,
			strerror(-err));
}

int chain_build(const struct chain_if *c, const struct xf_chain_desc *d, int cnt_fd,
		int timed_fd, char *msg, size_t len)
{
	struct bpf_object *objs[XF_CHAIN_MAX] = { 0 }, *obj;
	struct xf_chain_member m[XF_CHAIN_MAX];
	struct bpf_program *prog;
	char path[CHAIN_PATH_LEN + 32];
	uint32_t i, v;
	int fd = -EINVAL;

	memset(m, 0, sizeof(m));
	for (i = 0; i < d->n; i++) {
		const struct xf_chain_desc_member *dm = &d->m[i];

		for (v = 0; v < XF_V_N; v++) {
			m[i].on[v].action = dm->act[v];
			if (dm->act[v] == XF_ACT_GOTO) {
				int t = chain_find_slot(d, dm->target[v]);

				if (t < 0) {
					snprintf(msg, len, "member %s: goto to a member that is gone",
						 dm->name);
					goto out;
				}
				m[i].on[v].target = t;
			}
		}
		m[i].slot = dm->slot;
		chain_obj_path(c, dm->name, path, sizeof(path));
		if (chain_keep_fits(c->keep, dm, path)) {
			if (!c->keep->obj) {
				c->keep->obj = chain_member_open(c, path, dm, &c->keep->prog_p,
								 msg, len);
				if (!c->keep->obj)
					goto out;
			}
			obj = c->keep->obj;
			prog = c->keep->prog_p;
		} else {
			obj = objs[i] = chain_member_open(c, path, dm, &prog, msg, len);
			if (!obj)
				goto out;
		}
		xf_chain_member_from_prog(&m[i], dm->name, prog);
		if (xf_chain_member_kfuncs(&m[i], obj, msg, len))
			goto out;
	}
	/* A cycle or a dangling goto is the user's to fix: a usage error. */
	fd = xf_chain_check(m, d->n, msg, len) ? -XF_EUSAGE :
	     xf_chain_load_timed(m, d->n, cnt_fd, timed_fd, msg, len);
out:
	for (i = 0; i < d->n; i++) {
		xf_chain_member_kfuncs_close(&m[i]);
		bpf_object__close(objs[i]);
	}
	return fd;
}

/* Make d the running chain: build, then swap (or attach the first time),
 * then record d. Nothing is changed before the build has passed. */
int chain_commit(struct chain_if *c, struct xf_chain_desc *d)
{
	LIBBPF_OPTS(bpf_link_update_opts, uo);
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	bool first = c->link_fd < 0;
	int cnt_fd = c->cnt_fd, desc_fd = c->desc_fd, prog_fd, link_fd = -1, err;
	char msg[512];
	uint32_t key = 0;

	if (first) {
		cnt_fd = xf_chain_counters_create();
		desc_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "xf_chain_desc", sizeof(key),
					 sizeof(*d), 1, NULL);
		if (cnt_fd < 0 || desc_fd < 0) {
			err = cnt_fd < 0 ? cnt_fd : -errno;
			fprintf(stderr, "Error: cannot create the chain's maps: %s.\n",
				strerror(-err));
			goto out;
		}
	}
	prog_fd = chain_build(c, d, cnt_fd, -1, msg, sizeof(msg));
	if (prog_fd < 0) {
		err = prog_fd;
		fprintf(stderr, "Error: %s.\n", msg);
		goto out;
	}
	d->magic = XF_CHAIN_MAGIC;
	d->gen++;
	if (first) {
		lo.flags = c->xdp_flags;
		/* The link is pinned last: a command killed before that
		 * leaves pins that chain_if_open() recognises as remains, and
		 * its link goes with its descriptors. */
		link_fd = bpf_link_create(prog_fd, c->l.ifindex, BPF_XDP, &lo);
		err = link_fd < 0 ? -errno : xf_pin_mkdir(c->pin);
		if (!err && bpf_map_update_elem(desc_fd, &key, d, BPF_ANY))
			err = -errno;
		err = err ?: xf_pin_obj(desc_fd, c->pin, "chain_desc") ?:
		      xf_pin_obj(cnt_fd, c->pin, "chain_cnt") ?:
		      xf_pin_obj(link_fd, c->pin, "xdp_link");
		if (err) {
			chain_xdp_err(c, "attach the chain to", err);
			chain_unpin(c);
		}
	} else {
		/* The description first, then the swap: one program for
		 * another, atomically, under traffic. A swap that fails puts
		 * the old description back, so both always agree. */
		err = 0;
		if (bpf_map_update_elem(desc_fd, &key, d, BPF_ANY)) {
			err = -errno;
			fprintf(stderr, "Error: cannot record the chain of %s: %s.\n", c->l.name,
				strerror(-err));
		} else if (bpf_link_update(c->link_fd, prog_fd, &uo)) {
			err = -errno;
			chain_xdp_err(c, "swap the chain on", err);
			if (bpf_map_update_elem(desc_fd, &key, &c->d, BPF_ANY))
				fprintf(stderr, "Error: cannot restore the chain's description on "
					"%s: %s.\n", c->l.name, strerror(errno));
		}
	}
	close(prog_fd);
	if (link_fd >= 0)
		close(link_fd);
out:
	if (first) {
		if (cnt_fd >= 0)
			close(cnt_fd);
		if (desc_fd >= 0)
			close(desc_fd);
	}
	return err;
}
