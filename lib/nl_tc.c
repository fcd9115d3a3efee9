// SPDX-License-Identifier: GPL-2.0
/* tc filters through rtnetlink, decoded to struct xf_tc_filter. */
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>

#include <libmnl/libmnl.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "nl.h"
#include "nl_tc.h"

struct tc_walk {
	struct xf_tc_filter *out;
	int max;
	int n;
};

static void tc_parse_bpf(const struct nlattr *opts, struct xf_tc_filter *f)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, opts) {
		switch (mnl_attr_get_type(a)) {
		case TCA_BPF_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				f->prog_id = mnl_attr_get_u32(a);
			break;
		case TCA_BPF_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				strncpy(f->name, mnl_attr_get_str(a), sizeof(f->name) - 1);
			break;
		}
	}
}

static int tc_filter_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct tc_walk *w = arg;
	struct xf_tc_filter f = { 0 };
	const struct nlattr *a, *opts = NULL;
	bool is_bpf = false;

	if (nlh->nlmsg_type != RTM_NEWTFILTER)
		return 0;
	/* The first message of a prio is the chain head, without a handle. */
	if (!t->tcm_handle)
		return 0;
	f.prio = TC_H_MAJ(t->tcm_info) >> 16;
	f.handle = t->tcm_handle;
	mnl_attr_for_each(a, nlh, sizeof(*t)) {
		if (mnl_attr_get_type(a) == TCA_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0) {
			is_bpf = !strcmp(mnl_attr_get_str(a), "bpf");
			strncpy(f.name, mnl_attr_get_str(a), sizeof(f.name) - 1);
		} else if (mnl_attr_get_type(a) == TCA_OPTIONS) {
			opts = a;
		}
	}
	if (is_bpf && opts)
		tc_parse_bpf(opts, &f);
	if (w->n < w->max)
		w->out[w->n] = f;
	w->n++;
	return 0;
}

int xf_tc_filters(struct xf_nl *nl, int ifindex, bool ingress,
		  struct xf_tc_filter *out, int max)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETTFILTER, NLM_F_DUMP);
	struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	struct tc_walk w = { out, max, 0 };
	int err;

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_parent = TC_H_MAKE(TC_H_CLSACT,
				  ingress ? TC_H_MIN_INGRESS : TC_H_MIN_EGRESS);
	err = xf_nl_dump(nl, nlh, tc_filter_cb, &w);
	/* No clsact qdisc: nothing is attached there. */
	if (err == -EINVAL || err == -ENOENT)
		return 0;
	return err ? err : w.n;
}

/* Add (RTM_NEWQDISC) or delete (RTM_DELQDISC) ifindex's clsact qdisc. */
static int tc_clsact(struct xf_nl *nl, int ifindex, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, type, flags);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = TC_H_MAKE(TC_H_CLSACT, 0);
	tcm->tcm_parent = TC_H_CLSACT;
	mnl_attr_put_strz(nlh, TCA_KIND, "clsact");
	return xf_nl_request(nl, nlh);
}

int xf_tc_clsact_add(struct xf_nl *nl, int ifindex)
{
	return tc_clsact(nl, ifindex, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL);
}

int xf_tc_bpf_add(struct xf_nl *nl, int ifindex, bool ingress, int fd, const char *name)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	struct nlattr *opts;

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_MAKE(TC_H_CLSACT,
				    ingress ? TC_H_MIN_INGRESS : TC_H_MIN_EGRESS);
	tcm->tcm_handle = 1;
	tcm->tcm_info = TC_H_MAKE(1U << 16, htons(ETH_P_ALL));
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_BPF_FD, fd);
	mnl_attr_put_strz(nlh, TCA_BPF_NAME, name);
	mnl_attr_put_u32(nlh, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
	mnl_attr_nest_end(nlh, opts);
	return xf_nl_request(nl, nlh);
}

int xf_tc_bpf_del(struct xf_nl *nl, int ifindex, bool ingress)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_DELTFILTER, 0);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_MAKE(TC_H_CLSACT, ingress ? TC_H_MIN_INGRESS : TC_H_MIN_EGRESS);
	tcm->tcm_handle = 1;
	tcm->tcm_info = TC_H_MAKE(1U << 16, htons(ETH_P_ALL));
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	return xf_nl_request(nl, nlh);
}

