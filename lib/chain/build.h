/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the chain wing: XDP members linked into one program; the graph
 * check and the build (and the unit tests and bench/chainstep). */
#ifndef XF_CHAIN_BUILD_H
#define XF_CHAIN_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chain/chain.h"

struct bpf_insn;
struct bpf_object;
struct bpf_program;

/* Distinct fd_array indexes of module kfunc calls in one chain. */
#define XF_CHAIN_KFUNC_MAX 8

struct xf_chain_rule {
	uint8_t action;		/* enum xf_action */
	uint8_t target;		/* XF_ACT_GOTO: index of the member in the array */
};

struct xf_chain_member {
	char name[16];
	/* Counter slot in [0, XF_CHAIN_MAX), distinct within a chain. The
	 * caller keeps it for the member's life, so a reorder does not move
	 * a member's counts to another member. */
	uint8_t slot;
	struct xf_chain_rule on[XF_V_N];
	/* Final instructions of a loaded member: bpf_program__insns() after
	 * bpf_object__load(). They carry the fds of the member object's maps,
	 * so that object must stay open until xf_chain_load() returns; the
	 * loaded chain holds its own references to the maps after that. */
	const struct bpf_insn *insns;
	size_t n_insns;
	bool frags;		/* loaded with BPF_F_XDP_HAS_FRAGS ("xdp.frags") */
	/* Never inline: run the member as a subprogram in its own frame, so
	 * bpftool and perf show it under its name (a call costs more). */
	bool call;
	/* Kernel module functions (kfuncs) it calls: a call's insn->off is
	 * an index into the fd_array of the member's own load, and
	 * kfunc_fd[off] is the module BTF fd behind it (0: none). Filled by
	 * xf_chain_member_kfuncs(), closed by xf_chain_member_kfuncs_close(). */
	int kfunc_fd[XF_CHAIN_KFUNC_MAX];
};

/* Fill insns, n_insns and frags of m from a program of a loaded object, and
 * its name (truncated to 15 characters). Rules and slot are left alone. */
void xf_chain_member_from_prog(struct xf_chain_member *m, const char *name,
			       const struct bpf_program *prog);

/* Find the module BTF of each module kfunc that m's program (of the loaded
 * obj) calls, by the names of obj's extern functions: kfunc_fd[]. 0, or
 * -errno with one line in msg. */
int xf_chain_member_kfuncs(struct xf_chain_member *m, const struct bpf_object *obj,
			   char *msg, size_t len);
void xf_chain_member_kfuncs_close(struct xf_chain_member *m);

/* Messages: msg is always a buffer of len >= 1 bytes; on error it holds
 * one line without "Error: " and without a trailing newline. */

/* Check the graph given by order + rules: 1..XF_CHAIN_MAX members, names
 * non-empty and distinct, slots in range and distinct, actions known, goto
 * targets in range, no cycle. 0, or -EINVAL/-ELOOP with one line in msg
 * ("cycle: a -> b -> c -> a"). */
int xf_chain_check(const struct xf_chain_member *m, int n, char *msg, size_t len);

/* Where verdict v (< XF_V_N) of member i leads: a member index or
 * XF_CHAIN_EXIT. Rules must have passed xf_chain_check(). */
#define XF_CHAIN_EXIT (-1)
int xf_chain_dest(const struct xf_chain_member *m, int n, int i, int v);

/* The steps of a checked chain in the order the dispatcher runs them:
 * members reachable from m[0], topologically sorted (lowest index first
 * among equals, so the chain's own order wherever gotos allow). Members
 * with pos -1 are unreachable and are not linked in. */
struct xf_chain_layout {
	int n;
	int order[XF_CHAIN_MAX];	/* member index of each step */
	int pos[XF_CHAIN_MAX];		/* step of each member, or -1 */
};
void xf_chain_layout(const struct xf_chain_member *m, int n, struct xf_chain_layout *lo);

/* Link and load the chain as one XDP program: a dispatcher (the graph as
 * straight-line code, forward jumps only) running each member reachable
 * from m[0], inlined where it can be, else as a BPF-to-BPF subprogram.
 * counters_fd < 0 builds without counters; xdp.frags only if every member
 * has it. Returns the program fd (the caller closes it; msg then says
 * which members were inlined and which called), or -errno with one line
 * in msg naming the member the verifier or the linker complained about. */
int xf_chain_load(const struct xf_chain_member *m, int n, int counters_fd,
		  char *msg, size_t len);

/* The same, built to time each member (chain profile): timed_fd is a map
 * of xf_chain_timed_create() that gets each slot's ns sum and runs. */
int xf_chain_load_timed(const struct xf_chain_member *m, int n, int counters_fd,
			int timed_fd, char *msg, size_t len);
/* The timing map: PERCPU_ARRAY, one entry, __u64[XF_CHAIN_TIMED_SLOTS][2]
 * (ns sum, runs) by member slot, then the calibration's three (see
 * put_time_cal() in link.c). fd/-errno. Read summed over CPUs: 0/-errno. */
#define XF_CHAIN_CAL_EMPTY XF_CHAIN_MAX		/* an empty timed region */
#define XF_CHAIN_CAL_STEP (XF_CHAIN_MAX + 1)	/* that step, timed whole */
#define XF_CHAIN_CAL_WHOLE (XF_CHAIN_MAX + 2)	/* the program, entry to end */
#define XF_CHAIN_TIMED_SLOTS (XF_CHAIN_MAX + 3)
int xf_chain_timed_create(void);
int xf_chain_timed_read(int fd, uint64_t t[XF_CHAIN_TIMED_SLOTS][2]);

/* Create an empty counters map (caller pins and closes it). fd/-errno. */
int xf_chain_counters_create(void);

/* Sum the counters over CPUs into cnt[slot][verdict]. 0/-errno. */
int xf_chain_counters_read(int fd, uint64_t cnt[XF_CHAIN_MAX][XF_CHAIN_NV]);
/* The same, and the per-CPU values into percpu (xf_ncpus() *
 * XF_CHAIN_CNT_N, NULL: not wanted). 0/-errno. */
int xf_chain_counters_read_percpu(int fd, uint64_t cnt[XF_CHAIN_MAX][XF_CHAIN_NV],
				  uint64_t *percpu);

#endif
