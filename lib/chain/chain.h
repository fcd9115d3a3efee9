/* SPDX-License-Identifier: GPL-2.0 */
/* chain, the public header: an interface's chain as the kernel holds it,
 * and changes to it (what cmd/, route and redirect use). */
#ifndef XF_CHAIN_H
#define XF_CHAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "xbpf.h"

struct xf_nl;
struct xf_link;
struct bpf_object;
struct bpf_program;

/* Members in one chain: the documented limit. */
#define XF_CHAIN_MAX 32

/* A member's verdict is its XDP return code; the values are the kernel's
 * XDP_ABORTED .. XDP_REDIRECT. Anything above counts as XF_V_OTHER and
 * always ends the chain (the kernel then treats it as an invalid action). */
enum xf_verdict { XF_V_ABORTED, XF_V_DROP, XF_V_PASS, XF_V_TX, XF_V_REDIRECT, XF_V_N };
#define XF_V_OTHER XF_V_N
#define XF_CHAIN_NV (XF_V_N + 1)

/* What follows a verdict. DEFAULT: pass -> NEXT, every other verdict ->
 * STOP. NEXT after the last member ends the chain. */
enum xf_action { XF_ACT_DEFAULT, XF_ACT_NEXT, XF_ACT_STOP, XF_ACT_GOTO };

/*
 * Counters map: a PERCPU_ARRAY with ONE entry (key 0) whose value is
 * __u64[XF_CHAIN_MAX * XF_CHAIN_NV], packets indexed by
 * slot * XF_CHAIN_NV + verdict (XF_V_OTHER for return codes above
 * XDP_REDIRECT; a tail call's verdict counts for the member that made it).
 * One entry means one lookup per packet rather than one per step.
 */
#define XF_CHAIN_CNT_N (XF_CHAIN_MAX * XF_CHAIN_NV)

/* "aborted", "drop", "pass", "tx", "redirect", "other"; NULL above. */
const char *xf_chain_verdict_name(unsigned int v);

/* One member as stored: the object is a copy under XF_CHAIN_RUN_DIR, so a
 * rebuild by a later xfwd never depends on where the user kept the file. */
struct xf_chain_desc_member {
	char name[16];
	char prog[64];			/* the program's name in its object */
	uint8_t slot;			/* counter slot, kept for life */
	uint8_t act[XF_V_N];		/* enum xf_action */
	uint8_t target[XF_V_N];		/* XF_ACT_GOTO: the target's slot */
	uint8_t prio_set;		/* priority came from XDP_RUN_CONFIG */
	uint32_t prio;
	/* Where its maps are pinned, relative to the namespace's pin
	 * directory; "" for the member's own maps/<name>/. xfwd's route
	 * member shares the namespace's route maps this way. */
	char maps[32];
};

/* The value of the pinned one-entry map "chain_desc": the chain's order
 * and rules live in the kernel with its program, not in a file. */
struct xf_chain_desc {
	uint32_t magic;
	uint32_t n;
	uint32_t gen;			/* bumped by every change */
	uint32_t pad;
	struct xf_chain_desc_member m[XF_CHAIN_MAX];
};

#define XF_CHAIN_MAGIC 0x78666368U	/* "xfch" */
/* Copies of member objects: cleared on reboot, as bpffs pins are. */
#define XF_CHAIN_RUN_DIR XF_RUN_ROOT

/* Where a new member goes. */
enum xf_chain_pos { XF_POS_DEFAULT, XF_POS_FIRST, XF_POS_LAST, XF_POS_BEFORE, XF_POS_AFTER };

struct xf_chain_add {
	const char *obj;		/* ELF file */
	const char *src;		/* where obj came from, for save; NULL: obj */
	const char *sec;		/* choose the program by section ... */
	const char *prog;		/* ... or by name; else the only XDP one */
	const char *name;		/* member name; default: the program's */
	enum xf_chain_pos pos;
	const char *rel;		/* BEFORE/AFTER: that member */
	struct { int verdict; int action; const char *target; } rules[XF_V_N * 2];
	int nrules;
	/* For xfwd's own members: */
	bool has_prio;			/* prio instead of the object's own */
	uint32_t prio;
	const char *maps;		/* see xf_chain_desc_member.maps */
	uint32_t xdp_flags;		/* XDP_FLAGS_*_MODE when the chain is new */
	struct xf_chain_keep *keep;	/* see struct xf_chain_keep; NULL: none */
};

