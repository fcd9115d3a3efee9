// SPDX-License-Identifier: GPL-2.0
/* The show verbs' common frame: an optional "dev IFNAME", then one list of
 * the object's entries. */
#include <errno.h>

#include "cmd.h"
#include "nf.h"
#include "nl.h"
#include "out.h"

int cmd_show_list(struct xfwd *x, struct xf_args *a, const char *key, cmd_walk_fn walk)
{
	const char *dev = NULL;
	struct xf_nl *nl;
	int err;

	err = arg_dev_filter(a, &dev) ?: xfwd_nl_get(x, &nl);
	if (err)
		return err;
	out_list_begin(x->out, key);
	err = walk(x, nl, dev);
	out_list_end(x->out);
	return err;
}

void cmd_show_nf_chain(struct xf_out *o, const struct xf_nf_chain *c)
{
	int d;

	out_str(o, "source", c->source);
	out_str(o, "family", *c->family ? c->family : NULL);
	out_str(o, "table", c->table);
	out_str(o, "chain", c->chain);
	out_str(o, "hook", xf_nf_hook_name(c->hook));
	if (out_is_json(o)) {
		out_list_begin(o, "devices");
		for (d = 0; d < c->ndevs; d++) {
			out_row_begin(o);
			out_str(o, "dev", c->devs[d]);
			out_row_end(o);
		}
		out_list_end(o);
	} else {
		out_str(o, "devices", c->ndevs ? c->devs[0] : "-");
	}
	out_int(o, "rules", c->rules);
	out_str(o, "policy", c->drop ? "drop" : "accept");
}
