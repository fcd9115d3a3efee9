// SPDX-License-Identifier: GPL-2.0
/* xfgen: xfwd's packet generator and sink, for the benchmarks.
 *
 *   xfgen send dev IFNAME dmac MAC src ADDR
 *              { dst ADDR | dst-range PREFIX/LEN | dst-file FILE } [ seed N ]
 *              [ size N ] [ count N ] [ duration SECONDS ] [ rate PPS ]
 *   xfgen sink dev IFNAME duration SECONDS [ hook { xdp | tc } ] [ own ]
 *
 * send transmits UDP frames of size bytes (without FCS) out of IFNAME
 * with BPF_PROG_RUN and BPF_F_TEST_XDP_LIVE_FRAMES (an XDP_TX per frame),
 * the technique of xdp-trafficgen; there is no pktgen on this kernel. It
 * stops at count frames or after duration seconds, whichever is first.
 * dst-range sends each frame to a random address of PREFIX/LEN (its host
 * bits drawn by gen.bpf.c's xorshift64, seeded from seed, 1 by default);
 * dst-file to a random prefix of FILE (one PREFIX/LEN a line, each equally
 * likely), a random address in it. The same seed, prefixes and count give
 * the same destinations in the same order.
 * sink attaches a program that counts and drops, on XDP (the default) or
 * tc ingress, for duration seconds or until SIGTERM or SIGINT; with own
 * (tc only), it counts only the generator's UDP frames, and what else
 * the router sent the host apart ("other"). Each prints one JSON line: what it
 * sent or received; send adds its own CPU time (user + system), so the
 * benchmark can record what share of a CPU the generator took. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>

#include "arg.h"
#include "clock.h"
#include "csum.h"
#include "out.h"
#include "xbpf.h"
#include "xfwd_bpf.h"
#include "gen.skel.h"

struct gen_opts {
	const char *dev;
	uint8_t dmac[ETH_ALEN];
	struct xf_addr src, dst;
	uint32_t size, rate, duration;
	uint64_t count;
	uint32_t seed;
	bool range;		/* dst is a prefix: random host bits per frame */
	const char *dst_file;	/* prefixes: a random one, random host bits */
	bool tc;		/* sink on tc ingress, not XDP */
	bool own;		/* sink: only xfgen's own frames */
};

/* Set by SIGTERM/SIGINT: the sink stops early and reports. A signal
 * handler can only reach file-static state. */
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The whole frame: Ethernet, IP, UDP with a correct checksum, zeros. */
static int build(const struct gen_opts *o, const uint8_t *smac, uint8_t *f)
{
	bool v6 = o->dst.family == AF_INET6;
	size_t iph = v6 ? 40 : 20, l3 = o->size - ETH_HLEN, udp = l3 - iph;
	uint8_t *ip = f + ETH_HLEN, *u = ip + iph;
	uint32_t sum;

	if (o->size < ETH_HLEN + iph + 8 || o->size > 1514)
		return -EINVAL;
	memset(f, 0, o->size);
	memcpy(f, o->dmac, ETH_ALEN);
	memcpy(f + ETH_ALEN, smac, ETH_ALEN);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	u[0] = 0x9c; u[1] = 0x40;	/* 40000 */
	u[2] = 0x23; u[3] = 0x29;	/* 9001 */
	u[4] = udp >> 8;
	u[5] = udp & 0xff;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = udp >> 8;
		ip[5] = udp & 0xff;
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, o->src.bytes, 16);
		memcpy(ip + 24, o->dst.bytes, 16);
		sum = xf_csum_add(0, ip + 8, 32) + 17 + udp;
	} else {
		ip[0] = 0x45;
		ip[2] = l3 >> 8;
		ip[3] = l3 & 0xff;
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, o->src.bytes, 4);
		memcpy(ip + 16, o->dst.bytes, 4);
		sum = xf_csum_fold(xf_csum_add(0, ip, 20));
		ip[10] = sum >> 8;
		ip[11] = sum & 0xff;
		sum = xf_csum_add(0, ip + 12, 8) + 17 + udp;
	}
	sum = xf_csum_fold(xf_csum_add(sum, u, udp));
	u[6] = (sum ?: 0xffff) >> 8;
	u[7] = (sum ?: 0xffff) & 0xff;
	return 0;
}

/* One prefix of xf_gen_dsts, as gen.bpf.c's struct xf_gen_dst reads it:
 * the address and the mask of its host bits, bytes in network order. */
