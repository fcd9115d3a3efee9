// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/xbpf.c: the verifier log summary (libbpf's framing
 * and the instruction trace left out) and the lock. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "xbpf.h"

static const char verifier_log[] =
	"libbpf: prog 'xf_route_xdp': BPF program load failed: Permission denied\n"
	"libbpf: prog 'xf_route_xdp': -- BEGIN PROG LOAD LOG --\n"
	"func#0 @0\n"
	"0: R1=ctx() R10=fp0\n"
	"; void *data = (void *)(long)ctx->data; @ route.bpf.c:40\n"
	"0: (61) r2 = *(u32 *)(r1 +0)          ; R1=ctx() R2_w=pkt(r=0)\n"
	"1: (71) r3 = *(u8 *)(r2 +12)\n"
	"invalid access to packet, off=12 size=1, R2(id=0,off=12,r=0)\n"
	"R2 offset is outside of the packet\n"
	"processed 2 insns (limit 1000000) max_states_per_insn 0 total_states 0\n"
	"-- END PROG LOAD LOG --\n"
	"libbpf: prog 'xf_route_xdp': failed to load: -13\n";

int main(void)
{
	struct check c = { 0 };
	char buf[512];
	int fd = -1, fd2 = -1;

	check_str(&c, xf_verifier_summary(verifier_log, 3, buf, sizeof(buf)),
		  "invalid access to packet, off=12 size=1, R2(id=0,off=12,r=0) | "
		  "R2 offset is outside of the packet", __LINE__);
	check_str(&c, xf_verifier_summary("", 3, buf, sizeof(buf)), "", __LINE__);
	/* libbpf 1.4 may say it has no BPF token after the real reason. */
	check_str(&c, xf_verifier_summary(
			  "libbpf: map 'xf_rt_tx': failed to create: Operation not permitted(-1)\n"
			  "libbpf: object 'route_bpf': failed (-1) to create BPF token from "
			  "'/sys/fs/bpf', skipping optional step...\n", 3, buf, sizeof(buf)),
		  "map 'xf_rt_tx': failed to create: Operation not permitted(-1)", __LINE__);
	check_str(&c, xf_verifier_summary(verifier_log, 1, buf, 20), "R2 offset is outsid",
		  __LINE__);

	/* The lock is exclusive: a second taker without waiting is told busy.
	 * (Only where /run is writable, i.e. as root.) */
	if (geteuid() == 0) {
		check_true(&c, !xf_lock(&fd, false), "first lock", __LINE__);
		check_true(&c, xf_lock(&fd2, true) == -EBUSY, "second lock busy", __LINE__);
		xf_unlock(fd);
		check_true(&c, !xf_lock(&fd2, true), "free again", __LINE__);
		xf_unlock(fd2);
	}
	return check_done(&c, "test_xbpf");
}
