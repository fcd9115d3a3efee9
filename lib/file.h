/* SPDX-License-Identifier: GPL-2.0 */
/* Plain files: copies of objects (chain members, save's keep directory). */
#ifndef XF_FILE_H
#define XF_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Copy from to to (made 0600, or truncated). 0/-errno. */
int xf_file_copy(const char *from, const char *to);
/* Copy from to to through a temporary name beside it and a rename, so
 * that to is never half written. 0/-errno (nothing left behind). */
int xf_file_copy_atomic(const char *from, const char *to);
/* Whether path holds exactly the len bytes at buf. */
bool xf_file_is(const char *path, const void *buf, size_t len);

#endif
