// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/chain/link.c: what the linker learns from a member's
 * instructions and the shape of the program it writes. No root: nothing
 * is loaded, the program is only inspected. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/link.h"
#include "check.h"

#define INSN(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }
#define MOV_K(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* r0 = 2 (XDP_PASS) unless the first byte is zero: two exits. */
static const struct bpf_insn two_exits[] = {
	MOV_K(0, 2),
	INSN(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1, 0),
	EXIT,
	MOV_K(0, 1),
	EXIT,
};

/* Main calls its subprogram (insn 4) and keeps 64 bytes of stack through
 * a copy of r10; it writes r6. */
static const struct bpf_insn with_sub[] = {
	INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),
	INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -64),
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1),
	EXIT,
	MOV_K(0, 2),
	EXIT,
};

/* A tail call from the main function. */
static const struct bpf_insn tail_main[] = {
	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call),
	MOV_K(0, 2),
	EXIT,
};

static const struct bpf_insn module_kfunc[] = {
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 1, 1234),
	EXIT,
};

static const struct bpf_insn call_outside[] = {
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 5),
	EXIT,
};

/* The normal build of chain a, b below, as the linker wrote it before
 * the timed build was added (so any change to it is seen). */
#define NORMAL_LEN 42
#define NORMAL_FNV 0x8e38a6af3327de67ULL

static void member(struct xf_chain_member *m, const char *name, int slot,
		   const struct bpf_insn *in, size_t n)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->slot = slot;
	m->insns = in;
	m->n_insns = n;
}

/* Every dispatcher jump goes forward and lands inside the dispatcher;
 * every subprogram call lands on code after it. */
static int shape_ok(const struct chain_prog *l)
{
	int j, to;

	for (j = 0; j < l->disp_len; j++) {
		const struct bpf_insn *x = &l->in[j];
		int cls = BPF_CLASS(x->code);

		if (x->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			j++;
			continue;
		}
		if (x->code == (BPF_JMP | BPF_CALL) && x->src_reg == BPF_PSEUDO_CALL) {
			to = j + x->imm + 1;
			if (to < l->disp_len || to >= l->n)
				return 0;
			continue;
		}
		if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(x->code) != BPF_CALL &&
		    BPF_OP(x->code) != BPF_EXIT) {
			to = j + x->off + 1;
			if (x->off < 0 || to > l->disp_len)
				return 0;
		}
	}
	return 1;
}

static int count_code(const struct chain_prog *l, int from, int to, int code)
{
	int j, c = 0;

	for (j = from; j < to; j++)
		c += l->in[j].code == code;
	return c;
}

