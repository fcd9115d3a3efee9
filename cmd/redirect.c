// SPDX-License-Identifier: GPL-2.0
/* xfwd redirect: steer packets from one interface straight to another. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "out.h"
#include "redirect/redirect.h"

static const char *const hook_words[] = { "tc", "xdp", NULL };

enum { KW_DEV, KW_DIR, KW_MATCH, KW_TO, KW_MODE, KW_HOOK, KW_VIA };

/* [ ingress | egress ]: the direction keyword, once. */
static int redirect_dir(struct xf_args *a, int *dir, bool *matched)
{
	*matched = true;
	if (arg_kw(a, "ingress"))
		*dir = XF_RD_DIR_INGRESS;
	else if (arg_kw(a, "egress"))
		*dir = XF_RD_DIR_EGRESS;
	else
		return *matched = false, 0;
	return arg_once(a, KW_DIR, "ingress/egress");
}

static int redirect_add(struct xfwd *x, struct xf_args *a)
{
	struct xf_redirect_req r = { .dir = XF_RD_DIR_INGRESS, .mode = XF_RD_EGRESS };
	const char *dev = NULL, *w;
	struct xf_nl *nl;
	bool is_dir;
	int idx = 0, err = 0;

	while (arg_more(a) && !err) {
		err = redirect_dir(a, &r.dir, &is_dir);
		if (is_dir || err)
			continue;
		if (arg_kw(a, "dev")) {
			err = arg_once(a, KW_DEV, "dev") ?: arg_ifname(a, "IFNAME", &dev);
		} else if (arg_kw(a, "match")) {
			err = arg_once(a, KW_MATCH, "match") ?: arg_prefix(a, "PREFIX", &r.match);
			r.has_match = true;
		} else if (arg_kw(a, "to")) {
			err = arg_once(a, KW_TO, "to") ?: arg_ifname(a, "IFNAME", &r.target);
		} else if (arg_kw(a, "mode")) {
			err = arg_once(a, KW_MODE, "mode") ?: arg_str(a, "MODE", &w);
			if (!err && (r.mode = xf_redirect_mode_parse(w)) < 0)
				err = arg_invalid(a, "MODE", w);
			if (!err && r.mode == XF_RD_NEIGH && arg_kw(a, "via")) {
				err = arg_addr(a, "via ADDRESS", &r.via);
				r.has_via = true;
			}
		} else if (arg_kw(a, "hook")) {
			err = arg_once(a, KW_HOOK, "hook") ?: arg_one_of(a, "HOOK", hook_words, &idx);
			r.hook = idx ? XF_HOOK_XDP : XF_HOOK_TC;
		} else {
			return arg_unexpected(a);
		}
	}
	if (err)
		return err;
	if (!dev || !r.target)
		return arg_missing(a, !dev ? "dev IFNAME" : "to IFNAME");
	err = xfwd_nl_locked(x, &nl);
	return err ?: xf_redirect_add(nl, dev, &r);
}

static int redirect_del(struct xfwd *x, struct xf_args *a)
{
	const char *dev = NULL;
	struct xf_addr match;
	bool has_match = false, all = false, is_dir;
	int dir = -1, err = 0;
	struct xf_nl *nl;

	while (arg_more(a) && !err) {
		err = redirect_dir(a, &dir, &is_dir);
		if (is_dir || err)
			continue;
		if (arg_kw(a, "dev")) {
			err = arg_once(a, KW_DEV, "dev") ?: arg_ifname(a, "IFNAME", &dev);
		} else if (!all && !has_match && arg_kw(a, "match")) {
			err = arg_prefix(a, "PREFIX", &match);
			has_match = true;
		} else if (!all && !has_match && arg_kw(a, "all")) {
			all = true;
		} else {
			return arg_unexpected(a);
		}
	}
	err = arg_need(a, err, dev, "dev IFNAME") ?: xfwd_nl_locked(x, &nl);
	return err ?: xf_redirect_del(nl, dev, dir, has_match ? &match : NULL, all);
}

static int redirect_show_one(const struct xf_redirect_info *ri, void *arg)
{
	struct xf_out *o = ((struct xfwd *)arg)->out;
	char buf[64];

	out_row_begin(o);
	out_str(o, "dev", ri->dev[0] ? ri->dev : "-");
	out_int(o, "ifindex", ri->ifindex);
	out_str(o, "dir", ri->dir ? "egress" : "ingress");
	out_str(o, "attach", ri->attach);
	out_str(o, "match", ri->has_match ? xf_addr_str(&ri->match, true, buf, sizeof(buf)) :
		out_is_json(o) ? NULL : "all");
	out_str(o, "mode", xf_redirect_mode_name(ri->mode));
	out_str(o, "to", ri->target);
	/* Always a column of the table, so that its place does not depend
	 * on which rule comes first; in JSON only where there is one. */
	out_str(o, "via", ri->has_via ? xf_addr_str(&ri->via, false, buf, sizeof(buf)) :
		out_is_json(o) ? NULL : "-");
	out_u64(o, "packets", ri->packets);
	out_unit(o, "bytes", ri->bytes, OUT_BYTES);
	if (ri->foreign[0])
		out_str(o, "foreign", ri->foreign);
	out_row_end(o);
	return 0;
}

CMD_SHOW_VERB(redirect_show, "rules", xf_redirect_list, redirect_show_one)

static const struct cmd redirect_cmds[] = {
	{ "add", redirect_add, "dev IFNAME [ ingress | egress ] [ match PREFIX ] to IFNAME "
		"[ mode { egress | ingress | peer | peer-egress | neigh [ via ADDRESS ] | mirror } ] "
		"[ hook { tc | xdp } ]", XF_CMD_CHANGES },
	{ "del", redirect_del, "dev IFNAME [ ingress | egress ] [ match PREFIX | all ]", XF_CMD_CHANGES },
	{ "show", redirect_show, "[ dev IFNAME ]", XF_CMD_READS },
	{ }
};

const struct object redirect_object = {
	.name = "redirect", .cmds = redirect_cmds, .dflt = "show",
	.summary = "tc and XDP redirects between interfaces",
};
