// SPDX-License-Identifier: GPL-2.0
/* SHA-256 of a file, with libcrypto. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "digest.h"

int xf_sha256_file(const char *path, char hex[XF_SHA256_HEX])
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		err = -ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (!EVP_DigestUpdate(ctx, buf, n)) {
			err = -EIO;
			goto out;
		}
	}
	if (n < 0)
		err = -errno;
	else if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32)
		err = -EIO;
	for (i = 0; !err && i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	return err;
}