int main(void)
{
	struct check c = { 0 };
	struct xf_chain_member m[3];
	struct xf_chain_facts f[3];
	struct xf_chain_layout lo;
	struct chain_prog *l = calloc(1, sizeof(*l));
	char msg[256];
	int j;

	if (!l)
		return 1;
	l->cap = 1024;
	l->in = calloc(l->cap, sizeof(*l->in));
	if (!l->in)
		return 1;

	/* Facts. */
	member(&m[0], "a", 0, two_exits, 5);
	check_true(&c, !xf_chain_scan(&m[0], &f[0], msg, sizeof(msg)), "scan a", __LINE__);
	check_true(&c, f[0].main_len == 5 && f[0].inlinable && !f[0].tail && !f[0].stack &&
		   !(f[0].writes & 0x3c0), "a: all main, inlinable, no stack, r6-r9 free",
		   __LINE__);
	member(&m[1], "b", 1, with_sub, 7);
	check_true(&c, !xf_chain_scan(&m[1], &f[1], msg, sizeof(msg)), "scan b", __LINE__);
	check_true(&c, f[1].main_len == 5 && f[1].stack == 64 && (f[1].writes >> 6 & 1),
		   "b: main ends at its subprogram, 64 bytes, writes r6", __LINE__);
	member(&m[2], "t", 2, tail_main, 3);
	check_true(&c, !xf_chain_scan(&m[2], &f[2], msg, sizeof(msg)), "scan t", __LINE__);
	check_true(&c, f[2].tail && !f[2].inlinable, "t: tail call in main: called", __LINE__);
	m[0].call = true;
	xf_chain_scan(&m[0], &f[0], msg, sizeof(msg));
	check_true(&c, !f[0].inlinable, "call flag: not inlined", __LINE__);
	m[0].call = false;

	/* Refused code. */
	member(&m[2], "k", 2, module_kfunc, 2);
	check_true(&c, xf_chain_scan(&m[2], &f[2], msg, sizeof(msg)) == -EOPNOTSUPP,
		   "module kfunc refused", __LINE__);
	check_str(&c, msg, "member k calls a kernel module's function (kfunc, insn 0): "
		  "not supported in a chain", __LINE__);
	member(&m[2], "o", 2, call_outside, 2);
	check_true(&c, xf_chain_scan(&m[2], &f[2], msg, sizeof(msg)) == -EINVAL,
		   "call outside refused", __LINE__);
	member(&m[2], "e", 2, two_exits, 0);
	check_true(&c, xf_chain_scan(&m[2], &f[2], msg, sizeof(msg)) == -EINVAL,
		   "no instructions", __LINE__);

	/* a then b, both inlined: no call from the dispatcher, the bodies'
	 * exits became forward jumps, b's call re-aimed at its subprogram
	 * after the dispatcher. b writes r6, so ctx and counters go to r9/r8. */
	member(&m[0], "a", 0, two_exits, 5);
	xf_chain_scan(&m[0], &f[0], msg, sizeof(msg));
	xf_chain_layout(m, 2, &lo);
	check_true(&c, !xf_chain_link(l, m, 2, &lo, f, 3, 4, 512), "link inlined", __LINE__);
	check_true(&c, l->inl[0] && l->inl[1] && shape_ok(l), "inlined shape", __LINE__);
	check_true(&c, l->cnt_reg == BPF_REG_9 && l->ctx_reg == BPF_REG_8 && !l->ctx_off,
		   "state in r9/r8", __LINE__);
	check_true(&c, count_code(l, 0, l->disp_len, BPF_JMP | BPF_EXIT) == 2,
		   "only the dispatcher's exits", __LINE__);
	j = l->body[1] + 3;
	check_true(&c, l->in[j].src_reg == BPF_PSEUDO_CALL &&
		   j + l->in[j].imm + 1 == l->start[1] && l->len[1] == 2,
		   "b's call re-aimed", __LINE__);
	check_true(&c, !memcmp(&l->in[l->start[1]], &with_sub[5], 2 * sizeof(with_sub[0])),
		   "b's subprogram copied", __LINE__);

	/* Nothing inlined: each member called, its code whole after the
	 * dispatcher. */
	check_true(&c, !xf_chain_link(l, m, 2, &lo, f, 3, 4, -1), "link called", __LINE__);
	check_true(&c, !l->inl[0] && !l->inl[1] && shape_ok(l) && l->ncall == 2, "called shape",
		   __LINE__);
	check_true(&c, !memcmp(&l->in[l->start[1]], with_sub, sizeof(with_sub)), "b whole",
		   __LINE__);

	/* A member that writes r6-r9: ctx to a stack slot below its stack,
	 * counters looked up at each step. */
	{
		static const struct bpf_insn hog[] = {
			MOV_K(6, 0), MOV_K(7, 0), MOV_K(8, 0), MOV_K(9, 0),
			INSN(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -20, 0),
			MOV_K(0, 2), EXIT,
		};

		member(&m[1], "hog", 1, hog, 7);
		xf_chain_scan(&m[1], &f[1], msg, sizeof(msg));
		check_true(&c, f[1].stack == 20, "hog: 20 bytes", __LINE__);
		check_true(&c, !xf_chain_link(l, m, 2, &lo, f, 3, 4, 512), "link hog", __LINE__);
		check_true(&c, !l->ctx_reg && !l->cnt_reg && l->ctx_off == -32 && shape_ok(l),
			   "ctx at fp-32", __LINE__);
	}

	/* on drop goto skipping a member, and a cycle-free backward goto. */
	member(&m[0], "a", 0, two_exits, 5);
	member(&m[1], "b", 1, two_exits, 5);
	member(&m[2], "c", 2, two_exits, 5);
	for (j = 0; j < 3; j++)
		xf_chain_scan(&m[j], &f[j], msg, sizeof(msg));
	m[0].on[XF_V_DROP].action = XF_ACT_GOTO;
	m[0].on[XF_V_DROP].target = 2;
	m[2].on[XF_V_PASS].action = XF_ACT_GOTO;
	m[2].on[XF_V_PASS].target = 1;
	m[0].on[XF_V_PASS].action = XF_ACT_GOTO;
	m[0].on[XF_V_PASS].target = 2;
	m[1].on[XF_V_PASS].action = XF_ACT_STOP;
	xf_chain_layout(m, 3, &lo);
	check_true(&c, lo.n == 3 && lo.order[1] == 2 && lo.order[2] == 1, "layout a c b",
		   __LINE__);
	check_true(&c, !xf_chain_link(l, m, 3, &lo, f, -1, -1, 512) && shape_ok(l),
		   "gotos link forward", __LINE__);

	/* The timed build (chain profile): two clock reads per step, its
	 * slots below the deepest inlined stack (b's 64 bytes); and the
	 * normal build afterwards exactly what it was before, and what it has
	 * been since before the timed build existed (FNV-1a of its code). */
	{
		struct bpf_insn *normal;
		uint64_t h = 0xcbf29ce484222325ULL;
		const unsigned char *p;
		int n0;
		size_t b, e;

		member(&m[0], "a", 0, two_exits, 5);
		member(&m[1], "b", 1, with_sub, 7);
		xf_chain_scan(&m[0], &f[0], msg, sizeof(msg));
		xf_chain_scan(&m[1], &f[1], msg, sizeof(msg));
		xf_chain_layout(m, 2, &lo);
		check_true(&c, !xf_chain_link(l, m, 2, &lo, f, 3, 4, 512), "link normal", __LINE__);
		n0 = l->n;
		normal = malloc(n0 * sizeof(*normal));
		memcpy(normal, l->in, n0 * sizeof(*normal));
		for (p = (const unsigned char *)normal, b = 0; b < n0 * sizeof(*normal); b++)
			h = (h ^ p[b]) * 0x100000001b3ULL;
		check_true(&c, n0 == NORMAL_LEN && h == NORMAL_FNV, "normal build as before",
			   __LINE__);
		if (n0 != NORMAL_LEN || h != NORMAL_FNV)
			fprintf(stderr, "normal build: %d insns, fnv %#llx\n", n0,
				(unsigned long long)h);
		for (b = 0, j = 0; j < n0; j++)
			b += normal[j].code == (BPF_JMP | BPF_CALL) && !normal[j].src_reg &&
			     normal[j].imm == BPF_FUNC_ktime_get_ns;
		check_true(&c, !b, "no clock read in the normal build", __LINE__);
		l->timed = true;
		l->timed_fd = 5;
		check_true(&c, !xf_chain_link(l, m, 2, &lo, f, 3, 4, 512) && shape_ok(l),
			   "link timed", __LINE__);
		/* 21 insns a step; 2 at the entry; the epilogue 59: the
		 * verdict kept, the whole span closed (17), the calibration
		 * (40), the verdict back. */
		check_true(&c, l->n == n0 + 2 * 21 + 2 + 59, "21 more insns per step, 61 around",
			   __LINE__);
		check_true(&c, l->timed_off == -80, "timing slots at fp-80, fp-88", __LINE__);
		for (b = 0, e = 0, j = 0; j < l->disp_len; j++) {
			b += l->in[j].code == (BPF_JMP | BPF_CALL) && !l->in[j].src_reg &&
			     l->in[j].imm == BPF_FUNC_ktime_get_ns;
			e += l->in[j].code == (BPF_JMP | BPF_EXIT);
		}
		check_true(&c, b == 2 * 2 + 6,
			   "two clock reads per step, one at entry, five in the epilogue", __LINE__);
		/* Every exit of the chain runs the epilogue: the one at its
		 * end, and the counters' fail-closed exit before any timing. */
		check_true(&c, e == 2, "one exit after the epilogue", __LINE__);
		l->timed = false;
		check_true(&c, !xf_chain_link(l, m, 2, &lo, f, 3, 4, 512) && l->n == n0 &&
			   !memcmp(l->in, normal, n0 * sizeof(*normal)),
			   "normal again, the same", __LINE__);
		free(normal);
	}

	free(l->in);
	free(l);
	return check_done(&c, "test_chain_link");
}
