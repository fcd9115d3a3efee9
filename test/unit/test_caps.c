// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/caps.c: capability names, and which files are safe to
 * load (modes of the file and the directories above it, symlinks). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "check.h"

#define CHECK(c, ok) check_true(c, ok, #ok, __LINE__)

int main(void)
{
	struct check c = { 0 };
	char dir[] = "/tmp/xf-caps-XXXXXX";
	char sub[64], file[96], link[96], why[512], buf[64];
	uint64_t missing = 0;
	FILE *f;

	check_str(&c, xf_caps_names(1ULL << XF_CAP_BPF, buf, sizeof(buf)), "CAP_BPF", __LINE__);
	check_str(&c, xf_caps_names(XF_CAPS_CHANGE, buf, sizeof(buf)),
		  "CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON", __LINE__);
	check_str(&c, xf_caps_names(XF_CAPS_CHANGE | 1ULL << XF_CAP_SYS_ADMIN, buf, sizeof(buf)),
		  "CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON and CAP_SYS_ADMIN", __LINE__);
	check_str(&c, xf_caps_names(1ULL << XF_CAP_BPF | 1ULL << XF_CAP_NET_ADMIN, buf, sizeof(buf)),
		  "CAP_BPF and CAP_NET_ADMIN", __LINE__);
	check_str(&c, xf_caps_names(0, buf, sizeof(buf)), "", __LINE__);
	/* Whatever this process has, what it lacks is a subset of the ask. */
	CHECK(&c, !xf_caps_missing(XF_CAPS_CHANGE, &missing));
	CHECK(&c, !(missing & ~XF_CAPS_CHANGE));

	if (!mkdtemp(dir))
		return 1;
	chmod(dir, 0755);
	snprintf(sub, sizeof(sub), "%s/d", dir);
	mkdir(sub, 0755);
	snprintf(file, sizeof(file), "%s/x.o", sub);
	f = fopen(file, "w");
	if (!f)
		return 1;
	fclose(f);
	chmod(file, 0644);
	CHECK(&c, xf_file_trusted(file, why, sizeof(why)) == 0);
	chmod(file, 0664);
	CHECK(&c, xf_file_trusted(file, why, sizeof(why)) == -EPERM);
	CHECK(&c, strstr(why, "mode 0664") != NULL);
	chmod(file, 0602);
	CHECK(&c, xf_file_trusted(file, why, sizeof(why)) == -EPERM);
	chmod(file, 0600);
	chmod(sub, 0777);
	CHECK(&c, xf_file_trusted(file, why, sizeof(why)) == -EPERM);
	CHECK(&c, strstr(why, "mode 0777") != NULL);
	chmod(sub, 01777);
	CHECK(&c, xf_file_trusted(file, why, sizeof(why)) == 0);
	/* A directory further up counts as much as the file's own. */
	chmod(sub, 0755);
	chmod(dir, 0775);
	CHECK(&c, xf_file_trusted(file, why, sizeof(why)) == -EPERM);
	chmod(dir, 0755);
	/* The link is safe, where it points is not: the target counts. */
	snprintf(link, sizeof(link), "%s/l.o", dir);
	CHECK(&c, !symlink(file, link));
	chmod(sub, 0757);
	CHECK(&c, xf_file_trusted(link, why, sizeof(why)) == -EPERM);
	chmod(sub, 0755);
	CHECK(&c, xf_file_trusted(link, why, sizeof(why)) == 0);
	CHECK(&c, xf_file_trusted("/nonexistent/x.o", why, sizeof(why)) == -ENOENT);

	unlink(link);
	unlink(file);
	rmdir(sub);
	rmdir(dir);
	return check_done(&c, "test_caps");
}
