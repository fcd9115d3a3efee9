/* SPDX-License-Identifier: GPL-2.0 */
/* The error of a refusal the user can fix. */
#ifndef XF_USAGE_H
#define XF_USAGE_H

/* Returned (negated) for a usage error: above every errno value, so main()
 * can tell "bad input" (exit 2) from "the kernel said no" (exit 1). */
#define XF_EUSAGE 4096

#endif
