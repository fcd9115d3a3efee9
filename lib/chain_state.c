// SPDX-License-Identifier: GPL-2.0
/* chain: the kernel holds each interface's chain. Under
 * XF_PIN_ROOT/ns<id>/<ifindex>/ are the XDP link ("xdp_link", swapped with
 * bpf_link_update), the counters ("chain_cnt"), the order and rules
 * ("chain_desc", a one-entry map) and the members' own maps
 * ("maps/<member>/<map>", kept across rebuilds so operators can fill them
 * with bpftool). Member objects are copied to XF_CHAIN_RUN_DIR. Every
 * change builds and verifies a whole new program before anything is
 * swapped or written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "arg.h"
#include "chain_state.h"
#include "elf_check.h"
#include "nl_link.h"
#include "xbpf.h"
#include "xfwd_compat.h"

#define PATH_LEN 320
#define DEFAULT_PRIO 50		/* libxdp's default run priority */

/* One interface's chain: paths and the fds of what is pinned. */
struct chain_if {
	struct xf_link l;
	char pin[PATH_LEN];	/* XF_PIN_ROOT/ns<id>/<ifindex> */
	char run[PATH_LEN];	/* XF_CHAIN_RUN_DIR/ns<id>/<ifindex> */
	int link_fd, desc_fd, cnt_fd;
	uint32_t xdp_flags;	/* for a new chain's link */
	struct xf_chain_desc d;	/* as it is now (n = 0 when there is none) */
};

static void chain_if_close(struct chain_if *c)
{
	if (c->link_fd >= 0)
		close(c->link_fd);
	if (c->desc_fd >= 0)
		close(c->desc_fd);
	if (c->cnt_fd >= 0)
		close(c->cnt_fd);
	c->link_fd = c->desc_fd = c->cnt_fd = -1;
}

/* strerror() that also knows libbpf's own codes (LIBBPF_ERRNO__FORMAT...). */
static const char *err_str(int err)
{
	static char buf[128];

	libbpf_strerror(err, buf, sizeof(buf));
	return buf;
}

static uint32_t desc_size(int fd)
{
	struct bpf_map_info mi = { 0 };
	uint32_t len = sizeof(mi);

	return bpf_map_get_info_by_fd(fd, &mi, &len) ? 0 : mi.value_size;
}

/* Open dev's chain, or an empty one. A foreign XDP program is refused. */
static int chain_if_open(struct xf_nl *nl, const char *dev, bool for_change, struct chain_if *c)
{
	uint64_t ns;
	uint32_t key = 0;
	int err;

	memset(c, 0, sizeof(*c));
	c->link_fd = c->desc_fd = c->cnt_fd = -1;
	err = xf_link_find(nl, dev, &c->l);
	if (err) {
		return err;
	}
	err = xf_pin_path(c->pin, sizeof(c->pin), c->l.ifindex, NULL) ?: xf_netns_id(&ns);
	if (err)
		return err;
	snprintf(c->run, sizeof(c->run), "%s/ns%llu/%d", XF_CHAIN_RUN_DIR,
		 (unsigned long long)ns, c->l.ifindex);
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
	/* Nothing, or the remains of a killed command: start afresh. */
	chain_if_close(c);
	memset(&c->d, 0, sizeof(c->d));
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

static int find_member(const struct xf_chain_desc *d, const char *name)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->m[i].name, name))
			return i;
	return -1;
}

static int find_slot(const struct xf_chain_desc *d, int slot)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		if (d->m[i].slot == slot)
			return i;
	return -1;
}

static void obj_path(const struct chain_if *c, const char *member, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.o", c->run, member);
}

static void map_dir(const struct chain_if *c, const struct xf_chain_desc_member *dm,
		    char *buf, size_t len)
{
	int ns_len = strrchr(c->pin, '/') - c->pin;

	if (dm->maps[0])
		snprintf(buf, len, "%.*s/%s", ns_len, c->pin, dm->maps);
	else
		snprintf(buf, len, "%s/maps/%s", c->pin, dm->name);
}

