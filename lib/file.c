// SPDX-License-Identifier: GPL-2.0
/* Plain files: copies. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "file.h"

int xf_file_copy(const char *from, const char *to)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -errno ?: -EIO;
			break;
		}
	if (n < 0 && !err)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

void xf_fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int xf_file_commit(const char *tmp, const char *path, int err)
{
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int xf_file_copy_atomic(const char *from, const char *to)
{
	char tmp[4096];
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.new", to, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = xf_file_copy(from, tmp);
	return xf_file_commit(tmp, to, err);
}

bool xf_file_is(const char *path, const void *buf, size_t len)
{
	bool same = false;
	struct stat st;
	char *got;
	FILE *f;

	if (stat(path, &st) || (size_t)st.st_size != len)
		return false;
	f = fopen(path, "re");
	got = f ? malloc(len ?: 1) : NULL;
	if (got && fread(got, 1, len, f) == len)
		same = !memcmp(got, buf, len);
	free(got);
	if (f)
		fclose(f);
	return same;
}
