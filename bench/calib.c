// SPDX-License-Identifier: GPL-2.0
/* calib: a fixed CPU-bound loop, timed, for the noise record of make bench.
 *
 *   calib [ ITERATIONS ]
 *
 * Runs ITERATIONS (default 200 million) steps of a xorshift generator whose
 * result is kept, so the compiler cannot drop the loop, and prints one JSON
 * line: wall and CPU time of the loop, and wall ns per step. On a quiet
 * machine the two times agree and ns per step is the same from run to
 * run; a wall time above the CPU time, or a slower step than the last
 * calibration, is other work on the machine taking the CPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"
#include "out.h"

int main(int argc, char **argv)
{
	uint64_t n = 200000000, i, x = 88172645463325252ull;
	volatile uint64_t keep;
	double t0, c0, wall, cpu;
	struct xf_out *o;
	char *end;

	if (argc > 2 || (argc == 2 && ((n = strtoull(argv[1], &end, 0)) == 0 || *end))) {
		fprintf(stderr, "Usage: calib [ ITERATIONS ]\n");
		return 2;
	}
	t0 = mono_s();
	c0 = cpu_s();
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	keep = x;
	wall = mono_s() - t0;
	cpu = cpu_s() - c0;
	(void)keep;
	o = out_new(stdout, OUT_JSON);
	if (!o) {
		fprintf(stderr, "Error: out of memory.\n");
		return 1;
	}
	out_u64(o, "iterations", n);
	out_real(o, "wall_s", wall, 4);
	out_real(o, "cpu_s", cpu, 4);
	out_real(o, "ns_per_iter", wall * 1e9 / n, 4);
	out_flush(o);
	out_free(o);
	return 0;
}
