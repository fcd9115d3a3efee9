// SPDX-License-Identifier: GPL-2.0
/* bpffs, the pin layout, the global lock and libbpf's log. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "xbpf.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int xf_bpffs_ensure(void)
{
	struct statfs st;

	if (!statfs("/sys/fs/bpf", &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir("/sys/fs/bpf", 0755) && errno != EEXIST)
		return -errno;
	if (mount("bpffs", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

int xf_netns_id(uint64_t *id)
{
	socklen_t len = sizeof(*id);
	struct stat st;
	int fd, err;

	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd >= 0) {
		err = getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, id, &len);
		close(fd);
		if (!err)
			return 0;
	}
	if (stat("/proc/self/ns/net", &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

/* root/ns<id>[/<ifindex>][/<name>]: the layout of both trees. */
static int xf_layout_path(const char *root, char *buf, size_t len, int ifindex,
			  const char *name)
{
	uint64_t ns;
	int n, err;

	err = xf_netns_id(&ns);
	if (err)
		return err;
	n = snprintf(buf, len, "%s/ns%llu", root, (unsigned long long)ns);
	if (n >= 0 && (size_t)n < len && ifindex)
		n += snprintf(buf + n, len - n, "/%d", ifindex);
	if (n >= 0 && (size_t)n < len && name)
		n += snprintf(buf + n, len - n, "/%s", name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int xf_pin_path(char *buf, size_t len, int ifindex, const char *name)
{
	return xf_layout_path(XF_PIN_ROOT, buf, len, ifindex, name);
}

int xf_run_path(char *buf, size_t len, int ifindex, const char *name)
{
	return xf_layout_path(XF_RUN_ROOT, buf, len, ifindex, name);
}

/* Unlink root's ifindex/name (when name), then prune from its directory. */
static int xf_layout_remove(const char *root, int ifindex, const char *name)
{
	char path[512];
	int err;

	err = xf_layout_path(root, path, sizeof(path), ifindex, name);
	if (err)
		return err;
	if (name) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		*strrchr(path, '/') = '\0';
	}
	xf_dir_prune(path, root);
	return 0;
}

int xf_pin_remove(int ifindex, const char *name)
{
	return xf_layout_remove(XF_PIN_ROOT, ifindex, name);
}

int xf_run_remove(int ifindex, const char *name)
{
	return xf_layout_remove(XF_RUN_ROOT, ifindex, name);
}

int xf_layout_ifindexes(bool run, int *out, int max)
{
	char dir[512];
	struct dirent *e;
	int n = 0, ifindex;
	DIR *d;

	if (xf_layout_path(run ? XF_RUN_ROOT : XF_PIN_ROOT, dir, sizeof(dir), 0, NULL))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		ifindex = atoi(e->d_name);
		if (ifindex > 0)
			out[n++] = ifindex;
	}
	closedir(d);
	return n;
}

int xf_pin_if(int fd, int ifindex, const char *name)
{
	char dir[512];
	int err;

	err = xf_pin_path(dir, sizeof(dir), ifindex, NULL) ?: xf_pin_mkdir(dir);
	return err ?: xf_pin_obj(fd, dir, name);
}

void xf_rmtree_prune(const char *dir)
{
	const char *root = strncmp(dir, XF_RUN_ROOT "/", strlen(XF_RUN_ROOT) + 1) ?
			   XF_PIN_ROOT : XF_RUN_ROOT;
	char parent[512];

	xf_pin_rmtree(dir);
	snprintf(parent, sizeof(parent), "%s", dir);
	if (strrchr(parent, '/')) {
		*strrchr(parent, '/') = '\0';
		xf_dir_prune(parent, root);
	}
}

