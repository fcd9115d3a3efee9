// SPDX-License-Identifier: GPL-2.0
/* redirect: the namespace's pinned instance (programs, rule trie,
 * counters), rule keys and the walk over the rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "redirect/redirect.h"
#include "internal.h"
#include "inst.h"
#include "xbpf.h"
#include "redirect.skel.h"

static const struct xf_inst_obj rd_objs[RD_NFDS] = {
	[RD_PROG_ING] = { "prog_ingress", "xf_rd_ingress" },
	[RD_PROG_EGR] = { "prog_egress", "xf_rd_egress" },
	[RD_PROG_XDP] = { "prog_xdp", "xf_rd_xdp" },
	[RD_MAP_RULES] = { .pin = "xf_rd_rules" },
	[RD_MAP_CNT] = { .pin = "xf_rd_cnt" },
	[RD_MAP_TX] = { .pin = "xf_rd_tx" },
};

static const struct xf_inst_desc rd_inst_desc = {
	.name = "redirect", .what = "the redirect program", .objs = rd_objs, .n = RD_NFDS,
	.elf = redirect_bpf__elf_bytes,
};

static const char *const mode_names[XF_RD_MODE_MAX] = {
	[XF_RD_EGRESS] = "egress", [XF_RD_INGRESS] = "ingress", [XF_RD_PEER] = "peer",
	[XF_RD_PEER_EGRESS] = "peer-egress", [XF_RD_NEIGH] = "neigh",
	[XF_RD_MIRROR] = "mirror",
};

const char *xf_redirect_mode_name(int mode)
{
	return mode >= 0 && mode < XF_RD_MODE_MAX ? mode_names[mode] : "?";
}

int xf_redirect_mode_parse(const char *word)
{
	int i;

	for (i = 0; i < XF_RD_MODE_MAX; i++)
		if (!strcmp(mode_names[i], word))
			return i;
	return -1;
}

int rd_open(struct xf_inst *in, enum rd_open_how how)
{
	int err;

	err = xf_inst_open(in, &rd_inst_desc);
	if (!err)
		return 0;
	/* The dispatcher has said so once (xf_pins_readable). */
	if (err == -EACCES && how == RD_READ)
		return -ENOENT;
	if (err != -ENOENT) {
		fprintf(stderr, "Error: cannot open the redirect program in %s: %s.\n", in->dir,
			strerror(-err));
		return err;
	}
	if (how != RD_CREATE)
		return -ENOENT;
	return xf_inst_create(in, &rd_inst_desc);
}

void rd_key(int ifindex, int dir, const struct xf_addr *m, struct xf_redir_key *k)
{
	memset(k, 0, sizeof(*k));
	k->scope = XF_RD_SCOPE(ifindex, dir);
	k->prefixlen = 32;
	if (!m)
		return;
	if (m->family == AF_INET) {
		k->addr[10] = k->addr[11] = 0xff;
		memcpy(k->addr + 12, m->bytes, 4);
		k->prefixlen += 96 + m->plen;
	} else {
		memcpy(k->addr, m->bytes, 16);
		k->prefixlen += m->plen;
	}
}

bool rd_key_match(const struct xf_redir_key *k, struct xf_addr *m)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(m, 0, sizeof(*m));
	if (k->prefixlen <= 32)
		return false;
	if (k->prefixlen >= 32 + 96 && !memcmp(k->addr, mapped, 12)) {
		m->family = AF_INET;
		m->plen = k->prefixlen - 32 - 96;
		memcpy(m->bytes, k->addr + 12, 4);
	} else {
		m->family = AF_INET6;
		m->plen = k->prefixlen - 32;
		memcpy(m->bytes, k->addr, 16);
	}
	return true;
}

void rd_mask(struct xf_addr *m)
{
	int n = m->family == AF_INET ? 4 : 16, i;

	for (i = 0; i < n; i++) {
		int bits = m->plen - i * 8;

		if (bits <= 0)
			m->bytes[i] = 0;
		else if (bits < 8)
			m->bytes[i] &= 0xff << (8 - bits);
	}
}

int rd_each(struct xf_inst *in, int (*fn)(struct xf_inst *, struct rd_walk *, void *),
		   void *arg)
{
	struct xf_redir_key *keys, *prev = NULL;
	struct rd_walk w;
	int n = 0, i, err = 0;

	keys = calloc(XF_RD_MAX_RULES, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	while (n < XF_RD_MAX_RULES &&
	       !bpf_map_get_next_key(in->fd[RD_MAP_RULES], prev, &keys[n])) {
		prev = &keys[n];
		n++;
	}
	/* A walk cut short is an error, not fewer rules: a caller counts
	 * rules to decide what to detach. */
	if (n < XF_RD_MAX_RULES && errno != ENOENT)
		err = -errno;
	for (i = 0; i < n && !err; i++) {
		w.key = keys[i];
		if (bpf_map_lookup_elem(in->fd[RD_MAP_RULES], &w.key, &w.rule)) {
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		err = fn ? fn(in, &w, arg) : 0;
	}
	free(keys);
	return err < 0 ? err : n;
}
