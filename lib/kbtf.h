/* SPDX-License-Identifier: GPL-2.0 */
/* The running kernel's BTF, read once per process. */
#ifndef XF_KBTF_H
#define XF_KBTF_H

#include <stdbool.h>

struct btf;

/* Whether the kernel has a function (a kfunc, say) named name in its BTF:
 * vmlinux's, else module's (/sys/kernel/btf/MODULE) when module is not
 * NULL. vmlinux's BTF (5 MB, tens of ms to parse) is parsed at the first
 * call and kept until the process exits: a command that loads route's
 * programs asks more than once. */
bool xf_kernel_has_func(const char *name, const char *module);
/* vmlinux's BTF, the same kept copy; NULL (errno set) without one. Not
 * to be freed. */
const struct btf *xf_kernel_btf(void);

#endif
