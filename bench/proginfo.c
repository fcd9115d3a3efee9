// SPDX-License-Identifier: GPL-2.0
/* proginfo: what the kernel says of a loaded BPF program, for the profile
 * pass of make bench.
 *
 *   proginfo ID [ FILE ]
 *
 * Prints one JSON line: id, name, JITed and xlated sizes, the verifier's
 * processed instruction count (bpftool's JSON leaves it out) and the
 * run-time statistics (run_time_ns, run_cnt; they grow only while
 * kernel.bpf_stats_enabled is on). With FILE, writes the JIT image there,
 * raw, for objdump -b binary: this machine's bpftool is built without a
 * disassembler and refuses "dump jited" altogether.
 *
 *   proginfo ID --lines
 *
 * Prints instead one line per record of the kernel's JITed line info, for
 * bench/hotlines: the kernel address the record starts at (hex), then
 * file:line of the source. The records come from the program's BTF (an
 * object built with -g); a sample address belongs to the last record at
 * or below it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "arg.h"
#include "out.h"

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
	__u32 len = sizeof(info), id, size;
	unsigned char *img = NULL;
	struct xf_out *o;
	int fd, err = 1;
	FILE *f;

	if (argc < 2 || argc > 3 || xf_parse_u32(argv[1], &id)) {
		fprintf(stderr, "Usage: proginfo ID [ FILE | --lines ]\n");
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
	if (argc == 3 && !strcmp(argv[2], "--lines")) {
		int e = info.nr_jited_line_info && info.nr_jited_line_info == info.nr_line_info ?
			lines_print(fd, &info) : -ENODATA;

		if (e)
			fprintf(stderr, "Error: program %u: no JITed line info: %s.\n", id,
				strerror(-e));
		err = !!e;
		goto out;
	}
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
	f = argc == 3 ? fopen(argv[2], "w") : NULL;
	if (argc == 3 && (!f || fwrite(img, 1, size, f) != size || fclose(f))) {
		fprintf(stderr, "Error: cannot write \"%s\": %s.\n", argv[2], strerror(errno));
		goto out;
	}
	o = out_new(stdout, OUT_JSON);
	if (!o) {
		errno = ENOMEM;
		goto fail;
	}
	out_u64(o, "id", info.id);
	/* The kernel's name is not NUL-terminated when it fills the field. */
	out_strf(o, "name", "%.*s", (int)sizeof(info.name), info.name);
	out_u64(o, "type", info.type);
	out_u64(o, "jited", size);
	out_u64(o, "xlated", info.xlated_prog_len);
	out_u64(o, "verified_insns", info.verified_insns);
	out_u64(o, "run_time_ns", info.run_time_ns);
	out_u64(o, "run_cnt", info.run_cnt);
	out_flush(o);
	out_free(o);
	err = 0;
	goto out;
fail:
	fprintf(stderr, "Error: program %u: %s.\n", id, strerror(errno));
out:
	free(img);
	close(fd);
	return err;
}
