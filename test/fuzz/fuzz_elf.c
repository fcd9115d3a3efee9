// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: a hostile ELF object on its way into "chain add".
 *
 * What xf_chain_add() and the chain's build do with a member object before
 * anything is loaded, on the fuzzer's bytes: xf_elf_check_mem() (the file
 * variant there) checks it, libbpf opens it (from memory here, from the
 * file there), pick_prog() chooses the XDP program (by name when there
 * are several, as "prog NAME" would), run_config() reads
 * libxdp's run configuration from its BTF, and the program's instructions
 * go through the linker's own checks (xf_chain_scan) and, when they pass,
 * into a chain of two (inlined and called) written by xf_chain_link(). No
 * map is created and nothing is verified: that is the kernel's part, which
 * test/fuzz/elf.bats drives with mutated objects.
 *
 * lib/chain/add.c is compiled in for its static functions; its object is
 * left out of the link.
 */
#include "../../lib/chain/add.c"

#include <stdint.h>

#include "chain/link.h"
#include "elf_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	libbpf_set_print(quiet);
	return 0;
}

/* Scan and link a chain of the program twice: inlined (if it may be) and
 * called, with counters (the fds are only written into instructions). */
static void link_chain(const struct bpf_program *prog, const char *name)
{
	struct xf_chain_member m[2];
	struct xf_chain_facts f[2];
	struct xf_chain_layout lo;
	struct chain_prog *l;
	char msg[512];
	int i;

	memset(m, 0, sizeof(m));
	for (i = 0; i < 2; i++) {
		xf_chain_member_from_prog(&m[i], name, prog);
		m[i].name[0] = 'a' + i;
		m[i].slot = i;
		m[i].call = i;
	}
	m[0].on[XF_V_DROP].action = XF_ACT_NEXT;
	if (xf_chain_check(m, 2, msg, sizeof(msg)))
		abort();	/* the graph is ours and valid */
	xf_chain_layout(m, 2, &lo);
	for (i = 0; i < 2; i++)
		if (xf_chain_scan(&m[i], &f[i], msg, sizeof(msg)))
			return;
	l = calloc(1, sizeof(*l));
	if (!l)
		return;
	l->cap = 32 + 40 * lo.n + 2 * m[0].n_insns;
	l->in = calloc(l->cap, sizeof(*l->in));
	if (l->in) {
		xf_chain_link(l, m, 2, &lo, f, 1000, 1001, INT32_MAX);
		if (l->n > l->cap)
			abort();
	}
	free(l->in);
	free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "fuzz");
	struct xf_chain_add a = { .obj = "fuzz.o" };
	struct xf_chain_desc_member dm = { 0 };
	FILE *real_stderr = stderr, *null;
	struct bpf_object *obj;
	struct bpf_program *p;
	const char *pname;
	char msg[128];

	/* As xf_chain_add() does before libbpf sees the object. */
	if (xf_elf_check_mem(data, size, msg, sizeof(msg)))
		return 0;
	obj = bpf_object__open_mem(data, size, &oo);
	if (!obj) {
		/* As xf_chain_add() reports it. */
		chain_err_str(-errno, msg, sizeof(msg));
		return 0;
	}
	null = fopen("/dev/null", "w");
	if (!null)
		abort();
	stderr = null;
	if (pick_prog(obj, &a, &pname)) {
		/* Several: "prog NAME" picks the first of them. */
		bpf_object__for_each_program(p, obj) {
			if (bpf_program__type(p) == BPF_PROG_TYPE_XDP) {
				a.prog = bpf_program__name(p);
				break;
			}
		}
		if (!a.prog || pick_prog(obj, &a, &pname))
			goto out;
	}
	snprintf(dm.prog, sizeof(dm.prog), "%s", pname);
	run_config(obj, pname, &dm);
	p = bpf_object__find_program_by_name(obj, pname);
	if (!p)
		abort();
	link_chain(p, pname);
out:
	stderr = real_stderr;
	fclose(null);
	bpf_object__close(obj);
	return 0;
}
