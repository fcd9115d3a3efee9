/* SPDX-License-Identifier: GPL-2.0 */
/* The benchmarks' two clocks: wall time and this process's CPU time. */
#ifndef XF_BENCH_CLOCK_H
#define XF_BENCH_CLOCK_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic wall-clock seconds. */
static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds this process used so far, user and system. */
static inline double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

#endif