struct gen_dst {
	uint8_t addr[16];
	uint8_t mask[16];
};

/* PREFIX/LEN into one entry. */
static void dst_entry(const struct xf_addr *p, struct gen_dst *e)
{
	unsigned int bits = p->family == AF_INET6 ? 128 : 32, b;

	memset(e, 0, sizeof(*e));
	memcpy(e->addr, p->bytes, bits / 8);
	for (b = p->plen; b < bits; b++)
		e->mask[b / 8] |= 0x80 >> (b % 8);
}

/* dst-file: one PREFIX/LEN a line ("#" starts a comment), all of the
 * family of the first; the first also becomes the template's dst. 0, or
 * an error printed and -errno. *v is malloc'ed, the caller frees it. */
static int dst_file(const char *path, struct gen_opts *o, struct gen_dst **v, size_t *n)
{
	size_t cap = 0, line = 0;
	char buf[128], *w;
	struct xf_addr p;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "Error: cannot open \"%s\": %s.\n", path, strerror(errno));
		return -errno;
	}
	*n = 0;
	*v = NULL;
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		buf[strcspn(buf, "#\r\n")] = 0;
		w = buf + strspn(buf, " \t");
		w[strcspn(w, " \t")] = 0;
		if (!*w)
			continue;
		if (xf_parse_addr(w, &p, true) || (*n && p.family != o->dst.family)) {
			fprintf(stderr, "Error: %s:%zu: invalid prefix \"%s\".\n", path, line, w);
			goto fail;
		}
		if (!*n)
			o->dst = p;
		if (*n == cap) {
			struct gen_dst *nv;

			cap = cap ? cap * 2 : 1024;
			nv = realloc(*v, cap * sizeof(**v));
			if (!nv) {
				fprintf(stderr, "Error: out of memory.\n");
				goto fail;
			}
			*v = nv;
		}
		dst_entry(&p, &(*v)[(*n)++]);
	}
	fclose(f);
	if (!*n) {
		fprintf(stderr, "Error: no prefix in \"%s\".\n", path);
		free(*v);
		return -EINVAL;
	}
	return 0;
fail:
	fclose(f);
	free(*v);
	*v = NULL;
	return -EINVAL;
}

/* The seed into xorshift64's state: splitmix64's finaliser, so that seeds
 * 1, 2, 3 start far apart; never 0, xorshift's one fixed point. */
static uint64_t seed_state(uint32_t seed)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ?: 1;
}

/* After the load: the entries into xf_gen_dsts through its mmap. */
static int dsts_fill(struct gen_bpf *skel, const struct gen_dst *v, size_t n)
{
	size_t len = n * sizeof(*v), pg = sysconf(_SC_PAGESIZE);
	void *m;

	len = (len + pg - 1) / pg * pg;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(skel->maps.xf_gen_dsts), 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "Error: cannot map the destinations: %s.\n", strerror(errno));
		return -errno;
	}
	memcpy(m, v, n * sizeof(*v));
	munmap(m, len);
	return 0;
}