/*
 * chain profile: what each member costs. A timed build of the same chain
 * (same members, order, gotos, maps and counters) runs for a while in
 * place of the normal one; the normal program itself is pinned meanwhile
 * as "chain_normal" beside the link, and the profiler's PID is kept in
 * XF_RUN_ROOT/ns<id>/<ifindex>/profiling, so that a later xfwd puts the
 * normal program back if the profiler died. The result is kept there as
 * "profile" for chain show -s.
 */
struct xf_chain_profile {
	int64_t time;			/* when it started, Unix seconds */
	double duration;		/* how long the timed build ran, seconds */
	double overhead;		/* ns a timed step adds inside its own
					 * timing (subtracted from each run) */
	double step;			/* ns a timed step adds to the chain */
	/* Both measured on the live traffic, by a calibration block that
	 * runs with every packet and costs about two steps. */
	uint64_t packets, run_ns;	/* the chain's bpf_stats, if has_total */
	uint64_t whole_runs, whole_ns;	/* the program's span, entry to end */
	bool has_total;
	bool changed;			/* another command swapped the chain
					 * during the profile: timed until then */
	uint32_t n;
	struct {
		char name[16];
		uint8_t slot;
		uint64_t runs, ns;	/* ns: summed, overhead included */
	} m[XF_CHAIN_MAX];
};
/* A member's ns per run net of the overhead (0 when it did not run). */
double xf_chain_profile_ns(const struct xf_chain_profile *p, uint32_t i);
/* What the timing added to each packet, ns; 0 without packets. */
double xf_chain_profile_cost(const struct xf_chain_profile *p);
/* The chain's ns per packet (bpf_stats) net of that; 0 without a total. */
double xf_chain_profile_total(const struct xf_chain_profile *p);
/* The dispatcher's ns per packet (its branches and counters), measured
 * inside the program; 0 without a span. */
double xf_chain_profile_dispatcher(const struct xf_chain_profile *p);
/* What bpf_stats counts outside the program's first and last instruction
 * (the kernel's call into it, bpf_stats' own clock reads) per packet: the
 * total less the members and the dispatcher. 0 without a total. */
double xf_chain_profile_entry(const struct xf_chain_profile *p);

struct xf_chain_prof_run;
/* Swap dev's chain for its timed build. Prints its own Error; changes
 * nothing on failure. *r is for xf_chain_profile_end(). 0/-errno. */
int xf_chain_profile_begin(struct xf_nl *nl, const char *dev, struct xf_chain_prof_run **r);
/* Swap the normal build back (unless another command replaced the timed
 * one meanwhile), fill p, keep it for show and free r. 0/-errno. */
int xf_chain_profile_end(struct xf_chain_prof_run *r, struct xf_chain_profile *p);
/* The last profile kept for the chain of ifindex (this namespace), and in
 * *profiling the PID of a profile running now (0: none). 0/-errno
 * (-ENOENT: none kept). */
int xf_chain_profile_last(int ifindex, struct xf_chain_profile *p, int *profiling);
/* Put the normal build back on every chain of this namespace whose
 * profiler is gone (killed); one Warning line each. Call under the lock.
 * Returns how many. */
int xf_chain_profile_recover(void);

/* What show prints about one interface. */
struct xf_chain_info {
	int ifindex;
	char dev[IF_NAMESIZE];
	uint32_t prog_id, link_id;
	const char *mode;		/* "native" or "generic" */
	struct xf_chain_desc desc;
	uint64_t cnt[XF_CHAIN_MAX][XF_CHAIN_NV];
	/* The same per CPU: cnt[slot][v] of cpu c at
	 * percpu[c * XF_CHAIN_CNT_N + slot * XF_CHAIN_NV + v]; NULL when not
	 * read. Valid during the callback only. */
	const uint64_t *percpu;
	int ncpu;
	/* The last chain profile of this chain, NULL when there is none;
	 * profiling: one is running now (its PID). */
	const struct xf_chain_profile *prof;
	int profiling;
};