int xf_pin_obj(int fd, const char *dir, const char *name)
{
	char path[512];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

int xf_pin_get(const char *dir, const char *name)
{
	char path[512];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int xf_pin_get_set(char *dir, size_t len, const char *sub, const char *const *names,
		   int n, int *fds)
{
	size_t used;
	int i, fd;

	for (i = 0; i < n; i++)
		fds[i] = -1;
	fd = xf_pin_path(dir, len, 0, NULL);
	if (fd)
		return fd;
	used = strlen(dir);
	if ((size_t)snprintf(dir + used, len - used, "/%s", sub) >= len - used)
		return -ENAMETOOLONG;
	for (i = 0; i < n; i++) {
		fd = xf_pin_get(dir, names[i]);
		if (fd < 0)
			break;
		fds[i] = fd;
	}
	if (i == n)
		return 0;
	if (fd == -ENOENT && i > 0)
		xf_pin_rmtree(dir);
	while (i-- > 0) {
		close(fds[i]);
		fds[i] = -1;
	}
	return fd;
}

int xf_pin_set(const char *dir, const char *const *names, int n, const int *src, int *fds)
{
	int i, err;

	for (i = 0; i < n; i++)
		fds[i] = -1;
	err = xf_pin_mkdir(dir);
	for (i = 0; !err && i < n; i++) {
		fds[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 3);
		err = fds[i] < 0 ? -errno : xf_pin_obj(src[i], dir, names[i]);
	}
	if (!err)
		return 0;
	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	xf_rmtree_prune(dir);
	return err;
}

/* path is XF_PIN_ROOT or XF_RUN_ROOT or below one of them. */
static bool xf_own_tree(const char *path)
{
	static const char *const roots[] = { XF_PIN_ROOT, XF_RUN_ROOT };
	size_t i, n;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		n = strlen(roots[i]);
		if (!strncmp(path, roots[i], n) && (path[n] == '/' || !path[n]))
			return true;
	}
	return false;
}

/* Pins and copies are only root's business: what xfwd keeps there must be
 * a real directory of this user's that nobody else can enter. */
static int xf_own_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	if ((st.st_mode & 07777) != 0700 && chmod(path, 0700))
		return -errno;
	return 0;
}

int xf_pin_mkdir(const char *dir)
{
	int err;

	char path[256];
	size_t i, n = strlen(dir);

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, dir);
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		err = xf_own_tree(path) ? xf_own_dir(path) : 0;
		if (err)
			return err;
		if (i < n)
			path[i] = '/';
	}
	return 0;
}

int xf_pin_rmtree(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d;
	int err = 0;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			err = xf_pin_rmtree(path) ?: err;
		else if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT)
		err = -errno;
	return err;
}

void xf_dir_prune(const char *dir, const char *top)
{
	char path[512];
	size_t n = strlen(top);
	char *slash;

	if (strlen(dir) >= sizeof(path) || strncmp(dir, top, n) || dir[n] != '/')
		return;
	strcpy(path, dir);
	/* A directory already gone is as good as removed: go on upwards. */
	while (strlen(path) > n && (!rmdir(path) || errno == ENOENT)) {
		slash = strrchr(path, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
}

int xf_lock(int *fd, bool nowait)
{
	int f = open(XF_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (f < 0)
		return -errno;
	if (flock(f, LOCK_EX | (nowait ? LOCK_NB : 0))) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(f);
		return err;
	}
	*fd = f;
	return 0;
}

void xf_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* libbpf's messages are kept in a small ring of the last lines, so that a
 * failed load can be explained without printing libbpf's whole chatter. */
#define LOG_KEEP 8192

struct xf_bpf_log {
	bool verbose;
	size_t len;
	char buf[LOG_KEEP];
};

/* libbpf's print callback takes no user pointer, so the log lives here; it
 * is process state that libbpf itself forces, not xfwd state. */
static struct xf_bpf_log bpf_log;

static int xf_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	if (bpf_log.verbose && level != LIBBPF_DEBUG)
		fputs(line, stderr);
	n = strlen(line);
	if (n >= LOG_KEEP)
		return 0;
	if (bpf_log.len + n >= LOG_KEEP) {
		size_t drop = bpf_log.len + n - LOG_KEEP + 1;

		memmove(bpf_log.buf, bpf_log.buf + drop, bpf_log.len - drop);
		bpf_log.len -= drop;
	}
	memcpy(bpf_log.buf + bpf_log.len, line, n);
	bpf_log.len += n;
	bpf_log.buf[bpf_log.len] = '\0';
	return 0;
}

void xf_bpf_log_init(bool verbose)
{
	bpf_log.verbose = verbose;
	bpf_log.len = 0;
	bpf_log.buf[0] = '\0';
	libbpf_set_print(xf_libbpf_print);
}

/* A verifier line worth showing: not blank, not libbpf's framing, not the
 * per-instruction trace ("12: (bf) r1 = r6") nor the statistics lines, nor
 * libbpf's note that it went on without a BPF token (1.4 and later), which
 * says nothing about why a load failed. */
static bool log_line_useful(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (!n)
		return false;
	if ((*s >= '0' && *s <= '9') || *s == ';')
		return false;
	if (!strncmp(s, "processed ", 10) || !strncmp(s, "verification time", 17) ||
	    !strncmp(s, "stack depth", 11) || !strncmp(s, "-- BEGIN", 8) ||
	    !strncmp(s, "-- END", 6) || !strncmp(s, "libbpf: prog '", 14) ||
	    !strncmp(s, "Validating ", 11) || !strncmp(s, "func#", 5) ||
	    !strncmp(s, "from ", 5) || !strncmp(s, "mark_precise", 12))
		return false;
	if (!strncmp(s, "libbpf: object '", 16) && memmem(s, n, "token", 5))
		return false;
	return true;
}

const char *xf_verifier_summary(const char *log, int max, char *out, size_t len)
{
	const char *starts[32];
	size_t lens[32];
	const char *p = log, *e;
	int n = 0, i;
	size_t o = 0;

	if (max > 32)
		max = 32;
	while (*p) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		if (log_line_useful(p, e - p)) {
			if (n == max) {
				memmove(starts, starts + 1, (max - 1) * sizeof(*starts));
				memmove(lens, lens + 1, (max - 1) * sizeof(*lens));
				n--;
			}
			starts[n] = p;
			lens[n] = e - p;
			n++;
		}
		p = *e ? e + 1 : e;
	}
	out[0] = '\0';
	for (i = 0; i < n && o + 4 < len; i++) {
		const char *s = starts[i];
		size_t l = lens[i];

		while (l && (*s == ' ' || *s == '\t')) {
			s++;
			l--;
		}
		if (!strncmp(s, "libbpf: ", 8)) {
			s += 8;
			l -= 8;
		}
		o += snprintf(out + o, len - o, "%s%.*s", o ? " | " : "", (int)l, s);
	}
	if (o >= len)
		out[len - 1] = '\0';
	return out;
}

