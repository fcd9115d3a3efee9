/* SPDX-License-Identifier: GPL-2.0 */
/* Netfilter on the forwarding path: the base chains of nftables (read with
 * libnftnl) and of iptables-legacy and ip6tables-legacy (read with
 * getsockopt) that forwarded traffic would pass, so that a fast path that
 * skips them can say so. Only what would act counts: a chain with at least
 * one rule or a policy other than accept, in a table that is not dormant. */
#ifndef XF_NF_H
#define XF_NF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

/* The hooks of the forwarding path, as bits of a mask. */
enum xf_nf_hook {
	XF_NF_INGRESS,		/* netdev or inet ingress, on a device */
	XF_NF_PREROUTING,
	XF_NF_FORWARD,
	XF_NF_POSTROUTING,
	XF_NF_EGRESS,		/* netdev egress, on a device */
	XF_NF_HOOKS
};
#define XF_NF_BIT(h) (1U << (h))

/* Which traffic a chain sees. */
#define XF_NF_INET (1U << 0)
#define XF_NF_INET6 (1U << 1)

#define XF_NF_NAME_MAX 64
#define XF_NF_DEVS 4

struct xf_nf_chain {
	const char *source;	/* "nftables", "iptables-legacy", "ip6tables-legacy" */
	const char *family;	/* nftables: "ip", "ip6", "inet", "netdev"; else "" */
	char table[XF_NF_NAME_MAX];
	char chain[XF_NF_NAME_MAX];
	enum xf_nf_hook hook;
	uint32_t families;	/* XF_NF_INET | XF_NF_INET6 */
	/* Ingress and egress: the devices the chain is bound to. */
	char devs[XF_NF_DEVS][IF_NAMESIZE];
	int ndevs;
	uint32_t rules;
	bool drop;		/* policy drop (else accept) */
};

struct xf_nf_set {
	struct xf_nf_chain *c;
	int n, cap;
	/* Set when a source could not be read: what it could not, and why. */
	char unread[128];
};

/* Read every base chain of this namespace that sits on a forwarding path
 * hook and would act, into s (which the caller zeroes and later frees with
 * xf_nf_free). A source the kernel lacks is no error; one that cannot be
 * read fills s->unread and the scan goes on. 0/-ENOMEM. */
int xf_nf_scan(struct xf_nf_set *s);
void xf_nf_free(struct xf_nf_set *s);
/* Whether c acts on traffic of families that a fast path skipping the
 * hooks in mask takes on device dev (NULL: any device). */
bool xf_nf_applies(const struct xf_nf_chain *c, uint32_t families, uint32_t mask,
		   const char *dev);
const char *xf_nf_hook_name(enum xf_nf_hook h);
/* "nftables table ip filter chain forward (hook forward, 1 rule, policy
 * drop)" into buf. Returns buf. */
const char *xf_nf_describe(const struct xf_nf_chain *c, char *buf, size_t len);
/* The key of c without its rules and policy ("nftables ip filter forward"),
 * to tell one chain from another across commands. Returns buf. */
const char *xf_nf_key(const struct xf_nf_chain *c, char *buf, size_t len);

/* The sources, one file each; append to s. */
int xf_nf_scan_nftables(struct xf_nf_set *s);
int xf_nf_scan_legacy(struct xf_nf_set *s);
/* A new zeroed entry at the end of s, or NULL (-ENOMEM). */
struct xf_nf_chain *xf_nf_add(struct xf_nf_set *s);

#endif
