// SPDX-License-Identifier: GPL-2.0
/* The kernel's own XDP error tracepoints, counted: see xdptrace.h. The
 * programs are bpf/xdptrace.bpf.c's, two raw tracepoint programs counting
 * into one hash map keyed by device, tracepoint and code; here they are
 * loaded for this namespace and attached, after the kernel's prototypes
 * of the tracepoints were checked to have the arguments they read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kbtf.h"
#include "stats/xdptrace.h"
#include "xdptrace.skel.h"

struct xf_xdptrace {
	struct xdptrace_bpf *skel;
};

static const struct {
	const char *name;	/* tracepoint */
	const char *proto;	/* its BTF prototype */
	int nargs;		/* its arguments, ctx not counted */
} trace_tps[] = {
	[XF_XDPTRACE_REDIRECT_ERR] = { "xdp_redirect_err", "btf_trace_xdp_redirect_err", 7 },
	[XF_XDPTRACE_EXCEPTION] = { "xdp_exception", "btf_trace_xdp_exception", 3 },
};

/* The tracepoint's prototype has the arguments the programs read. */
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

void xf_xdptrace_close(struct xf_xdptrace *t)
{
	if (!t)
		return;
	xdptrace_bpf__destroy(t->skel);
	free(t);
}

int xf_xdptrace_open(struct xf_xdptrace **out, char *why, size_t len)
{
	const struct btf *btf = xf_kernel_btf();
	struct xf_xdptrace *t;
	char buf[112];
	struct stat st;
	int i, err;

	if (!why) {
		why = buf;
		len = sizeof(buf);
	}
	*why = '\0';
	*out = NULL;
	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return -errno ?: -ENOENT;
	}
	for (i = 0; i < 2; i++) {
		if (!btf_proto_ok(btf, trace_tps[i].proto, trace_tps[i].nargs)) {
			snprintf(why, len, "xdp:%s has arguments xfwd does not know",
				 trace_tps[i].name);
			return -ENOENT;
		}
	}
	if (stat("/proc/self/ns/net", &st)) {
		snprintf(why, len, "cannot read this network namespace");
		return -errno;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->skel = xdptrace_bpf__open();
	if (!t->skel) {
		err = -errno;
		snprintf(why, len, "cannot open its programs");
		goto fail;
	}
	t->skel->rodata->xf_netns_inum = (uint32_t)st.st_ino;
	err = xdptrace_bpf__load(t->skel);
	if (err) {
		snprintf(why, len, "tracing programs refused");
		goto fail;
	}
	err = xdptrace_bpf__attach(t->skel);
	if (err) {
		snprintf(why, len, "cannot attach to xdp:xdp_redirect_err and xdp:xdp_exception");
		goto fail;
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
	struct xf_xdptrace_key key, next;
	int fd = bpf_map__fd(t->skel->maps.xf_xdptrace), err;
	void *prev = NULL;
	uint64_t v;

	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		err = cb(key.ifindex, key.tp, key.code, v, arg);
		if (err)
			return err;
	}
	return err == -ENOENT ? 0 : err;
}
