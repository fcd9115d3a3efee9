// SPDX-License-Identifier: GPL-2.0
/* chainstep: the cost of one chain step, linked chain against tail calls
 * and against a hash-map chain-call lookup.
 *
 *   chainstep [ --progs DIR ] [ --bench-progs DIR ] [ --rounds N ]
 *
 * Builds, from DIR's pass.bpf.o and tail_step.bpf.o (default: test/progs
 * next to the binary's build directory) and --bench-progs DIR's
 * hash_step.bpf.o (default: progs next to the binary), chains of 1, 2, 4,
 * 8 and 16 members: linked by xf_chain_load() with counters ("inlined",
 * what xfwd chain attaches) and without ("inlined-nocnt"), as tail-call
 * chains ("tail"), and as chain-call chains in the manner of seed 001
 * ("hash": a hash map keyed by (program id, return code) names the next
 * program, then a tail call), plus one pass program alone ("single").
 * Each runs with BPF_PROG_RUN, repeat 1e6, on a 64-byte packet; the
 * kernel's test.duration (ns per packet) is the figure. Every round runs
 * every configuration, in an order rotated each round.
 *
 * stdout: one JSON line per configuration and round, for bench/run:
 *   {"suite":"chain_step","config":"inlined-16","members":16,"round":1,"value":12}
 * and at the end one line of this process's CPU use:
 *   {"noise":"gen_cpu","suite":"chain_step","cpu_s":1.2,"seconds":1.3}
 * stderr: medians, and the cost per added member (least-squares slope
 * over the chains of 2 to 16 members, per round, then the median). */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "arg.h"
#include "chain/build.h"
#include "clock.h"
#include "out.h"
#include "xbpf.h"

#define REPEAT 1000000
#define MAX_ROUNDS 99
#define MAX_LEN 16
#define N_LENS 5
#define N_KINDS 5
#define N_CFGS (1 + 4 * N_LENS)

static const int lens[N_LENS] = { 1, 2, 4, 8, MAX_LEN };

enum kind { K_SINGLE, K_INLINED, K_NOCNT, K_TAIL, K_HASH };

static const char *const kind_names[N_KINDS] = {
	"single", "inlined", "inlined-nocnt", "tail", "hash"
};

struct cfg {
	enum kind kind;
	int members;
	int fd;			/* program to run */
	int cnt_fd;		/* chain counters, or -1 */
	char name[32];
	unsigned int ns[MAX_ROUNDS];
};

struct bench {
	char dir[PATH_MAX];
	char bdir[PATH_MAX];
	unsigned int rounds;
	struct bpf_object *pass[MAX_LEN];
	/* Tail-call and hash chains: every step is an object of its own. */
	struct bpf_object *tail[N_LENS][MAX_LEN];
	struct bpf_object *hash[N_LENS][MAX_LEN];
	struct cfg cfg[N_CFGS];
	int ncfg;
};

static struct bpf_object *open_obj(const char *dir, const char *file)
{
	struct bpf_object *obj;
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		fprintf(stderr, "Error: cannot open %s: %s.\n", path, strerror(errno));
	return obj;
}

static int load_obj(struct bpf_object *obj)
{
	char why[256];
	int err;

	err = bpf_object__load(obj);
	if (err)
		fprintf(stderr, "Error: cannot load %s: %s%s%s.\n", bpf_object__name(obj),
			strerror(-err), *xf_bpf_last_log(why, sizeof(why)) ? ": " : "", why);
	return err;
}

/* Set a 4-byte variable of .rodata by name, found through the BTF. */
static int rodata_set_u32(struct bpf_object *obj, const char *var, __u32 v)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".rodata");
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec, *t;
	size_t size;
	char *data;
	int id, i;

	if (!map || !btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	data = bpf_map__initial_value(map, &size);
	if (id < 0 || !data)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		t = btf__type_by_id(btf, vs->type);
		if (strcmp(btf__name_by_offset(btf, t->name_off), var))
			continue;
		if (vs->size != sizeof(v) || vs->offset + sizeof(v) > size)
			return -EINVAL;
		memcpy(data + vs->offset, &v, sizeof(v));
		return 0;
	}
	return -ENOENT;
}

