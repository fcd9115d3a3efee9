/* SPDX-License-Identifier: GPL-2.0 */
/* A pinned instance: one object's programs and maps, loaded once per
 * network namespace and pinned as a set in XF_PIN_ROOT/ns<id>/<name>/, so
 * that it outlives the command that loaded it. route and redirect are
 * instances; an object describes its set in a table and gets open, create
 * (all or none) and remove from here. */
#ifndef XF_INST_H
#define XF_INST_H

#include <stdbool.h>
#include <stddef.h>

/* Programs and maps in one set, at most. */
#define XF_INST_MAX 16
#define XF_INST_PATH 256

struct bpf_object;

/* One pinned program or map: pinned as pin, found in the loaded object
 * by its own name (prog; NULL for a map pinned under its own name). A
 * lazy program is neither loaded by create nor needed by open: only a
 * command that uses it adds it (xf_inst_add), so a set that never runs it
 * costs no verifier time for it. */
struct xf_inst_obj {
	const char *pin;
	const char *prog;
	bool lazy;
};

struct xf_inst_desc {
	const char *name;		/* the set's directory, e.g. "route" */
	const char *what;		/* for messages: "the route fast path" */
	const struct xf_inst_obj *objs;	/* fd[i] of the instance is objs[i] */
	int n;
	/* The object's ELF image and its size: a skeleton's
	 * name__elf_bytes(), embedded in the binary. */
	const void *(*elf)(size_t *size);
};

struct xf_inst {
	const struct xf_inst_desc *desc;
	int fd[XF_INST_MAX];
	bool created;			/* by this command: removed again on failure */
	unsigned int added;		/* lazy programs xf_inst_add() pinned, by
					 * bit of their index: xf_inst_drop_added()
					 * takes them back */
	char dir[XF_INST_PATH];
};

/* Open the namespace's pinned instance of desc. 0, -ENOENT when there is
 * none (a part of one, left by a killed command, is removed and reads as
 * none) or -errno. A lazy program not added yet has fd -1. Prints
 * nothing. */
int xf_inst_open(struct xf_inst *in, const struct xf_inst_desc *desc);
/* Load desc's object (the programs its set names, but the lazy ones) and
 * pin its set, all or none (bpffs is mounted if need be). Sets
 * in->created. Prints its own Error. 0/-errno. */
int xf_inst_create(struct xf_inst *in, const struct xf_inst_desc *desc);
/* Open, else create when there is none. Prints its own Error. */
int xf_inst_get(struct xf_inst *in, const struct xf_inst_desc *desc);
/* The lazy program i of the open instance in: loaded from elf (size
 * bytes, the build of the instance's other programs) with the instance's
 * maps, and pinned, unless it is there already. Prints its own Error.
 * 0/-errno. */
int xf_inst_add(struct xf_inst *in, int i, const void *elf, size_t size);
/* Unpin what xf_inst_add() pinned for this command (rollback). */
void xf_inst_drop_added(struct xf_inst *in);
void xf_inst_close(struct xf_inst *in);
/* Unpin the set and remove the directories left empty. For rollback (an
 * instance this command created) and for the last user gone. */
void xf_inst_remove(struct xf_inst *in);

#endif
