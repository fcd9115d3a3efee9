/* SPDX-License-Identifier: GPL-2.0 */
/* Content hashes (save: members' objects). */
#ifndef XF_DIGEST_H
#define XF_DIGEST_H

/* 64 hex digits and the NUL. */
#define XF_SHA256_HEX 65

/* The SHA-256 of the file at path, in lower-case hex. 0/-errno. */
int xf_sha256_file(const char *path, char hex[XF_SHA256_HEX]);

#endif