static int send_frames(struct gen_opts *o, struct xf_out *out)
{
	uint8_t frame[1514], smac[ETH_ALEN];
	struct xdp_md ctx = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		    .batch_size = 64, .data_in = frame, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	struct gen_dst *dsts = NULL;
	struct gen_bpf *skel;
	uint64_t sent = 0, chunk;
	size_t ndst = 0;
	double t0, t1, tick, c0;
	int ifindex, fd, err;
	char path[64];
	FILE *f;

	ifindex = if_nametoindex(o->dev);
	if (!ifindex) {
		fprintf(stderr, "Error: device \"%s\" does not exist.\n", o->dev);
		return 1;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", o->dev);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &smac[0], &smac[1], &smac[2],
			 &smac[3], &smac[4], &smac[5]) != 6) {
		/* -n namespaces keep the root's sysfs: fall back to a fixed MAC. */
		static const uint8_t fixed[ETH_ALEN] = { 0x02, 0x78, 0x66, 0x67, 0x65, 0x6e };

		memcpy(smac, fixed, ETH_ALEN);
	}
	if (f)
		fclose(f);
	if (o->dst_file) {
		err = dst_file(o->dst_file, o, &dsts, &ndst);
		if (err)
			return err == -EINVAL ? 2 : 1;
		if (o->src.family != o->dst.family) {
			fprintf(stderr, "Error: the prefixes of \"%s\" are not of src's family.\n",
				o->dst_file);
			free(dsts);
			return 2;
		}
	} else if (o->range) {
		dsts = malloc(sizeof(*dsts));
		if (!dsts)
			return 1;
		dst_entry(&o->dst, dsts);
		ndst = 1;
	}
	if (build(o, smac, frame)) {
		fprintf(stderr, "Error: invalid value \"%u\" for size.\n", o->size);
		return 2;
	}
	skel = gen_bpf__open();
	if (!skel) {
		free(dsts);
		return 1;
	}
	memcpy(skel->data_tmpl->xf_gen_tmpl, frame, XF_GEN_HDR);
	skel->data_tmpl->xf_gen_hdr_len = XF_GEN_HDR;
	if (ndst) {
		skel->data_tmpl->xf_gen_family = o->dst.family == AF_INET6 ? 6 : 4;
		skel->data_tmpl->xf_gen_ndst = ndst;
		skel->data_tmpl->xf_gen_state = seed_state(o->seed);
		bpf_map__set_max_entries(skel->maps.xf_gen_dsts, ndst);
	}
	bpf_program__set_autoload(skel->progs.xf_gen_sink, false);
	bpf_program__set_autoload(skel->progs.xf_gen_sink_tc, false);
	err = gen_bpf__load(skel);
	if (err) {
		fprintf(stderr, "Error: cannot load the generator: %s.\n", strerror(-err));
		gen_bpf__destroy(skel);
		free(dsts);
		return 1;
	}
	if (ndst) {
		err = dsts_fill(skel, dsts, ndst);
		free(dsts);
		if (err) {
			gen_bpf__destroy(skel);
			return 1;
		}
	}
	fd = bpf_program__fd(skel->progs.xf_gen_tx);
	ctx.data_end = o->size;
	ctx.ingress_ifindex = ifindex;
	t.data_size_in = o->size;
	/* Each call costs ~16 ms of setup: batches of ~0.1 s, or of a tenth
	 * of the rate when one is set. */
	chunk = o->rate ? (o->rate / 10 ?: 1) : 200000;
	t0 = mono_s();
	c0 = cpu_s();
	tick = t0;
	while (sent < o->count && mono_s() - t0 < o->duration) {
		t.repeat = o->count - sent < chunk ? o->count - sent : chunk;
		if (bpf_prog_test_run_opts(fd, &t)) {
			err = -errno;
			fprintf(stderr, "Error: BPF_PROG_RUN: %s.\n", strerror(-err));
			break;
		}
		sent += t.repeat;
		if (o->rate) {
			tick += 0.1;
			while (mono_s() < tick)
				usleep(1000);
		}
	}
	t1 = mono_s();
	out_u64(out, "sent", sent);
	out_real(out, "seconds", t1 - t0, 3);
	out_real(out, "pps", sent / (t1 - t0), 0);
	out_u64(out, "size", o->size);
	if (ndst)
		out_u64(out, "prefixes", ndst);
	out_real(out, "cpu_s", cpu_s() - c0, 3);
	out_flush(out);
	gen_bpf__destroy(skel);
	return err ? 1 : 0;
}

