/* SPDX-License-Identifier: GPL-2.0 */
/* The error of a refusal the user can fix. */
#ifndef XF_USAGE_H
#define XF_USAGE_H

/* Returned (negated) for a usage error: above every errno value, so main()
 * can tell "bad input" (exit 2) from "the kernel said no" (exit 1). */
#define XF_EUSAGE 4096
/* Returned (negated) by a check that found differences (restore check):
 * not a failure, its output stands, and the exit status is 3 so that a
 * configuration manager can tell "changed" from "as it should be" (0). */
#define XF_EDIFFER 4097

#endif
