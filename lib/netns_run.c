// SPDX-License-Identifier: GPL-2.0
/* A function run in a forked child inside a new, empty network namespace,
 * its answer sent back through a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns_run.h"

/* Move all of len bytes through the pipe; a short read is -EPIPE. */
static int pipe_io(int fd, void *buf, size_t len, bool wr)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = wr ? write(fd, (char *)buf + done, len - done)
		       : read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		done += n;
	}
	return 0;
}

static void netns_child(int fd, int (*fn)(void *, void *, size_t), void *arg,
			void *res, size_t len, bool quiet)
{
	int ret, null;

	if (quiet) {
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
	ret = unshare(CLONE_NEWNET) ? -errno : fn(arg, res, len);
	if (pipe_io(fd, &ret, sizeof(ret), true) || pipe_io(fd, res, len, true))
		_exit(1);
	_exit(0);
}

int xf_netns_run(int (*fn)(void *arg, void *res, size_t len), void *arg,
		 void *res, size_t len, bool quiet)
{
	int fds[2], ret, err, status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	/* Nothing buffered may be written twice, by parent and child. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		close(fds[0]);
		netns_child(fds[1], fn, arg, res, len, quiet);
	}
	close(fds[1]);
	err = pipe_io(fds[0], &ret, sizeof(ret), false);
	if (!err)
		err = pipe_io(fds[0], res, len, false);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (err || !WIFEXITED(status) || WEXITSTATUS(status))
		return err ? err : -ECHILD;
	return ret;
}
