// SPDX-License-Identifier: GPL-2.0
/* chain: write the dispatcher and place the members' instructions around it.
 *
 *   dispatcher   prologue: keep ctx (and the counters)
 *     step 0     run member; count (slot, verdict); branch on the verdict
 *     step 1     ...               steps in topological order, so every
 *     exit       return the last verdict    jump goes forward
 *   member code  called members whole; inlined members' subprograms
 *
 * A member runs in one of two ways:
 *  - inlined: its main function is copied into the step and its exits
 *    become jumps to the step's end. No call, no return: on this kernel
 *    every return goes through a return thunk (SRSO "safe RET"), which
 *    made a called member cost more than a tail call. The member's stack
 *    lives in the dispatcher's frame (members take turns, so they share
 *    it), and ctx and the counters stay in registers that no inlined body
 *    writes (place_state()).
 *  - called: the member is a BPF-to-BPF subprogram (BPF_PSEUDO_CALL) with
 *    its own frame. Members with a tail call in their main function are
 *    always called: inlined, the tail call would replace the whole chain.
 * BPF_PSEUDO_CALL/BPF_PSEUDO_FUNC offsets are relative, so code copied in
 * one piece still reaches its subprograms; calls from an inlined body to
 * its subprograms are re-aimed. Map references are fds of the member's
 * still-open object.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chain/link.h"

#define IS_LD64(x) ((x)->code == (BPF_LD | BPF_IMM | BPF_DW))
#define IS_CALL(x) ((x)->code == (BPF_JMP | BPF_CALL))
#define MAX_STACK 512
#define JMP_MAX 32767
#define MAX_INSNS 1000000	/* the kernel's program size limit for root */

/* Does insn x aim at code by a relative offset (a subprogram call or a
 * callback's address)? Its target is then at j + imm + 1. */
static bool aims(const struct bpf_insn *x)
{
	return (IS_CALL(x) && x->src_reg == BPF_PSEUDO_CALL) ||
	       (IS_LD64(x) && x->src_reg == BPF_PSEUDO_FUNC);
}

/* Registers tracked as r10 + constant, to guess the main function's stack
 * depth: clang addresses a stack object from its lowest byte, so the most
 * negative offset seen is the depth. A wrong guess is caught by the
 * verifier (ctx's slot overwritten) and the chain is then built with calls.
 * Offsets are 64-bit: a million adds of any imm cannot overflow them (a
 * fuzzed object's can overflow an int); a guess deeper than the stack is
 * MAX_STACK + 1, never inlined. */
static int stack_guess(const struct bpf_insn *in, int n)
{
	bool fp[11] = { [BPF_REG_10] = true };
	long long off[11] = { 0 }, low = 0;
	int j, d, s;
	const struct bpf_insn *x;

	for (j = 0; j < n; j++) {
		x = &in[j];
		d = x->dst_reg;
		s = x->src_reg;
		switch (BPF_CLASS(x->code)) {
		case BPF_LDX:
			if (s < 11 && fp[s] && off[s] + x->off < low)
				low = off[s] + x->off;
			if (d < 10)
				fp[d] = false;
			break;
		case BPF_ST:
		case BPF_STX:
			if (d < 11 && fp[d] && off[d] + x->off < low)
				low = off[d] + x->off;
			break;
		case BPF_ALU64:
			if (d >= 10)
				break;
			if (x->code == (BPF_ALU64 | BPF_MOV | BPF_X) && s < 11 && fp[s] &&
			    !x->off) {
				fp[d] = true;
				off[d] = off[s];
			} else if (fp[d] && x->code == (BPF_ALU64 | BPF_ADD | BPF_K)) {
				off[d] += x->imm;
			} else if (fp[d] && x->code == (BPF_ALU64 | BPF_SUB | BPF_K)) {
				off[d] -= x->imm;
			} else if (fp[d] && BPF_SRC(x->code) == BPF_X &&
				   (BPF_OP(x->code) == BPF_ADD || BPF_OP(x->code) == BPF_SUB)) {
				/* base + index: the base is still the lowest byte */
			} else {
				fp[d] = false;
			}
			if (fp[d] && off[d] < low)
				low = off[d];
			break;
		case BPF_ALU:
		case BPF_LD:
			if (d < 10)
				fp[d] = false;
			if (IS_LD64(x))
				j++;
			break;
		case BPF_JMP:
			if (IS_CALL(x))
				for (d = BPF_REG_0; d <= BPF_REG_5; d++)
					fp[d] = false;
			break;
		}
	}
	return low < -(long long)MAX_STACK ? MAX_STACK + 1 : (int)-low;
}

