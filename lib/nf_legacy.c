// SPDX-License-Identifier: GPL-2.0
/* iptables-legacy and ip6tables-legacy on the forwarding path: the tables
 * of this namespace (/proc/net/ip{,6}_tables_names), and for each the
 * built-in chains on prerouting, forward and postrouting, read with
 * getsockopt: *_SO_GET_INFO gives where each chain's rules begin and where
 * its policy rule is, *_SO_GET_ENTRIES the rules themselves. The two
 * families differ only in the size of an entry's header. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "nf.h"

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

struct lg_family {
	const char *source;
	const char *names;	/* the /proc file of table names */
	int af, level, opt_info, opt_entries;
	uint32_t families;
	size_t target_off, next_off;	/* of target_offset, next_offset */
};

static const struct lg_family lg_families[] = {
	{ "iptables-legacy", "/proc/net/ip_tables_names", AF_INET, IPPROTO_IP,
	  IPT_SO_GET_INFO, IPT_SO_GET_ENTRIES, XF_NF_INET,
	  offsetof(struct ipt_entry, target_offset), offsetof(struct ipt_entry, next_offset) },
	{ "ip6tables-legacy", "/proc/net/ip6_tables_names", AF_INET6, IPPROTO_IPV6,
	  IP6T_SO_GET_INFO, IP6T_SO_GET_ENTRIES, XF_NF_INET6,
	  offsetof(struct ip6t_entry, target_offset), offsetof(struct ip6t_entry, next_offset) },
};

/* The built-in chains that forwarded traffic passes. */
static const struct {
	unsigned int hook;
	enum xf_nf_hook xf;
	const char *name;
} lg_hooks[] = {
	{ NF_INET_PRE_ROUTING, XF_NF_PREROUTING, "PREROUTING" },
	{ NF_INET_FORWARD, XF_NF_FORWARD, "FORWARD" },
	{ NF_INET_POST_ROUTING, XF_NF_POSTROUTING, "POSTROUTING" },
};

static uint16_t lg_u16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Count the rules of each built-in chain in the blob of one table and
 * read its policy. 0/-EINVAL for a blob that does not add up. */
static int lg_table(struct xf_nf_set *s, const struct lg_family *f, const char *table,
		    const struct ipt_getinfo *info, const unsigned char *blob, size_t size)
{
	struct xf_nf_chain *c;
	unsigned int h, off, next, toff;
	size_t i;
	int verdict;

	for (i = 0; i < sizeof(lg_hooks) / sizeof(lg_hooks[0]); i++) {
		h = lg_hooks[i].hook;
		if (!(info->valid_hooks & (1U << h)))
			continue;
		c = xf_nf_add(s);
		if (!c)
			return -ENOMEM;
		c->source = f->source;
		c->hook = lg_hooks[i].xf;
		c->families = f->families;
		strncpy(c->table, table, sizeof(c->table) - 1);
		strncpy(c->chain, lg_hooks[i].name, sizeof(c->chain) - 1);
		for (off = info->hook_entry[h]; off < info->underflow[h]; off += next) {
			if (off + f->next_off + 2 > size)
				return -EINVAL;
			next = lg_u16(blob + off + f->next_off);
			if (!next)
				return -EINVAL;
			c->rules++;
		}
		off = info->underflow[h];
		if (off + f->target_off + 2 > size)
			return -EINVAL;
		toff = lg_u16(blob + off + f->target_off);
		if (off + toff + sizeof(struct xt_standard_target) > size)
			return -EINVAL;
		memcpy(&verdict, blob + off + toff + offsetof(struct xt_standard_target, verdict),
		       sizeof(verdict));
		c->drop = verdict != -NF_ACCEPT - 1;
	}
	return 0;
}

static int lg_read(int fd, struct xf_nf_set *s, const struct lg_family *f, const char *table)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *e;
	socklen_t len = sizeof(info);
	int err;

	memset(&info, 0, sizeof(info));
	memcpy(info.name, table, strnlen(table, sizeof(info.name) - 1));
	if (getsockopt(fd, f->level, f->opt_info, &info, &len))
		return -errno;
	len = sizeof(*e) + info.size;
	e = calloc(1, len);
	if (!e)
		return -ENOMEM;
	memcpy(e->name, info.name, sizeof(e->name));
	e->size = info.size;
	if (getsockopt(fd, f->level, f->opt_entries, e, &len))
		err = -errno;
	else
		err = lg_table(s, f, table, &info, (const unsigned char *)e->entrytable, info.size);
	free(e);
	return err;
}

static int lg_family_scan(struct xf_nf_set *s, const struct lg_family *f)
{
	char table[XT_TABLE_MAXNAMELEN + 2];
	int fd, err = 0, first = s->n;
	FILE *names;

	names = fopen(f->names, "re");
	if (!names)
		return 0;	/* no legacy tables in this kernel */
	fd = socket(f->af, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0)
		err = -errno;
	while (!err && fgets(table, sizeof(table), names)) {
		table[strcspn(table, "\n")] = 0;
		/* A table that has gone since the list was read. */
		err = lg_read(fd, s, f, table);
		if (err == -ENOENT)
			err = 0;
	}
	fclose(names);
	if (fd >= 0)
		close(fd);
	if (err == -ENOMEM)
		return err;
	if (err) {
		s->n = first;
		snprintf(s->unread, sizeof(s->unread), "%s: %s", f->source, strerror(-err));
	}
	return 0;
}

int xf_nf_scan_legacy(struct xf_nf_set *s)
{
	size_t i;
	int err;

	for (i = 0; i < sizeof(lg_families) / sizeof(lg_families[0]); i++) {
		err = lg_family_scan(s, &lg_families[i]);
		if (err)
			return err;
	}
	return 0;
}