/* Open a member's object with only its program loaded, its maps pinned
 * (or reused from their pins) below map_dir(). */
static struct bpf_object *member_open(const struct chain_if *c, const char *path,
				      const struct xf_chain_desc_member *dm,
				      struct bpf_program **prog, char *msg, size_t len)
{
	char dir[PATH_LEN + 32], pin[PATH_LEN + 64], why[256];
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *map;
	int err;

	if (xf_elf_check_file(path, why, sizeof(why))) {
		snprintf(msg, len, "member %s: %s", dm->name, why);
		return NULL;
	}
	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		snprintf(msg, len, "member %s: cannot open its object: %s", dm->name,
			 err_str(errno));
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
	map_dir(c, dm, dir, sizeof(dir));
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
		snprintf(msg, len, "member %s: %s%s%s", dm->name, err_str(err),
			 *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		goto err;
	}
	return obj;
err:
	bpf_object__close(obj);
	return NULL;
}

/* Build and verify the whole program d describes. fd, or -errno with msg. */
static int chain_build(const struct chain_if *c, const struct xf_chain_desc *d, int cnt_fd,
		       char *msg, size_t len)
{
	struct bpf_object *objs[XF_CHAIN_MAX] = { 0 };
	struct xf_chain_member m[XF_CHAIN_MAX];
	struct bpf_program *prog;
	char path[PATH_LEN + 32];
	uint32_t i, v;
	int fd = -EINVAL;

	memset(m, 0, sizeof(m));
	for (i = 0; i < d->n; i++) {
		const struct xf_chain_desc_member *dm = &d->m[i];

		for (v = 0; v < XF_V_N; v++) {
			m[i].on[v].action = dm->act[v];
			if (dm->act[v] == XF_ACT_GOTO) {
				int t = find_slot(d, dm->target[v]);

				if (t < 0) {
					snprintf(msg, len, "member %s: goto to a member that is gone",
						 dm->name);
					goto out;
				}
				m[i].on[v].target = t;
			}
		}
		m[i].slot = dm->slot;
		obj_path(c, dm->name, path, sizeof(path));
		objs[i] = member_open(c, path, dm, &prog, msg, len);
		if (!objs[i])
			goto out;
		xf_chain_member_from_prog(&m[i], dm->name, prog);
	}
	/* A cycle or a dangling goto is the user's to fix: a usage error. */
	fd = xf_chain_check(m, d->n, msg, len) ? -XF_EUSAGE :
	     xf_chain_load(m, d->n, cnt_fd, msg, len);
out:
	for (i = 0; i < d->n; i++)
		bpf_object__close(objs[i]);
	return fd;
}

/* Zero one slot's counters on every CPU (a new member takes it). */
static void counters_clear_slot(int fd, int slot)
{
	int ncpu = xf_ncpus(), c, v;
	uint32_t key = 0;
	uint64_t *vals;

	vals = calloc((size_t)ncpu * XF_CHAIN_CNT_N, sizeof(*vals));
	if (!vals)
		return;
	if (!bpf_map_lookup_elem(fd, &key, vals)) {
		for (c = 0; c < ncpu; c++)
			for (v = 0; v < XF_CHAIN_NV; v++)
				vals[(size_t)c * XF_CHAIN_CNT_N + slot * XF_CHAIN_NV + v] = 0;
		bpf_map_update_elem(fd, &key, vals, BPF_ANY);
	}
	free(vals);
}

/* Make d the running chain: build, then swap (or attach the first time),
 * then record d. Nothing is changed before the build has passed. */
