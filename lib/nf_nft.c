// SPDX-License-Identifier: GPL-2.0
/* nftables' base chains on the forwarding path, read over nfnetlink with
 * libnftnl: the chains, then the tables (a dormant one does nothing), then
 * the rules, counted per chain. The tables iptables-nft makes are here
 * too: they are nftables tables of family ip or ip6. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include "nf.h"
#include "nl.h"

struct nft_scan {
	struct xf_nf_set *s;
	int first;	/* s->c[first..] are this source's */
};

static const char *nft_family(uint32_t f)
{
	switch (f) {
	case NFPROTO_IPV4: return "ip";
	case NFPROTO_IPV6: return "ip6";
	case NFPROTO_INET: return "inet";
	case NFPROTO_NETDEV: return "netdev";
	}
	return NULL;
}

/* The forwarding-path hook of a base chain, or -1 for any other. */
static int nft_hook(uint32_t family, uint32_t hooknum, uint32_t *families)
{
	*families = family == NFPROTO_IPV4 ? XF_NF_INET :
		    family == NFPROTO_IPV6 ? XF_NF_INET6 : XF_NF_INET | XF_NF_INET6;
	if (family == NFPROTO_NETDEV)
		return hooknum == NF_NETDEV_INGRESS ? XF_NF_INGRESS :
		       hooknum == NF_NETDEV_EGRESS ? XF_NF_EGRESS : -1;
	switch (hooknum) {
	case NF_INET_PRE_ROUTING: return XF_NF_PREROUTING;
	case NF_INET_FORWARD: return XF_NF_FORWARD;
	case NF_INET_POST_ROUTING: return XF_NF_POSTROUTING;
	case NF_INET_INGRESS: return family == NFPROTO_INET ? XF_NF_INGRESS : -1;
	}
	return -1;
}

static void nft_devs(struct xf_nf_chain *c, const struct nftnl_chain *ch)
{
	const char *const *devs;

	if (nftnl_chain_is_set(ch, NFTNL_CHAIN_DEV)) {
		strncpy(c->devs[0], nftnl_chain_get_str(ch, NFTNL_CHAIN_DEV), IF_NAMESIZE - 1);
		c->ndevs = 1;
		return;
	}
	if (!nftnl_chain_is_set(ch, NFTNL_CHAIN_DEVICES))
		return;
	devs = nftnl_chain_get_array(ch, NFTNL_CHAIN_DEVICES);
	for (; devs && *devs && c->ndevs < XF_NF_DEVS; devs++)
		strncpy(c->devs[c->ndevs++], *devs, IF_NAMESIZE - 1);
}

static int nft_chain_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nft_scan *sc = arg;
	struct nftnl_chain *ch;
	struct xf_nf_chain *c;
	const char *fam;
	uint32_t family, families;
	int hook, err = 0;

	ch = nftnl_chain_alloc();
	if (!ch)
		return -ENOMEM;
	if (nftnl_chain_nlmsg_parse(nlh, ch) < 0 ||
	    !nftnl_chain_is_set(ch, NFTNL_CHAIN_HOOKNUM))
		goto out;
	family = nftnl_chain_get_u32(ch, NFTNL_CHAIN_FAMILY);
	fam = nft_family(family);
	hook = nft_hook(family, nftnl_chain_get_u32(ch, NFTNL_CHAIN_HOOKNUM), &families);
	if (!fam || hook < 0)
		goto out;
	c = xf_nf_add(sc->s);
	if (!c) {
		err = -ENOMEM;
		goto out;
	}
	c->source = "nftables";
	c->family = fam;
	c->hook = hook;
	c->families = families;
	strncpy(c->table, nftnl_chain_get_str(ch, NFTNL_CHAIN_TABLE), sizeof(c->table) - 1);
	strncpy(c->chain, nftnl_chain_get_str(ch, NFTNL_CHAIN_NAME), sizeof(c->chain) - 1);
	c->drop = nftnl_chain_is_set(ch, NFTNL_CHAIN_POLICY) &&
		  nftnl_chain_get_u32(ch, NFTNL_CHAIN_POLICY) != NF_ACCEPT;
	nft_devs(c, ch);
out:
	nftnl_chain_free(ch);
	return err;
}

/* Chains of a dormant table do nothing: forget them. */
static int nft_table_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nft_scan *sc = arg;
	struct nftnl_table *t;
	const char *fam, *name;
	int i, j;

	t = nftnl_table_alloc();
	if (!t)
		return -ENOMEM;
	if (nftnl_table_nlmsg_parse(nlh, t) < 0 ||
	    !(nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS) & NFT_TABLE_F_DORMANT))
		goto out;
	fam = nft_family(nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY));
	name = nftnl_table_get_str(t, NFTNL_TABLE_NAME);
	for (i = j = sc->first; fam && name && i < sc->s->n; i++) {
		if (!strcmp(sc->s->c[i].family, fam) && !strcmp(sc->s->c[i].table, name))
			continue;
		sc->s->c[j++] = sc->s->c[i];
	}
	if (fam && name)
		sc->s->n = j;
out:
	nftnl_table_free(t);
	return 0;
}

static int nft_rule_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nft_scan *sc = arg;
	struct nftnl_rule *r;
	const char *fam, *table, *chain;
	int i;

	r = nftnl_rule_alloc();
	if (!r)
		return -ENOMEM;
	if (nftnl_rule_nlmsg_parse(nlh, r) < 0)
		goto out;
	fam = nft_family(nftnl_rule_get_u32(r, NFTNL_RULE_FAMILY));
	table = nftnl_rule_get_str(r, NFTNL_RULE_TABLE);
	chain = nftnl_rule_get_str(r, NFTNL_RULE_CHAIN);
	for (i = sc->first; fam && table && chain && i < sc->s->n; i++) {
		struct xf_nf_chain *c = &sc->s->c[i];

		if (!strcmp(c->family, fam) && !strcmp(c->table, table) &&
		    !strcmp(c->chain, chain)) {
			c->rules++;
			break;
		}
	}
out:
	nftnl_rule_free(r);
	return 0;
}

static int nft_dump(struct xf_nl *nl, uint16_t type, xf_nl_cb cb, struct nft_scan *sc)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, 0, 0);

	nlh = nftnl_nlmsg_build_hdr((char *)nlh, type, NFPROTO_UNSPEC, NLM_F_DUMP,
				    nlh->nlmsg_seq);
	return xf_nl_dump(nl, nlh, cb, sc);
}

int xf_nf_scan_nftables(struct xf_nf_set *s)
{
	struct nft_scan sc = { .s = s, .first = s->n };
	struct xf_nl *nl;
	int err;

	err = xf_nl_open(&nl, NETLINK_NETFILTER);
	/* No nfnetlink in this kernel: no nftables either. */
	if (err == -EPROTONOSUPPORT)
		return 0;
	if (!err) {
		err = nft_dump(nl, NFT_MSG_GETCHAIN, nft_chain_cb, &sc) ?:
		      nft_dump(nl, NFT_MSG_GETTABLE, nft_table_cb, &sc) ?:
		      nft_dump(nl, NFT_MSG_GETRULE, nft_rule_cb, &sc);
		xf_nl_close(nl);
	}
	/* nf_tables missing from a kernel that has nfnetlink. */
	if (err == -EOPNOTSUPP || err == -EPROTONOSUPPORT)
		err = 0;
	if (err == -ENOMEM)
		return err;
	if (err) {
		s->n = sc.first;
		snprintf(s->unread, sizeof(s->unread), "nftables: %s", strerror(-err));
	}
	return 0;
}