/* Registers an inlined main function may change. Calls to helpers and
 * subprograms preserve r6-r9; atomics may write either operand. */
static unsigned int regs_written(const struct bpf_insn *in, int n)
{
	unsigned int w = 0;
	int j;

	for (j = 0; j < n; j++) {
		switch (BPF_CLASS(in[j].code)) {
		case BPF_JMP:
		case BPF_JMP32:
			if (IS_CALL(&in[j]))
				w |= 0x3f;
			break;
		case BPF_ST:
			break;
		case BPF_STX:
			if (BPF_MODE(in[j].code) == BPF_ATOMIC)
				w |= 1u << in[j].src_reg | 1u << in[j].dst_reg | 1;
			break;
		case BPF_LD:
			w |= 1u << in[j].dst_reg | 0x3f;	/* LD_ABS/IND: r0-r5 */
			if (IS_LD64(&in[j]))
				j++;
			break;
		default:
			w |= 1u << in[j].dst_reg;
		}
	}
	return w;
}

int xf_chain_scan(const struct xf_chain_member *mb, struct xf_chain_facts *f,
		  char *msg, size_t len)
{
	long j, n = mb->n_insns, to;
	const struct bpf_insn *x;
	bool tail_main = false;

	memset(f, 0, sizeof(*f));
	if (!mb->insns || !n || n > MAX_INSNS) {
		snprintf(msg, len, "member %s has %s instructions", mb->name,
			 n ? "too many" : "no");
		return -EINVAL;
	}
	f->main_len = n;
	for (j = 0; j < n; j++) {
		x = &mb->insns[j];
		/* Kernel functions of vmlinux work as they are; a module's
		 * are named by an index into the member's fd_array, which
		 * the chain's load gives again (kfunc_fd[]). */
		if (IS_CALL(x) && x->src_reg == BPF_PSEUDO_KFUNC_CALL && x->off &&
		    (x->off < 0 || x->off >= XF_CHAIN_KFUNC_MAX || mb->kfunc_fd[x->off] <= 0)) {
			snprintf(msg, len, "member %s calls a kernel module's function (kfunc, "
				 "insn %ld): not supported in a chain", mb->name, j);
			return -EOPNOTSUPP;
		}
		if (IS_LD64(x) && (x->src_reg == BPF_PSEUDO_MAP_IDX ||
				   x->src_reg == BPF_PSEUDO_MAP_IDX_VALUE)) {
			snprintf(msg, len, "member %s refers to a map by fd_array index "
				 "(insn %ld): not supported in a chain", mb->name, j);
			return -EOPNOTSUPP;
		}
		if (IS_CALL(x) && !x->src_reg && x->imm == BPF_FUNC_tail_call)
			f->tail = true;
		if (aims(x)) {
			to = j + x->imm + 1;
			if (to <= 0 || to >= n)
				goto outside;
			if (to < f->main_len)
				f->main_len = to;
		}
		if (IS_LD64(x) && ++j == n)
			goto outside;
	}
	/* The main function ends where the first subprogram starts (the
	 * targets above; none is 0, recursion being refused), so only now
	 * is it known whether a tail call is in the main function. */
	for (j = 0; j < f->main_len; j++) {
		x = &mb->insns[j];
		if (IS_CALL(x) && !x->src_reg && x->imm == BPF_FUNC_tail_call)
			tail_main = true;
		if (IS_LD64(x))
			j++;
	}
	f->writes = regs_written(mb->insns, f->main_len);
	f->stack = stack_guess(mb->insns, f->main_len);
	f->inlinable = !mb->call && !tail_main && f->stack + 8 <= MAX_STACK &&
		       f->main_len < JMP_MAX;
	return 0;
outside:
	snprintf(msg, len, "member %s: instruction %ld reaches outside its code; "
		 "take the instructions after bpf_object__load()", mb->name, j);
	return -EINVAL;
}

static void put(struct chain_prog *l, uint8_t code, uint8_t dst, uint8_t src, int16_t off,
		int32_t imm)
{
	struct bpf_insn *x = &l->in[l->n++];

	memset(x, 0, sizeof(*x));
	x->code = code;
	x->dst_reg = dst;
	x->src_reg = src;
	x->off = off;
	x->imm = imm;
}

/* ld_imm64 takes two slots; for a map value the second holds the offset. */
static void put_ld64(struct chain_prog *l, uint8_t dst, uint8_t src, int32_t imm)
{
	put(l, BPF_LD | BPF_IMM | BPF_DW, dst, src, 0, imm);
	put(l, 0, 0, 0, 0, 0);
}

