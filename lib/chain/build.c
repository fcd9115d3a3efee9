// SPDX-License-Identifier: GPL-2.0
/* chain: load a chain as one XDP program; say which member the verifier refused.
 *
 * chain_graph.c checks the graph and lays out the steps, chain_link.c
 * writes the program; this file gives it BTF of its own, loads it (with
 * inlined members first, with called members if the verifier refuses
 * that) and turns a verifier log into one line naming a member.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "chain/build.h"
#include "chain/link.h"
#include "kbtf.h"
#include "xbpf.h"

void xf_chain_member_from_prog(struct xf_chain_member *m, const char *name,
			       const struct bpf_program *prog)
{
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->insns = bpf_program__insns(prog);
	m->n_insns = bpf_program__insn_cnt(prog);
	/* libbpf adds BPF_F_XDP_HAS_FRAGS for "xdp.frags" sections at load
	 * time without recording it in the program's flags. */
	m->frags = (bpf_program__flags(prog) & BPF_F_XDP_HAS_FRAGS) ||
		   !strncmp(bpf_program__section_name(prog), "xdp.frags", 9);
}

/* Whether a function of the object's BTF ob is, by its name, FUNC id of
 * the kernel BTF b. */
static bool kfunc_in(const struct btf *ob, const struct btf *b, uint32_t id)
{
	const struct btf_type *t;
	uint32_t i, nt = btf__type_cnt(ob);

	for (i = 1; i < nt; i++) {
		t = btf__type_by_id(ob, i);
		if (btf_is_func(t) &&
		    btf__find_by_name_kind(b, btf__name_by_offset(ob, t->name_off),
					   BTF_KIND_FUNC) == (int)id)
			return true;
	}
	return false;
}

/* The fd of the kernel module BTF whose FUNC id is one of the object's
 * functions (libbpf resolved the extern by name), or -ENOENT. */
