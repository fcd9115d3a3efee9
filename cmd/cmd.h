/* SPDX-License-Identifier: GPL-2.0 */
/* The xfwd context, the dispatch table type and each object's entry point. */
#ifndef XF_CMD_H
#define XF_CMD_H

#include <stdbool.h>
#include "arg.h"

struct xf_out;
struct xf_nl;

/* One per process, owned by main() and passed to every command. */
struct xfwd {
	struct xf_out *out;
	struct xf_nl *nl;	/* opened on first use by xfwd_nl() */
	const char *netns;	/* -n NAME, already entered */
	bool all;		/* -all: every named namespace (monitor only) */
	bool force;
	bool stats;		/* -s */
	bool verbose;		/* -d: libbpf's own messages */
	int lock_fd;		/* -1 when not held */
	/* The running verb changes state (XF_CMD_CHANGES): taking the lock
	 * checks the capabilities first. Set by cmd_dispatch(). */
	const struct cmd *changing;
	const char *object;	/* the running verb's object */
	const char *lock_log;	/* XFWD_LOCK_LOG: test-only, see xfwd(8) */
	int argc;		/* the command being run, for lock_log */
	char **argv;
};

/* A verb that changes state: it needs CAP_NET_ADMIN and CAP_BPF. */
#define XF_CMD_CHANGES 0x1
/* A verb that reads xfwd's pins: it says so when it may not. */
#define XF_CMD_READS 0x2

/* A verb: its name, handler, the grammar printed by help, XF_CMD_* flags. */
struct cmd {
	const char *name;
	int (*fn)(struct xfwd *x, struct xf_args *a);
	const char *help;
	unsigned int flags;
};

/* An object: a name and its verbs; the default verb runs with no words. */
struct object {
	const char *name;
	const struct cmd *cmds;
	const char *dflt;
	const char *summary;
	/* A first word that is no verb starts dflt's arguments, as in
	 * "xfwd stats dev veth1" for "xfwd stats show dev veth1". */
	bool dflt_args;
	/* A command, not an object: no verbs, cmds[0] takes every word
	 * ("xfwd gc"). */
	bool command;
};

/* Find name among n names (exact, or unique prefix). Index, -ENOENT when
 * none, -EEXIST when ambiguous (an Error listing the candidates printed). */
int cmd_match(const char *what, const char *name, const char *const *names, int n);
/* Run the verb a's next word names on object obj. 0/-errno (-XF_EUSAGE for usage). */
int cmd_dispatch(struct xfwd *x, const struct object *obj, struct xf_args *a);

/* Lazily open rtnetlink in the current namespace. NULL after an Error. */
struct xf_nl *xfwd_nl(struct xfwd *x);
/* The same into *nl: 0, or -EIO after its Error. */
int xfwd_nl_get(struct xfwd *x, struct xf_nl **nl);

/* A show verb: [ dev IFNAME ], then walk fills the list named key (dev is
 * NULL for every interface). cmd/show.c. */
typedef int (*cmd_walk_fn)(struct xfwd *x, struct xf_nl *nl, const char *dev);
int cmd_show_list(struct xfwd *x, struct xf_args *a, const char *key, cmd_walk_fn walk);
/* The fields of one netfilter chain, in the row the caller has begun. */
struct xf_nf_chain;
void cmd_show_nf_chain(struct xf_out *o, const struct xf_nf_chain *c);
/* The show verb fn of an object whose lib/ walk is list(nl, dev, one, x):
 * one prints a row. */
#define CMD_SHOW_VERB(fn, key, list, one)					\
	static int fn##_walk(struct xfwd *x, struct xf_nl *nl, const char *dev)	\
	{									\
		return list(nl, dev, one, x);					\
	}									\
	static int fn(struct xfwd *x, struct xf_args *a)			\
	{									\
		return cmd_show_list(x, a, key, fn##_walk);			\
	}
/* Take the global lock for a command that changes state; for a verb marked
 * XF_CMD_CHANGES, first check its capabilities (an Error naming what is
 * missing, -EPERM). 0/-errno. */
int xfwd_lock(struct xfwd *x);
/* Both, for a command that changes state: the socket in *nl. 0/-errno. */
int xfwd_nl_locked(struct xfwd *x, struct xf_nl **nl);

extern const struct object feature_object;
extern const struct object route_object;
extern const struct object chain_object;
extern const struct object redirect_object;
extern const struct object stats_object;
extern const struct object gc_object;
extern const struct object save_object;
extern const struct object restore_object;
extern const struct object monitor_object;

#endif
