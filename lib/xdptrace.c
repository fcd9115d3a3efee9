// SPDX-License-Identifier: GPL-2.0
/* The kernel's own XDP error tracepoints, counted: see xdptrace.h.
 *
 * Two raw tracepoint programs, built here instruction by instruction (no
 * BPF object file), count into one hash map keyed by device, tracepoint
 * and code. The device's ifindex and network namespace are read with
 * bpf_probe_read_kernel() at offsets taken from the kernel's BTF; the
 * arguments' positions are those of the tracepoints' prototypes:
 *   xdp_redirect_err(dev, xdp, tgt, err, map_type, map_id, index)
 *   xdp_exception(dev, xdp, act)
 * which the BTF's btf_trace_* prototypes are checked against. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

#include "kbtf.h"
#include "xdptrace.h"

struct xf_xdptrace {
	int map_fd;
	int prog_fd[2];
	int link_fd[2];
};

struct trace_key {
	uint32_t ifindex;
	uint32_t tp;
	int32_t code;
	uint32_t pad;
};

/* The offsets the programs read at. */
struct trace_offs {
	uint32_t ifindex;	/* net_device.ifindex */
	uint32_t nd_net;	/* net_device.nd_net (a struct net *) */
	uint32_t inum;		/* net.ns.inum */
};

static const struct {
	const char *name;	/* tracepoint */
	const char *proto;	/* its BTF prototype */
	int nargs;		/* its arguments, ctx not counted */
	int code_arg;		/* the argument counted as code */
} trace_tps[] = {
	[XF_XDPTRACE_REDIRECT_ERR] = { "xdp_redirect_err", "btf_trace_xdp_redirect_err", 7, 3 },
	[XF_XDPTRACE_EXCEPTION] = { "xdp_exception", "btf_trace_xdp_exception", 3, 2 },
};

/* The byte offset of member name of struct type id, looked for in its
 * anonymous members too. -ENOENT if it has none. */
static int btf_member_off(const struct btf *btf, uint32_t id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i, off;

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		uint32_t bit = btf_member_bit_offset(t, i);

		if (n && *n) {
			if (!strcmp(n, name))
				return bit / 8;
			continue;
		}
		off = btf_member_off(btf, m->type, name);
		if (off >= 0)
			return bit / 8 + off;
	}
	return -ENOENT;
}

static int btf_struct_off(const struct btf *btf, const char *st, const char *name)
{
	int id = btf__find_by_name_kind(btf, st, BTF_KIND_STRUCT);

	return id < 0 ? -ENOENT : btf_member_off(btf, id, name);
}

/* The tracepoint's prototype has the arguments assumed above. */
static bool btf_proto_ok(const struct btf *btf, const char *name, int nargs)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	while (t && !btf_is_func_proto(t))
		t = btf__type_by_id(btf, t->type);
	return t && btf_vlen(t) == nargs + 1;	/* + the leading ctx */
}

static int trace_offsets(struct trace_offs *o, char *why, size_t len)
{
	const struct btf *btf = xf_kernel_btf();
	int ifx, ndnet, ns, inum, i, err = 0;

	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return -errno ?: -ENOENT;
	}
	ifx = btf_struct_off(btf, "net_device", "ifindex");
	ndnet = btf_struct_off(btf, "net_device", "nd_net");
	ns = btf_struct_off(btf, "net", "ns");
	inum = btf_struct_off(btf, "ns_common", "inum");
	if (ifx < 0 || ndnet < 0 || ns < 0 || inum < 0) {
		snprintf(why, len, "kernel BTF lacks net_device.ifindex, .nd_net or net.ns.inum");
		err = -ENOENT;
	}
	for (i = 0; !err && i < 2; i++) {
		if (!btf_proto_ok(btf, trace_tps[i].proto, trace_tps[i].nargs)) {
			snprintf(why, len, "xdp:%s has arguments xfwd does not know",
				 trace_tps[i].name);
			err = -ENOENT;
		}
	}
	o->ifindex = ifx;
	o->nd_net = ndnet;
	o->inum = ns + inum;
	return err;
}

#define I(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
					     .off = (o), .imm = (i) })
#define MOV_REG(d, s) I(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i) I(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i) I(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX(sz, d, s, o) I(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) I(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i) I(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define CALL(f) I(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT() I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The program of tracepoint tp: count (ifindex, tp, code) of the
 * devices in the namespace inum. Stack: key at -24, scratch at -8, the
 * value 1 at -32. Returns the instruction count written to insn. */