static int kfunc_module_btf(const struct btf *vml, const struct btf *ob, uint32_t id)
{
	char mod[64];
	struct bpf_btf_info info;
	uint32_t bid = 0, ilen;
	struct btf *b;
	int fd;
	bool hit;

	while (!bpf_btf_get_next_id(bid, &bid)) {
		fd = bpf_btf_get_fd_by_id(bid);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (uintptr_t)mod;
		info.name_len = sizeof(mod);
		ilen = sizeof(info);
		if (bpf_btf_get_info_by_fd(fd, &info, &ilen) || !info.kernel_btf ||
		    !strcmp(mod, "vmlinux")) {
			close(fd);
			continue;
		}
		b = btf__load_from_kernel_by_id_split(bid, (struct btf *)vml);
		hit = b && kfunc_in(ob, b, id);
		btf__free(b);
		if (hit)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

int xf_chain_member_kfuncs(struct xf_chain_member *m, const struct bpf_object *obj,
			   char *msg, size_t len)
{
	const struct btf *ob = bpf_object__btf(obj);
	const struct bpf_insn *x;
	const struct btf *vml = NULL;
	size_t j;
	int fd;

	for (j = 0; j < m->n_insns; j++) {
		x = &m->insns[j];
		if (!(x->code == (BPF_JMP | BPF_CALL) && x->src_reg == BPF_PSEUDO_KFUNC_CALL &&
		      x->off > 0 && x->off < XF_CHAIN_KFUNC_MAX) || m->kfunc_fd[x->off] > 0)
			continue;
		if (!vml && !(vml = xf_kernel_btf())) {
			snprintf(msg, len, "member %s: cannot read the kernel's BTF", m->name);
			return -errno;
		}
		/* The call names the module's type id; the object's
		 * functions give the candidate names. */
		fd = ob ? kfunc_module_btf(vml, ob, x->imm) : -ENOENT;
		if (fd < 0) {
			snprintf(msg, len, "member %s: the kernel module of its kfunc call "
				 "(insn %zu) is not found", m->name, j);
			return fd;
		}
		m->kfunc_fd[x->off] = fd;
	}
	return 0;
}

void xf_chain_member_kfuncs_close(struct xf_chain_member *m)
{
	int i;

	for (i = 0; i < XF_CHAIN_KFUNC_MAX; i++) {
		if (m->kfunc_fd[i] > 0)
			close(m->kfunc_fd[i]);
		m->kfunc_fd[i] = 0;
	}
}

/* A BTF name for subprogram sub of a member: a C identifier made of the
 * member's name, with "_<sub>" for the member's own subprograms. */
static void func_name(char *out, size_t len, const char *name, int sub)
{
	size_t i, o = 0;

	if (!isalpha((unsigned char)name[0]))
		out[o++] = '_';
	for (i = 0; name[i] && o + 1 < len; i++)
		out[o++] = isalnum((unsigned char)name[i]) ? name[i] : '_';
	out[o] = '\0';
	if (sub)
		snprintf(out + o, len - o, "_%d", sub);
}

/* The member whose code holds instruction j, and j's index in that
 * member's own instructions; -1 for the dispatcher's code. */
static int owner(const struct chain_prog *l, const struct xf_chain_member *m,
		 const struct xf_chain_layout *lo, long j, long *rel)
{
	int pos, k;
	long main_len;

	for (pos = 0; pos < lo->n; pos++) {
		k = lo->order[pos];
		main_len = m[k].n_insns - l->len[k];
		if (l->inl[k] && j >= l->body[k] && j < l->body[k] + main_len) {
			*rel = j - l->body[k];
			return k;
		}
		if (j >= l->start[k] && j < l->start[k] + l->len[k]) {
			*rel = j - l->start[k] + main_len;
			return k;
		}
	}
	return -1;
}

/*
 * Program BTF of our own, since members' BTF cannot simply be merged: one
 * static "int f(void)" per subprogram. The verifier accepts a tail call
 * (and bpf_loop/timer callbacks) in a subprogram only when func_info says
 * the subprogram returns int; the names also show in bpftool and in the
 * kernel's symbols, so perf attributes a called member's time to it.
 * Subprograms are where the verifier finds them: the targets of
 * BPF_PSEUDO_CALL and BPF_PSEUDO_FUNC.
 */
static int make_btf(struct chain_prog *l, const struct xf_chain_member *m,
		    const struct xf_chain_layout *lo)
{
	int j, k, int_id, proto, id, nsub[XF_CHAIN_MAX] = { 0 }, err = -ENOMEM;
	const struct bpf_insn *x;
	uint8_t *sub;
	char name[40];
	long rel;

	sub = calloc(l->n, 1);
	l->fi = calloc(l->n, sizeof(*l->fi));
	l->btf = btf__new_empty();
	l->nfi = 0;
	if (!sub || !l->fi || !l->btf)
		goto out;
	sub[0] = 1;
	for (j = 0; j < l->n; j++) {
		x = &l->in[j];
		if (((x->code == (BPF_JMP | BPF_CALL) && x->src_reg == BPF_PSEUDO_CALL) ||
		     (x->code == (BPF_LD | BPF_IMM | BPF_DW) && x->src_reg == BPF_PSEUDO_FUNC)) &&
		    j + x->imm + 1 > 0 && j + x->imm + 1 < l->n)
			sub[j + x->imm + 1] = 1;
		if (x->code == (BPF_LD | BPF_IMM | BPF_DW))
			j++;
	}
	int_id = btf__add_int(l->btf, "int", 4, BTF_INT_SIGNED);
	proto = int_id < 0 ? int_id : btf__add_func_proto(l->btf, int_id);
	if (proto < 0) {
		err = proto;
		goto out;
	}
	for (j = 0; j < l->n; j++) {
		if (!sub[j])
			continue;
		k = owner(l, m, lo, j, &rel);
		if (k < 0)
			snprintf(name, sizeof(name), "xf_chain");
		else
			func_name(name, sizeof(name), m[k].name, rel ? ++nsub[k] : 0);
		id = btf__add_func(l->btf, name, BTF_FUNC_STATIC, proto);
		if (id < 0) {
			err = id;
			goto out;
		}
		l->fi[l->nfi].insn_off = j;
		l->fi[l->nfi++].type_id = id;
	}
	err = btf__load_into_kernel(l->btf);
out:
	free(sub);
	if (err) {
		btf__free(l->btf);
		l->btf = NULL;
	}
	return err;
}

static int prog_load(const struct chain_prog *l, bool frags, char *log, size_t log_size)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_XDP,
		    .prog_flags = frags ? BPF_F_XDP_HAS_FRAGS : 0,
		    .log_level = log ? 1 : 0,
		    .log_buf = log,
		    .log_size = log ? log_size : 0);

	if (l->has_fd_array)
		o.fd_array = l->fd_array;
	if (l->btf) {
		o.prog_btf_fd = btf__fd(l->btf);
		o.func_info = l->fi;
		o.func_info_cnt = l->nfi;
		o.func_info_rec_size = sizeof(*l->fi);
	}
	/* The dispatcher is ours and may be "Dual BSD/GPL"; members that
	 * call GPL-only helpers were verified under their own licence. */
	return bpf_prog_load(BPF_PROG_TYPE_XDP, "xf_chain", "Dual BSD/GPL", l->in, l->n, &o);
}