static void put_jmp(struct chain_prog *l, uint8_t op, int32_t imm, int pos)
{
	l->jmp[l->njmp].at = l->n;
	l->jmp[l->njmp++].pos = pos;
	put(l, BPF_JMP32 | op | BPF_K, BPF_REG_0, 0, 0, imm);
}

/* The chain's end with the verdict in r0: an exit, or in the timed build
 * a jump to the epilogue that runs the calibration first. */
static void put_exit(struct chain_prog *l, int end)
{
	if (!l->timed) {
		put(l, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		return;
	}
	l->jmp[l->njmp].at = l->n;
	l->jmp[l->njmp++].pos = end;
	put(l, BPF_JMP | BPF_JA, 0, 0, 0, 0);
}

/* counters[slot][min(w_verdict, OTHER)] += 1, with the value's address in
 * r_cnt. A plain add: the value is this CPU's and XDP runs with migration
 * disabled. Clobbers r1 and r2. */
static void put_count(struct chain_prog *l, int slot, int r_cnt, int r_verdict)
{
	int16_t off = slot * XF_CHAIN_NV * 8;

	put(l, BPF_ALU | BPF_MOV | BPF_X, BPF_REG_1, r_verdict, 0, 0);
	put(l, BPF_JMP32 | BPF_JLT | BPF_K, BPF_REG_1, 0, 1, XF_V_OTHER);
	put(l, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, XF_V_OTHER);
	put(l, BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_1, 0, 0, 3);
	put(l, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_1, r_cnt, 0, 0);
	put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_1, off, 0);
	put(l, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, 1);
	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_2, off, 0);
}

/* r0 = this CPU's counters; the key is the zeroed value of a read-only
 * one-entry array, so no stack is needed to hold it. */
static void put_lookup(struct chain_prog *l, int counters_fd, int key_fd)
{
	put_ld64(l, BPF_REG_1, BPF_PSEUDO_MAP_FD, counters_fd);
	put_ld64(l, BPF_REG_2, BPF_PSEUDO_MAP_VALUE, key_fd);
	put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
}

/* The verdict in w0 picks the next step. Targets are later steps, so every
 * jump goes forward and the dispatcher has no loop to bound. */
static void put_branch(struct chain_prog *l, const struct xf_chain_member *m, int n,
		       const struct xf_chain_layout *lo, int pos)
{
	int k = lo->order[pos], ft, v, d[XF_V_N], nft = 0, nexit = 0;

	if (pos + 1 == lo->n)
		return;		/* the last step has no successor: exit follows */
	ft = lo->order[pos + 1];
	for (v = 0; v < XF_V_N; v++) {
		d[v] = xf_chain_dest(m, n, k, v);
		nft += d[v] == ft;
		nexit += d[v] == XF_CHAIN_EXIT;
		if (d[v] != ft && d[v] != XF_CHAIN_EXIT)
			put_jmp(l, BPF_JEQ, v, lo->pos[d[v]]);
	}
	if (!nft) {
		put_exit(l, lo->n);
	} else if (nft == 1) {
		for (v = 0; d[v] != ft; v++)
			;
		put_jmp(l, BPF_JNE, v, lo->n);
	} else if (nexit < nft) {
		for (v = 0; v < XF_V_N; v++)
			if (d[v] == XF_CHAIN_EXIT)
				put_jmp(l, BPF_JEQ, v, lo->n);
		put_jmp(l, BPF_JGT, XF_V_N - 1, lo->n);
	} else {
		for (v = 0; v < XF_V_N; v++)
			if (d[v] == ft)
				put_jmp(l, BPF_JEQ, v, pos + 1);
		put_exit(l, lo->n);
	}
}

/* Copy an inlined main function; its exits jump to the end of the copy,
 * with the verdict in r0. */
static void put_body(struct chain_prog *l, const struct xf_chain_member *mb, int main_len)
{
	int j, at = l->n;

	memcpy(l->in + at, mb->insns, main_len * sizeof(*l->in));
	for (j = 0; j < main_len; j++) {
		struct bpf_insn *x = &l->in[at + j];

		if (x->code == (BPF_JMP | BPF_EXIT)) {
			x->code = BPF_JMP | BPF_JA;
			x->off = main_len - j - 1;
		}
		if (IS_LD64(x))
			j++;
	}
	l->n += main_len;
}

/* The timed build's stack slots, bytes below timed_off (the start time of
 * the step that runs): the member's verdict across the clock read, the
 * calibration's outer start time, the chain's verdict across the
 * epilogue, the program's entry time. */
