/* SPDX-License-Identifier: GPL-2.0 */
/* Test-only fault injection: count xfwd's kernel calls (bpf(2) and netlink
 * requests) and fail or SIGKILL the Nth one (XFWD_FAULT, see xfwd(8)). */
#ifndef XF_FAULT_H
#define XF_FAULT_H

#define XF_FAULT_ENV "XFWD_FAULT"

/* Read spec (the value of XFWD_FAULT, or NULL): "N" or "fail:N[:ERRNO]"
 * fails the Nth call with ERRNO (default EIO), "kill:N" raises SIGKILL
 * instead of making it, "count" only reports the total at exit. Called
 * once, from main. 0, or -EINVAL after an Error line. */
int xf_fault_init(const char *spec);
/* Before each kernel call: 0 to make it, -errno to fail it as if the
 * kernel had (errno is set too). what names the call for the report. */
int xf_fault_step(const char *what);

#endif