/* The instruction the verifier stopped at: the last "N: (..) ..." line of
 * its trace, else an "insn N" in the message (control-flow checks run
 * before the trace starts). -1 if neither. */
static long failed_insn(const char *log, const char *summary)
{
	const char *p = log, *q;
	long idx = -1, v;
	char *end;

	for (; *p; p = *q ? q + 1 : q) {
		q = strchrnul(p, '\n');
		v = strtol(p, &end, 10);
		if (end != p && *p >= '0' && *p <= '9' && end[0] == ':' && end[1] == ' ')
			idx = v;
	}
	if (idx < 0 && (p = strstr(summary, "insn ")))
		idx = strtol(p + 5, NULL, 10);
	return idx;
}

/* The verifier's last words: its last two meaningful lines, less a
 * register-state dump ("frame1: R1=ctx() ... R10=fp0") in front. */
static void last_words(const char *log, char *out, size_t len)
{
	char *bar;

	xf_verifier_summary(log, 2, out, len);
	bar = strstr(out, " | ");
	if (bar && memmem(out, bar - out, "R10=fp", 6))
		memmove(out, bar + 3, strlen(bar + 3) + 1);
}

/* Turn the verifier's log into one line that names the member. */
static void explain(const struct chain_prog *l, const struct xf_chain_member *m,
		    const struct xf_chain_layout *lo, int err, const char *log,
		    char *msg, size_t len)
{
	const char *hint = "";
	char sum[320];
	long idx, rel;
	int i, k;

	last_words(log, sum, sizeof(sum));
	if (!*sum) {
		snprintf(msg, len, "the kernel refused the chain: %s", strerror(-err));
		return;
	}
	/* Limits of the whole program: no one member is to blame. */
	if (strstr(sum, "program is too large") || strstr(sum, "combined stack size")) {
		snprintf(msg, len, "the chain as a whole: %s", sum);
		return;
	}
	if (strstr(sum, "frames is too deep"))
		hint = " (in a chain the dispatcher takes one of the kernel's 8 call frames)";
	idx = failed_insn(log, sum);
	k = idx >= 0 ? owner(l, m, lo, idx, &rel) : -1;
	/* Tail-call checks run on the call graph, with no instruction. */
	for (i = 0; k < 0 && strstr(sum, "tail_call") && i < lo->n; i++)
		if (l->tail[lo->order[i]]) {
			k = lo->order[i];
			snprintf(msg, len, "member %s makes tail calls: %s", m[k].name, sum);
			return;
		}
	if (k >= 0)
		snprintf(msg, len, "member %s (insn %ld): %s%s", m[k].name, rel, sum, hint);
	else if (idx >= 0 && idx < l->disp_len)
		snprintf(msg, len, "dispatcher (insn %ld): %s", idx, sum);
	else
		snprintf(msg, len, "%s", sum);
}

/* Read-only one-entry array whose zeroed value is the counters' key, so
 * the dispatcher needs no stack to hold it. */
static int key_map_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_RDONLY_PROG);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "xf_chain_key", 4, 4, 1, &o);

	return fd < 0 ? -errno : fd;
}