const char *xf_bpf_last_log(char *out, size_t len)
{
	xf_verifier_summary(bpf_log.buf, 3, out, len);
	bpf_log.len = 0;
	bpf_log.buf[0] = '\0';
	return out;
}

const char *xf_bpf_kconfig(char *buf, size_t len)
{
	struct timespec ts;
	long hz = 0;

	if (!clock_getres(CLOCK_MONOTONIC_COARSE, &ts) && !ts.tv_sec &&
	    ts.tv_nsec >= 500000 && ts.tv_nsec <= 50000000)
		hz = (1000000000L + ts.tv_nsec / 2) / ts.tv_nsec;
	snprintf(buf, len, "CONFIG_HZ=%ld\n", hz);
	return buf;
}

struct bpf_object *xf_bpf_open_mem(const void *elf, size_t size, const char *name)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = name);
	char kconfig[32];

	oo.kconfig = xf_bpf_kconfig(kconfig, sizeof(kconfig));
	return bpf_object__open_mem(elf, size, &oo);
}

struct bpf_object *xf_bpf_open_file(const char *path)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	char kconfig[32];

	oo.kconfig = xf_bpf_kconfig(kconfig, sizeof(kconfig));
	return bpf_object__open_file(path, &oo);
}

int xf_ncpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? n : 1;
}

int xf_percpu_read(int map_fd, const void *key, uint64_t *sum, uint64_t *percpu, int n)
{
	int ncpu = xf_ncpus(), c, i;
	uint64_t *vals;

	vals = calloc((size_t)ncpu * n, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	memset(sum, 0, n * sizeof(*sum));
	if (bpf_map_lookup_elem(map_fd, key, vals)) {
		int err = -errno;

		free(vals);
		return err;
	}
	for (c = 0; c < ncpu; c++)
		for (i = 0; i < n; i++)
			sum[i] += vals[c * n + i];
	if (percpu)
		memcpy(percpu, vals, (size_t)ncpu * n * sizeof(*vals));
	free(vals);
	return 0;
}

int xf_percpu_sum(int map_fd, const void *key, uint64_t *sum, int n)
{
	return xf_percpu_read(map_fd, key, sum, NULL, n);
}

int xf_percpu_zero(int map_fd, const void *key, int n)
{
	uint64_t *vals = calloc((size_t)xf_ncpus() * n, sizeof(*vals));
	int err = 0;

	if (!vals)
		return -ENOMEM;
	if (bpf_map_update_elem(map_fd, key, vals, BPF_ANY))
		err = -errno;
	free(vals);
	return err;
}

uint32_t xf_prog_id(int fd)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	return bpf_prog_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}
