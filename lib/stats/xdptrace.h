/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's own XDP error tracepoints, counted while they are open:
 * xdp:xdp_redirect_err (a redirect that failed after the program's
 * verdict, with its -errno) and xdp:xdp_exception (XDP_ABORTED or an
 * action the driver does not know), per device of this namespace. */
#ifndef XF_STATS_XDPTRACE_H
#define XF_STATS_XDPTRACE_H

#include <stdint.h>

#include "xfwd_bpf.h"		/* XF_XDPTRACE_REDIRECT_ERR, _EXCEPTION */

struct xf_xdptrace;

/* Load the counting programs and attach them to both tracepoints; they
 * count until xf_xdptrace_close(). 0/-errno; on failure why says in a
 * few words what the kernel refused (why may be NULL). */
int xf_xdptrace_open(struct xf_xdptrace **t, char *why, size_t len);
void xf_xdptrace_close(struct xf_xdptrace *t);
/* Call cb for every (device, tracepoint, code) counted so far: code is
 * the -errno of a redirect_err, the action of an exception. cb returns
 * non-zero to stop. 0/-errno. */
int xf_xdptrace_walk(struct xf_xdptrace *t,
		     int (*cb)(int ifindex, int tp, int code, uint64_t count, void *arg),
		     void *arg);

#endif