static int sink(const struct gen_opts *o, struct xf_out *out)
{
	struct gen_bpf *skel;
	struct bpf_link *link = NULL;
	uint64_t sum[2] = { 0 };
	uint32_t key = 0;
	int ifindex, lfd = -1, err = 0;
	double t0;

	ifindex = if_nametoindex(o->dev);
	if (!ifindex) {
		fprintf(stderr, "Error: device \"%s\" does not exist.\n", o->dev);
		return 1;
	}
	skel = gen_bpf__open();
	if (!skel)
		return 1;
	bpf_program__set_autoload(skel->progs.xf_gen_tx, false);
	skel->data_tmpl->xf_gen_sink_own = o->own;
	bpf_program__set_autoload(o->tc ? skel->progs.xf_gen_sink : skel->progs.xf_gen_sink_tc,
				  false);
	if (gen_bpf__load(skel)) {
		gen_bpf__destroy(skel);
		return 1;
	}
	if (o->tc)
		lfd = bpf_link_create(bpf_program__fd(skel->progs.xf_gen_sink_tc), ifindex,
				      BPF_TCX_INGRESS, NULL);
	else
		link = bpf_program__attach_xdp(skel->progs.xf_gen_sink, ifindex);
	if (!link && lfd < 0) {
		fprintf(stderr, "Error: cannot attach the sink to %s: %s.\n", o->dev,
			strerror(errno));
		gen_bpf__destroy(skel);
		return 1;
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	/* Ready: the caller waits for this line before it starts sending. */
	out_bool(out, "ready", true);
	out_flush(out);
	t0 = mono_s();
	while (mono_s() - t0 < o->duration && !stop)
		usleep(10000);
	err = xf_percpu_sum(bpf_map__fd(skel->maps.xf_gen_count), &key, sum, 2);
	out_u64(out, "received", sum[0]);
	out_u64(out, "bytes", sum[1]);
	if (o->own) {
		key = 1;
		if (!err)
			err = xf_percpu_sum(bpf_map__fd(skel->maps.xf_gen_count), &key, sum, 2);
		out_u64(out, "other", sum[0]);
	}
	out_flush(out);
	bpf_link__destroy(link);
	if (lfd >= 0)
		close(lfd);
	gen_bpf__destroy(skel);
	return err ? 1 : 0;
}

static int parse_mac(const char *s, uint8_t *m)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2], &m[3], &m[4],
		      &m[5]) == 6 ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct gen_opts o = { .size = 64, .count = UINT64_MAX, .duration = 5, .seed = 1 };
	const char *mac = NULL, *hook = NULL;
	struct xf_out *out;
	struct xf_args a;
	bool is_sink;
	uint32_t v;
	int err = 0;

	if (argc < 2 || (strcmp(argv[1], "send") && strcmp(argv[1], "sink"))) {
		fprintf(stderr, "Usage: xfgen { send | sink } dev IFNAME ...\n");
		return 2;
	}
	is_sink = !strcmp(argv[1], "sink");
	arg_init(&a, argc - 2, argv + 2, NULL);
	while (arg_more(&a) && !err) {
		if (arg_kw(&a, "dev"))
			err = arg_ifname(&a, "IFNAME", &o.dev);
		else if (arg_kw(&a, "dmac"))
			err = arg_str(&a, "MAC", &mac);
		else if (arg_kw(&a, "src"))
			err = arg_addr(&a, "src ADDR", &o.src);
		else if (arg_kw(&a, "dst") && !(err = arg_addr(&a, "dst ADDR", &o.dst)))
			o.range = false;
		else if (arg_kw(&a, "dst-range") &&
			 !(err = arg_prefix(&a, "dst-range PREFIX/LEN", &o.dst)))
			o.range = true;
		else if (arg_kw(&a, "dst-file"))
			err = arg_str(&a, "FILE", &o.dst_file);
		else if (arg_kw(&a, "seed"))
			err = arg_u32(&a, "seed", &o.seed);
		else if (arg_kw(&a, "size"))
			err = arg_u32_range(&a, "size", 60, 1514, &o.size);
		else if (arg_kw(&a, "count") && !(err = arg_u32(&a, "count", &v)))
			o.count = v;
		else if (arg_kw(&a, "duration"))
			err = arg_u32_range(&a, "duration", 1, 600, &o.duration);
		else if (arg_kw(&a, "rate"))
			err = arg_u32(&a, "rate", &o.rate);
		else if (arg_kw(&a, "own"))
			o.own = true;
		else if (arg_kw(&a, "hook") && !(err = arg_str(&a, "hook", &hook)))
			o.tc = !strcmp(hook, "tc");
		else if (!err)
			err = arg_unexpected(&a);
	}
	if (err)
		return 2;
	if (hook && strcmp(hook, "xdp") && strcmp(hook, "tc")) {
		fprintf(stderr, "Error: invalid value \"%s\" for hook (xdp or tc).\n", hook);
		return 2;
	}
	if (o.own && !o.tc) {
		fprintf(stderr, "Error: own needs hook tc.\n");
		return 2;
	}
	if (!o.dev) {
		fprintf(stderr, "Error: missing dev IFNAME.\n");
		return 2;
	}
	xf_bpf_log_init(false);
	out = out_new(stdout, OUT_JSON);
	if (!out) {
		fprintf(stderr, "Error: out of memory.\n");
		return 1;
	}
	if (is_sink)
		err = sink(&o, out);
	else if (!mac || parse_mac(mac, o.dmac) || !o.src.family ||
		 (!o.dst_file && o.src.family != o.dst.family)) {
		fprintf(stderr, "Error: send needs dmac MAC, src ADDR and dst ADDR, "
			"dst-range PREFIX/LEN or dst-file FILE, of one family.\n");
		err = 2;
	} else {
		err = send_frames(&o, out);
	}
	out_free(out);
	return err;
}