/* A tail-call chain of n steps in b->tail[li]; returns the first step's fd. */
static int tail_chain(struct bench *b, int li, int n)
{
	struct bpf_object **o = b->tail[li];
	int i, err, fd, jmp = -1;
	__u32 key;

	for (i = 0; i < n; i++) {
		o[i] = open_obj(b->dir, "tail_step.bpf.o");
		if (!o[i])
			return -ENOENT;
		err = rodata_set_u32(o[i], "xf_step_idx", i) ?:
		      rodata_set_u32(o[i], "xf_step_last", i == n - 1);
		if (err) {
			fprintf(stderr, "Error: tail_step.bpf.o: cannot set its .rodata: %s.\n",
				strerror(-err));
			return err;
		}
		if (jmp >= 0) {
			err = bpf_map__reuse_fd(bpf_object__find_map_by_name(o[i], "xf_step_jmp"),
						jmp);
			if (err) {
				fprintf(stderr, "Error: cannot share the tail-call map: %s.\n",
					strerror(-err));
				return err;
			}
		}
		err = load_obj(o[i]);
		if (err)
			return err;
		jmp = bpf_object__find_map_fd_by_name(o[i], "xf_step_jmp");
		fd = bpf_program__fd(bpf_object__find_program_by_name(o[i], "xf_tail_step"));
		key = i;
		if (bpf_map_update_elem(jmp, &key, &fd, BPF_ANY)) {
			err = -errno;
			fprintf(stderr, "Error: cannot fill the tail-call map: %s.\n",
				strerror(-err));
			return err;
		}
	}
	return bpf_program__fd(bpf_object__find_program_by_name(o[0], "xf_tail_step"));
}

/* The kernel's id of program fd, or 0. */
static __u32 prog_id(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_prog_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* Write v at the start of obj's .bss (hash_step's xf_hs_id, its only
 * variable), after load. */
static int bss_set_u32(struct bpf_object *obj, __u32 v)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".bss");
	unsigned char val[64] = { 0 };
	__u32 key = 0;

	if (!map || bpf_map__value_size(map) > sizeof(val) ||
	    bpf_map__value_size(map) < sizeof(v))
		return -ENOENT;
	memcpy(val, &v, sizeof(v));
	return bpf_map_update_elem(bpf_map__fd(map), &key, val, BPF_ANY) ? -errno : 0;
}

/* A chain-call chain of n steps in b->hash[li], as seed 001 built them:
 * step i's (program id, XDP_PASS) maps to slot i + 1 of the program
 * array; the last step has no entry and passes. Returns step 0's fd. */
static int hash_chain(struct bench *b, int li, int n)
{
	struct bpf_object **o = b->hash[li];
	int i, err, fd[MAX_LEN], next = -1, jmp = -1;
	struct { __u32 prog_id, ret; } key;
	__u32 slot;

	for (i = 0; i < n; i++) {
		o[i] = open_obj(b->bdir, "hash_step.bpf.o");
		if (!o[i])
			return -ENOENT;
		if (jmp >= 0) {
			err = bpf_map__reuse_fd(bpf_object__find_map_by_name(o[i], "xf_hs_jmp"),
						jmp) ?:
			      bpf_map__reuse_fd(bpf_object__find_map_by_name(o[i], "xf_hs_next"),
						next);
			if (err) {
				fprintf(stderr, "Error: cannot share the chain-call maps: %s.\n",
					strerror(-err));
				return err;
			}
		}
		err = load_obj(o[i]);
		if (err)
			return err;
		jmp = bpf_object__find_map_fd_by_name(o[i], "xf_hs_jmp");
		next = bpf_object__find_map_fd_by_name(o[i], "xf_hs_next");
		fd[i] = bpf_program__fd(bpf_object__find_program_by_name(o[i], "xf_hash_step"));
		key.prog_id = prog_id(fd[i]);
		key.ret = XDP_PASS;
		slot = i;
		err = key.prog_id ? bss_set_u32(o[i], key.prog_id) : -ENOENT;
		if (!err && bpf_map_update_elem(jmp, &slot, &fd[i], BPF_ANY))
			err = -errno;
		if (!err && i > 0) {
			/* The previous step's verdict leads here. */
			key.prog_id = prog_id(fd[i - 1]);
			if (bpf_map_update_elem(next, &key, &slot, BPF_ANY))
				err = -errno;
		}
		if (err) {
			fprintf(stderr, "Error: cannot fill the chain-call maps: %s.\n",
				strerror(-err));
			return err;
		}
	}
	return fd[0];
}

