// SPDX-License-Identifier: GPL-2.0
/* Plain files: copies. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

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

int xf_file_copy_atomic(const char *from, const char *to)
{
	char tmp[4096];
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.new", to, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = xf_file_copy(from, tmp);
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