static int chain_commit(struct chain_if *c, struct xf_chain_desc *d)
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
	prog_fd = chain_build(c, d, cnt_fd, msg, sizeof(msg));
	if (prog_fd < 0) {
		err = prog_fd;
		fprintf(stderr, "Error: %s.\n", msg);
		goto out;
	}
	d->magic = XF_CHAIN_MAGIC;
	d->gen++;
	if (first) {
		lo.flags = c->xdp_flags;
		link_fd = bpf_link_create(prog_fd, c->l.ifindex, BPF_XDP, &lo);
		err = link_fd < 0 ? -errno : xf_pin_mkdir(c->pin);
		err = err ?: xf_pin_obj(link_fd, c->pin, "xdp_link") ?:
		      xf_pin_obj(cnt_fd, c->pin, "chain_cnt");
		if (!err && bpf_map_update_elem(desc_fd, &key, d, BPF_ANY))
			err = -errno;
		err = err ?: xf_pin_obj(desc_fd, c->pin, "chain_desc");
		if (err) {
			char p[PATH_LEN + 32];

			fprintf(stderr, "Error: cannot attach the chain to %s: %s.\n", c->l.name,
				strerror(-err));
			snprintf(p, sizeof(p), "%s/xdp_link", c->pin);
			unlink(p);
			snprintf(p, sizeof(p), "%s/chain_cnt", c->pin);
			unlink(p);
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
			fprintf(stderr, "Error: cannot swap the chain on %s: %s.\n", c->l.name,
				strerror(-err));
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

/* libxdp's XDP_RUN_CONFIG(prog): a variable "_<prog>" in the BTF section
 * ".xdp_run_config" whose struct encodes each value as an array size
 * (priority, and XDP_PASS etc. = 1 for "go on to the next program"). */
static void run_config(struct bpf_object *obj, const char *prog, struct xf_chain_desc_member *dm)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t, *sec, *st;
	const struct btf_member *mb;
	char want[80];
	int id, i, j, n;

	if (!btf)
		return;
	id = btf__find_by_name_kind(btf, ".xdp_run_config", BTF_KIND_DATASEC);
	if (id < 0)
		return;
	snprintf(want, sizeof(want), "_%s", prog);
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		t = btf__type_by_id(btf, vs->type);
		if (!btf_is_var(t) || strcmp(btf__name_by_offset(btf, t->name_off), want))
			continue;
		st = btf__type_by_id(btf, t->type);
		if (!st || !btf_is_struct(st))
			return;
		mb = btf_members(st);
		for (j = 0; j < btf_vlen(st); j++, mb++) {
			const char *name = btf__name_by_offset(btf, mb->name_off);
			const struct btf_type *pt = btf__type_by_id(btf, mb->type);
			const struct btf_type *at;
			static const char *const acts[XF_V_N] = {
				"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"
			};
			int v;

			if (!pt || !btf_is_ptr(pt))
				continue;
			at = btf__type_by_id(btf, pt->type);
			if (!at || !btf_is_array(at))
				continue;
			n = btf_array(at)->nelems;
			if (!strcmp(name, "priority")) {
				dm->prio = n;
				dm->prio_set = 1;
			}
			for (v = 0; v < XF_V_N; v++) {
				if (!strcmp(name, acts[v]))
					dm->act[v] = n ? XF_ACT_NEXT : XF_ACT_STOP;
			}
		}
		return;
	}
}