/* Each prints its own one-line Error and returns 0/-errno (-XF_EUSAGE for
 * a refusal the user can fix by changing the command). All or nothing: a
 * change that fails anywhere, the verifier included, leaves the running
 * chain as it was. */
int xf_chain_add(struct xf_nl *nl, const char *dev, const struct xf_chain_add *a);
int xf_chain_set(struct xf_nl *nl, const char *dev, const char *name,
		 const struct xf_chain_add *rules);
int xf_chain_order(struct xf_nl *nl, const char *dev, const char *const *names, int n);
/* xf_chain_del: the member name, whoever put it there (route and redirect
 * leave this way); NULL as xf_chain_del_own(). */
int xf_chain_del(struct xf_nl *nl, const char *dev, const char *name);
/* chain del as the command line says it: a member route or redirect put
 * there is refused by name (it leaves with its object), and all (name
 * NULL) leaves those members running, their gotos to members that went
 * back to the verdict's default; the chain goes when none is left. */
int xf_chain_del_own(struct xf_nl *nl, const char *dev, const char *name);
/* Remove what killed commands left of dev's chain (copies of objects that
 * are no member). 0/-errno. */
int xf_chain_tidy(struct xf_nl *nl, const char *dev);
/* For save: the copy of member's object that runs, and the absolute path
 * it was added from (the copy's, when that was not kept). 0/-errno. */
int xf_chain_member_files(struct xf_nl *nl, const char *dev, const char *member,
			  char *copy, size_t clen, char *src, size_t slen);
/* For restore: the members of dev's chain, all of them, in this order,
 * with these actions (XF_ACT_*, goto targets by name), in one change. */
struct xf_chain_rules {
	const char *name;
	uint8_t act[XF_V_N];
	const char *target[XF_V_N];
};
int xf_chain_arrange(struct xf_nl *nl, const char *dev, const struct xf_chain_rules *r, int n);
/* A builtin member's loaded object, kept for the length of one command:
 * the first chain it builds with that member loads it, and the others
 * (route on two interfaces) take the member's instructions from there
 * instead of loading a copy each, which costs as much as the chain's own
 * load. Only a member whose object file holds exactly elf's bytes uses
 * it. The caller zeroes it, sets member and prog (and elf and size before
 * the first build), and calls xf_chain_keep_close() at the end. */
struct xf_chain_keep {
	const char *member;
	const char *prog;
	const void *elf;
	size_t size;
	struct bpf_object *obj;		/* loaded by the first build */
	struct bpf_program *prog_p;
};
void xf_chain_keep_close(struct xf_chain_keep *k);

/* One of xfwd's own XDP programs as a chain member. */
struct xf_chain_builtin {
	const char *name;		/* member name: "route", "redirect" */
	const char *prog;		/* its program in the object */
	uint32_t prio;			/* run priority */
	const char *maps;		/* its maps' directory in the namespace */
	uint32_t xdp_flags;		/* XDP_FLAGS_*_MODE for a new chain */
	struct xf_chain_keep *keep;	/* NULL: a copy of its own */
};
/* Add the builtin member, whose object is elf (size bytes, e.g. a
 * skeleton's), to dev's chain. The chain link's fd (the caller closes it),
 * or -errno after an Error line. */
int xf_chain_join(struct xf_nl *nl, const char *dev, const struct xf_chain_builtin *b,
		  const void *elf, size_t size);
/* The same for the device l that the caller read in this command (its
 * name, ifindex and XDP state), which is not read again. */
int xf_chain_join_link(struct xf_nl *nl, const struct xf_link *l,
		       const struct xf_chain_builtin *b, const void *elf, size_t size);
/* The fd of dev's chain link (the caller closes it), or -ENOENT. */
int xf_chain_link_fd(int ifindex);
/* Zero dev's chain counters (every member, every CPU). 0/-errno. */
int xf_chain_counters_reset(struct xf_nl *nl, const char *dev);
/* Every chain of this namespace (or only dev's). */
int xf_chain_list(struct xf_nl *nl, const char *dev,
		  int (*cb)(const struct xf_chain_info *ci, void *arg), void *arg);

#endif
