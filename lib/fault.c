// SPDX-License-Identifier: GPL-2.0
/* Test-only fault injection (XFWD_FAULT): every bpf(2) call and every
 * netlink request xfwd makes is counted, and the Nth fails or kills the
 * process, so the tests can prove that each step of a command rolls back.
 *
 * libbpf makes its bpf(2) calls through libc's syscall(). This file
 * defines syscall() itself; the dynamic linker binds libbpf's calls to the
 * executable's definition first, so they are counted here without any
 * change to libbpf. That hook gets no context pointer from its callers,
 * which is why the counter is file-static state: one small struct, set
 * once by main() through xf_fault_init() and read-only otherwise. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "fault.h"

enum fault_mode { FAULT_OFF, FAULT_COUNT, FAULT_FAIL, FAULT_KILL };

struct fault {
	enum fault_mode mode;
	unsigned long at;	/* the call to fail or kill at, from 1 */
	unsigned long calls;	/* made so far */
	int err;		/* errno for FAULT_FAIL */
};

static struct fault fault;

static void fault_report(void)
{
	fprintf(stderr, "xfwd: fault: %lu kernel calls\n", fault.calls);
}

static int fault_number(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || (*end && *end != ':') || !*v ? -EINVAL : 0;
}

int xf_fault_init(const char *spec)
{
	unsigned long e = EIO;
	const char *p = spec;

	if (!spec || !*spec)
		return 0;
	if (!strcmp(spec, "count")) {
		fault.mode = FAULT_COUNT;
		atexit(fault_report);
		return 0;
	}
	fault.mode = FAULT_FAIL;
	if (!strncmp(p, "fail:", 5)) {
		p += 5;
	} else if (!strncmp(p, "kill:", 5)) {
		p += 5;
		fault.mode = FAULT_KILL;
	}
	if (fault_number(p, &fault.at))
		goto bad;
	p = strchr(p, ':');
	if (p && (fault.mode != FAULT_FAIL || fault_number(p + 1, &e) ||
		  strchr(p + 1, ':') || e > 4095))
		goto bad;
	fault.err = e;
	atexit(fault_report);
	return 0;
bad:
	fault.mode = FAULT_OFF;
	fprintf(stderr, "Error: invalid value \"%s\" for %s.\n", spec, XF_FAULT_ENV);
	return -EINVAL;
}

int xf_fault_step(const char *what)
{
	if (fault.mode == FAULT_OFF)
		return 0;
	fault.calls++;
	if (fault.mode == FAULT_COUNT || fault.calls != fault.at)
		return 0;
	if (fault.mode == FAULT_KILL) {
		fprintf(stderr, "xfwd: fault: killed at kernel call %lu (%s)\n", fault.calls,
			what);
		raise(SIGKILL);
	}
	fprintf(stderr, "xfwd: fault: failing kernel call %lu (%s): %s\n", fault.calls, what,
		strerror(fault.err));
	errno = fault.err;
	return -fault.err;
}

/* Whether a bpf(2) call is one of libbpf's feature probes: a program or
 * map it names "libbpf_..." to learn what the kernel takes. A probe that
 * failed would make libbpf leave a feature out for the whole process
 * (program names, for one): a state of libbpf's own, which no rollback of
 * xfwd's could undo. They are neither counted nor failed. */
static bool fault_libbpf_probe(long cmd, const union bpf_attr *attr)
{
	const char *name = cmd == BPF_PROG_LOAD ? attr->prog_name :
			   cmd == BPF_MAP_CREATE ? attr->map_name : NULL;

	return name && !strncmp(name, "libbpf_", 7);
}

/* Our syscall(): count bpf(2), pass everything to libc's. */
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_bpf && !fault_libbpf_probe(a[0], (const union bpf_attr *)a[1])) {
		char what[32];

		snprintf(what, sizeof(what), "bpf cmd %ld", a[0]);
		if (xf_fault_step(what))
			return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
