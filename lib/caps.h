/* SPDX-License-Identifier: GPL-2.0 */
/* What this process may do: its capabilities, and files safe to load. */
#ifndef XF_CAPS_H
#define XF_CAPS_H

#include <stddef.h>
#include <stdint.h>

/* Capability numbers (linux/capability.h; CAP_BPF is 5.8's). */
#define XF_CAP_NET_ADMIN 12
#define XF_CAP_SYS_ADMIN 21
#define XF_CAP_PERFMON 38
#define XF_CAP_BPF 39

/* What a command that changes state needs: CAP_NET_ADMIN, CAP_BPF and
 * CAP_PERFMON, where CAP_SYS_ADMIN stands in for the last two as it does in
 * the kernel. Any such command may load a program (a chain is rebuilt
 * whenever a member comes or goes), and xfwd's programs subtract packet
 * pointers, which the verifier allows only to bpf_allow_ptr_leaks():
 * CAP_PERFMON. */
#define XF_CAPS_CHANGE ((1ULL << XF_CAP_NET_ADMIN) | (1ULL << XF_CAP_BPF) | \
			(1ULL << XF_CAP_PERFMON))

/* The capabilities of want (a mask of 1 << XF_CAP_*) missing from the
 * effective set, in *missing. 0/-errno (capget). */
int xf_caps_missing(uint64_t want, uint64_t *missing);
/* "CAP_BPF and CAP_NET_ADMIN" for a mask, into buf. Returns buf. */
const char *xf_caps_names(uint64_t mask, char *buf, size_t len);
/* Whether path may be loaded: neither the file (symlinks resolved) nor any
 * directory above it is writable by group or others (a directory with the
 * sticky bit excepted: others cannot rename what is not theirs there).
 * 0, or -EPERM with the reason (naming the path and mode) in why; other
 * -errno when it cannot be checked. */
int xf_file_trusted(const char *path, char *why, size_t len);

/* For a command that reads pins: a Warning on stderr when XF_PIN_ROOT is
 * there but cannot be read (not root), as what it shows is then
 * incomplete. */
void xf_pins_readable(void);

#endif