/* A chain of n pass members linked by xf_chain_load(); all are inlined. */
static int linked_chain(const struct bench *b, int n, int cnt_fd)
{
	struct xf_chain_member m[MAX_LEN];
	char name[16], msg[512];
	int i, fd;

	memset(m, 0, sizeof(m));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "pass%d", i);
		xf_chain_member_from_prog(&m[i], name,
					  bpf_object__find_program_by_name(b->pass[i], "xf_pass"));
		m[i].slot = i;
	}
	fd = xf_chain_load(m, n, cnt_fd, msg, sizeof(msg));
	if (fd < 0) {
		fprintf(stderr, "Error: chain of %d: %s.\n", n, msg);
		return fd;
	}
	if (strstr(msg, "called")) {
		fprintf(stderr, "Error: chain of %d: not every member inlined (%s).\n", n, msg);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static struct cfg *add_cfg(struct bench *b, enum kind k, int members, int fd, int cnt_fd)
{
	struct cfg *c = &b->cfg[b->ncfg++];

	c->kind = k;
	c->members = members;
	c->fd = fd;
	c->cnt_fd = cnt_fd;
	snprintf(c->name, sizeof(c->name), "%s-%d", kind_names[k], members);
	return c;
}

static int setup(struct bench *b)
{
	int i, fd, cnt_fd;

	for (i = 0; i < MAX_LEN; i++) {
		b->pass[i] = open_obj(b->dir, "pass.bpf.o");
		if (!b->pass[i] || load_obj(b->pass[i]))
			return -1;
	}
	add_cfg(b, K_SINGLE, 1,
		bpf_program__fd(bpf_object__find_program_by_name(b->pass[0], "xf_pass")), -1);
	for (i = 0; i < N_LENS; i++) {
		cnt_fd = xf_chain_counters_create();
		if (cnt_fd < 0) {
			fprintf(stderr, "Error: cannot create the chain counters: %s.\n",
				strerror(-cnt_fd));
			return -1;
		}
		fd = linked_chain(b, lens[i], cnt_fd);
		add_cfg(b, K_INLINED, lens[i], fd, cnt_fd);
		if (fd < 0)
			return -1;
	}
	for (i = 0; i < N_LENS; i++) {
		fd = linked_chain(b, lens[i], -1);
		add_cfg(b, K_NOCNT, lens[i], fd, -1);
		if (fd < 0)
			return -1;
	}
	for (i = 0; i < N_LENS; i++) {
		fd = tail_chain(b, i, lens[i]);
		if (fd < 0)
			return -1;
		add_cfg(b, K_TAIL, lens[i], fd, -1);
	}
	for (i = 0; i < N_LENS; i++) {
		fd = hash_chain(b, i, lens[i]);
		if (fd < 0)
			return -1;
		add_cfg(b, K_HASH, lens[i], fd, -1);
	}
	return 0;
}

/* One BPF_PROG_RUN of c: the kernel's ns per packet in *ns. */
static int run(const struct cfg *c, unsigned int *ns)
{
	/* Ethernet + IPv4 header start, the rest zeros: pass reads nothing. */
	unsigned char pkt[64] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = REPEAT);

	if (bpf_prog_test_run_opts(c->fd, &t)) {
		fprintf(stderr, "Error: BPF_PROG_RUN of %s: %s.\n", c->name, strerror(errno));
		return -1;
	}
	if (t.retval != XDP_PASS) {
		fprintf(stderr, "Error: %s returned %u, not XDP_PASS.\n", c->name, t.retval);
		return -1;
	}
	*ns = t.duration;
	return 0;
}

