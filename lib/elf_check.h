/* SPDX-License-Identifier: GPL-2.0 */
/* Checks of a BPF object's ELF that libbpf does not make before trusting it. */
#ifndef XF_ELF_CHECK_H
#define XF_ELF_CHECK_H

#include <stddef.h>

/* 0 when the object at path (or in buf) passes, or when it is no ELF at
 * all (libbpf's own open reports that); -LIBBPF_ERRNO__FORMAT with one
 * line in msg (no "Error: ", no newline) when it would mislead libbpf. */
int xf_elf_check_file(const char *path, char *msg, size_t len);
int xf_elf_check_mem(const void *buf, size_t size, char *msg, size_t len);

#endif
