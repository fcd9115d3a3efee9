// SPDX-License-Identifier: GPL-2.0
/* Pinned instances: see inst.h. */
#include <errno.h>
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
	in->dir[0] = '\0';
	for (i = 0; i < XF_INST_MAX; i++)
		in->fd[i] = -1;
}

int xf_inst_open(struct xf_inst *in, const struct xf_inst_desc *desc)
{
	const char *names[XF_INST_MAX];
	int i;

	inst_init(in, desc);
	if (desc->n > XF_INST_MAX)
		return -E2BIG;
	for (i = 0; i < desc->n; i++)
		names[i] = desc->objs[i].pin;
	return xf_pin_get_set(in->dir, sizeof(in->dir), desc->name, names, desc->n, in->fd);
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

/* Only the programs the set pins are loaded: the others (route's XDP
 * program, which chains load themselves) would cost the verifier's time
 * for nothing. */
static void inst_autoload(struct bpf_object *obj, const struct xf_inst_desc *desc)
{
	struct bpf_program *p;
	bool pinned;
	int i;

	bpf_object__for_each_program(p, obj) {
		pinned = false;
		for (i = 0; i < desc->n && !pinned; i++)
			pinned = desc->objs[i].prog && !strcmp(desc->objs[i].prog,
							      bpf_program__name(p));
		bpf_program__set_autoload(p, pinned);
	}
}

int xf_inst_create(struct xf_inst *in, const struct xf_inst_desc *desc)
{
	const char *names[XF_INST_MAX];
	int fds[XF_INST_MAX], i, err;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = desc->name);
	char why[512], kconfig[32];
	struct bpf_object *obj;
	const void *elf;
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
	oo.kconfig = xf_bpf_kconfig(kconfig, sizeof(kconfig));
	obj = bpf_object__open_mem(elf, size, &oo);
	if (obj)
		inst_autoload(obj, desc);
	err = obj ? bpf_object__load(obj) : -errno;
	if (err) {
		bpf_object__close(obj);
		fprintf(stderr, "Error: cannot load %s: %s%s%s.\n", desc->what,
			strerror(-err), *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
		return err;
	}
	for (i = 0; i < desc->n && !err; i++) {
		names[i] = desc->objs[i].pin;
		fds[i] = inst_obj_fd(obj, &desc->objs[i]);
		if (fds[i] < 0)
			err = fds[i];
	}
	if (!err)
		err = xf_pin_set(in->dir, names, desc->n, fds, in->fd);
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
