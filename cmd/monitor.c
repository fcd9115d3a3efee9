// SPDX-License-Identifier: GPL-2.0
/* xfwd monitor: a long-running command that keeps forwarding sets
 * current: the current namespace's, or with -all every named namespace's
 * (/run/netns, followed with inotify as namespaces come and go). For each
 * it follows rtnetlink (lib/monitor.c) and, after every batch of events
 * that can change what the fast path copies from the kernel, does what
 * route refresh does in that namespace, under the same lock as every
 * command that changes state, and prints the action as one event line
 * (one JSON object a line with -j). It holds nothing of its own: a new
 * monitor starts with a refresh of each namespace, and a lost event (a
 * full buffer) is answered by one too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "monitor.h"
#include "nl.h"
#include "out.h"
#include "route/route.h"
#include "vec.h"
#include "xbpf.h"

/* The receive buffer asked for: room for a burst of thousands of events
 * (a link message is about 1.5 KiB) before the kernel drops any. The
 * test-only XFWD_MONITOR_RCVBUF makes it small, to show the overrun. */
#define MON_RCVBUF (8 << 20)
#define MON_NETNS_DIR "/run/netns"
/* A name in /run/netns that is not a namespace yet ("ip netns add" makes
 * the file, then mounts the namespace on it): tried again this often. */
#define MON_RETRY_MS 100

/* One namespace followed: its name (NULL: the one xfwd runs in), a
 * descriptor of it, and its event socket. */
struct mon_ns {
	char *name;
	int fd;
	struct xf_nl *nl;
	bool seen;		/* still in /run/netns at the last scan */
};

struct mon {
	struct xfwd *x;
	struct mon_ns *ns;
	int n, cap;
	int self;		/* the namespace xfwd runs in */
	int rcvbuf;
	bool pending;		/* a name of /run/netns not yet a namespace */
};

static double mon_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The action's line: the namespace (with -all), what caused it (start,
 * resync or the kinds of the batch's events), how many events, how long
 * it took, and whether it failed (its Error line is on stderr). */
static void mon_event(struct xfwd *x, const struct mon_ns *ns, const struct xf_mon_batch *b,
		      const char *cause, double ms, int err)
{
	struct xf_out *o = x->out;
	char kinds[64] = "";
	size_t len = 0;
	int k;

	if (out_is_json(o)) {
		out_str(o, "action", "refresh");
		out_str(o, "netns", ns->name);
		out_list_begin(o, "causes");
		for (k = 0; !cause && k < XF_MON_KINDS; k++)
			if (b->n[k])
				out_str(o, NULL, xf_mon_kind_name(k));
		if (cause)
			out_str(o, NULL, cause);
		out_list_end(o);
		out_int(o, "events", b->events);
		out_int(o, "us", (int64_t)(ms * 1e3));
		out_bool(o, "ok", !err);
		out_flush(o);
		return;
	}
	for (k = 0; !cause && k < XF_MON_KINDS; k++)
		if (b->n[k] && len < sizeof(kinds))
			len += snprintf(kinds + len, sizeof(kinds) - len, "%s%s", len ? "," : "",
					xf_mon_kind_name(k));
	printf("%s%s%srefresh %s events %u %.1f ms%s%s\n", ns->name ? "netns " : "",
	       ns->name ?: "", ns->name ? " " : "", cause ?: kinds, b->events, ms,
	       err ? " failed: " : "", err ? strerror(-err) : "");
	fflush(stdout);
}

/* Into namespace fd (-1: stay). 0/-errno. */
static int mon_enter(int fd)
{
	return fd < 0 || !setns(fd, CLONE_NEWNET) ? 0 : -errno;
}

/* One refresh of ns under the lock, released at once so that a human's
 * command waits for the monitor only while it works. */
