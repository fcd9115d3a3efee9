// SPDX-License-Identifier: GPL-2.0
/* xfwd gc: remove what network namespaces and interfaces that no longer
 * exist left behind, for every object, and say what went. A command of its
 * own: no object's verb collects another object's state. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "gc.h"
#include "out.h"
#include "redirect/redirect.h"
#include "route/route.h"

static void gc_row(const struct xf_gc_item *it, void *arg)
{
	struct xfwd *x = arg;

	out_row_begin(x->out);
	out_str(x->out, "object", it->object);
	out_u64(x->out, "netns", it->netns);
	out_int(x->out, "ifindex", it->ifindex);
	out_str(x->out, "removed", it->what);
	out_row_end(x->out);
}

static int gc_run(struct xfwd *x, struct xf_args *a)
{
	const struct xf_gc_report r = { .fn = gc_row, .arg = x };
	struct xf_nl *nl;
	int err;

	if (arg_more(a))
		return arg_unexpected(a);
	err = xfwd_nl_locked(x, &nl);
	if (err)
		return err;
	out_list_begin(x->out, "removed");
	/* Each object's map entries first, while its pins still lead to
	 * them; then what is left in the directories of gone interfaces;
	 * then whole namespaces that are gone. */
	err = xf_route_sweep(nl, &r);
	if (!err)
		err = xf_redirect_sweep(&r);
	if (err >= 0)
		err = xf_gc_ifaces(&r);
	if (err >= 0)
		err = xf_gc_netns(&r);
	out_list_end(x->out);
	if (err < 0)
		fprintf(stderr, "Error: garbage collection failed: %s.\n", strerror(-err));
	return err < 0 ? err : 0;
}

static const struct cmd gc_cmds[] = {
	{ "gc", gc_run, "", XF_CMD_CHANGES },
	{ }
};

const struct object gc_object = {
	.name = "gc", .cmds = gc_cmds, .dflt = "gc",
	.summary = "remove what gone namespaces and interfaces left behind",
	.command = true,
};