/* Every member of a counted chain passed every packet of every run (the
 * warm-up included). */
static int check_counters(const struct bench *b)
{
	uint64_t cnt[XF_CHAIN_MAX][XF_CHAIN_NV], want = (uint64_t)(b->rounds + 1) * REPEAT;
	const struct cfg *c;
	int i, s, v;

	for (i = 0; i < b->ncfg; i++) {
		c = &b->cfg[i];
		if (c->cnt_fd < 0)
			continue;
		if (xf_chain_counters_read(c->cnt_fd, cnt)) {
			fprintf(stderr, "Error: cannot read the counters of %s.\n", c->name);
			return -1;
		}
		for (s = 0; s < XF_CHAIN_MAX; s++) {
			for (v = 0; v < XF_CHAIN_NV; v++) {
				if (cnt[s][v] == (s < c->members && v == XF_V_PASS ? want : 0))
					continue;
				fprintf(stderr, "Error: %s: slot %d counted %llu %s packets.\n",
					c->name, s, (unsigned long long)cnt[s][v],
					xf_chain_verdict_name(v));
				return -1;
			}
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n), sorting v. */
static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const struct cfg *find_cfg(const struct bench *b, enum kind k, int members)
{
	int i;

	for (i = 0; i < b->ncfg; i++)
		if (b->cfg[i].kind == k && b->cfg[i].members == members)
			return &b->cfg[i];
	return NULL;
}

/* Least-squares slope of round r's ns over the chains of 2 to 16 members
 * of kind k: the cost of one more member. */
static double slope(const struct bench *b, enum kind k, unsigned int r)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, x, y;
	const struct cfg *c;
	int i, n = 0;

	for (i = 0; i < N_LENS; i++) {
		c = find_cfg(b, k, lens[i]);
		if (!c || lens[i] < 2)
			continue;
		x = lens[i];
		y = c->ns[r];
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	return n < 2 ? 0 : (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static void report(const struct bench *b)
{
	double v[MAX_ROUNDS];
	const struct cfg *c;
	unsigned int r;
	int k, i;

	fprintf(stderr, "\nchain_step: ns per packet (BPF_PROG_RUN, repeat %d, 64 bytes), "
		"median of %u rounds\n", REPEAT, b->rounds);
	fprintf(stderr, "%-14s %6s %6s %6s %6s %6s   %s\n", "config", "1", "2", "4", "8",
		"16", "per added member, fit 2..16 (min-max)");
	for (k = 0; k < N_KINDS; k++) {
		fprintf(stderr, "%-14s", kind_names[k]);
		for (i = 0; i < N_LENS; i++) {
			c = find_cfg(b, k, lens[i]);
			if (!c)
				continue;	/* single: one column */
			for (r = 0; r < b->rounds; r++)
				v[r] = c->ns[r];
			fprintf(stderr, " %6.1f", median(v, b->rounds));
		}
		if (k != K_SINGLE) {
			for (r = 0; r < b->rounds; r++)
				v[r] = slope(b, k, r);
			fprintf(stderr, "   %+.2f", median(v, b->rounds));
			fprintf(stderr, " (%+.2f to %+.2f)", v[0], v[b->rounds - 1]);
		}
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "The kernel reports whole ns per packet; a slope below 1 ns is noise-sized.\n");
}

/* DIR defaults to ../test/progs from the binary's directory (build/bench). */
static int default_dir(struct bench *b)
{
	char exe[PATH_MAX], *dir;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		fprintf(stderr, "Error: cannot find the test programs; give --progs DIR.\n");
		return -1;
	}
	exe[n] = '\0';
	dir = dirname(exe);
	if (!b->dir[0])
		snprintf(b->dir, sizeof(b->dir), "%s/../test/progs", dir);
	if (!b->bdir[0])
		snprintf(b->bdir, sizeof(b->bdir), "%s/progs", dir);
	return 0;
}

static int parse(struct bench *b, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "progs", required_argument, NULL, 'p' },
		{ "bench-progs", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t v;
	int o;

	b->rounds = 7;
	b->dir[0] = '\0';
	b->bdir[0] = '\0';
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			snprintf(b->dir, sizeof(b->dir), "%s", optarg);
			break;
		case 'b':
			snprintf(b->bdir, sizeof(b->bdir), "%s", optarg);
			break;
		case 'r':
			if (xf_parse_u32(optarg, &v) || v < 1 || v > MAX_ROUNDS) {
				fprintf(stderr, "Error: invalid value \"%s\" for --rounds "
					"(1 to %d).\n", optarg, MAX_ROUNDS);
				return -1;
			}
			b->rounds = v;
			break;
		default:
			fprintf(stderr, "Usage: chainstep [ --progs DIR ] [ --bench-progs DIR ] "
				"[ --rounds N ]\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "Error: unexpected \"%s\".\n", argv[optind]);
		return -1;
	}
	return b->dir[0] && b->bdir[0] ? 0 : default_dir(b);
}

static void cleanup(struct bench *b)
{
	int i, j;

	for (i = 0; i < b->ncfg; i++) {
		/* The others' fds belong to their objects. */
		if ((b->cfg[i].kind == K_INLINED || b->cfg[i].kind == K_NOCNT) &&
		    b->cfg[i].fd >= 0)
			close(b->cfg[i].fd);
		if (b->cfg[i].cnt_fd >= 0)
			close(b->cfg[i].cnt_fd);
	}
	for (i = 0; i < N_LENS; i++)
		for (j = 0; j < MAX_LEN; j++) {
			bpf_object__close(b->tail[i][j]);
			bpf_object__close(b->hash[i][j]);
		}
	for (i = 0; i < MAX_LEN; i++)
		bpf_object__close(b->pass[i]);
	free(b);
}

int main(int argc, char **argv)
{
	struct bench *b = calloc(1, sizeof(*b));
	struct xf_out *o = out_new(stdout, OUT_JSON);
	unsigned int r, warm;
	double t0, c0;
	struct cfg *c;
	int i, err = 0;

	if (!b || !o) {
		fprintf(stderr, "Error: out of memory.\n");
		free(b);
		out_free(o);
		return 1;
	}
	if (parse(b, argc, argv)) {
		free(b);
		out_free(o);
		return 2;
	}
	xf_bpf_log_init(false);
	err = setup(b);
	if (!err)
		fprintf(stderr, "chain_step: %d configurations, %u rounds of %d runs each\n",
			b->ncfg, b->rounds, REPEAT);
	/* One untimed run each first: the first round ran slow without it. */
	for (i = 0; i < b->ncfg && !err; i++)
		err = run(&b->cfg[i], &warm);
	t0 = mono_s();
	c0 = cpu_s();
	for (r = 0; r < b->rounds && !err; r++) {
		/* Rotate the order each round, so drift spreads over all. */
		for (i = 0; i < b->ncfg && !err; i++) {
			c = &b->cfg[(i + r) % b->ncfg];
			err = run(c, &c->ns[r]);
		}
		/* One JSON line per configuration, as bench/run reads them. */
		for (i = 0; i < b->ncfg && !err; i++) {
			out_str(o, "suite", "chain_step");
			out_str(o, "config", b->cfg[i].name);
			out_int(o, "members", b->cfg[i].members);
			out_u64(o, "round", r + 1);
			out_u64(o, "value", b->cfg[i].ns[r]);
			out_flush(o);
		}
	}
	if (!err) {
		out_str(o, "noise", "gen_cpu");
		out_str(o, "suite", "chain_step");
		out_real(o, "cpu_s", cpu_s() - c0, 3);
		out_real(o, "seconds", mono_s() - t0, 3);
		out_flush(o);
	}
	if (!err)
		err = check_counters(b);
	if (!err)
		report(b);
	cleanup(b);
	out_free(o);
	return err ? 1 : 0;
}