static int mon_refresh(struct mon *m, struct mon_ns *ns, const struct xf_mon_batch *b,
		       const char *cause)
{
	double t0 = mon_now();
	int err;

	err = mon_enter(ns->fd);
	if (err)
		fprintf(stderr, "Error: cannot enter network namespace \"%s\": %s.\n", ns->name,
			strerror(-err));
	if (!err)
		err = xfwd_lock(m->x);
	if (!err) {
		/* Every table is walked (as long as the FIB) at start, after
		 * an overrun and after a route went: the tables copied from
		 * it then hold more than they must, on the safe side, until
		 * a walk. A route added moves its family's counter, and the
		 * refresh dumps that family alone (rt_fast_end()). */
		err = xf_route_refresh(cause || b->route_gone);
		xf_unlock(m->x->lock_fd);
		m->x->lock_fd = -1;
	}
	if (ns->fd >= 0 && mon_enter(m->self) && !err)
		err = -errno;
	mon_event(m->x, ns, b, cause, (mon_now() - t0) * 1e3, err);
	return err;
}

static void mon_ns_free(struct mon_ns *ns)
{
	xf_nl_close(ns->nl);
	if (ns->fd >= 0)
		close(ns->fd);
	free(ns->name);
}

/* Follow namespace name (NULL: the current one) from now on: subscribed
 * before its first refresh, so that nothing after the refresh is missed.
 * 0, 1 when name is not a namespace yet, or -errno after an Error line. */
static int mon_add(struct mon *m, const char *name)
{
	struct xf_mon_batch b = { 0 };
	char path[PATH_MAX];
	struct mon_ns ns = { .fd = -1 }, *p;
	int err;

	if (name) {
		snprintf(path, sizeof(path), MON_NETNS_DIR "/%s", name);
		ns.fd = open(path, O_RDONLY | O_CLOEXEC);
		if (ns.fd < 0)
			return errno == ENOENT ? 0 : 1;
		if (mon_enter(ns.fd)) {
			/* A file that is not a namespace yet. */
			close(ns.fd);
			return 1;
		}
		ns.name = strdup(name);
	}
	err = name && !ns.name ? -ENOMEM : xf_mon_open(&ns.nl, m->rcvbuf);
	if (name && mon_enter(m->self) && !err)
		err = -errno;
	p = err ? NULL : xf_vec_push(&m->ns, &m->n, &m->cap, sizeof(*m->ns));
	if (!p) {
		mon_ns_free(&ns);
		return err ?: -ENOMEM;
	}
	ns.seen = true;
	*p = ns;
	/* Capabilities or the lock: nothing another event would change. */
	err = mon_refresh(m, p, &b, "start");
	return err == -EPERM ? err : 0;
}

/* -all: the names of /run/netns against the namespaces followed: new
 * ones added, gone ones dropped. A name that is not a namespace yet
 * leaves m->pending set, for a scan again soon. 0/-errno. */
static int mon_scan(struct mon *m)
{
	struct dirent *e;
	int i, err = 0;
	DIR *d;

	m->pending = false;
	for (i = 0; i < m->n; i++)
		m->ns[i].seen = false;
	d = opendir(MON_NETNS_DIR);
	while (d && (e = readdir(d)) && err >= 0) {
		if (e->d_name[0] == '.')
			continue;
		for (i = 0; i < m->n && strcmp(m->ns[i].name, e->d_name); i++)
			;
		if (i < m->n) {
			m->ns[i].seen = true;
			continue;
		}
		err = mon_add(m, e->d_name);
		if (err == 1)
			m->pending = true;
	}
	if (d)
		closedir(d);
	for (i = m->n - 1; i >= 0; i--) {
		if (m->ns[i].seen)
			continue;
		mon_ns_free(&m->ns[i]);
		m->ns[i] = m->ns[--m->n];
	}
	return err < 0 ? err : 0;
}

static int mon_rcvbuf(void)
{
	const char *s = getenv("XFWD_MONITOR_RCVBUF");
	char *end;
	long v;

	if (!s)
		return MON_RCVBUF;
	v = strtol(s, &end, 0);
	return *s && !*end && v > 0 && v <= (1 << 30) ? (int)v : MON_RCVBUF;
}

/* SIGINT and SIGTERM as a descriptor to poll beside the sockets. */
static int mon_signals(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		sigprocmask(SIG_SETMASK, old, NULL);
	}
	return fd;
}

