// SPDX-License-Identifier: GPL-2.0
/* chain: profile, the timed build swapped in for a while and back.
 *
 *   begin   build the timed chain (same members, rules, maps, counters);
 *           write XF_RUN_ROOT/ns<id>/<ifindex>/profiling (PID, its start
 *           time, the timed program's id); pin the running program as
 *           "chain_normal"; swap, BPF_F_REPLACE against the normal one
 *   ...     the caller waits, without the lock
 *   end     swap back, BPF_F_REPLACE against the timed one (if another
 *           command replaced it, that one stays); read the timing map and
 *           the timed program's run time; unpin, unlink; keep "profile"
 *
 * A profiler killed between begin and end leaves the pin and the file:
 * xf_chain_profile_recover() (every locked xfwd command) finds the PID
 * gone and swaps the pinned normal program back.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "usage.h"
#include "internal.h"
#include "chain/chain.h"
#include "file.h"
#include "xbpf.h"

struct xf_chain_prof_run {
	struct chain_if c;
	int timed_fd;		/* the timing map */
	int prog_fd;		/* the timed program */
	int normal_fd;		/* the normal program */
	int stats_fd;		/* bpf_enable_stats(), or -1 */
	struct timespec t0;
	struct xf_chain_profile p;
};

/* A process's start time (field 22 of /proc/PID/stat), 0 if gone. */
static unsigned long long proc_start(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	int fd, i;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces */
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (p)
		t = strtoull(p + 1, NULL, 10);
	return t;
}

struct prof_state {
	int pid;
	unsigned long long start;
	uint32_t timed_id;
};

/* ifindex's run file name (XF_RUN_ROOT/ns<id>/<ifindex>/name), open to
 * read, or NULL with -errno in *err. */
static FILE *run_file_open(int ifindex, const char *name, int *err)
{
	char path[CHAIN_PATH_LEN];
	FILE *f;

	if (xf_run_path(path, sizeof(path), ifindex, name)) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	f = fopen(path, "re");
	if (!f)
		*err = -errno;
	return f;
}