static int trace_prog(struct bpf_insn *insn, int tp, int map_fd, const struct trace_offs *o,
		      uint32_t inum)
{
	int n = 0, j_out1, j_out2, j_insert, j_out3;

#define E(x) (insn[n++] = (x))
	E(MOV_REG(BPF_REG_6, BPF_REG_1));
	E(LDX(BPF_DW, BPF_REG_7, BPF_REG_6, 0));		/* r7 = dev */
	/* the namespace: *(u32 *)(*(u64 *)(dev + nd_net) + inum) */
	E(ST(BPF_DW, BPF_REG_10, -8, 0));
	E(MOV_REG(BPF_REG_1, BPF_REG_10));
	E(ADD_IMM(BPF_REG_1, -8));
	E(MOV_IMM(BPF_REG_2, 8));
	E(MOV_REG(BPF_REG_3, BPF_REG_7));
	E(ADD_IMM(BPF_REG_3, o->nd_net));
	E(CALL(BPF_FUNC_probe_read_kernel));
	E(LDX(BPF_DW, BPF_REG_3, BPF_REG_10, -8));
	j_out1 = n;
	E(I(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_3, 0, 0, 0));	/* no net: out */
	E(ADD_IMM(BPF_REG_3, o->inum));
	E(ST(BPF_DW, BPF_REG_10, -8, 0));
	E(MOV_REG(BPF_REG_1, BPF_REG_10));
	E(ADD_IMM(BPF_REG_1, -8));
	E(MOV_IMM(BPF_REG_2, 4));
	E(CALL(BPF_FUNC_probe_read_kernel));
	E(LDX(BPF_W, BPF_REG_1, BPF_REG_10, -8));
	j_out2 = n;
	/* 32 bits wide: an inum above INT32_MAX would be sign-extended. */
	E(I(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_1, 0, 0, (int32_t)inum));
	/* the key */
	E(ST(BPF_DW, BPF_REG_10, -24, 0));
	E(ST(BPF_DW, BPF_REG_10, -16, 0));
	E(MOV_REG(BPF_REG_1, BPF_REG_10));
	E(ADD_IMM(BPF_REG_1, -24));
	E(MOV_IMM(BPF_REG_2, 4));
	E(MOV_REG(BPF_REG_3, BPF_REG_7));
	E(ADD_IMM(BPF_REG_3, o->ifindex));
	E(CALL(BPF_FUNC_probe_read_kernel));
	E(ST(BPF_W, BPF_REG_10, -20, tp));
	E(LDX(BPF_DW, BPF_REG_1, BPF_REG_6, trace_tps[tp].code_arg * 8));
	E(STX(BPF_W, BPF_REG_10, BPF_REG_1, -16));
	/* count: an atomic add where the key is, else insert 1 */
	E(I(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd));
	E(I(0, 0, 0, 0, 0));
	E(MOV_REG(BPF_REG_2, BPF_REG_10));
	E(ADD_IMM(BPF_REG_2, -24));
	E(CALL(BPF_FUNC_map_lookup_elem));
	j_insert = n;
	E(I(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0));
	E(MOV_IMM(BPF_REG_1, 1));
	E(I(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD));
	j_out3 = n;
	E(I(BPF_JMP | BPF_JA, 0, 0, 0, 0));
	insn[j_insert].off = n - j_insert - 1;
	/* Two CPUs may insert the same key at once: one count can be lost. */
	E(ST(BPF_DW, BPF_REG_10, -32, 1));
	E(I(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd));
	E(I(0, 0, 0, 0, 0));
	E(MOV_REG(BPF_REG_2, BPF_REG_10));
	E(ADD_IMM(BPF_REG_2, -24));
	E(MOV_REG(BPF_REG_3, BPF_REG_10));
	E(ADD_IMM(BPF_REG_3, -32));
	E(MOV_IMM(BPF_REG_4, BPF_NOEXIST));
	E(CALL(BPF_FUNC_map_update_elem));
	insn[j_out1].off = n - j_out1 - 1;
	insn[j_out2].off = n - j_out2 - 1;
	insn[j_out3].off = n - j_out3 - 1;
	E(MOV_IMM(BPF_REG_0, 0));
	E(EXIT());
#undef E
	return n;
}

void xf_xdptrace_close(struct xf_xdptrace *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < 2; i++) {
		if (t->link_fd[i] >= 0)
			close(t->link_fd[i]);
		if (t->prog_fd[i] >= 0)
			close(t->prog_fd[i]);
	}
	if (t->map_fd >= 0)
		close(t->map_fd);
	free(t);
}

int xf_xdptrace_open(struct xf_xdptrace **out, char *why, size_t len)
{
	struct bpf_insn insn[64];
	struct xf_xdptrace *t;
	struct trace_offs o;
	char buf[112];
	struct stat st;
	int i, n, err;

	if (!why) {
		why = buf;
		len = sizeof(buf);
	}
	*why = '\0';
	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->map_fd = t->prog_fd[0] = t->prog_fd[1] = t->link_fd[0] = t->link_fd[1] = -1;
	if (stat("/proc/self/ns/net", &st)) {
		err = -errno;
		snprintf(why, len, "cannot read this network namespace");
		goto fail;
	}
	err = trace_offsets(&o, why, len);
	if (err)
		goto fail;
	t->map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "xf_xdptrace", sizeof(struct trace_key),
				   sizeof(uint64_t), 1024, NULL);
	if (t->map_fd < 0) {
		err = t->map_fd;
		snprintf(why, len, "cannot create a map");
		goto fail;
	}
	for (i = 0; i < 2; i++) {
		n = trace_prog(insn, i, t->map_fd, &o, (uint32_t)st.st_ino);
		t->prog_fd[i] = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "xf_xdptrace", "GPL",
					      insn, n, NULL);
		if (t->prog_fd[i] < 0) {
			err = t->prog_fd[i];
			snprintf(why, len, "tracing programs refused");
			goto fail;
		}
		t->link_fd[i] = bpf_raw_tracepoint_open(trace_tps[i].name, t->prog_fd[i]);
		if (t->link_fd[i] < 0) {
			err = t->link_fd[i];
			snprintf(why, len, "cannot attach to xdp:%s", trace_tps[i].name);
			goto fail;
		}
	}
	*out = t;
	return 0;
fail:
	xf_xdptrace_close(t);
	return err;
}

int xf_xdptrace_walk(struct xf_xdptrace *t,
		     int (*cb)(int ifindex, int tp, int code, uint64_t count, void *arg),
		     void *arg)
{
	struct trace_key key, next;
	void *prev = NULL;
	uint64_t v;
	int err;

	while (!(err = bpf_map_get_next_key(t->map_fd, prev, &next))) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(t->map_fd, &key, &v))
			continue;
		err = cb(key.ifindex, key.tp, key.code, v, arg);
		if (err)
			return err;
	}
	return err == -ENOENT ? 0 : err;
}