/* Pick the program: by section, by name, or the only XDP one. */
static int pick_prog(struct bpf_object *obj, const struct xf_chain_add *a, const char **name)
{
	struct bpf_program *p, *found = NULL;
	int n = 0;

	bpf_object__for_each_program(p, obj) {
		if (a->sec && strcmp(bpf_program__section_name(p), a->sec))
			continue;
		if (a->prog && strcmp(bpf_program__name(p), a->prog))
			continue;
		if (bpf_program__type(p) != BPF_PROG_TYPE_XDP)
			continue;
		found = p;
		n++;
	}
	if (n == 1) {
		*name = bpf_program__name(found);
		return 0;
	}
	if (!n)
		fprintf(stderr, "Error: no XDP program%s%s in \"%s\".\n",
			a->sec ? " in section " : a->prog ? " named " : "",
			a->sec ?: a->prog ?: "", a->obj);
	else
		fprintf(stderr, "Error: \"%s\" has %d XDP programs; choose one with sec or "
			"prog.\n", a->obj, n);
	return -XF_EUSAGE;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

/* Apply "on VERDICT ACTION [NAME]" rules to member i of d. */
static int apply_rules(struct xf_chain_desc *d, int i, const struct xf_chain_add *a)
{
	int r;

	for (r = 0; r < a->nrules; r++) {
		int v = a->rules[r].verdict;

		d->m[i].act[v] = a->rules[r].action;
		if (a->rules[r].action == XF_ACT_GOTO) {
			int t = find_member(d, a->rules[r].target);

			if (t < 0) {
				fprintf(stderr, "Error: goto to unknown member \"%s\".\n",
					a->rules[r].target);
				return -XF_EUSAGE;
			}
			d->m[i].target[v] = d->m[t].slot;
		}
	}
	return 0;
}

/* Where a member with no position keyword goes: after every member whose
 * priority is not higher (libxdp's order), i.e. by priority, stable. */
static int default_pos(const struct xf_chain_desc *d, uint32_t prio)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		if ((d->m[i].prio_set ? d->m[i].prio : DEFAULT_PRIO) > prio)
			return i;
	return d->n;
}

static int free_slot(const struct xf_chain_desc *d)
{
	int s;

	for (s = 0; s < XF_CHAIN_MAX; s++)
		if (find_slot(d, s) < 0)
			return s;
	return -1;
}

/* Remove copies of objects that are no member of c's chain: left by a
 * command killed between writing the copy and swapping the chain in. */
static void chain_tidy_copies(const struct chain_if *c)
{
	char name[sizeof(c->d.m[0].name) + 8], p[PATH_LEN + 300];
	struct dirent *e;
	size_t n;
	DIR *dir;

	dir = opendir(c->run);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		n = strlen(e->d_name);
		if (e->d_type != DT_REG || n < 3 || strcmp(e->d_name + n - 2, ".o"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 2), e->d_name);
		if (find_member(&c->d, name) >= 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", c->run, e->d_name);
		unlink(p);
	}
	closedir(dir);
	xf_dir_prune(c->run, XF_CHAIN_RUN_DIR);
}

int xf_chain_tidy(struct xf_nl *nl, const char *dev)
{
	struct chain_if c;
	int err;

	err = chain_if_open(nl, dev, false, &c);
	if (!err)
		chain_tidy_copies(&c);
	chain_if_close(&c);
	return err;
}