static int state_read(int ifindex, struct prof_state *s)
{
	FILE *f;
	int ok, err;

	memset(s, 0, sizeof(*s));
	f = run_file_open(ifindex, "profiling", &err);
	if (!f)
		return err;
	ok = fscanf(f, "%d %llu %u", &s->pid, &s->start, &s->timed_id) == 3;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static bool state_alive(const struct prof_state *s)
{
	return s->pid > 0 && s->start && proc_start(s->pid) == s->start;
}

static int state_write(const struct chain_if *c, uint32_t timed_id)
{
	char path[CHAIN_PATH_LEN + 16];
	FILE *f;
	int err;

	err = xf_pin_mkdir(c->run);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/profiling", c->run);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "%d %llu %u\n", (int)getpid(), proc_start(getpid()), timed_id);
	return fclose(f) ? -errno : 0;
}

static uint32_t link_prog_id(int link_fd)
{
	struct bpf_link_info li = { 0 };
	uint32_t len = sizeof(li);

	return bpf_link_get_info_by_fd(link_fd, &li, &len) ? 0 : li.prog_id;
}

/* Swap link from program old_fd to new_fd, only if old_fd runs. 0/-errno
 * (-EPERM: another program runs). */
static int swap(int link_fd, int new_fd, int old_fd)
{
	LIBBPF_OPTS(bpf_link_update_opts, uo, .flags = BPF_F_REPLACE, .old_prog_fd = old_fd);

	return bpf_link_update(link_fd, new_fd, &uo) ? -errno : 0;
}

/* The normal program back on ifindex's chain if the profiler s is gone.
 * 1 if swapped back, 0 if nothing to do, -errno. */
static int recover_one(int ifindex)
{
	char dir[CHAIN_PATH_LEN], name[IF_NAMESIZE];
	struct prof_state s;
	int normal_fd, link_fd, timed_fd = -1, ret = 0;

	if (xf_pin_path(dir, sizeof(dir), ifindex, NULL))
		return 0;
	normal_fd = xf_pin_get(dir, "chain_normal");
	if (normal_fd < 0 && state_read(ifindex, &s) == -ENOENT)
		return 0;
	if (!state_read(ifindex, &s) && state_alive(&s)) {
		if (normal_fd >= 0)
			close(normal_fd);
		return 0;
	}
	link_fd = xf_pin_get(dir, "xdp_link");
	if (normal_fd >= 0 && link_fd >= 0 && s.timed_id &&
	    link_prog_id(link_fd) == s.timed_id) {
		timed_fd = bpf_prog_get_fd_by_id(s.timed_id);
		ret = timed_fd < 0 ? -errno : swap(link_fd, normal_fd, timed_fd);
		if (!ret) {
			ret = 1;
			fprintf(stderr, "Warning: the chain profile of %s (PID %d) ended without "
				"swapping back; the normal build runs again.\n",
				if_indextoname(ifindex, name) ? name : "?", s.pid);
		}
	}
	/* Swapped back, or the timed build does not run (never swapped in,
	 * or replaced by another change): the state goes. */
	if (ret >= 0) {
		xf_pin_remove(ifindex, "chain_normal");
		xf_run_remove(ifindex, "profiling");
	}
	if (timed_fd >= 0)
		close(timed_fd);
	if (link_fd >= 0)
		close(link_fd);
	if (normal_fd >= 0)
		close(normal_fd);
	return ret;
}

int xf_chain_profile_recover(void)
{
	int ifx[256], n, i, done = 0;

	n = xf_layout_ifindexes(false, ifx, 256);
	for (i = 0; i < n; i++)
		done += recover_one(ifx[i]) > 0;
	n = xf_layout_ifindexes(true, ifx, 256);
	for (i = 0; i < n; i++)
		done += recover_one(ifx[i]) > 0;
	return done;
}

static void run_free(struct xf_chain_prof_run *r)
{
	xf_fd_close(&r->timed_fd);
	xf_fd_close(&r->prog_fd);
	xf_fd_close(&r->normal_fd);
	xf_fd_close(&r->stats_fd);
	chain_if_close(&r->c);
	free(r);
}

int xf_chain_profile_begin(struct xf_nl *nl, const char *dev, struct xf_chain_prof_run **rp)
{
	struct xf_chain_prof_run *r;
	struct prof_state s;
	char msg[512];
	uint32_t i;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->timed_fd = r->prog_fd = r->normal_fd = r->stats_fd = -1;
	err = chain_if_open(nl, dev, false, &r->c);
	if (!err && !r->c.d.n) {
		fprintf(stderr, "Error: %s has no xfwd chain.\n", dev);
		err = -XF_EUSAGE;
	}
	if (err)
		goto fail;
	if (!state_read(r->c.l.ifindex, &s) && state_alive(&s)) {
		fprintf(stderr, "Error: the chain of %s is being profiled by PID %d.\n", dev,
			s.pid);
		err = -EBUSY;
		goto fail;
	}
	/* A dead profiler's timed build is not the normal program to keep. */
	if (recover_one(r->c.l.ifindex) > 0) {
		chain_if_close(&r->c);
		err = chain_if_open(nl, dev, false, &r->c);
		if (err)
			goto fail;
	}
	r->timed_fd = xf_chain_timed_create();
	if (r->timed_fd < 0) {
		err = r->timed_fd;
		fprintf(stderr, "Error: cannot create the timing map: %s.\n", strerror(-err));
		goto fail;
	}
	r->prog_fd = chain_build(&r->c, &r->c.d, r->c.cnt_fd, r->timed_fd, msg, sizeof(msg));
	if (r->prog_fd < 0) {
		err = r->prog_fd;
		fprintf(stderr, "Error: the timed build: %s.\n", msg);
		goto fail;
	}
	r->normal_fd = bpf_prog_get_fd_by_id(link_prog_id(r->c.link_fd));
	if (r->normal_fd < 0) {
		err = -errno;
		fprintf(stderr, "Error: cannot open the chain's program on %s: %s.\n", dev,
			strerror(-err));
		goto fail;
	}
	/* The chain's own total: run time counted while this fd is open. */
	r->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	r->p.n = r->c.d.n;
	for (i = 0; i < r->c.d.n; i++) {
		memcpy(r->p.m[i].name, r->c.d.m[i].name, sizeof(r->p.m[i].name));
		r->p.m[i].slot = r->c.d.m[i].slot;
	}
	err = state_write(&r->c, xf_prog_id(r->prog_fd));
	if (!err)
		err = xf_pin_obj(r->normal_fd, r->c.pin, "chain_normal");
	if (!err)
		err = swap(r->c.link_fd, r->prog_fd, r->normal_fd);
	if (err) {
		fprintf(stderr, "Error: cannot swap in the timed build on %s: %s.\n", dev,
			strerror(-err));
		xf_pin_remove(r->c.l.ifindex, "chain_normal");
		xf_run_remove(r->c.l.ifindex, "profiling");
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	r->p.time = time(NULL);
	*rp = r;
	return 0;
fail:
	run_free(r);
	return err;
}

/* Keep p as dir/profile, for show. Best effort. */
static void result_write(const struct chain_if *c, const struct xf_chain_profile *p)
{
	char path[CHAIN_PATH_LEN + 16], tmp[CHAIN_PATH_LEN + 32];
	FILE *f;
	uint32_t i;

	snprintf(path, sizeof(path), "%s/profile", c->run);
	snprintf(tmp, sizeof(tmp), "%s/.profile-%d", c->run, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "%lld %.6f %.6f %.6f %llu %llu %d %d %u\n", (long long)p->time, p->duration,
		p->overhead, p->step, (unsigned long long)p->packets,
		(unsigned long long)p->run_ns, p->has_total, p->changed, p->n);
	for (i = 0; i < p->n; i++)
		fprintf(f, "%u %llu %llu %s\n", p->m[i].slot, (unsigned long long)p->m[i].runs,
			(unsigned long long)p->m[i].ns, p->m[i].name);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

int xf_chain_profile_last(int ifindex, struct xf_chain_profile *p, int *profiling)
{
	unsigned long long pk, rn, ru, ns;
	struct prof_state s;
	long long t;
	int tot, ch, err = 0;
	unsigned int i, slot;
	FILE *f;

	*profiling = !state_read(ifindex, &s) && state_alive(&s) ? s.pid : 0;
	memset(p, 0, sizeof(*p));
	f = run_file_open(ifindex, "profile", &err);
	if (!f)
		return err;
	if (fscanf(f, "%lld %lf %lf %lf %llu %llu %d %d %u", &t, &p->duration, &p->overhead,
		   &p->step, &pk, &rn, &tot, &ch, &p->n) != 9 || p->n > XF_CHAIN_MAX)
		err = -EINVAL;
	p->time = t;
	p->packets = pk;
	p->run_ns = rn;
	p->has_total = tot;
	p->changed = ch;
	for (i = 0; !err && i < p->n; i++) {
		if (fscanf(f, "%u %llu %llu %15s", &slot, &ru, &ns, p->m[i].name) != 4 ||
		    slot >= XF_CHAIN_MAX)
			err = -EINVAL;
		p->m[i].slot = slot;
		p->m[i].runs = ru;
		p->m[i].ns = ns;
	}
	fclose(f);
	return err;
}

/* The timing's own cost, from the calibration block that ran with every
 * packet (put_time_cal() in link.c): overhead, the empty region (one
 * clock read); step, the whole timed step around an empty member (the
 * outer region less the clock read it holds). */
static void cal(struct xf_chain_profile *p, const uint64_t t[XF_CHAIN_TIMED_SLOTS][2])
{
	const uint64_t *e = t[XF_CHAIN_CAL_EMPTY], *w = t[XF_CHAIN_CAL_STEP];

	p->whole_ns = t[XF_CHAIN_CAL_WHOLE][0];
	p->whole_runs = t[XF_CHAIN_CAL_WHOLE][1];
	p->overhead = e[1] ? (double)e[0] / e[1] : 0;
	p->step = w[1] ? (double)w[0] / w[1] - p->overhead : 0;
	if (p->step < p->overhead)
		p->step = p->overhead;
}

int xf_chain_profile_end(struct xf_chain_prof_run *r, struct xf_chain_profile *p)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info), i;
	uint64_t t[XF_CHAIN_TIMED_SLOTS][2];
	struct timespec t1;
	int err;

	/* Once more if the kernel refused for another reason than the two
	 * below: the alternative, the timed build until the next command,
	 * is worse than a second try. */
	err = swap(r->c.link_fd, r->normal_fd, r->prog_fd);
	if (err && err != -EPERM && err != -ENOLINK)
		err = swap(r->c.link_fd, r->normal_fd, r->prog_fd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err == -EPERM || err == -ENOLINK) {
		/* Another command changed the chain (its build runs now) or
		 * deleted it (the link is detached). */
		r->p.changed = true;
		err = 0;
	} else if (err) {
		fprintf(stderr, "Error: cannot swap the normal build back on %s: %s; the next "
			"xfwd command will.\n", r->c.l.name, strerror(-err));
		run_free(r);
		return err;
	}
	xf_pin_remove(r->c.l.ifindex, "chain_normal");
	xf_run_remove(r->c.l.ifindex, "profiling");
	r->p.duration = (t1.tv_sec - r->t0.tv_sec) + (t1.tv_nsec - r->t0.tv_nsec) / 1e9;
	/* Counted while our stats fd was open, or while the sysctl
	 * kernel.bpf_stats_enabled was on (a profiler without CAP_SYS_ADMIN). */
	if (!bpf_prog_get_info_by_fd(r->prog_fd, &info, &len) &&
	    (r->stats_fd >= 0 || info.run_cnt)) {
		r->p.has_total = true;
		r->p.packets = info.run_cnt;
		r->p.run_ns = info.run_time_ns;
	}
	err = xf_chain_timed_read(r->timed_fd, t);
	if (err) {
		fprintf(stderr, "Error: cannot read the timing map: %s.\n", strerror(-err));
	} else {
		for (i = 0; i < r->p.n; i++) {
			r->p.m[i].ns = t[r->p.m[i].slot][0];
			r->p.m[i].runs = t[r->p.m[i].slot][1];
		}
		cal(&r->p, t);
		result_write(&r->c, &r->p);
		*p = r->p;
	}
	run_free(r);
	return err;
}

double xf_chain_profile_ns(const struct xf_chain_profile *p, uint32_t i)
{
	double v;

	if (i >= p->n || !p->m[i].runs)
		return 0;
	v = (double)p->m[i].ns / p->m[i].runs - p->overhead;
	return v > 0 ? v : 0;
}

/* Member steps per packet (a member skipped or called twice counts so). */
static double steps_per_packet(const struct xf_chain_profile *p, uint64_t packets)
{
	double steps = 0;
	uint32_t i;

	for (i = 0; i < p->n; i++)
		steps += p->m[i].runs;
	return packets ? steps / packets : 0;
}

/* Each packet ran one timed step per member run, the span of the whole
 * program (about a step: two clock reads and its sum) and the
 * calibration (about two). */
double xf_chain_profile_cost(const struct xf_chain_profile *p)
{
	return p->packets ? (steps_per_packet(p, p->packets) + 3) * p->step : 0;
}

double xf_chain_profile_total(const struct xf_chain_profile *p)
{
	if (!p->has_total || !p->packets)
		return 0;
	return (double)p->run_ns / p->packets - xf_chain_profile_cost(p);
}

/* The members' ns per packet, net of the timing. */
static double members_per_packet(const struct xf_chain_profile *p, uint64_t packets)
{
	double v = 0;
	uint32_t i;

	for (i = 0; i < p->n; i++)
		v += xf_chain_profile_ns(p, i) * p->m[i].runs;
	return packets ? v / packets : 0;
}

/* The span from the program's first instruction to its end holds one
 * clock read, a timed step per member run and the dispatcher. */
double xf_chain_profile_dispatcher(const struct xf_chain_profile *p)
{
	uint64_t n = p->whole_runs;

	if (!n)
		return 0;
	return (double)p->whole_ns / n - p->overhead - steps_per_packet(p, n) * p->step -
	       members_per_packet(p, n);
}

double xf_chain_profile_entry(const struct xf_chain_profile *p)
{
	if (!p->has_total || !p->packets)
		return 0;
	return xf_chain_profile_total(p) - members_per_packet(p, p->packets) -
	       xf_chain_profile_dispatcher(p);
}
