/* SPDX-License-Identifier: GPL-2.0 */
/* save and restore: a namespace's whole xfwd state as one document, read
 * from the kernel (state.c), written and read as JSON (doc.c), compared
 * (diff.c) and made so, difference by difference, with every change taken
 * back when one fails (apply.c). */
#ifndef XF_SAVE_H
#define XF_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>

#include "addr.h"
#include "chain/chain.h"
#include "hook.h"

struct xf_nl;

/* The document's version: a reader refuses any other. */
#define XF_SAVE_VERSION 1
/* Bounds of a document: more is refused before anything is read into
 * memory beyond them. */
#define XF_SAVE_MAX_ROUTES 255
#define XF_SAVE_MAX_CHAINS 255
#define XF_SAVE_MAX_RULES 1024
#define XF_SAVE_PATH_MAX 1024

struct xf_save_route {
	char dev[IF_NAMESIZE];
	enum xf_hook hook;		/* as asked: auto, xdp or tc */
	int mode;			/* enum xf_xdp_attach: hook xdp only */
	uint32_t family;		/* XF_RTIF_INET | XF_RTIF_INET6 */
	bool direct;
	bool flowtable;			/* lookup flowtable */
	bool nf_bypass;
	bool qdisc_bypass;
};

/* A chain member. Built-in members (route, redirect) come and go with
 * their object and carry only their name and place. */
struct xf_save_member {
	char name[16];
	bool builtin;
	char prog[64];
	char object[XF_SAVE_PATH_MAX];	/* where the operator's file is */
	char sha256[65];		/* of the object as it runs */
	/* The effective action of each verdict (XF_ACT_NEXT, _STOP or
	 * _GOTO, never _DEFAULT) and a goto's target by name. */
	uint8_t act[XF_V_N];
	char target[XF_V_N][16];
};

struct xf_save_chain {
	char dev[IF_NAMESIZE];
	bool generic;			/* generic (skb) XDP, else native */
	int n;
	struct xf_save_member m[XF_CHAIN_MAX];
};

struct xf_save_redirect {
	char dev[IF_NAMESIZE];
	int dir;			/* XF_RD_DIR_* */
	bool has_match;
	struct xf_addr match;
	char target[IF_NAMESIZE];
	int mode;			/* enum xf_redir_mode */
	bool has_via;
	struct xf_addr via;
	enum xf_hook hook;		/* XF_HOOK_XDP or XF_HOOK_TC */
};

/* Every kind of entry starts with its device's name: save's code that
 * treats the kinds alike relies on it. */
_Static_assert(offsetof(struct xf_save_route, dev) == 0 &&
	       offsetof(struct xf_save_chain, dev) == 0 &&
	       offsetof(struct xf_save_redirect, dev) == 0, "entries start with dev");

/* Two redirect rules of one document are the same rule: the same device,
 * direction and match (what else they say may differ). */
bool xf_save_rule_same(const struct xf_save_redirect *a, const struct xf_save_redirect *b);

struct xf_save {
	struct xf_save_route *route;
	int nroute;
	struct xf_save_chain *chain;
	int nchain;
	struct xf_save_redirect *redirect;
	int nredirect;
};

void xf_save_free(struct xf_save *s);

/* Read this namespace's state. Members' objects are hashed from their
 * copies; their files are named where the operator added them from. With
 * keep (a directory), each member's object is copied there as
 * <sha256>.o and the document names the copy. Prints its own Error.
 * 0/-errno. */
int xf_save_read(struct xf_nl *nl, const char *keep, struct xf_save *s);

/* Write s as JSON: sorted keys, two-space indent, so that two saves of one
 * state are the same bytes. 0/-errno. */
int xf_save_write(FILE *f, const struct xf_save *s);
/* Parse a document (len bytes) into s. Anything but a well-formed
 * document of this version is refused with one Error line naming what
 * (where: "file:line:column" or the key). 0/-XF_EUSAGE/-ENOMEM. */
int xf_save_parse(const char *buf, size_t len, const char *where, struct xf_save *s);
/* Check what parsing cannot: devices exist (with skip, those that do not
 * are dropped from s and named on stderr as Warnings), members' files are
 * there with their hash. Prints one Error. 0/-errno. */
int xf_save_check(struct xf_nl *nl, struct xf_save *s, bool skip);

/* One difference between the running state and a document. */
enum xf_diff_op { XF_DIFF_ADD, XF_DIFF_REMOVE, XF_DIFF_CHANGE };
enum xf_diff_obj { XF_DIFF_ROUTE, XF_DIFF_CHAIN, XF_DIFF_REDIRECT };

struct xf_diff {
	enum xf_diff_obj obj;
	enum xf_diff_op op;
	int have, want;			/* indexes into the two states, -1 */
	char what[160];			/* a short description */
};

struct xf_diffs {
	struct xf_diff *d;
	int n, cap;
};

const char *xf_diff_obj_name(enum xf_diff_obj o);
const char *xf_diff_op_name(enum xf_diff_op o);
/* The differences that make have into want. 0/-ENOMEM. */
int xf_save_diff(const struct xf_save *have, const struct xf_save *want, struct xf_diffs *out);
void xf_diffs_free(struct xf_diffs *d);
/* Apply the differences; on a failure, take back every change already
 * made, in reverse order. force: as -force for route attach (a peer's
 * checksum offload). Prints its own Error. 0/-errno. */
int xf_save_apply(struct xf_nl *nl, const struct xf_save *have, const struct xf_save *want,
		  const struct xf_diffs *d, bool force);

#endif
