// SPDX-License-Identifier: GPL-2.0
/* Pinned instances: see inst.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "inst.h"
#include "xbpf.h"

static void inst_init(struct xf_inst *in, const struct xf_inst_desc *desc)
{
	int i;

	in->desc = desc;
	in->created = false;
	in->added = 0;
	in->dir[0] = '\0';
	for (i = 0; i < XF_INST_MAX; i++)
		in->fd[i] = -1;
}

/* The set's objs that are not lazy, in order: their pin names and
 * indexes. The count. */
static int inst_required(const struct xf_inst_desc *desc, const char **names, int *idx)
{
	int i, n = 0;

	for (i = 0; i < desc->n; i++) {
		if (desc->objs[i].lazy)
			continue;
		names[n] = desc->objs[i].pin;
		idx[n++] = i;
	}
	return n;
}

int xf_inst_open(struct xf_inst *in, const struct xf_inst_desc *desc)
{
	int fds[XF_INST_MAX], idx[XF_INST_MAX], i, n, fd, err;
	const char *names[XF_INST_MAX] = { NULL };

	inst_init(in, desc);
	if (desc->n > XF_INST_MAX)
		return -E2BIG;
	n = inst_required(desc, names, idx);
	err = xf_pin_get_set(in->dir, sizeof(in->dir), desc->name, names, n, fds);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		in->fd[idx[i]] = fds[i];
	/* The lazy programs are there once a command used them. */
	for (i = 0; i < desc->n; i++) {
		if (!desc->objs[i].lazy)
			continue;
		fd = xf_pin_get(in->dir, desc->objs[i].pin);
		if (fd >= 0) {
			in->fd[i] = fd;
		} else if (fd != -ENOENT) {
			xf_inst_close(in);
			return fd;
		}
	}
	return 0;
}

/* The fd of o in the loaded object: its program, or its map. */
static int inst_obj_fd(struct bpf_object *obj, const struct xf_inst_obj *o)
{
	struct bpf_program *p;
	struct bpf_map *m;

	if (o->prog) {
		p = bpf_object__find_program_by_name(obj, o->prog);
		return p ? bpf_program__fd(p) : -ENOENT;
	}
	m = bpf_object__find_map_by_name(obj, o->pin);
	return m ? bpf_map__fd(m) : -ENOENT;
}

/* Only the programs the set pins, and not the lazy ones, are loaded:
 * the others (route's XDP program, which chains load themselves; its tc
 * program on a set all on hook xdp) would cost the verifier's time for
 * nothing. */
static void inst_autoload(struct bpf_object *obj, const struct xf_inst_desc *desc)
{
	struct bpf_program *p;
	bool pinned;
	int i;

	bpf_object__for_each_program(p, obj) {
		pinned = false;
		for (i = 0; i < desc->n && !pinned; i++)
			pinned = desc->objs[i].prog && !desc->objs[i].lazy &&
				 !strcmp(desc->objs[i].prog, bpf_program__name(p));
		bpf_program__set_autoload(p, pinned);
	}
}

