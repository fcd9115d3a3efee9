// SPDX-License-Identifier: GPL-2.0
/* chain add: a member joins an interface's chain, its object checked,
 * copied and placed by priority or position, with its rules. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "file.h"
#include "usage.h"
#include "internal.h"
#include "chain/chain.h"
#include "elf_check.h"
#include "xbpf.h"

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

int chain_apply_rules(struct xf_chain_desc *d, int i, const struct xf_chain_add *a)
{
	int r;

	for (r = 0; r < a->nrules; r++) {
		int v = a->rules[r].verdict;

		d->m[i].act[v] = a->rules[r].action;
		if (a->rules[r].action == XF_ACT_GOTO) {
			int t = chain_find_member(d, a->rules[r].target);

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
		if ((d->m[i].prio_set ? d->m[i].prio : CHAIN_DEFAULT_PRIO) > prio)
			return i;
	return d->n;
}

static int free_slot(const struct xf_chain_desc *d)
{
	int s;

	for (s = 0; s < XF_CHAIN_MAX; s++)
		if (chain_find_slot(d, s) < 0)
			return s;
	return -1;
}

/* Remove copies of objects that are no member of c's chain: left by a
 * command killed between writing the copy and swapping the chain in. */
static void chain_tidy_copies(const struct chain_if *c)
{
	char name[sizeof(c->d.m[0].name) + 8], p[CHAIN_PATH_LEN + 300];
	struct dirent *e;
	size_t n;
	DIR *dir;

	dir = opendir(c->run);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		n = strlen(e->d_name);
		if (e->d_type != DT_REG)
			continue;
		if (n > 2 && !strcmp(e->d_name + n - 2, ".o"))
			n -= 2;
		else if (n > 4 && !strcmp(e->d_name + n - 4, ".src"))
			n -= 4;
		else
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)n, e->d_name);
		if (chain_find_member(&c->d, name) >= 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", c->run, e->d_name);
		unlink(p);
	}
	closedir(dir);
	xf_run_remove(c->l.ifindex, NULL);
}

int xf_chain_tidy(struct xf_nl *nl, const char *dev)
{
	struct chain_if c;
	int err;

	err = chain_if_open(nl, dev, false, &c);
	if (!err)
		chain_tidy_copies(&c);
	/* No chain runs: pins left by a command killed while it attached
	 * the first one are remains (see chain_if_open()). */
	if (!err && c.remains)
		chain_unpin(&c);
	chain_if_close(&c);
	return err;
}

int xf_chain_add(struct xf_nl *nl, const char *dev, const struct xf_chain_add *a)
{
	struct xf_link l;
	int err;

	err = xf_link_find(nl, dev, &l);
	return err ?: chain_add_link(nl, &l, a);
}

int chain_add_link(struct xf_nl *nl, const struct xf_link *l, const struct xf_chain_add *a)
{
	const char *dev = l->name;
	struct xf_chain_desc_member dm = { 0 };
	struct xf_chain_desc d;
	char tmp[CHAIN_PATH_LEN + 64], dst[CHAIN_PATH_LEN + 64], dir[CHAIN_PATH_LEN + 32], why[128];
	struct bpf_object *obj;
	struct chain_if c;
	const char *pname;
	int pos, err;
	bool had_maps;

	err = chain_if_open_link(nl, l, true, &c);
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
			chain_err_str(err, why, sizeof(why)));
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
	if (chain_find_member(&d, dm.name) >= 0) {
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
		pos = chain_find_member(&d, a->rel);
		if (pos < 0) {
			fprintf(stderr, "Error: no member \"%s\" on %s.\n", a->rel, dev);
			goto out;
		}
		pos += a->pos == XF_POS_AFTER;
		break;
	default:
		pos = default_pos(&d, dm.prio_set ? dm.prio : CHAIN_DEFAULT_PRIO);
	}
	memmove(&d.m[pos + 1], &d.m[pos], (d.n - pos) * sizeof(d.m[0]));
	d.m[pos] = dm;
	d.n++;
	err = chain_apply_rules(&d, pos, a);
	if (err)
		goto out;

	/* The copy is written under a temporary name and renamed, so no
	 * half-written object is ever the member's; it is removed again if
	 * the chain with it cannot be swapped in. */
	tmp[0] = dst[0] = 0;
	err = xf_pin_mkdir(c.run);
	if (!err) {
		snprintf(tmp, sizeof(tmp), "%s/.%s.o.new", c.run, dm.name);
		chain_obj_path(&c, dm.name, dst, sizeof(dst));
		err = xf_file_copy(a->obj, tmp) ?: rename(tmp, dst) ? -errno : 0;
		/* Where it came from, for save: not for xfwd's own members. */
		if (!err && !a->maps)
			err = chain_src_write(&c, dm.name, a->src ?: a->obj);
	}
	if (err) {
		fprintf(stderr, "Error: cannot keep a copy of \"%s\": %s.\n", a->obj,
			strerror(-err));
		if (tmp[0])
			unlink(tmp);
		if (dst[0])
			unlink(dst);
		xf_run_remove(c.l.ifindex, NULL);
		goto out;
	}
	chain_map_dir(&c, &dm, dir, sizeof(dir));
	had_maps = dm.maps[0] || !access(dir, F_OK);
	if (c.cnt_fd >= 0)
		counters_clear_slot(c.cnt_fd, dm.slot);
	c.keep = a->keep;
	err = chain_commit(&c, &d);
	if (err) {
		unlink(dst);
		chain_src_path(&c, dm.name, dst, sizeof(dst));
		unlink(dst);
		if (!had_maps)
			xf_pin_rmtree(dir);
		/* A new chain's directory, when nothing else is in it. */
		xf_pin_remove(c.l.ifindex, NULL);
		/* dir itself may be gone: from maps/ up (xf_dir_prune
		 * stops at the first rmdir that fails). */
		if (!dm.maps[0] && !xf_pin_path(dir, sizeof(dir), c.l.ifindex, "maps"))
			xf_dir_prune(dir, XF_PIN_ROOT);
		xf_run_remove(c.l.ifindex, NULL);
	}
out:
	chain_if_close(&c);
	return err;
}
