/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the redirect wing: the pinned instance, its rule walk and how
 * a scope (device, direction) is attached. */
#ifndef XF_REDIRECT_INTERNAL_H
#define XF_REDIRECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "inst.h"
#include "redirect/redirect.h"
#include "xfwd_bpf.h"

#define RD_PATH_LEN 256

/* The instance's programs and maps: fd[] of its struct xf_inst. */
enum { RD_PROG_ING, RD_PROG_EGR, RD_PROG_XDP, RD_MAP_RULES, RD_MAP_CNT, RD_MAP_TX, RD_NFDS };

enum rd_open_how {
	RD_READ,	/* a reader who may not enter the pins sees none */
	RD_CHANGE,	/* an instance that exists, or -ENOENT */
	RD_CREATE,	/* load and pin one if there is none */
};

/* Open the namespace's instance. -ENOENT when there is none, unless how is
 * RD_CREATE. Prints its own Error. */
int rd_open(struct xf_inst *in, enum rd_open_how how);

/* The trie key of a rule: IPv4 as ::ffff:a.b.c.d; no match: scope only. */
void rd_key(int ifindex, int dir, const struct xf_addr *m, struct xf_redir_key *k);
/* The rule's prefix from its key; false for a catch-all. */
bool rd_key_match(const struct xf_redir_key *k, struct xf_addr *m);
/* Mask host bits, so 198.18.1.7/24 and 198.18.1.0/24 are one rule. */
void rd_mask(struct xf_addr *m);

struct rd_walk {
	struct xf_redir_key key;
	struct xf_redir_rule rule;
};

/* Call fn for every rule; keys are read first, as the walk must not see
 * its own deletions. Returns the count, or fn's error. */
int rd_each(struct xf_inst *in, int (*fn)(struct xf_inst *, struct rd_walk *, void *),
	    void *arg);

/* How the scope (device, direction) is attached now. */
enum rd_attach { RD_ERR = -1, RD_NONE, RD_TCX, RD_CLS, RD_XDP };

enum rd_attach rd_attached(struct xf_nl *nl, int ifindex, int dir);
/* Attach the scope for its first rule, on the hook asked for; how it was
 * done in *how. Prints its own Error. 0/-errno. */
int rd_attach(struct xf_nl *nl, struct xf_inst *in, const char *dev, int ifindex,
	      int dir, enum xf_hook hook, enum rd_attach *how);
/* Undo rd_attach(): the scope has no rule left. 0/-errno. */
int rd_detach(struct xf_nl *nl, int ifindex, int dir, enum rd_attach how);

#endif
