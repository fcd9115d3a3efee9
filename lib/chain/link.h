/* SPDX-License-Identifier: GPL-2.0 */
/* chain: the linker's view of members and of the program it writes; lib/chain/ only. */
#ifndef XF_CHAIN_LINK_H
#define XF_CHAIN_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include "chain/build.h"

struct btf;

/* What the linker learns from a member's instructions. */
struct xf_chain_facts {
	int main_len;		/* main function [0, main_len), its subprograms after */
	int stack;		/* bytes of stack the main function appears to use */
	unsigned int writes;	/* registers the main function writes, bit per reg */
	bool tail;		/* makes tail calls */
	bool inlinable;		/* main function can run in the dispatcher's frame */
};

/* The program being written. Members are either inlined (main function
 * copied into its step, subprograms after the dispatcher) or called (all
 * of the member after the dispatcher, reached by BPF_PSEUDO_CALL). */
struct chain_prog {
	struct bpf_insn *in;
	int n, cap;
	bool inl[XF_CHAIN_MAX];
	int body[XF_CHAIN_MAX];		/* inlined: where the main function went */
	int start[XF_CHAIN_MAX];	/* where the rest went: all or the subprograms */
	int len[XF_CHAIN_MAX];		/* ... and its length */
	int disp_len;			/* dispatcher with its inlined bodies */
	int ctx_reg;			/* r6-r9 that keeps ctx, or 0: */
	int ctx_off;			/* ... the stack slot that does */
	int cnt_reg;			/* r6-r9 that keeps the counters, or 0 */
	int step[XF_CHAIN_MAX + 1];	/* address of each step, then of exit */
	int njmp, ncall;
	struct { int at, pos; } jmp[XF_CHAIN_MAX * 8];	/* pos lo.n = exit */
	struct { int at, member; } call[XF_CHAIN_MAX];
	bool tail[XF_CHAIN_MAX];	/* copied from the facts, for messages */
	struct btf *btf;		/* see make_btf() in chain_build.c */
	struct bpf_func_info *fi;
	int nfi;
	/* The members' kfunc_fd[] merged: the fd_array of the chain's load
	 * (one meaning per index across members), or none. */
	int fd_array[XF_CHAIN_KFUNC_MAX];
	bool has_fd_array;
	/* The profiling build (chain profile): each member's run is timed
	 * with bpf_ktime_get_ns() into timed_fd, a PERCPU_ARRAY of one entry
	 * whose value is __u64[XF_CHAIN_TIMED_SLOTS][2] (ns sum, runs) by
	 * slot, calibration last. It needs XF_CHAIN_TIMED_INSNS more
	 * instructions per step (three times that once: the calibration
	 * and the span of the whole program) and
	 * 40 bytes of stack below the members'. false: the normal build, whose code
	 * does not depend on anything below. */
	bool timed;
	int timed_fd;
	int timed_off;			/* the start time; verdict 8, outer start
				 * 16, the chain's verdict 24, its entry
				 * time 32 below */
};

#define XF_CHAIN_TIMED_INSNS 24

/* Check that a member's code is self-contained and learn its facts.
 * 0, or -errno with one line naming the member in msg. */
int xf_chain_scan(const struct xf_chain_member *mb, struct xf_chain_facts *f,
		  char *msg, size_t len);

/* Write dispatcher and members into l->in (l->cap instructions, enough
 * for 32 + 40 per step + the members). Members whose facts allow it and
 * whose main function uses at most inline_stack bytes of stack are
 * inlined (-1: none). 0, or -E2BIG when a jump would not reach. */
int xf_chain_link(struct chain_prog *l, const struct xf_chain_member *m, int n,
		  const struct xf_chain_layout *lo, const struct xf_chain_facts *f,
		  int counters_fd, int key_fd, int inline_stack);

#endif