/* The events of every namespace that has some, each answered. */
static int mon_events(struct mon *m, const struct pollfd *p)
{
	struct xf_mon_batch b;
	int i, err;

	for (i = 0; i < m->n; i++) {
		if (!p[i].revents)
			continue;
		err = xf_mon_read(m->ns[i].nl, &b);
		if (err)
			return err;
		if (b.overrun)
			mon_refresh(m, &m->ns[i], &b, "resync");
		else if (b.events)
			mon_refresh(m, &m->ns[i], &b, NULL);
	}
	return 0;
}

/* Until SIGINT or SIGTERM: sfd, then the inotify descriptor ifd (-1
 * without -all), then each namespace's socket. 0 when a signal ended it. */
static int mon_loop(struct mon *m, int sfd, int ifd)
{
	struct pollfd *p = NULL, *q;
	int i, n, err = 0;

	for (;;) {
		n = m->n + 2;
		q = realloc(p, n * sizeof(*p));
		if (!q) {
			err = -ENOMEM;
			break;
		}
		p = q;
		for (i = 0; i < m->n; i++)
			p[i] = (struct pollfd){ .fd = xf_nl_fd(m->ns[i].nl), .events = POLLIN };
		p[m->n] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[m->n + 1] = (struct pollfd){ .fd = ifd, .events = POLLIN };
		if (poll(p, n, m->pending ? MON_RETRY_MS : -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			fprintf(stderr, "Error: cannot wait for events: %s.\n", strerror(-err));
			break;
		}
		if (p[m->n].revents) {
			struct signalfd_siginfo si;

			/* Taken off the queue: unblocked again at the end, a
			 * pending SIGTERM would end the process after all. */
			err = read(sfd, &si, sizeof(si)) < 0 ? -errno : 0;
			break;
		}
		err = mon_events(m, p);
		if (!err && ifd >= 0 && (p[m->n + 1].revents || m->pending)) {
			char buf[4096];

			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			err = mon_scan(m);
		}
		if (err)
			break;
	}
	free(p);
	return err;
}

static int monitor_run(struct xfwd *x, struct xf_args *a)
{
	struct mon m = { .x = x, .self = -1, .rcvbuf = mon_rcvbuf() };
	int err, sfd, ifd = -1, i;
	sigset_t old;

	struct xf_nl *nl;

	if (arg_more(a))
		return arg_unexpected(a);
	/* As every changing command: the capabilities, the lock and the
	 * namespace's netlink socket first (test/fuzz's seam), then the
	 * lock let go; each refresh takes it again. */
	err = xfwd_nl_locked(x, &nl);
	if (err)
		return err;
	xf_unlock(x->lock_fd);
	x->lock_fd = -1;
	sfd = mon_signals(&old);
	if (sfd < 0) {
		fprintf(stderr, "Error: cannot take SIGINT and SIGTERM: %s.\n", strerror(-sfd));
		return sfd;
	}
	if (x->all) {
		m.self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		/* Watched before the first scan: no namespace slips between. */
		ifd = m.self < 0 ? -1 : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd < 0 || (mkdir(MON_NETNS_DIR, 0755) && errno != EEXIST) ||
		    inotify_add_watch(ifd, MON_NETNS_DIR, IN_CREATE | IN_DELETE |
				      IN_MOVED_FROM | IN_MOVED_TO) < 0) {
			err = -errno;
			fprintf(stderr, "Error: cannot watch " MON_NETNS_DIR ": %s.\n",
				strerror(-err));
			goto out;
		}
		err = mon_scan(&m);
	} else {
		err = mon_add(&m, NULL);
	}
	if (!err)
		err = mon_loop(&m, sfd, ifd);
out:
	for (i = 0; i < m.n; i++)
		mon_ns_free(&m.ns[i]);
	free(m.ns);
	if (ifd >= 0)
		close(ifd);
	if (m.self >= 0)
		close(m.self);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

static const struct cmd monitor_cmds[] = {
	{ "monitor", monitor_run, "", XF_CMD_CHANGES },
	{ }
};

const struct object monitor_object = {
	.name = "monitor", .cmds = monitor_cmds, .dflt = "monitor",
	.summary = "keep forwarding sets current as the kernel's state changes",
	.command = true,
};
