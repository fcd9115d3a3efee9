// SPDX-License-Identifier: GPL-2.0
/* xfwd monitor: a long-running command that keeps the namespace's
 * forwarding set current. It follows rtnetlink (lib/monitor.c) and, after
 * every batch of events that can change what the fast path copies from
 * the kernel, does what route refresh does, under the same lock as every
 * command that changes state, and prints the action as one event line
 * (one JSON object a line with -j). It holds nothing of its own: a new
 * monitor starts with a refresh, and a lost event (a full buffer) is
 * answered by one too. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "monitor.h"
#include "nl.h"
#include "out.h"
#include "route/route.h"
#include "xbpf.h"

/* The receive buffer asked for: room for a burst of thousands of events
 * (a link message is about 1.5 KiB) before the kernel drops any. The
 * test-only XFWD_MONITOR_RCVBUF makes it small, to show the overrun. */
#define MON_RCVBUF (8 << 20)

static double mon_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The action's line: what caused it (start, resync or the kinds of the
 * batch's events), how many events, how long it took, and whether it
 * failed (its Error line is on stderr). */
static void mon_event(struct xfwd *x, const struct xf_mon_batch *b, const char *cause,
		      double ms, int err)
{
	struct xf_out *o = x->out;
	char kinds[64] = "";
	size_t len = 0;
	int k;

	if (out_is_json(o)) {
		out_str(o, "action", "refresh");
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
	printf("refresh %s events %u %.1f ms%s%s\n", cause ?: kinds, b->events, ms,
	       err ? " failed: " : "", err ? strerror(-err) : "");
	fflush(stdout);
}

/* One refresh under the lock, released at once so that a human's
 * command waits for the monitor only while it works. */
static int mon_refresh(struct xfwd *x, const struct xf_mon_batch *b, const char *cause)
{
	double t0 = mon_now();
	int err;

	err = xfwd_lock(x);
	if (!err) {
		err = xf_route_refresh();
		xf_unlock(x->lock_fd);
		x->lock_fd = -1;
	}
	mon_event(x, b, cause, (mon_now() - t0) * 1e3, err);
	return err;
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

/* SIGINT and SIGTERM as a descriptor to poll beside the socket. */
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

static int monitor_run(struct xfwd *x, struct xf_args *a)
{
	struct xf_mon_batch b = { 0 };
	struct pollfd p[2];
	struct xf_nl *nl;
	sigset_t old;
	int err, sfd;

	if (arg_more(a))
		return arg_unexpected(a);
	/* Subscribed before the first refresh: nothing that happens after
	 * it is missed. */
	err = xf_mon_open(&nl, mon_rcvbuf());
	if (err)
		return err;
	sfd = mon_signals(&old);
	if (sfd < 0) {
		fprintf(stderr, "Error: cannot take SIGINT and SIGTERM: %s.\n", strerror(-sfd));
		xf_nl_close(nl);
		return sfd;
	}
	err = mon_refresh(x, &b, "start");
	/* Capabilities or the lock: nothing the next event would change. */
	if (err == -EPERM)
		goto out;
	p[0] = (struct pollfd){ .fd = xf_nl_fd(nl), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			fprintf(stderr, "Error: cannot wait for events: %s.\n", strerror(-err));
			break;
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;

			/* Taken off the queue: unblocked again at the end, a
			 * pending SIGTERM would end the process after all. */
			err = read(sfd, &si, sizeof(si)) < 0 ? -errno : 0;
			break;
		}
		err = xf_mon_read(nl, &b);
		if (err)
			break;
		if (b.overrun)
			mon_refresh(x, &b, "resync");
		else if (b.events)
			mon_refresh(x, &b, NULL);
	}
out:
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	xf_nl_close(nl);
	return err;
}

static const struct cmd monitor_cmds[] = {
	{ "monitor", monitor_run, "", XF_CMD_CHANGES },
	{ }
};

const struct object monitor_object = {
	.name = "monitor", .cmds = monitor_cmds, .dflt = "monitor",
	.summary = "keep the namespace's forwarding set current as the kernel's state changes",
	.command = true,
};
