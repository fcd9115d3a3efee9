// SPDX-License-Identifier: GPL-2.0
/* chain: the graph of a chain (order plus per-verdict rules): check and layout. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chain/build.h"

static const char *const verdict_names[XF_CHAIN_NV] = {
	"aborted", "drop", "pass", "tx", "redirect", "other",
};

const char *xf_chain_verdict_name(unsigned int v)
{
	return v < XF_CHAIN_NV ? verdict_names[v] : NULL;
}

int xf_chain_dest(const struct xf_chain_member *m, int n, int i, int v)
{
	const struct xf_chain_rule *r = &m[i].on[v];
	int act = r->action;

	if (act == XF_ACT_DEFAULT)
		act = v == XF_V_PASS ? XF_ACT_NEXT : XF_ACT_STOP;
	if (act == XF_ACT_NEXT)
		return i + 1 < n ? i + 1 : XF_CHAIN_EXIT;
	if (act == XF_ACT_GOTO)
		return r->target;
	return XF_CHAIN_EXIT;
}

enum { WHITE, GREY, BLACK };

/* Depth-first search from i; path[0..depth] is the grey path that led here.
 * A grey successor closes a cycle, which is named from where it starts. */
static int find_cycle(const struct xf_chain_member *m, int n, int i, uint8_t *color,
		      int *path, int depth, char *msg, size_t len)
{
	int v, d, k, err;
	size_t o;

	color[i] = GREY;
	path[depth] = i;
	for (v = 0; v < XF_V_N; v++) {
		d = xf_chain_dest(m, n, i, v);
		if (d == XF_CHAIN_EXIT || color[d] == BLACK)
			continue;
		if (color[d] == WHITE) {
			err = find_cycle(m, n, d, color, path, depth + 1, msg, len);
			if (err)
				return err;
			continue;
		}
		for (k = 0; path[k] != d; k++)
			;
		o = snprintf(msg, len, "cycle:");
		for (; k <= depth && o < len; k++)
			o += snprintf(msg + o, len - o, " %s ->", m[path[k]].name);
		if (o < len)
			snprintf(msg + o, len - o, " %s", m[d].name);
		return -ELOOP;
	}
	color[i] = BLACK;
	return 0;
}

int xf_chain_check(const struct xf_chain_member *m, int n, char *msg, size_t len)
{
	uint8_t color[XF_CHAIN_MAX] = { 0 };
	int path[XF_CHAIN_MAX];
	int i, j, v, err;

	if (n < 1 || n > XF_CHAIN_MAX) {
		snprintf(msg, len, "a chain has 1 to %d members, not %d", XF_CHAIN_MAX, n);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		size_t l = strnlen(m[i].name, sizeof(m[i].name));

		if (!l || l == sizeof(m[i].name)) {
			snprintf(msg, len, "member %d: name empty or not terminated", i);
			return -EINVAL;
		}
		if (m[i].slot >= XF_CHAIN_MAX) {
			snprintf(msg, len, "member %s: counter slot %u out of range",
				 m[i].name, m[i].slot);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(m[i].name, m[j].name)) {
				snprintf(msg, len, "two members named %s", m[i].name);
				return -EINVAL;
			}
			if (m[i].slot == m[j].slot) {
				snprintf(msg, len, "members %s and %s share counter slot %u",
					 m[j].name, m[i].name, m[i].slot);
				return -EINVAL;
			}
		}
		for (v = 0; v < XF_V_N; v++) {
			const struct xf_chain_rule *r = &m[i].on[v];

			if (r->action > XF_ACT_GOTO) {
				snprintf(msg, len, "member %s: unknown action %u on %s",
					 m[i].name, r->action, verdict_names[v]);
				return -EINVAL;
			}
			if (r->action == XF_ACT_GOTO && r->target >= n) {
				snprintf(msg, len, "member %s: on %s goto member %u, "
					 "but the chain has %d", m[i].name, verdict_names[v],
					 r->target, n);
				return -EINVAL;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (color[i] != WHITE)
			continue;
		err = find_cycle(m, n, i, color, path, 0, msg, len);
		if (err)
			return err;
	}
	return 0;
}

void xf_chain_layout(const struct xf_chain_member *m, int n, struct xf_chain_layout *lo)
{
	uint32_t succ[XF_CHAIN_MAX] = { 0 }, reach = 1, todo;
	int indeg[XF_CHAIN_MAX] = { 0 };
	int i, v, d, queue[XF_CHAIN_MAX], qh = 0, qt = 0;

	for (i = 0; i < n; i++) {
		lo->pos[i] = -1;
		for (v = 0; v < XF_V_N; v++) {
			d = xf_chain_dest(m, n, i, v);
			if (d != XF_CHAIN_EXIT)
				succ[i] |= 1u << d;
		}
	}
	/* Only members reachable from the first are linked in: the verifier
	 * refuses code that nothing calls. */
	queue[qt++] = 0;
	while (qh < qt) {
		i = queue[qh++];
		for (d = 0; d < n; d++) {
			if ((succ[i] >> d & 1) && !(reach >> d & 1)) {
				reach |= 1u << d;
				queue[qt++] = d;
			}
		}
	}
	for (i = 0; i < n; i++)
		for (d = 0; d < n; d++)
			if ((reach >> i & 1) && (succ[i] >> d & 1))
				indeg[d]++;
	/* Kahn's algorithm, lowest index first: the chain's own order wherever
	 * the gotos allow it, so "next" is mostly a fall-through. */
	lo->n = 0;
	todo = reach;
	while (todo) {
		for (i = 0; i < n; i++)
			if ((todo >> i & 1) && !indeg[i])
				break;
		if (i == n)
			break;	/* a cycle: xf_chain_check() refuses those first */
		todo &= ~(1u << i);
		lo->pos[i] = lo->n;
		lo->order[lo->n++] = i;
		for (d = 0; d < n; d++)
			if (succ[i] >> d & 1)
				indeg[d]--;
	}
}
