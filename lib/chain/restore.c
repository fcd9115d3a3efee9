// SPDX-License-Identifier: GPL-2.0
/* chain, for save and restore: where each member's object came from, and
 * a chain's order and rules made in one change. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usage.h"
#include "internal.h"
#include "chain/chain.h"
#include "file.h"
#include "xbpf.h"

void chain_src_path(const struct chain_if *c, const char *member, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.src", c->run, member);
}

int chain_src_write(const struct chain_if *c, const char *member, const char *obj)
{
	char real[PATH_MAX], path[CHAIN_PATH_LEN + 32], tmp[CHAIN_PATH_LEN + 48];
	int fd, err = 0;
	size_t n;

	/* The operator's path as it was given, made absolute where the file
	 * is there to resolve it. */
	if (!realpath(obj, real))
		snprintf(real, sizeof(real), "%s", obj);
	chain_src_path(c, member, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s/.%s.src.new", c->run, member);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = strlen(real);
	if (write(fd, real, n) != (ssize_t)n)
		err = -errno ?: -EIO;
	if (close(fd) && !err)
		err = -errno;
	return xf_file_commit(tmp, path, err);
}

int xf_chain_member_files(struct xf_nl *nl, const char *dev, const char *member,
			  char *copy, size_t clen, char *src, size_t slen)
{
	struct chain_if c;
	ssize_t n;
	int fd, err;

	err = chain_if_open(nl, dev, false, &c);
	if (err)
		return err;
	chain_obj_path(&c, member, copy, clen);
	chain_src_path(&c, member, src, slen);
	chain_if_close(&c);
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* Added by an xfwd that did not keep the source: the copy is
		 * all there is. */
		snprintf(src, slen, "%s", copy);
		return 0;
	}
	n = read(fd, src, slen - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	src[n] = 0;
	return 0;
}

int xf_chain_arrange(struct xf_nl *nl, const char *dev, const struct xf_chain_rules *r, int n)
{
	struct xf_chain_desc d;
	struct chain_if c;
	int i, j, v, t, err;

	err = chain_if_open(nl, dev, true, &c);
	if (err)
		goto out;
	d = c.d;
	err = -XF_EUSAGE;
	if ((uint32_t)n != c.d.n) {
		fprintf(stderr, "Error: the chain of %s would have %d members; it has %u.\n",
			dev, n, c.d.n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		j = chain_find_member(&c.d, r[i].name);
		if (j < 0) {
			fprintf(stderr, "Error: no member \"%s\" on %s.\n", r[i].name, dev);
			goto out;
		}
		d.m[i] = c.d.m[j];
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (!strcmp(d.m[i].name, d.m[j].name)) {
				fprintf(stderr, "Error: duplicate \"%s\".\n", d.m[i].name);
				goto out;
			}
		}
		for (v = 0; v < XF_V_N; v++) {
			uint8_t dflt = v == XF_V_PASS ? XF_ACT_NEXT : XF_ACT_STOP;
			uint8_t now = d.m[i].act[v] == XF_ACT_DEFAULT ? dflt : d.m[i].act[v];

			/* An action that already does what is asked stays as it is
			 * written (a default stays a default, an object's own
			 * XDP_RUN_CONFIG stays its own), so that show reads the same
			 * as before a restore. */
			if (now == r[i].act[v] && now != XF_ACT_GOTO)
				continue;
			d.m[i].act[v] = r[i].act[v] == dflt ? XF_ACT_DEFAULT : r[i].act[v];
			d.m[i].target[v] = 0;
			if (r[i].act[v] != XF_ACT_GOTO)
				continue;
			t = r[i].target[v] ? chain_find_member(&d, r[i].target[v]) : -1;
			if (t < 0) {
				fprintf(stderr, "Error: goto to unknown member \"%s\".\n",
					r[i].target[v] ?: "");
				goto out;
			}
			d.m[i].target[v] = d.m[t].slot;
		}
	}
	err = chain_commit(&c, &d);
out:
	chain_if_close(&c);
	return err;
}
