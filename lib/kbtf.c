// SPDX-License-Identifier: GPL-2.0
/* The running kernel's BTF, read once per process. */
#include <errno.h>
#include <stdio.h>

#include <bpf/btf.h>

#include "kbtf.h"

/* Parsed at the first question, never freed: it describes the running
 * kernel, which does not change under a command. NULL and tried: no BTF. */
static struct {
	struct btf *vmlinux;
	int err;		/* errno of the failed parse */
	bool tried;
} kbtf;

static struct btf *kbtf_vmlinux(void)
{
	if (!kbtf.tried) {
		kbtf.vmlinux = btf__load_vmlinux_btf();
		kbtf.err = kbtf.vmlinux ? 0 : errno;
		kbtf.tried = true;
	}
	errno = kbtf.err;
	return kbtf.vmlinux;
}

const struct btf *xf_kernel_btf(void)
{
	return kbtf_vmlinux();
}

bool xf_kernel_has_func(const char *name, const char *module)
{
	struct btf *vml = kbtf_vmlinux(), *mod;
	char path[128];
	bool yes;

	if (!vml)
		return false;
	yes = btf__find_by_name_kind(vml, name, BTF_KIND_FUNC) > 0;
	if (yes || !module)
		return yes;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	mod = btf__parse_split(path, vml);
	if (!mod)
		return false;
	yes = btf__find_by_name_kind(mod, name, BTF_KIND_FUNC) > 0;
	btf__free(mod);
	return yes;
}
