// SPDX-License-Identifier: GPL-2.0
/* route and netfilter: the fast path forwards around every netfilter hook
 * of the forwarding path (RT_NF_SKIPS), so route attach refuses where a
 * chain there would act, unless the operator says "netfilter bypass";
 * what was accepted then is remembered per member, and a chain that comes
 * later gets a Warning from the next command that lists the members. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "xbpf.h"

/* At most this many chains are named in one line. */
#define RT_NF_NAMED 3

/* XF_NF_INET/INET6 of the families asked for in XF_RTIF_WANT_* / INET*. */
uint32_t rt_nf_families(uint32_t f)
{
	return (f & (XF_RTIF_INET | XF_RTIF_WANT_INET) ? XF_NF_INET : 0) |
	       (f & (XF_RTIF_INET6 | XF_RTIF_WANT_INET6) ? XF_NF_INET6 : 0);
}

static int rt_nf_read(struct xf_nf_set *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = xf_nf_scan(s);
	if (err)
		fprintf(stderr, "Error: cannot read netfilter's state: %s.\n", strerror(-err));
	return err;
}

static bool rt_nf_dev_applies(const struct xf_nf_chain *c, const char *const *devs, int n,
			      uint32_t families)
{
	int i;

	for (i = 0; i < n; i++)
		if (xf_nf_applies(c, families, RT_NF_SKIPS, devs[i]))
			return true;
	return false;
}

int rt_nf_refuse(const char *const *devs, int n, uint32_t rtif_flags)
{
	uint32_t families = rt_nf_families(rtif_flags);
	char line[1024] = "", one[256];
	struct xf_nf_set s;
	int i, named = 0, more = 0, err;

	err = rt_nf_read(&s);
	if (err)
		return err;
	if (s.unread[0]) {
		fprintf(stderr, "Error: cannot tell whether netfilter acts on the forwarding "
			"path (%s); use \"lookup flowtable\", or \"netfilter bypass\" to "
			"bypass it knowingly.\n", s.unread);
		xf_nf_free(&s);
		return -EPERM;
	}
	for (i = 0; i < s.n; i++) {
		if (!rt_nf_dev_applies(&s.c[i], devs, n, families))
			continue;
		if (named == RT_NF_NAMED) {
			more++;
			continue;
		}
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
			 named ? "; " : "", xf_nf_describe(&s.c[i], one, sizeof(one)));
		named++;
	}
	xf_nf_free(&s);
	if (!named)
		return 0;
	if (more)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "; and %d more",
			 more);
	fprintf(stderr, "Error: the fast path would bypass netfilter: %s; use \"lookup "
		"flowtable\" to forward only what netfilter accepted, or \"netfilter "
		"bypass\" to bypass it knowingly.\n", line);
	return -EPERM;
}

int rt_nf_ack(int ifindex, const char *dev, uint32_t rtif_flags)
{
	uint32_t families = rt_nf_families(rtif_flags);
	char dir[RT_PATH_MAX], path[RT_PATH_MAX], key[256];
	struct xf_nf_set s;
	FILE *f;
	int i, fd, err;

	err = rt_nf_read(&s);
	if (err)
		return err;
	err = xf_run_path(dir, sizeof(dir), ifindex, NULL) ?: xf_pin_mkdir(dir) ?:
	      xf_run_path(path, sizeof(path), ifindex, RT_NF_RUN);
	if (err)
		goto out;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	for (i = 0; i < s.n; i++)
		if (xf_nf_applies(&s.c[i], families, RT_NF_SKIPS, dev))
			fprintf(f, "%s\t%u\t%d\n", xf_nf_key(&s.c[i], key, sizeof(key)),
				s.c[i].rules, s.c[i].drop);
	if (fclose(f))
		err = -errno;
out:
	xf_nf_free(&s);
	return err;
}

/* Whether the operator accepted c as it is now: its key is in the file,
 * with at least as many rules, and a drop policy was a drop policy then. */
static bool rt_nf_acked(FILE *f, const struct xf_nf_chain *c)
{
	char key[256], line[320], *tab;
	unsigned int rules;
	int drop;

	if (!f)
		return false;
	xf_nf_key(c, key, sizeof(key));
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = 0;
		if (strcmp(line, key) || sscanf(tab + 1, "%u\t%d", &rules, &drop) != 2)
			continue;
		return c->rules <= rules && (!c->drop || drop);
	}
	return false;
}

void rt_nf_member(const struct xf_nf_set *s, struct xf_route_iface *ri)
{
	uint32_t families = rt_nf_families(ri->flags);
	char path[RT_PATH_MAX];
	FILE *f = NULL;
	int i;

	ri->nnf = 0;
	ri->nf_unread = s->unread;
	/* lookup flowtable forwards what netfilter put in a flowtable:
	 * nothing is bypassed. */
	if (!ri->name[0] || (ri->flags & XF_RTIF_FLOWTABLE))
		return;
	if ((ri->flags & XF_RTIF_NF_BYPASS) &&
	    !xf_run_path(path, sizeof(path), ri->ifindex, RT_NF_RUN))
		f = fopen(path, "re");
	for (i = 0; i < s->n; i++) {
		if (!xf_nf_applies(&s->c[i], families, RT_NF_SKIPS, ri->name))
			continue;
		if (ri->nnf < XF_ROUTE_NF_MAX) {
			ri->nf[ri->nnf].c = s->c[i];
			ri->nf[ri->nnf].acked = rt_nf_acked(f, &s->c[i]);
		}
		ri->nnf++;
	}
	if (f)
		fclose(f);
}