#define TIMED_VERDICT 8
#define TIMED_OUTER 16
#define TIMED_FINAL 24
#define TIMED_ENTRY 32

/* Timing of a step, before the member: the start time into the stack
 * (helpers keep r6-r9, so ctx and the counters stay where they are). */
static void put_time_start(struct chain_prog *l)
{
	put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, l->timed_off, 0);
}

/* timed[slot] += (now - the time at stack offset from, 1), with now in
 * r0 (the helper's return). */
static void put_time_acc(struct chain_prog *l, int16_t from, int slot, int key_fd)
{
	int16_t off = slot * 16;

	put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10, from, 0);
	put(l, BPF_ALU64 | BPF_SUB | BPF_X, BPF_REG_0, BPF_REG_1, 0, 0);
	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, l->timed_off, 0);
	put_lookup(l, l->timed_fd, key_fd);
	put(l, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 7, 0);
	put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10, l->timed_off, 0);
	put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_0, off, 0);
	put(l, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_2, BPF_REG_1, 0, 0);
	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_2, off, 0);
	put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_0, off + 8, 0);
	put(l, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, 1);
	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_2, off + 8, 0);
}

/* ... and after it: timed[slot] += (now - start, 1), the verdict kept on
 * the stack across the helper calls and back in r0 at the end. The time
 * from the first clock read to the second is the member's plus one clock
 * read, which the calibration block measures. */
static void put_time_end(struct chain_prog *l, int slot, int key_fd)
{
	int16_t v_off = l->timed_off - TIMED_VERDICT;

	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, v_off, 0);
	put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
	put_time_acc(l, l->timed_off, slot, key_fd);
	put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_10, v_off, 0);
}

/*
 * The timed build's calibration, last thing on every packet (every exit
 * of the dispatcher jumps to the epilogue, which keeps the verdict 24
 * below the start time and first closes the whole program's span, opened
 * 32 below at its entry: timed[XF_CHAIN_CAL_WHOLE]), so that it runs on
 * the same CPU, caches and clock as the members' timing, warmed up as
 * theirs is: a step with no member (timed[XF_CHAIN_CAL_EMPTY]: what a timed region adds to
 * the member inside it, one clock read), itself timed as a whole from
 * outside (timed[XF_CHAIN_CAL_STEP]: one such region, its bookkeeping,
 * and one clock read more).
 */
static void put_time_cal(struct chain_prog *l, int key_fd)
{
	int16_t o_off = l->timed_off - TIMED_OUTER;

	put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
	put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, o_off, 0);
	put_time_start(l);
	put_time_end(l, XF_CHAIN_CAL_EMPTY, key_fd);
	put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
	put_time_acc(l, o_off, XF_CHAIN_CAL_STEP, key_fd);
}

static void put_step(struct chain_prog *l, const struct xf_chain_member *m, int n,
		     const struct xf_chain_layout *lo, const struct xf_chain_facts *f,
		     int pos, int counters_fd, int key_fd)
{
	int k = lo->order[pos], tmp;

	l->step[pos] = l->n;
	if (l->timed)
		put_time_start(l);
	if (l->ctx_reg)
		put(l, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, l->ctx_reg, 0, 0);
	else
		put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_10, l->ctx_off, 0);
	if (l->inl[k]) {
		l->body[k] = l->n;
		put_body(l, &m[k], f[k].main_len);
	} else {
		l->call[l->ncall].at = l->n;
		l->call[l->ncall++].member = k;
		put(l, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0);
	}
	if (l->timed)
		put_time_end(l, m[k].slot, key_fd);
	if (counters_fd >= 0 && l->cnt_reg) {
		put_count(l, m[k].slot, l->cnt_reg, BPF_REG_0);
	} else if (counters_fd >= 0) {
		/* No register is safe from the inlined bodies: look the
		 * counters up again, the verdict kept in a register that the
		 * helper call preserves (the body's values are dead now). */
		tmp = l->ctx_reg == BPF_REG_6 ? BPF_REG_7 : BPF_REG_6;
		put(l, BPF_ALU64 | BPF_MOV | BPF_X, tmp, BPF_REG_0, 0, 0);
		put_lookup(l, counters_fd, key_fd);
		put(l, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 8, 0);
		put_count(l, m[k].slot, BPF_REG_0, tmp);
		put(l, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, tmp, 0, 0);
	}
	put_branch(l, m, n, lo, pos);
}

/* Re-aim an inlined body's calls and callback addresses at its
 * subprograms, which now sit at start[k] instead of right after it. */
