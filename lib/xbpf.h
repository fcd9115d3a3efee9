/* SPDX-License-Identifier: GPL-2.0 */
/* BPF glue: bpffs and xfwd's pin layout, the lock, libbpf logs. */
#ifndef XF_XBPF_H
#define XF_XBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything xfwd pins lives below here: XF_PIN_ROOT/<netns>/<ifindex>/... */
#define XF_PIN_ROOT "/sys/fs/bpf/xfwd"
#define XF_LOCK_PATH "/run/xfwd.lock"
/* State that is no pin (copies of chain members) lives below here. */
#define XF_RUN_ROOT "/run/xfwd"

/* Mount bpffs on /sys/fs/bpf if nothing is mounted there. 0/-errno. */
int xf_bpffs_ensure(void);
/* An id for the current network namespace that is never reused: the netns
 * cookie where the kernel has SO_NETNS_COOKIE, else the nsfs inode. */
int xf_netns_id(uint64_t *id);
/* The pin layout, known only to this file: XF_PIN_ROOT/ns<id> is the
 * namespace's directory, ns<id>/<ifindex> an interface's, and an object
 * pins under either by name (ns<id>/route/, ns<id>/7/route). XF_RUN_ROOT
 * has the same layout for what is no pin. */
/* Write XF_PIN_ROOT/ns<id>[/<ifindex>][/<name>] to buf: ifindex 0 leaves
 * the interface out, name NULL the name. 0/-ENAMETOOLONG/-errno. */
int xf_pin_path(char *buf, size_t len, int ifindex, const char *name);
/* The same below XF_RUN_ROOT. */
int xf_run_path(char *buf, size_t len, int ifindex, const char *name);
/* Unlink the pin name of ifindex (0: of the namespace), then remove the
 * directories left empty, up to XF_PIN_ROOT. name NULL only prunes.
 * 0/-errno (nothing there is 0). */
int xf_pin_remove(int ifindex, const char *name);
/* The same below XF_RUN_ROOT. */
int xf_run_remove(int ifindex, const char *name);
/* The ifindexes that have a directory in this namespace's pin tree (run:
 * the XF_RUN_ROOT tree), also of interfaces that have gone; at most max.
 * Returns the count. */
int xf_layout_ifindexes(bool run, int *out, int max);
/* The id of the program fd refers to, 0 when it cannot be read. */
uint32_t xf_prog_id(int fd);
/* Pin fd as name in ifindex's directory, made if need be. 0/-errno. */
int xf_pin_if(int fd, int ifindex, const char *name);
/* Remove dir (below XF_PIN_ROOT or XF_RUN_ROOT) with everything in it,
 * then its parents while they are empty. Best effort. */
void xf_rmtree_prune(const char *dir);
/* Pin fd at dir/name. 0/-errno. */
int xf_pin_obj(int fd, const char *dir, const char *name);
/* The object pinned at dir/name: an fd (the caller closes it), or -errno
 * (-ENOENT when nothing is pinned there). */
int xf_pin_get(const char *dir, const char *name);
/* A set of pins: the namespace's directory sub (made into dir, len bytes)
 * and names[0..n) in it, opened into fds, all or none (fds -1). 0 or the
 * first failure; a part of a set (left by a killed command) is removed
 * and reads as -ENOENT. */
int xf_pin_get_set(char *dir, size_t len, const char *sub, const char *const *names,
		   int n, int *fds);
/* Pin src[0..n) as names[0..n) in dir (made if need be), each with a copy
 * of its fd in fds; src stays the caller's. All or none: on failure the
 * copies are closed, and dir, with what was pinned in it, and its parents
 * left empty are removed. 0/-errno. */
int xf_pin_set(const char *dir, const char *const *names, int n, const int *src, int *fds);
/* mkdir -p of a directory below XF_PIN_ROOT or XF_RUN_ROOT. Every
 * directory from the root down is made sure to be xfwd's: a directory (not
 * a symlink) of this user's, mode 0700 (a wider one is narrowed). 0/-errno
 * (-ENOTDIR, -EPERM when it is not). */
int xf_pin_mkdir(const char *dir);
/* rmdir dir and then its parents while they are empty, up to (not
 * including) top. Best effort: what is not empty stays. */
void xf_dir_prune(const char *dir, const char *top);
/* Remove a pin directory and everything in it. 0/-errno. */
int xf_pin_rmtree(const char *dir);

/* Take the global lock (blocking, or -EBUSY at once when nowait). The fd
 * goes in *fd; release with xf_unlock(). */
int xf_lock(int *fd, bool nowait);
void xf_unlock(int fd);

/* Route libbpf's messages: shown when verbose, kept for xf_bpf_last_log(). */
void xf_bpf_log_init(bool verbose);
/* Shorten a verifier log to its last meaningful lines (at most max) into
 * out, one line joined by " | ". Returns out. */
const char *xf_verifier_summary(const char *log, int max, char *out, size_t len);
/* The tail of what libbpf said since the last call, summarised as above;
 * "" when it said nothing. Clears the buffer. */
const char *xf_bpf_last_log(char *out, size_t len);

/* Sum a per-CPU array/hash value of n __u64 counters into sum[n]. */
int xf_percpu_sum(int map_fd, const void *key, uint64_t *sum, int n);
/* As xf_percpu_sum, and also the per-CPU values into percpu[cpu * n + i]
 * when percpu is not NULL (xf_ncpus() * n of them). 0/-errno. */
int xf_percpu_read(int map_fd, const void *key, uint64_t *sum, uint64_t *percpu, int n);
/* Zero the value of key on every CPU (n u64 per CPU). 0/-errno. */
int xf_percpu_zero(int map_fd, const void *key, int n);
int xf_ncpus(void);
/* The Kconfig lines xfwd gives every object it opens (libbpf's kconfig
 * open option, which comes before the kernel's own config file), into
 * buf, which it returns: CONFIG_HZ from the tick that clock_getres()
 * reports for CLOCK_MONOTONIC_COARSE, or 0 when the tick says nothing
 * plausible. Always given: libbpf fails a load with -EINVAL when an
 * extern is left to a config file the system does not have (Debian's
 * kernels have no /proc/config.gz, and a guest no /boot), weak or not. */
const char *xf_bpf_kconfig(char *buf, size_t len);
/* A BPF object opened with that Kconfig: from memory (elf, size bytes,
 * named name) or from a file. Every object xfwd loads is opened here, so
 * that none misses it (a skeleton passes xf_bpf_kconfig() itself). NULL
 * with errno set. */
struct bpf_object *xf_bpf_open_mem(const void *elf, size_t size, const char *name);
struct bpf_object *xf_bpf_open_file(const char *path);

#endif