#define XF_CHAIN_LOG_SIZE (1 << 20)
/* Stack of the dispatcher's frame under which a called member may still
 * make tail calls (the kernel wants less than 256 bytes below them). */
#define XF_CHAIN_SMALL_FRAME 232

/* Whether two BTF fds are the same kernel BTF object. */
static bool same_btf(int a, int b)
{
	struct bpf_btf_info ia = { 0 }, ib = { 0 };
	uint32_t la = sizeof(ia), lb = sizeof(ib);

	return !bpf_btf_get_info_by_fd(a, &ia, &la) && !bpf_btf_get_info_by_fd(b, &ib, &lb) &&
	       ia.id == ib.id;
}

/* Link with or without inlining, give the result BTF and load it. Without
 * BTF (a kernel that refuses ours) the chain still loads unless a member
 * makes tail calls or has callbacks. fd, or -errno. */
static int build(struct chain_prog *l, const struct xf_chain_member *m, int n,
		 const struct xf_chain_layout *lo, const struct xf_chain_facts *f,
		 int counters_fd, int key_fd, int inline_stack, bool frags)
{
	int err, fd;

	btf__free(l->btf);
	l->btf = NULL;
	free(l->fi);
	l->fi = NULL;
	err = xf_chain_link(l, m, n, lo, f, counters_fd, key_fd, inline_stack);
	if (err)
		return err;
	make_btf(l, m, lo);
	fd = prog_load(l, frags, NULL, 0);
	return fd < 0 ? -errno : fd;
}

/* On success, msg says how each member was linked ("inlined: a b;
 * called: c"), which is what a debug run wants to know. */
static void note(const struct chain_prog *l, const struct xf_chain_member *m,
		 const struct xf_chain_layout *lo, char *msg, size_t len)
{
	size_t o = 0;
	int i, pos, k, any;

	msg[0] = '\0';
	for (i = 0; i < 2; i++) {
		for (pos = 0, any = 0; pos < lo->n; pos++) {
			k = lo->order[pos];
			if (l->inl[k] != !i)
				continue;
			if (!any++)
				o += snprintf(msg + o, o < len ? len - o : 0, "%s%s:",
					      o ? "; " : "", i ? "called" : "inlined");
			o += snprintf(msg + o, o < len ? len - o : 0, " %s", m[k].name);
		}
	}
}

int xf_chain_load(const struct xf_chain_member *m, int n, int counters_fd,
		  char *msg, size_t len)
{
	return xf_chain_load_timed(m, n, counters_fd, -1, msg, len);
}