int xf_chain_add(struct xf_nl *nl, const char *dev, const struct xf_chain_add *a)
{
	struct xf_chain_desc_member dm = { 0 };
	struct xf_chain_desc d;
	char tmp[PATH_LEN + 64], dst[PATH_LEN + 64], dir[PATH_LEN + 32], why[128];
	struct bpf_object *obj;
	struct chain_if c;
	const char *pname;
	int pos, err;
	bool had_maps;

	err = chain_if_open(nl, dev, true, &c);
	if (err)
		return err;
	chain_tidy_copies(&c);
	d = c.d;
	err = xf_elf_check_file(a->obj, why, sizeof(why));
	if (err) {
		fprintf(stderr, "Error: \"%s\" is not a BPF object file: %s.\n", a->obj, why);
		goto out;
	}
	obj = bpf_object__open_file(a->obj, NULL);
	if (!obj) {
		err = -errno;
		/* libbpf says ENOENT also for a part missing from a file that
		 * is there ("DATASEC '.maps' not found"): that is a bad format. */
		if (err == -ENOENT && !access(a->obj, F_OK))
			err = -LIBBPF_ERRNO__FORMAT;
		fprintf(stderr, "Error: \"%s\" is not a BPF object file: %s.\n", a->obj,
			err_str(err));
		goto out;
	}
	err = pick_prog(obj, a, &pname);
	if (err) {
		bpf_object__close(obj);
		goto out;
	}
	snprintf(dm.prog, sizeof(dm.prog), "%s", pname);
	snprintf(dm.name, sizeof(dm.name), "%s", a->name ?: pname);
	run_config(obj, pname, &dm);
	bpf_object__close(obj);
	if (a->has_prio) {
		dm.prio = a->prio;
		dm.prio_set = 1;
	}
	if (a->maps)
		snprintf(dm.maps, sizeof(dm.maps), "%s", a->maps);
	c.xdp_flags = a->xdp_flags;
	err = -XF_EUSAGE;
	if (find_member(&d, dm.name) >= 0) {
		fprintf(stderr, "Error: %s already has a member \"%s\"; give another name.\n",
			dev, dm.name);
		goto out;
	}
	if (d.n == XF_CHAIN_MAX || free_slot(&d) < 0) {
		fprintf(stderr, "Error: a chain has at most %d members.\n", XF_CHAIN_MAX);
		goto out;
	}
	dm.slot = free_slot(&d);
	switch (a->pos) {
	case XF_POS_FIRST: pos = 0; break;
	case XF_POS_LAST: pos = d.n; break;
	case XF_POS_BEFORE:
	case XF_POS_AFTER:
		pos = find_member(&d, a->rel);
		if (pos < 0) {
			fprintf(stderr, "Error: no member \"%s\" on %s.\n", a->rel, dev);
			goto out;
		}
		pos += a->pos == XF_POS_AFTER;
		break;
	default:
		pos = default_pos(&d, dm.prio_set ? dm.prio : DEFAULT_PRIO);
	}
	memmove(&d.m[pos + 1], &d.m[pos], (d.n - pos) * sizeof(d.m[0]));
	d.m[pos] = dm;
	d.n++;
	err = apply_rules(&d, pos, a);
	if (err)
		goto out;

	/* The copy is written under a temporary name and renamed, so no
	 * half-written object is ever the member's; it is removed again if
	 * the chain with it cannot be swapped in. */
	err = xf_pin_mkdir(c.run);
	if (!err) {
		snprintf(tmp, sizeof(tmp), "%s/.%s.o.new", c.run, dm.name);
		obj_path(&c, dm.name, dst, sizeof(dst));
		err = copy_file(a->obj, tmp) ?: rename(tmp, dst) ? -errno : 0;
	}
	if (err) {
		fprintf(stderr, "Error: cannot keep a copy of \"%s\": %s.\n", a->obj,
			strerror(-err));
		unlink(tmp);
		xf_dir_prune(c.run, XF_CHAIN_RUN_DIR);
		goto out;
	}
	map_dir(&c, &dm, dir, sizeof(dir));
	had_maps = dm.maps[0] || !access(dir, F_OK);
	if (c.cnt_fd >= 0)
		counters_clear_slot(c.cnt_fd, dm.slot);
	err = chain_commit(&c, &d);
	if (err) {
		unlink(dst);
		if (!had_maps)
			xf_pin_rmtree(dir);
		/* A new chain's directory, when nothing else is in it. */
		xf_dir_prune(c.pin, XF_PIN_ROOT);
		if (!dm.maps[0]) {
			/* dir itself may be gone: from maps/ up (xf_dir_prune
			 * stops at the first rmdir that fails). */
			*strrchr(dir, '/') = '\0';
			xf_dir_prune(dir, XF_PIN_ROOT);
		}
		xf_dir_prune(c.run, XF_CHAIN_RUN_DIR);
	}
out:
	chain_if_close(&c);
	return err;
}

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
	i = find_member(&d, name);
	if (i < 0) {
		fprintf(stderr, "Error: no member \"%s\" on %s.\n", name, dev);
		err = -XF_EUSAGE;
		goto out;
	}
	err = apply_rules(&d, i, rules) ?: chain_commit(&c, &d);
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
		j = find_member(&c.d, names[i]);
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
	char p[PATH_LEN + 32];

	snprintf(p, sizeof(p), "%s/maps", c->pin);
	xf_pin_rmtree(p);
	snprintf(p, sizeof(p), "%s/chain_desc", c->pin);
	unlink(p);
	snprintf(p, sizeof(p), "%s/chain_cnt", c->pin);
	unlink(p);
	snprintf(p, sizeof(p), "%s/xdp_link", c->pin);
	unlink(p);
	xf_pin_rmtree(c->run);
	/* The namespace's directories too, when nothing else is in them;
	 * c->run went with the copies, so from its parent up. */
	xf_dir_prune(c->pin, XF_PIN_ROOT);
	snprintf(p, sizeof(p), "%s", c->run);
	*strrchr(p, '/') = '\0';
	xf_dir_prune(p, XF_CHAIN_RUN_DIR);
}

