/* SPDX-License-Identifier: GPL-2.0 */
/* A function run in a throwaway network namespace (the attach probes). */
#ifndef XF_NETNS_RUN_H
#define XF_NETNS_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* Run fn(arg, res, len) in a forked child inside a new, empty network
 * namespace, where it may create and attach anything: it all goes with the
 * child. The child's res (plain data) is copied back to the caller's res.
 * quiet sends the child's stderr to /dev/null. Returns fn's 0/-errno, or
 * -errno when the child could not run or died. */
int xf_netns_run(int (*fn)(void *arg, void *res, size_t len), void *arg,
		 void *res, size_t len, bool quiet);

#endif
