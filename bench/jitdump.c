// SPDX-License-Identifier: GPL-2.0
/* jitdump: the JITed machine code of a loaded BPF program, raw.
 *
 *   jitdump ID FILE
 *
 * Writes program ID's JIT image to FILE, for objdump -b binary to
 * disassemble: this machine's bpftool is built without a disassembler and
 * refuses "dump jited" altogether. Prints one JSON line: id, name, JITed
 * and xlated sizes, and the verifier's processed instruction count. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "arg.h"

int main(int argc, char **argv)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), id, size;
	unsigned char *img = NULL;
	int fd, err = 1;
	FILE *f;

	if (argc != 3 || xf_parse_u32(argv[1], &id)) {
		fprintf(stderr, "Usage: jitdump ID FILE\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		fprintf(stderr, "Error: no program of id \"%s\": %s.\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		goto fail;
	size = info.jited_prog_len;
	img = calloc(1, size ?: 1);
	if (!img)
		goto fail;
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = size;
	info.jited_prog_insns = (__u64)(unsigned long)img;
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		goto fail;
	f = fopen(argv[2], "w");
	if (!f || fwrite(img, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "Error: cannot write \"%s\": %s.\n", argv[2], strerror(errno));
		goto out;
	}
	printf("{\"id\":%u,\"name\":\"%s\",\"jited\":%u,\"xlated\":%u,\"verified_insns\":%u}\n",
	       info.id, info.name, size, info.xlated_prog_len, info.verified_insns);
	err = 0;
	goto out;
fail:
	fprintf(stderr, "Error: program %u: %s.\n", id, strerror(errno));
out:
	free(img);
	close(fd);
	return err;
}
