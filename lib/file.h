/* SPDX-License-Identifier: GPL-2.0 */
/* Plain files: copies of objects (chain members, save's keep directory). */
#ifndef XF_FILE_H
#define XF_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Copy from to to (made 0600, or truncated). 0/-errno. */
int xf_file_copy(const char *from, const char *to);
/* Close *fd if it is open (>= 0), and mark it closed (-1). */
void xf_fd_close(int *fd);
/* The end of writing path through the file tmp beside it: with err 0,
 * tmp is renamed over path; otherwise, or when that fails, tmp is
 * removed. err, or the rename's -errno. */
int xf_file_commit(const char *tmp, const char *path, int err);
/* Copy from to to through a temporary name beside it and a rename, so
 * that to is never half written. 0/-errno (nothing left behind). */
int xf_file_copy_atomic(const char *from, const char *to);
/* Whether path holds exactly the len bytes at buf. */
bool xf_file_is(const char *path, const void *buf, size_t len);

#endif