int xf_chain_load_timed(const struct xf_chain_member *m, int n, int counters_fd,
			int timed_fd, char *msg, size_t len)
{
	struct xf_chain_facts f[XF_CHAIN_MAX];
	struct xf_chain_layout lo;
	struct chain_prog *l;
	size_t total = 0;
	bool frags = true, inl = false;
	int i, j, k, fd, key_fd = -1, deepest = 0;
	char *log;

	fd = xf_chain_check(m, n, msg, len);
	if (fd)
		return fd;
	xf_chain_layout(m, n, &lo);
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (i = 0; i < lo.n; i++) {
		k = lo.order[i];
		fd = xf_chain_scan(&m[k], &f[k], msg, len);
		if (fd)
			goto out;
		total += m[k].n_insns;
		frags &= m[k].frags;
		/* Module kfuncs: one fd_array for the chain, so an index must
		 * name the same module in every member that uses it. */
		for (j = 1; j < XF_CHAIN_KFUNC_MAX; j++) {
			if (m[k].kfunc_fd[j] <= 0)
				continue;
			if (l->fd_array[j] > 0 &&
			    !same_btf(l->fd_array[j], m[k].kfunc_fd[j])) {
				snprintf(msg, len, "member %s calls kfuncs of another kernel "
					 "module than an earlier member: not supported in a "
					 "chain", m[k].name);
				fd = -EOPNOTSUPP;
				goto out;
			}
			l->fd_array[j] = m[k].kfunc_fd[j];
			l->has_fd_array = true;
		}
		inl |= f[k].inlinable;
		if (f[k].inlinable && f[k].stack > deepest)
			deepest = f[k].stack;
	}
	/* A program array serves one kind of program: the member's own load
	 * made it xdp.frags, so a chain without frags cannot tail-call in it. */
	for (i = 0; i < lo.n && !frags; i++) {
		k = lo.order[i];
		if (f[k].tail && m[k].frags) {
			for (j = 0; m[lo.order[j]].frags; j++)
				;
			snprintf(msg, len, "member %s makes tail calls from an xdp.frags program, "
				 "but member %s is not xdp.frags: the chain cannot be either",
				 m[k].name, m[lo.order[j]].name);
			fd = -EINVAL;
			goto out;
		}
	}
	l->timed = timed_fd >= 0;
	l->timed_fd = timed_fd;
	if (counters_fd >= 0 || l->timed) {
		key_fd = key_map_create();
		if (key_fd < 0) {
			snprintf(msg, len, "cannot create the counters' key map: %s",
				 strerror(-key_fd));
			fd = key_fd;
			goto out;
		}
	}
	l->cap = 32 + (40 + (l->timed ? XF_CHAIN_TIMED_INSNS : 0)) * lo.n + total +
		 (l->timed ? 3 * XF_CHAIN_TIMED_INSNS : 0);
	l->in = calloc(l->cap, sizeof(*l->in));
	if (!l->in) {
		fd = -ENOMEM;
		goto out;
	}
	/*
	 * Inlined first. If the verifier refuses that, inline only members
	 * with small frames (a member that tail-calls may have at most 256
	 * bytes of stack below it; a member's own calls add to the shared
	 * frame), then none: each member in its own frame, the form whose
	 * errors are reported. A stack guess gone wrong ends up there too.
	 */
	fd = -EINVAL;
	for (i = 0; i < 3 && fd < 0; i++) {
		if (i < 2 && !inl)
			continue;
		if (i == 1 && deepest <= XF_CHAIN_SMALL_FRAME)
			continue;
		fd = build(l, m, n, &lo, f, counters_fd, key_fd,
			   i == 0 ? INT32_MAX : i == 1 ? XF_CHAIN_SMALL_FRAME : -1, frags);
	}
	if (fd >= 0)
		note(l, m, &lo, msg, len);
	if (fd < 0) {
		log = calloc(1, XF_CHAIN_LOG_SIZE);
		if (log) {
			/* Again, with the verifier's trace: only failures pay for it. */
			k = prog_load(l, frags, log, XF_CHAIN_LOG_SIZE);
			if (k >= 0)
				close(k);
			explain(l, m, &lo, fd, log, msg, len);
			free(log);
		} else {
			snprintf(msg, len, "the kernel refused the chain: %s", strerror(-fd));
		}
	}
out:
	if (key_fd >= 0)
		close(key_fd);
	btf__free(l->btf);
	free(l->fi);
	free(l->in);
	free(l);
	return fd;
}

int xf_chain_timed_create(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "xf_chain_prof", 4,
				XF_CHAIN_TIMED_SLOTS * 2 * sizeof(uint64_t), 1, NULL);

	return fd < 0 ? -errno : fd;
}

int xf_chain_timed_read(int fd, uint64_t t[XF_CHAIN_TIMED_SLOTS][2])
{
	uint32_t key = 0;

	return xf_percpu_read(fd, &key, &t[0][0], NULL, XF_CHAIN_TIMED_SLOTS * 2);
}

int xf_chain_counters_create(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "xf_chain_cnt", 4,
				XF_CHAIN_CNT_N * sizeof(uint64_t), 1, NULL);

	return fd < 0 ? -errno : fd;
}

int xf_chain_counters_read_percpu(int fd, uint64_t cnt[XF_CHAIN_MAX][XF_CHAIN_NV],
				  uint64_t *percpu)
{
	uint32_t key = 0;

	return xf_percpu_read(fd, &key, &cnt[0][0], percpu, XF_CHAIN_CNT_N);
}

int xf_chain_counters_read(int fd, uint64_t cnt[XF_CHAIN_MAX][XF_CHAIN_NV])
{
	return xf_chain_counters_read_percpu(fd, cnt, NULL);
}