static void reaim_body(struct chain_prog *l, const struct xf_chain_member *mb, int k,
		       int main_len)
{
	const struct bpf_insn *x;
	int j, to;

	for (j = 0; j < main_len; j++) {
		x = &mb->insns[j];
		if (aims(x)) {
			to = l->start[k] + (j + x->imm + 1 - main_len);
			l->in[l->body[k] + j].imm = to - (l->body[k] + j) - 1;
		}
		if (IS_LD64(x))
			j++;
	}
}

/*
 * Where the dispatcher keeps ctx and the counters across steps: in r9..r6
 * when no inlined body writes that register (called members preserve
 * them all), the counters first since a lookup costs more than a load.
 * Without a free register, ctx goes to a stack slot below the deepest
 * inlined member's stack and the counters are looked up at every step.
 */
static void place_state(struct chain_prog *l, const struct xf_chain_layout *lo,
			const struct xf_chain_facts *f, bool counters, int inline_stack)
{
	unsigned int written = 0;
	int pos, k, r, deepest = 0;

	l->ctx_reg = l->cnt_reg = l->ctx_off = 0;
	for (pos = 0; pos < lo->n; pos++) {
		k = lo->order[pos];
		l->inl[k] = f[k].inlinable && f[k].stack <= inline_stack;
		l->tail[k] = f[k].tail;
		if (!l->inl[k])
			continue;
		written |= f[k].writes;
		if (f[k].stack > deepest)
			deepest = f[k].stack;
	}
	for (r = BPF_REG_9; r >= BPF_REG_6; r--) {
		if (written >> r & 1)
			continue;
		if (counters && !l->cnt_reg)
			l->cnt_reg = r;
		else if (!l->ctx_reg)
			l->ctx_reg = r;
	}
	if (!l->ctx_reg)
		l->ctx_off = -((deepest + 7) / 8 * 8 + 8);
	/* The timed build's five slots go below ctx's, used or not. */
	l->timed_off = -((deepest + 7) / 8 * 8 + 16);
}

int xf_chain_link(struct chain_prog *l, const struct xf_chain_member *m, int n,
		  const struct xf_chain_layout *lo, const struct xf_chain_facts *f,
		  int counters_fd, int key_fd, int inline_stack)
{
	int pos, k, i, from, off;

	l->n = l->njmp = l->ncall = 0;
	place_state(l, lo, f, counters_fd >= 0, inline_stack);
	if (l->ctx_reg)
		put(l, BPF_ALU64 | BPF_MOV | BPF_X, l->ctx_reg, BPF_REG_1, 0, 0);
	else
		put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, l->ctx_off, 0);
	if (l->timed) {
		put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
		put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, l->timed_off - TIMED_ENTRY, 0);
	}
	if (l->cnt_reg) {
		put_lookup(l, counters_fd, key_fd);
		/* Key 0 of a one-entry array is never missing; if it were,
		 * fail closed rather than skip a filter. */
		put(l, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 2, 0);
		put(l, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_ABORTED);
		put(l, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		put(l, BPF_ALU64 | BPF_MOV | BPF_X, l->cnt_reg, BPF_REG_0, 0, 0);
	}
	for (pos = 0; pos < lo->n; pos++)
		put_step(l, m, n, lo, f, pos, counters_fd, key_fd);
	l->step[lo->n] = l->n;
	if (l->timed) {
		put(l, BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, l->timed_off - TIMED_FINAL, 0);
		put(l, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
		put_time_acc(l, l->timed_off - TIMED_ENTRY, XF_CHAIN_CAL_WHOLE, key_fd);
		put_time_cal(l, key_fd);
		put(l, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_10, l->timed_off - TIMED_FINAL, 0);
	}
	put(l, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	l->disp_len = l->n;

	for (pos = 0; pos < lo->n; pos++) {
		k = lo->order[pos];
		from = l->inl[k] ? f[k].main_len : 0;
		l->start[k] = l->n;
		l->len[k] = m[k].n_insns - from;
		memcpy(l->in + l->n, m[k].insns + from, l->len[k] * sizeof(*l->in));
		l->n += l->len[k];
		if (l->inl[k])
			reaim_body(l, &m[k], k, f[k].main_len);
	}
	for (i = 0; i < l->njmp; i++) {
		off = l->step[l->jmp[i].pos] - l->jmp[i].at - 1;
		if (off > JMP_MAX)
			return -E2BIG;
		l->in[l->jmp[i].at].off = off;
	}
	for (i = 0; i < l->ncall; i++)
		l->in[l->call[i].at].imm = l->start[l->call[i].member] - l->call[i].at - 1;
	return 0;
}
