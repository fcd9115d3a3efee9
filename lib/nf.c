// SPDX-License-Identifier: GPL-2.0
/* Netfilter on the forwarding path: the set of chains, and how it reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nf.h"
#include "vec.h"

static const char *const nf_hook_names[XF_NF_HOOKS] = {
	[XF_NF_INGRESS] = "ingress",
	[XF_NF_PREROUTING] = "prerouting",
	[XF_NF_FORWARD] = "forward",
	[XF_NF_POSTROUTING] = "postrouting",
	[XF_NF_EGRESS] = "egress",
};

const char *xf_nf_hook_name(enum xf_nf_hook h)
{
	return h < XF_NF_HOOKS ? nf_hook_names[h] : "?";
}

struct xf_nf_chain *xf_nf_add(struct xf_nf_set *s)
{
	struct xf_nf_chain *c = xf_vec_push(&s->c, &s->n, &s->cap, sizeof(*c));

	if (c)
		c->family = "";
	return c;
}

void xf_nf_free(struct xf_nf_set *s)
{
	free(s->c);
	memset(s, 0, sizeof(*s));
}

/* Drop the chains that would not act: no rule and policy accept. */
static void nf_prune(struct xf_nf_set *s)
{
	int i, j;

	for (i = j = 0; i < s->n; i++)
		if (s->c[i].rules || s->c[i].drop)
			s->c[j++] = s->c[i];
	s->n = j;
}

int xf_nf_scan(struct xf_nf_set *s)
{
	int err;

	err = xf_nf_scan_nftables(s);
	if (!err)
		err = xf_nf_scan_legacy(s);
	if (err) {
		xf_nf_free(s);
		return err;
	}
	nf_prune(s);
	return 0;
}

bool xf_nf_applies(const struct xf_nf_chain *c, uint32_t families, uint32_t mask,
		   const char *dev)
{
	int i;

	if (!(c->families & families) || !(mask & XF_NF_BIT(c->hook)))
		return false;
	if (c->hook != XF_NF_INGRESS && c->hook != XF_NF_EGRESS)
		return true;
	if (!dev)
		return true;
	for (i = 0; i < c->ndevs; i++)
		if (!strcmp(c->devs[i], dev))
			return true;
	return false;
}

const char *xf_nf_key(const struct xf_nf_chain *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s %s %s", c->source, *c->family ? " " : "", c->family,
		 c->table, c->chain);
	return buf;
}

const char *xf_nf_describe(const struct xf_nf_chain *c, char *buf, size_t len)
{
	char on[2 * IF_NAMESIZE + 8] = "";
	int i;

	for (i = 0; i < c->ndevs && i < 2; i++)
		snprintf(on + strlen(on), sizeof(on) - strlen(on), "%s%s",
			 i ? "," : " on ", c->devs[i]);
	if (c->ndevs > 2)
		snprintf(on + strlen(on), sizeof(on) - strlen(on), ",...");
	snprintf(buf, len, "%s table %s%s%s chain %s (hook %s%s, %u rule%s, policy %s)",
		 c->source, c->family, *c->family ? " " : "", c->table, c->chain,
		 xf_nf_hook_name(c->hook), on, c->rules, c->rules == 1 ? "" : "s",
		 c->drop ? "drop" : "accept");
	return buf;
}