int xf_chain_del(struct xf_nl *nl, const char *dev, const char *name)
{
	struct xf_chain_desc_member gone;
	char p[PATH_LEN + 64];
	struct xf_chain_desc d;
	struct chain_if c;
	uint32_t v, k;
	int i, err;

	err = chain_if_existing(nl, dev, &c);
	if (err)
		goto out;
	d = c.d;
	if (!name || (c.d.n == 1 && find_member(&c.d, name) == 0)) {
		chain_remove_all(&c);
		goto out;
	}
	i = find_member(&d, name);
	if (i < 0) {
		fprintf(stderr, "Error: no member \"%s\" on %s.\n", name, dev);
		err = -XF_EUSAGE;
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
	gone = d.m[i];
	memmove(&d.m[i], &d.m[i + 1], (d.n - i - 1) * sizeof(d.m[0]));
	d.n--;
	err = chain_commit(&c, &d);
	if (!err) {
		obj_path(&c, name, p, sizeof(p));
		unlink(p);
		if (!gone.maps[0]) {
			map_dir(&c, &gone, p, sizeof(p));
			xf_pin_rmtree(p);
		}
	}
out:
	chain_if_close(&c);
	return err;
}

static int chain_info(struct chain_if *c, struct xf_chain_info *ci, uint64_t *percpu)
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
	struct xf_chain_info *ci;
	struct chain_if c;
	uint64_t *percpu;
	int i, err = 0;

	w = calloc(1, sizeof(*w));
	ci = malloc(sizeof(*ci));
	percpu = calloc((size_t)xf_ncpus() * XF_CHAIN_CNT_N, sizeof(*percpu));
	if (!w || !ci || !percpu) {
		err = -ENOMEM;
		goto out;
	}
	if (dev) {
		struct xf_link l;

		err = xf_link_find(nl, dev, &l);
		if (err) {
			goto out;
		}
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
		if (c.d.n && !chain_info(&c, ci, percpu))
			err = cb(ci, arg);
		chain_if_close(&c);
	}
out:
	free(w);
	free(ci);
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
	char dir[PATH_LEN];
	int err;

	err = xf_pin_path(dir, sizeof(dir), ifindex, NULL);
	return err ?: xf_pin_get(dir, "xdp_link");
}

/* Temporary objects of name left by killed commands: under the lock, no
 * other xfwd is writing one. */
static void chain_tidy_tmp(const char *name)
{
	char pre[32], p[PATH_LEN];
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
	struct xf_chain_add a = {
		.prog = b->prog, .name = b->name, .has_prio = true, .prio = b->prio,
		.maps = b->maps, .xdp_flags = b->xdp_flags,
	};
	struct chain_if c;
	struct xf_link l;
	char tmp[64];
	int fd, err;

	err = xf_link_find(nl, dev, &l);
	if (err)
		return err;
	/* The member already there was left by a command killed before it
	 * pinned its own link (the caller found none): it is reused. */
	err = chain_if_open(nl, dev, false, &c);
	if (err)
		return err;
	fd = find_member(&c.d, b->name) >= 0 ? fcntl(c.link_fd, F_DUPFD_CLOEXEC, 3) : -ENOENT;
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
	err = xf_chain_add(nl, dev, &a);
	unlink(tmp);
	if (err)
		return err;
	fd = xf_chain_link_fd(l.ifindex);
	if (fd < 0) {
		fprintf(stderr, "Error: cannot open the chain link of %s: %s.\n", dev,
			strerror(-fd));
		xf_chain_del(nl, dev, b->name);
	}
	return fd;
}