int xf_tc_clsact_del(struct xf_nl *nl, int ifindex)
{
	return tc_clsact(nl, ifindex, RTM_DELQDISC, 0);
}

struct tc_qdisc_walk {
	int ifindex;
	bool found;
};

static int tc_clsact_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct tc_qdisc_walk *w = arg;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWQDISC || t->tcm_ifindex != w->ifindex)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*t))
		if (mnl_attr_get_type(a) == TCA_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0 &&
		    !strcmp(mnl_attr_get_str(a), "clsact"))
			w->found = true;
	return 0;
}

int xf_tc_has_clsact(struct xf_nl *nl, int ifindex, bool *has)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETQDISC, NLM_F_DUMP);
	struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	struct tc_qdisc_walk w = { .ifindex = ifindex };
	int err;

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	err = xf_nl_dump(nl, nlh, tc_clsact_cb, &w);
	*has = w.found;
	return err;
}

/* fq_codel's options as fq_codel_init() sets them: 5 ms target, 100 ms
 * interval, 10240 packets, 1024 flows, ECN, batches of 64, 32 MiB, and no
 * CE threshold. */
static bool tc_fq_codel_stock(const struct nlattr *opts)
{
	static const uint32_t want[] = {
		[TCA_FQ_CODEL_TARGET] = 5000, [TCA_FQ_CODEL_LIMIT] = 10240,
		[TCA_FQ_CODEL_INTERVAL] = 100000, [TCA_FQ_CODEL_ECN] = 1,
		[TCA_FQ_CODEL_FLOWS] = 1024, [TCA_FQ_CODEL_DROP_BATCH_SIZE] = 64,
		[TCA_FQ_CODEL_MEMORY_LIMIT] = 32 << 20,
	};
	const struct nlattr *a;
	uint32_t v;
	uint16_t t;

	if (!opts)
		return false;
	mnl_attr_for_each_nested(a, opts) {
		t = mnl_attr_get_type(a);
		if (t == TCA_FQ_CODEL_QUANTUM)
			continue;
		if (t >= sizeof(want) / sizeof(want[0]) || !want[t] ||
		    mnl_attr_get_payload_len(a) < sizeof(uint32_t))
			return false;
		/* The times go through codel's 1024 ns units: 5 ms reads
		 * back as 4999 us. */
		v = mnl_attr_get_u32(a);
		if (v != want[t] && !((t == TCA_FQ_CODEL_TARGET || t == TCA_FQ_CODEL_INTERVAL) &&
				      v == want[t] - 1))
			return false;
	}
	return true;
}

static bool tc_qdisc_stock(const char *kind, const struct nlattr *opts)
{
	if (!strcmp(kind, "noqueue") || !strcmp(kind, "mq") || !strcmp(kind, "pfifo_fast"))
		return true;
	return !strcmp(kind, "fq_codel") && tc_fq_codel_stock(opts);
}

struct tc_qdiscs {
	int ifindex;
	struct xf_tc_qdisc *out;
	int max, n;
};

static int tc_qdiscs_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
	struct xf_tc_qdisc q = { .handle = t->tcm_handle, .parent = t->tcm_parent };
	const struct nlattr *a, *opts = NULL;
	struct tc_qdiscs *w = arg;

	if (nlh->nlmsg_type != RTM_NEWQDISC || t->tcm_ifindex != w->ifindex)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*t)) {
		if (mnl_attr_get_type(a) == TCA_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			strncpy(q.kind, mnl_attr_get_str(a), sizeof(q.kind) - 1);
		else if (mnl_attr_get_type(a) == TCA_OPTIONS)
			opts = a;
	}
	q.stock = tc_qdisc_stock(q.kind, opts);
	/* clsact and ingress hold filters, not queues (xf_tc_filters). */
	if (t->tcm_parent == TC_H_INGRESS)
		return 0;
	if (w->n < w->max)
		w->out[w->n] = q;
	w->n++;
	return 0;
}

int xf_tc_qdiscs(struct xf_nl *nl, int ifindex, struct xf_tc_qdisc *out, int max)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETQDISC, NLM_F_DUMP);
	struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	struct tc_qdiscs w = { .ifindex = ifindex, .out = out, .max = max };
	int err;

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	err = xf_nl_dump(nl, nlh, tc_qdiscs_cb, &w);
	return err ? err : w.n;
}