int xf_inst_create(struct xf_inst *in, const struct xf_inst_desc *desc)
{
	int fds[XF_INST_MAX], pinned[XF_INST_MAX], idx[XF_INST_MAX], i, n, err;
	const char *names[XF_INST_MAX] = { NULL };
	struct bpf_object *obj;
	const void *elf;
	char why[512];
	size_t size;

	inst_init(in, desc);
	err = xf_pin_path(in->dir, sizeof(in->dir), 0, desc->name);
	if (!err && desc->n > XF_INST_MAX)
		err = -E2BIG;
	if (err)
		return err;
	err = xf_bpffs_ensure();
	if (err) {
		fprintf(stderr, "Error: cannot mount bpffs on /sys/fs/bpf: %s.\n", strerror(-err));
		return err;
	}
	elf = desc->elf(&size);
	obj = xf_bpf_open_mem(elf, size, desc->name);
	if (obj)
		inst_autoload(obj, desc);
	err = obj ? bpf_object__load(obj) : -errno;
	if (err) {
		bpf_object__close(obj);
		fprintf(stderr, "Error: cannot load %s: %s%s%s.\n", desc->what,
			strerror(-err), *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		return err;
	}
	n = inst_required(desc, names, idx);
	for (i = 0; i < n && !err; i++) {
		fds[i] = inst_obj_fd(obj, &desc->objs[idx[i]]);
		if (fds[i] < 0)
			err = fds[i];
	}
	if (!err)
		err = xf_pin_set(in->dir, names, n, fds, pinned);
	for (i = 0; !err && i < n; i++)
		in->fd[idx[i]] = pinned[i];
	bpf_object__close(obj);
	if (err) {
		fprintf(stderr, "Error: cannot pin %s in %s: %s.\n", desc->what, in->dir,
			strerror(-err));
		return err;
	}
	in->created = true;
	return 0;
}

int xf_inst_get(struct xf_inst *in, const struct xf_inst_desc *desc)
{
	int err;

	err = xf_inst_open(in, desc);
	if (err == -ENOENT)
		return xf_inst_create(in, desc);
	if (err)
		fprintf(stderr, "Error: cannot open %s in %s: %s.\n", desc->what, in->dir,
			strerror(-err));
	return err;
}

/* The index of the map pinned as name in desc's set, or -1. */
static int inst_map_index(const struct xf_inst_desc *desc, const char *name)
{
	int i;

	for (i = 0; i < desc->n; i++)
		if (!desc->objs[i].prog && !strcmp(desc->objs[i].pin, name))
			return i;
	return -1;
}

int xf_inst_add(struct xf_inst *in, int i, const void *elf, size_t size)
{
	const struct xf_inst_desc *desc = in->desc;
	const struct xf_inst_obj *o = &desc->objs[i];
	char why[512];
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *m;
	int j, fd, err = 0;

	if (in->fd[i] >= 0)
		return 0;
	/* Opened as create opens it: the same Kconfig, so the program keeps
	 * the maps as the set's other programs do (route_nbr.h's clock). */
	obj = xf_bpf_open_mem(elf, size, desc->name);
	if (!obj)
		err = -errno;
	if (!err) {
		bpf_object__for_each_program(p, obj)
			bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), o->prog));
		/* The set's maps, as its other programs have them: a map the
		 * set does not pin would be one of the program's own, which
		 * nothing else could read or write. */
		bpf_object__for_each_map(m, obj) {
			if (bpf_map__is_internal(m))
				continue;
			j = inst_map_index(desc, bpf_map__name(m));
			err = j < 0 || in->fd[j] < 0 ? -ENOENT : bpf_map__reuse_fd(m, in->fd[j]);
			if (err)
				break;
		}
	}
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		bpf_object__close(obj);
		fprintf(stderr, "Error: cannot load %s's %s: %s%s%s.\n", desc->what, o->prog,
			strerror(-err), *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		return err;
	}
	p = bpf_object__find_program_by_name(obj, o->prog);
	fd = p ? bpf_program__fd(p) : -ENOENT;
	err = fd < 0 ? fd : xf_pin_obj(fd, in->dir, o->pin);
	if (!err) {
		in->fd[i] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		in->added |= 1u << i;
		if (in->fd[i] < 0)
			err = -errno;
	}
	bpf_object__close(obj);
	if (err)
		fprintf(stderr, "Error: cannot pin %s's %s in %s: %s.\n", desc->what, o->prog,
			in->dir, strerror(-err));
	return err;
}

void xf_inst_drop_added(struct xf_inst *in)
{
	char path[XF_INST_PATH + 64];
	int i;

	for (i = 0; i < in->desc->n; i++) {
		if (!(in->added & 1u << i))
			continue;
		snprintf(path, sizeof(path), "%s/%s", in->dir, in->desc->objs[i].pin);
		unlink(path);
		if (in->fd[i] >= 0)
			close(in->fd[i]);
		in->fd[i] = -1;
	}
	in->added = 0;
}

void xf_inst_close(struct xf_inst *in)
{
	int i;

	for (i = 0; i < XF_INST_MAX; i++) {
		if (in->fd[i] >= 0)
			close(in->fd[i]);
		in->fd[i] = -1;
	}
}

void xf_inst_remove(struct xf_inst *in)
{
	if (in->dir[0])
		xf_rmtree_prune(in->dir);
}
