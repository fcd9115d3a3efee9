// SPDX-License-Identifier: GPL-2.0
/* Garbage collection: see gc.h. bpffs belongs to the mount namespace, so
 * XF_PIN_ROOT/ns<cookie>/ outlives a deleted network namespace: its links
 * are dead (their devices went with it) but its maps and programs stay
 * pinned. A cookie that no live namespace has (none in /run/netns or
 * bind-mounted anywhere else, none of any process, none held open by one)
 * is dead. When one namespace cannot be identified, nothing is collected.
 * An interface's directory outlives the interface the same way. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/nsfs.h>
#include <unistd.h>

#include <net/if.h>

#include "gc.h"
#include "xbpf.h"

#define GC_MAX_NS 4096

struct gc_live {
	uint64_t cookie[GC_MAX_NS];
	ino_t ino[GC_MAX_NS];
	int n;
	bool unsure;		/* a namespace we could not identify */
};

/* Identify the namespace at path (an nsfs file) by entering it. */
static void gc_add(struct gc_live *lv, const char *path)
{
	struct stat st;
	uint64_t c;
	int fd, i, type;

	if (stat(path, &st))
		return;		/* gone meanwhile, or not a namespace */
	for (i = 0; i < lv->n; i++)
		if (lv->ino[i] == st.st_ino)
			return;
	if (lv->n == GC_MAX_NS) {
		lv->unsure = true;
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Bind mounts and descriptors may be namespaces of other kinds. */
	type = fd >= 0 ? ioctl(fd, NS_GET_NSTYPE) : -1;
	if (type >= 0 && type != CLONE_NEWNET) {
		close(fd);
		return;
	}
	if (fd < 0 || setns(fd, CLONE_NEWNET) || xf_netns_id(&c)) {
		if (fd < 0 && errno == ENOENT)
			return;
		lv->unsure = true;
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	lv->ino[lv->n] = st.st_ino;
	lv->cookie[lv->n++] = c;
}

/* Namespaces kept by a bind mount anywhere in this mount namespace (not
 * only /run/netns: container runtimes keep theirs elsewhere). */
static void gc_find_mounted(struct gc_live *lv)
{
	char line[4096], mnt[4096], type[64];
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		lv->unsure = true;
		return;
	}
	/* id parent major:minor root mountpoint options... - fstype source */
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s", type) != 1 || strcmp(type, "nsfs"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 || strchr(mnt, '\\')) {
			lv->unsure = true;	/* an escaped name: not worth decoding */
			continue;
		}
		gc_add(lv, mnt);
	}
	fclose(f);
}

/* Namespaces kept only by a process's open file descriptor: any file of
 * nsfs (the device of our own /proc/self/ns/net); the link's text is the
 * path it was opened by, so only stat() tells. */
static void gc_find_fds(struct gc_live *lv, const char *pid, dev_t nsfs)
{
	char dir[300], path[600];
	struct dirent *e;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!stat(path, &st) && st.st_dev == nsfs && S_ISREG(st.st_mode))
			gc_add(lv, path);
	}
	if (d)
		closedir(d);
}

static void gc_find_live(struct gc_live *lv)
{
	char path[300];
	struct dirent *e;
	struct stat st;
	dev_t nsfs;
	DIR *d;

	if (stat("/proc/self/ns/net", &st)) {
		lv->unsure = true;
		return;
	}
	nsfs = st.st_dev;
	d = opendir("/run/netns");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		gc_add(lv, path);
	}
	if (d)
		closedir(d);
	d = opendir("/proc");
	if (!d) {
		lv->unsure = true;
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
		gc_add(lv, path);
		gc_find_fds(lv, e->d_name, nsfs);
	}
	closedir(d);
	gc_find_mounted(lv);
}

static bool gc_is_live(const struct gc_live *lv, uint64_t cookie)
{
	int i;

	for (i = 0; i < lv->n; i++)
		if (lv->cookie[i] == cookie)
			return true;
	return false;
}

void xf_gc_tell(const struct xf_gc_report *r, const char *object, int ifindex,
		const char *what)
{
	struct xf_gc_item it = { .object = object, .ifindex = ifindex, .what = what };

	if (!r || !r->fn)
		return;
	xf_netns_id(&it.netns);
	r->fn(&it, r->arg);
}

/* Remove the ns<cookie> entries of top whose cookie is dead. */
static int gc_dir(const struct gc_live *lv, const char *top, const struct xf_gc_report *r)
{
	struct xf_gc_item it = { .object = "netns" };
	char path[300], *end;
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir(top);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ns", 2))
			continue;
		it.netns = strtoull(e->d_name + 2, &end, 10);
		if (*end || end == e->d_name + 2 || gc_is_live(lv, it.netns))
			continue;
		snprintf(path, sizeof(path), "%s/%s", top, e->d_name);
		if (xf_pin_rmtree(path))
			continue;
		n++;
		it.what = path;
		if (r && r->fn)
			r->fn(&it, r->arg);
	}
	closedir(d);
	return n;
}

int xf_gc_netns(const struct xf_gc_report *r)
{
	struct gc_live *lv;
	int self, n = 0;

	if (access(XF_PIN_ROOT, F_OK) && access(XF_RUN_ROOT, F_OK))
		return 0;
	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		free(lv);
		return -errno;
	}
	gc_find_live(lv);
	if (setns(self, CLONE_NEWNET)) {
		/* Without our own namespace back, nothing else can be right. */
		fprintf(stderr, "Error: cannot return to the network namespace: %s.\n",
			strerror(errno));
		close(self);
		free(lv);
		return -EIO;
	}
	close(self);
	if (!lv->unsure)
		n = gc_dir(lv, XF_PIN_ROOT, r) + gc_dir(lv, XF_RUN_ROOT, r);
	free(lv);
	return n;
}

#define GC_MAX_IF 4096

/* Remove the directory of every interface that has gone, in the pin tree
 * or (run) in the XF_RUN_ROOT tree. */
static int gc_ifaces_in(bool run, const struct xf_gc_report *r)
{
	char path[512], name[IF_NAMESIZE];
	int *ifx, n, i, cnt = 0;

	ifx = calloc(GC_MAX_IF, sizeof(*ifx));
	if (!ifx)
		return -ENOMEM;
	n = xf_layout_ifindexes(run, ifx, GC_MAX_IF);
	for (i = 0; i < n; i++) {
		if (if_indextoname(ifx[i], name))
			continue;
		if ((run ? xf_run_path : xf_pin_path)(path, sizeof(path), ifx[i], NULL) ||
		    xf_pin_rmtree(path))
			continue;
		cnt++;
		xf_gc_tell(r, "interface", ifx[i], path);
		/* and the namespace's directory, when that was all */
		(run ? xf_run_remove : xf_pin_remove)(ifx[i], NULL);
	}
	free(ifx);
	return cnt;
}

int xf_gc_ifaces(const struct xf_gc_report *r)
{
	int pin, run;

	/* Both trees: the pins may be gone already and the copies not. */
	pin = gc_ifaces_in(false, r);
	run = gc_ifaces_in(true, r);
	return pin < 0 ? pin : run < 0 ? run : pin + run;
}
