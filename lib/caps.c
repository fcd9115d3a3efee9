// SPDX-License-Identifier: GPL-2.0
/* Capabilities through capget(2), and the ownership checks of files to load. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "caps.h"
#include "xbpf.h"

static const struct {
	int cap;
	const char *name;
} cap_names[] = {
	{ XF_CAP_BPF, "CAP_BPF" },
	{ XF_CAP_NET_ADMIN, "CAP_NET_ADMIN" },
	{ XF_CAP_PERFMON, "CAP_PERFMON" },
	{ XF_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
};

int xf_caps_missing(uint64_t want, uint64_t *missing)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
	uint64_t eff;

	/* No libcap: the raw call, as the kernel's own selftests do. */
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	/* bpf_capable() and perfmon_capable(): CAP_BPF or CAP_PERFMON, or
	 * CAP_SYS_ADMIN; kernels before 5.8 know only the latter. */
	if (eff & (1ULL << XF_CAP_SYS_ADMIN))
		eff |= (1ULL << XF_CAP_BPF) | (1ULL << XF_CAP_PERFMON);
	*missing = want & ~eff;
	return 0;
}

const char *xf_caps_names(uint64_t mask, char *buf, size_t len)
{
	size_t i, n = 0, used = 0, count = 0;

	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		count += !!(mask & (1ULL << cap_names[i].cap));
	buf[0] = '\0';
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (!(mask & (1ULL << cap_names[i].cap)))
			continue;
		n++;
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
				 n == 1 ? "" : n == count ? " and " : ", ",
				 cap_names[i].name);
	}
	return buf;
}

void xf_pins_readable(void)
{
	/* Absent is fine: nothing is attached anywhere. */
	if (access(XF_PIN_ROOT, R_OK | X_OK) && errno != ENOENT)
		fprintf(stderr, "Warning: cannot read %s: %s; what xfwd attached is not "
			"shown (run as root).\n", XF_PIN_ROOT, strerror(errno));
}

/* Group or others may change what st is (or, for a directory, what is in
 * it, unless the sticky bit keeps them to their own entries). */
static int others_write(const struct stat *st)
{
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return 0;
	return !!(st->st_mode & (S_IWGRP | S_IWOTH));
}

int xf_file_trusted(const char *path, char *why, size_t len)
{
	char *real, *slash;
	struct stat st;
	int err = 0;

	real = realpath(path, NULL);
	if (!real)
		return -errno;
	if (stat(real, &st)) {
		err = -errno;
		goto out;
	}
	if (others_write(&st)) {
		snprintf(why, len, "\"%s\" is writable by others than its owner (mode %04o)",
			 path, st.st_mode & 07777);
		err = -EPERM;
		goto out;
	}
	/* Each directory above it: whoever may write one may swap the file. */
	while ((slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';
		if (stat(real, &st)) {
			err = -errno;
			goto out;
		}
		if (others_write(&st)) {
			snprintf(why, len, "\"%s\" is in \"%s\", which is writable by others "
				 "than its owner (mode %04o)", path, real, st.st_mode & 07777);
			err = -EPERM;
			goto out;
		}
		if (slash == real)
			break;
	}
out:
	free(real);
	return err;
}
