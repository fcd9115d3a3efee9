// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/chain/graph.c: the chain's graph check (gotos, cycles,
 * limits) and the step layout the dispatcher is built from. No root. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chain/build.h"
#include "check.h"

static struct xf_chain_member m[XF_CHAIN_MAX + 1];

/* n members named a, b, c, ... (m0, m1, ... past z), default rules. */
static void chain(int n)
{
	int i;

	memset(m, 0, sizeof(m));
	for (i = 0; i < n; i++) {
		if (i < 26)
			snprintf(m[i].name, sizeof(m[i].name), "%c", 'a' + i);
		else
			snprintf(m[i].name, sizeof(m[i].name), "m%d", i);
		m[i].slot = i;
	}
}

static void rule(int i, int v, int action, int target)
{
	m[i].on[v].action = action;
	m[i].on[v].target = target;
}

static int order_is(const struct xf_chain_layout *lo, const char *want)
{
	char got[64] = "";
	int i;

	for (i = 0; i < lo->n; i++)
		strcat(got, m[lo->order[i]].name);
	if (strcmp(got, want))
		printf("  layout: got \"%s\", want \"%s\"\n", got, want);
	return !strcmp(got, want);
}

int main(void)
{
	struct check c = { 0 };
	struct xf_chain_layout lo;
	char msg[256];

	/* Default rules: pass -> next, everything else stops; pass of the
	 * last member ends the chain. */
	chain(3);
	check_true(&c, !xf_chain_check(m, 3, msg, sizeof(msg)), "default chain", __LINE__);
	check_true(&c, xf_chain_dest(m, 3, 0, XF_V_PASS) == 1, "pass -> next", __LINE__);
	check_true(&c, xf_chain_dest(m, 3, 0, XF_V_DROP) == XF_CHAIN_EXIT, "drop stops", __LINE__);
	check_true(&c, xf_chain_dest(m, 3, 2, XF_V_PASS) == XF_CHAIN_EXIT, "last: pass ends",
		   __LINE__);
	xf_chain_layout(m, 3, &lo);
	check_true(&c, order_is(&lo, "abc"), "default layout", __LINE__);

	/* A goto that skips b: b is unreachable and is left out. */
	rule(0, XF_V_PASS, XF_ACT_GOTO, 2);
	check_true(&c, !xf_chain_check(m, 3, msg, sizeof(msg)), "goto skipping", __LINE__);
	xf_chain_layout(m, 3, &lo);
	check_true(&c, order_is(&lo, "ac") && lo.pos[1] == -1, "b unreachable", __LINE__);

	/* on drop goto c skips b only for drops. */
	chain(3);
	rule(0, XF_V_DROP, XF_ACT_GOTO, 2);
	check_true(&c, !xf_chain_check(m, 3, msg, sizeof(msg)), "on drop goto", __LINE__);
	xf_chain_layout(m, 3, &lo);
	check_true(&c, order_is(&lo, "abc"), "on drop goto layout", __LINE__);

	/* A goto backwards in the list without a cycle: the layout puts the
	 * target after its source, so every jump goes forward. */
	chain(3);
	rule(0, XF_V_PASS, XF_ACT_GOTO, 2);
	rule(2, XF_V_PASS, XF_ACT_GOTO, 1);
	rule(1, XF_V_PASS, XF_ACT_STOP, 0);
	check_true(&c, !xf_chain_check(m, 3, msg, sizeof(msg)), "backward goto", __LINE__);
	xf_chain_layout(m, 3, &lo);
	check_true(&c, order_is(&lo, "acb"), "topological layout", __LINE__);

	/* Unknown goto target. */
	chain(3);
	rule(1, XF_V_TX, XF_ACT_GOTO, 3);
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -EINVAL, "goto 3 refused",
		   __LINE__);
	check_str(&c, msg, "member b: on tx goto member 3, but the chain has 3", __LINE__);

	/* The seed's A->B->C->A. */
	chain(3);
	rule(2, XF_V_PASS, XF_ACT_GOTO, 0);
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -ELOOP, "cycle refused",
		   __LINE__);
	check_str(&c, msg, "cycle: a -> b -> c -> a", __LINE__);

	/* A cycle that does not start at the first member is named from
	 * where it closes; so is one among members nothing reaches. */
	chain(4);
	rule(3, XF_V_DROP, XF_ACT_GOTO, 1);
	check_true(&c, xf_chain_check(m, 4, msg, sizeof(msg)) == -ELOOP, "inner cycle", __LINE__);
	check_str(&c, msg, "cycle: b -> c -> d -> b", __LINE__);
	chain(4);
	rule(0, XF_V_PASS, XF_ACT_STOP, 0);
	rule(3, XF_V_PASS, XF_ACT_GOTO, 2);
	check_true(&c, xf_chain_check(m, 4, msg, sizeof(msg)) == -ELOOP, "unreachable cycle",
		   __LINE__);
	check_str(&c, msg, "cycle: c -> d -> c", __LINE__);

	/* Self-goto. */
	chain(3);
	rule(1, XF_V_DROP, XF_ACT_GOTO, 1);
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -ELOOP, "self goto", __LINE__);
	check_str(&c, msg, "cycle: b -> b", __LINE__);

	/* A message that does not fit is cut, never overrun. */
	chain(3);
	rule(2, XF_V_PASS, XF_ACT_GOTO, 0);
	check_true(&c, xf_chain_check(m, 3, msg, 12) == -ELOOP, "short buffer", __LINE__);
	check_str(&c, msg, "cycle: a ->", __LINE__);

	/* Limits: 32 members, not 33 and not 0. */
	chain(XF_CHAIN_MAX);
	check_true(&c, !xf_chain_check(m, XF_CHAIN_MAX, msg, sizeof(msg)), "32 members",
		   __LINE__);
	xf_chain_layout(m, XF_CHAIN_MAX, &lo);
	check_true(&c, lo.n == XF_CHAIN_MAX && lo.order[31] == 31, "32 steps", __LINE__);
	chain(XF_CHAIN_MAX + 1);
	m[XF_CHAIN_MAX].slot = 0;
	check_true(&c, xf_chain_check(m, XF_CHAIN_MAX + 1, msg, sizeof(msg)) == -EINVAL,
		   "33 members", __LINE__);
	check_str(&c, msg, "a chain has 1 to 32 members, not 33", __LINE__);
	check_true(&c, xf_chain_check(m, 0, msg, sizeof(msg)) == -EINVAL, "0 members", __LINE__);

	/* Names and counter slots are distinct; actions are known. */
	chain(3);
	strcpy(m[2].name, "a");
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -EINVAL, "same name", __LINE__);
	check_str(&c, msg, "two members named a", __LINE__);
	chain(3);
	m[2].slot = 0;
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -EINVAL, "same slot", __LINE__);
	check_str(&c, msg, "members a and c share counter slot 0", __LINE__);
	chain(3);
	m[1].slot = XF_CHAIN_MAX;
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -EINVAL, "slot range", __LINE__);
	chain(3);
	rule(0, XF_V_ABORTED, 9, 0);
	check_true(&c, xf_chain_check(m, 3, msg, sizeof(msg)) == -EINVAL, "bad action", __LINE__);
	check_str(&c, msg, "member a: unknown action 9 on aborted", __LINE__);

	check_str(&c, xf_chain_verdict_name(XF_V_REDIRECT), "redirect", __LINE__);
	check_str(&c, xf_chain_verdict_name(XF_V_OTHER), "other", __LINE__);
	check_true(&c, !xf_chain_verdict_name(XF_CHAIN_NV), "no name past other", __LINE__);
	return check_done(&c, "test_chain_graph");
}
