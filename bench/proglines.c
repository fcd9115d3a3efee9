// SPDX-License-Identifier: GPL-2.0
/* proglines: where each source line of a loaded BPF program landed in its
 * JIT image, for bench/hotlines.
 *
 *   proglines ID
 *
 * Prints one line per record of the kernel's JITed line info: the kernel
 * address the record starts at (hex), then file:line of the source. The
 * records come from the program's BTF (an object built with -g); a sample
 * address belongs to the last record at or below it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "arg.h"

static int lines_print(int fd, const struct bpf_prog_info *sizes)
{
	__u32 n = sizes->nr_line_info, rec = sizes->line_info_rec_size;
	struct bpf_prog_info info;
	__u32 len = sizeof(info), i;
	struct btf *btf = NULL;
	__u64 *jited = calloc(n, sizeof(*jited));
	char *recs = calloc(n, rec);
	int err = -ENOMEM;

	if (!jited || !recs)
		goto out;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = n;
	info.line_info_rec_size = rec;
	info.line_info = (__u64)(unsigned long)recs;
	info.nr_jited_line_info = n;
	info.jited_line_info_rec_size = sizeof(__u64);
	info.jited_line_info = (__u64)(unsigned long)jited;
	if (bpf_prog_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct bpf_line_info *l = (const void *)(recs + (size_t)i * rec);
		const char *file = btf__name_by_offset(btf, l->file_name_off);
		const char *slash = file ? strrchr(file, '/') : NULL;

		printf("%llx %s:%u\n", (unsigned long long)jited[i],
		       slash ? slash + 1 : (file ?: "?"), BPF_LINE_INFO_LINE_NUM(l->line_col));
	}
	err = 0;
out:
	btf__free(btf);
	free(jited);
	free(recs);
	return err;
}

int main(int argc, char **argv)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), id;
	int fd, err;

	if (argc != 2 || xf_parse_u32(argv[1], &id)) {
		fprintf(stderr, "Usage: proglines ID\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		fprintf(stderr, "Error: no program of id \"%s\": %s.\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	err = bpf_prog_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	if (!err && (!info.nr_jited_line_info || info.nr_jited_line_info != info.nr_line_info))
		err = -ENODATA;
	if (!err)
		err = lines_print(fd, &info);
	close(fd);
	if (err) {
		fprintf(stderr, "Error: program %u: no JITed line info: %s.\n", id, strerror(-err));
		return 1;
	}
	return 0;
}
