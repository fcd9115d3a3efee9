// SPDX-License-Identifier: GPL-2.0
/*
 * init: pid 1 of a test VM (test/vm/run builds it with gcc -static into a
 * one-file initramfs).
 *
 * It loads the modules listed in /modules (one path a line, in dependency
 * order, copied into the initramfs), mounts the host's root read-only from
 * the virtiofs tag "root" and the project directory read-write from the tag
 * "proj", gives the guest its own proc, sys, dev, bpffs, cgroup2, /run and
 * /tmp, chroots into the host root and runs /bin/bash RUNDIR/cmd. The exit
 * status goes to RUNDIR/status, then the VM powers off. /job holds two
 * lines: the project directory and RUNDIR.
 *
 * Everything is done in this one process: every process started under
 * emulation costs tens of milliseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define NEWROOT "/newroot"

static void say(const char *what, const char *arg, int err)
{
	fprintf(stderr, "vm-init: %s %s: %s\n", what, arg, strerror(err));
}

static void halt(void)
{
	sync();
	klogctl(6, NULL, 0); /* SYSLOG_ACTION_CONSOLE_OFF: no "Power down" */
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* Serial output as the command wrote it: no \r before each \n. */
static void raw_console(void)
{
	struct termios t;

	if (tcgetattr(1, &t))
		return;
	t.c_oflag &= ~(OPOST | ONLCR);
	tcsetattr(1, TCSANOW, &t);
}

static int load_modules(const char *list)
{
	char line[4096];
	FILE *f;
	int ret = 0;

	f = fopen(list, "r");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		int fd;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			say("open", line, errno);
			ret = -errno;
			continue;
		}
		if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
			say("load module", line, errno);
			ret = -errno;
		}
		close(fd);
	}
	fclose(f);
	return ret;
}

static int mnt(const char *src, const char *dst, const char *type,
	       unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data)) {
		say("mount", dst, errno);
		return -errno;
	}
	return 0;
}

static int read_job(char *proj, char *rundir, size_t len)
{
	FILE *f = fopen("/job", "r");

	if (!f)
		return -errno;
	if (!fgets(proj, len, f) || !fgets(rundir, len, f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	proj[strcspn(proj, "\n")] = '\0';
	rundir[strcspn(rundir, "\n")] = '\0';
	return 0;
}

/* mkdir -p: what exists already, or cannot be made on the read-only
 * root, is left to the mount that follows to report. */
static void mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static int setup(const char *proj)
{
	char path[4200];
	static const struct {
		const char *src, *dst, *type;
		unsigned long flags;
	} fs[] = {
		{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "sys", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "dev", "/dev", "devtmpfs", MS_NOSUID },
		{ "run", "/run", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "tmp", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "bpf", "/sys/fs/bpf", "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "cgroup2", "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC },
		{ "shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV },
	};
	size_t i;
	int err;

	/* The initramfs has no /dev/console yet: the kernel then leaves fds
	 * 0-2 closed. devtmpfs provides one. */
	mnt("dev", "/dev", "devtmpfs", MS_NOSUID, NULL);
	err = open("/dev/console", O_RDWR);
	if (err >= 0) {
		dup2(err, 0);
		dup2(err, 1);
		dup2(err, 2);
		if (err > 2)
			close(err);
	}
	raw_console();

	if (load_modules("/modules"))
		return -EIO;
	err = mnt("root", NEWROOT, "virtiofs", MS_RDONLY, NULL);
	if (err)
		return err;
	umount2("/dev", MNT_DETACH);
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		snprintf(path, sizeof(path), NEWROOT "%s", fs[i].dst);
		/* Mount points exist on the read-only root; a missing one is
		 * tolerated where the guest can do without. */
		mkdir(path, 0755);
		if (mount(fs[i].src, path, fs[i].type, fs[i].flags, NULL) &&
		    i < 5) {
			say("mount", path, errno);
			return -errno;
		}
	}
	/* The project last: it may lie below one of those (a clone in
	 * /tmp), whose fresh tmpfs then needs the mount point made. */
	snprintf(path, sizeof(path), NEWROOT "%s", proj);
	mkdir_p(path);
	err = mnt("proj", path, "virtiofs", 0, NULL);
	if (err)
		return err;
	/* What udev would add: bash's process substitution needs /dev/fd. */
	symlink("/proc/self/fd", NEWROOT "/dev/fd");
	symlink("/proc/self/fd/0", NEWROOT "/dev/stdin");
	symlink("/proc/self/fd/1", NEWROOT "/dev/stdout");
	symlink("/proc/self/fd/2", NEWROOT "/dev/stderr");
	if (chroot(NEWROOT) || chdir(proj)) {
		say("enter", proj, errno);
		return -errno;
	}
	return 0;
}

static int run(const char *rundir)
{
	char script[4200];
	pid_t pid, w;

	snprintf(script, sizeof(script), "%s/cmd", rundir);
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		char *argv[] = { "/bin/bash", script, NULL };
		char *envp[] = {
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"HOME=/root", "TERM=dumb", "LANG=C.UTF-8", NULL
		};

		setsid();
		execve(argv[0], argv, envp);
		_exit(127);
	}
	/* pid 1 reaps orphans until the command itself ends; what it left
	 * running dies with the VM. */
	for (;;) {
		int st;

		w = wait(&st);
		if (w < 0 && errno != EINTR)
			return 125;
		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
}

int main(void)
{
	char proj[4096], rundir[4096], path[4200];
	int status = 125;
	FILE *f;

	if (read_job(proj, rundir, sizeof(proj)) == 0 && setup(proj) == 0)
		status = run(rundir);
	else
		fprintf(stderr, "vm-init: cannot set up the guest\n");
	snprintf(path, sizeof(path), "%s/status", rundir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", status);
		fclose(f);
	}
	halt();
	return 0;
}
