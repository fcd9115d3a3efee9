// SPDX-License-Identifier: GPL-2.0
/* The show verbs' common frame: an optional "dev IFNAME", then one list of
 * the object's entries. */
#include <errno.h>

#include "cmd.h"
#include "nl.h"
#include "out.h"

int cmd_show_list(struct xfwd *x, struct xf_args *a, const char *key, cmd_walk_fn walk)
{
	const char *dev = NULL;
	struct xf_nl *nl;
	int err;

	err = arg_dev_filter(a, &dev);
	if (err)
		return err;
	nl = xfwd_nl(x);
	if (!nl)
		return -EIO;
	out_list_begin(x->out, key);
	err = walk(x, nl, dev);
	out_list_end(x->out);
	return err;
}
