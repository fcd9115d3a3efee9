/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the chain wing: one interface's chain as it is pinned, and
 * the build-then-swap every change goes through. */
#ifndef XF_CHAIN_INTERNAL_H
#define XF_CHAIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "chain/build.h"
#include "chain/chain.h"
#include "nl_link.h"

#define CHAIN_PATH_LEN 320
#define CHAIN_DEFAULT_PRIO 50	/* libxdp's default run priority */

/* One interface's chain: paths and the fds of what is pinned. */
struct chain_if {
	struct xf_link l;
	char pin[CHAIN_PATH_LEN];	/* XF_PIN_ROOT/ns<id>/<ifindex> */
	char run[CHAIN_PATH_LEN];	/* XF_CHAIN_RUN_DIR/ns<id>/<ifindex> */
	int link_fd, desc_fd, cnt_fd;
	uint32_t xdp_flags;		/* for a new chain's link */
	struct xf_chain_desc d;		/* as it is now (n = 0 when there is none) */
	bool remains;			/* pins of a chain that is not whole */
	struct xf_chain_keep *keep;	/* a builtin's object for this command */
};

/* Open dev's chain, or an empty one. A foreign XDP program is refused. */
int chain_if_open(struct xf_nl *nl, const char *dev, bool for_change, struct chain_if *c);
/* The same for the device l, already read by the caller in this command
 * (copied into c->l; read again only where remains are unpinned). */
int chain_if_open_link(struct xf_nl *nl, const struct xf_link *l, bool for_change,
		       struct chain_if *c);
/* xf_chain_add for the device l, already read (chain_if_open_link). */
int chain_add_link(struct xf_nl *nl, const struct xf_link *l, const struct xf_chain_add *a);
void chain_if_close(struct chain_if *c);
/* Unpin the chain's description, counters and link (the link last), and
 * remove the directories left empty. */
void chain_unpin(const struct chain_if *c);
/* strerror() that also knows libbpf's own codes (LIBBPF_ERRNO__FORMAT...). */
const char *chain_err_str(int err, char *buf, size_t len);
/* The index in d of the member name, or of the member in slot; -1. */
int chain_find_member(const struct xf_chain_desc *d, const char *name);
int chain_find_slot(const struct xf_chain_desc *d, int slot);
/* Where the copy of member's object is kept. */
void chain_obj_path(const struct chain_if *c, const char *member, char *buf, size_t len);
/* Where the path of the file member's object was added from is kept. */
void chain_src_path(const struct chain_if *c, const char *member, char *buf, size_t len);
/* Keep obj's absolute path as member's source. 0/-errno. */
int chain_src_write(const struct chain_if *c, const char *member, const char *obj);
/* Where the maps of member dm are pinned. */
void chain_map_dir(const struct chain_if *c, const struct xf_chain_desc_member *dm,
		   char *buf, size_t len);
/* Build and verify the whole program d describes, timed into timed_fd
 * (-1: the normal build). fd, or -errno with msg. */
int chain_build(const struct chain_if *c, const struct xf_chain_desc *d, int cnt_fd,
		int timed_fd, char *msg, size_t len);
/* Make d the running chain: build, then swap (or attach the first time),
 * then write d. Prints its own Error. 0/-errno. */
int chain_commit(struct chain_if *c, struct xf_chain_desc *d);
/* Apply a's "on VERDICT ACTION [NAME]" rules to member i of d. Prints its
 * own Error. 0/-XF_EUSAGE. */
int chain_apply_rules(struct xf_chain_desc *d, int i, const struct xf_chain_add *a);

#endif
