// SPDX-License-Identifier: GPL-2.0
/* Netlink transport: one libmnl socket per bus, extended ACKs passed on
 * verbatim. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fault.h"
#include "nl.h"

struct xf_nl {
	struct mnl_socket *sk;
	uint32_t portid;
	uint32_t seq;
	char buf[65536];	/* larger than any dump message */
};

int xf_nl_open(struct xf_nl **out, int bus)
{
	struct xf_nl *nl;
	int one = 1;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = mnl_socket_open(bus);
	if (!nl->sk)
		goto err;
	/* Ask for the kernel's own words on failure, and short ACKs. */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0)
		goto err;
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = time(NULL);
	*out = nl;
	return 0;
err:
	one = -errno;
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl);
	return one;
}

void xf_nl_close(struct xf_nl *nl)
{
	if (!nl)
		return;
	mnl_socket_close(nl->sk);
	free(nl);
}

struct nlmsghdr *xf_nl_msg(struct xf_nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

/* Print the extack message of an error reply, if the kernel sent one. */
static void nl_print_extack(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int hlen = sizeof(*err);
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* Without NLM_F_CAPPED the request is echoed back in full. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		hlen += mnl_nlmsg_get_payload_len(&err->msg);
	if (mnl_nlmsg_get_payload_len(nlh) < hlen)
		return;
	mnl_attr_for_each(attr, nlh, hlen) {
		if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return;
		if (err->error)
			fprintf(stderr, "Error: %s\n", mnl_attr_get_str(attr));
		else
			fprintf(stderr, "Warning: %s\n", mnl_attr_get_str(attr));
		return;
	}
}

struct nl_run {
	xf_nl_cb cb;
	void *arg;
	int err;
	bool stopped;	/* the callback has seen enough; drain the rest */
	bool quiet;	/* the kernel's extack is not printed */
};

static int nl_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *run = data;
	int ret;

	/* Read a dump to its end even when the callback is done with it, so
	 * that no stale message is left for the next request. */
	if (!run->cb || run->stopped)
		return MNL_CB_OK;
	ret = run->cb(nlh, run->arg);
	if (ret < 0 && !run->err)
		run->err = ret;
	if (ret)
		run->stopped = true;
	return MNL_CB_OK;
}

static int nl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct nl_run *run = data;

	if (!run->quiet)
		nl_print_extack(nlh);
	if (err->error) {
		run->err = err->error;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int nl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_run *run = data;
	const int *err = mnl_nlmsg_get_payload(nlh);

	/* A dump may end with an error in its DONE message. */
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int) && *err < 0) {
		run->err = *err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int nl_run(struct xf_nl *nl, struct nlmsghdr *nlh, xf_nl_cb cb, void *arg, bool quiet)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = nl_error_cb,
		[NLMSG_DONE] = nl_done_cb,
	};
	struct nl_run run = { .cb = cb, .arg = arg, .quiet = quiet };
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t n;
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	if (xf_fault_step("netlink"))
		return -errno;
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl->sk, nl->buf, sizeof(nl->buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(nl->buf, n, seq, nl->portid, nl_data_cb, &run,
				  ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_ERROR)
			return run.err ? run.err : -errno ? -errno : -EIO;
		if (ret == MNL_CB_STOP)
			return run.err;
	}
}

int xf_nl_request(struct xf_nl *nl, struct nlmsghdr *nlh)
{
	return nl_run(nl, nlh, NULL, NULL, false);
}

int xf_nl_dump(struct xf_nl *nl, struct nlmsghdr *nlh, xf_nl_cb cb, void *arg)
{
	return nl_run(nl, nlh, cb, arg, false);
}

int xf_nl_ask(struct xf_nl *nl, struct nlmsghdr *nlh, xf_nl_cb cb, void *arg)
{
	return nl_run(nl, nlh, cb, arg, true);
}

static int nl_family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *attr;
	uint16_t *id = arg;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(attr, MNL_TYPE_U16))
			*id = mnl_attr_get_u16(attr);
	}
	return 0;
}

int xf_nl_genl_family(struct xf_nl *nl, const char *name, uint16_t *id)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, GENL_ID_CTRL, 0);
	struct genlmsghdr *g;
	uint16_t found = 0;
	int err;

	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	err = xf_nl_dump(nl, nlh, nl_family_cb, &found);
	if (!err && !found)
		err = -EPROTO;
	if (!err && id)
		*id = found;
	return err;
}

/* xf_nl_drain()'s state: the caller's callback, the messages given to
 * it, and the first error it returned. */
struct nl_events {
	xf_nl_cb cb;
	void *arg;
	int n, err;
};

static int nl_event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_events *ev = data;

	ev->n++;
	ev->err = ev->cb(nlh, ev->arg);
	return ev->err ? MNL_CB_ERROR : MNL_CB_OK;
}

int xf_nl_join(struct xf_nl *nl, const unsigned int *groups, int n, int rcvbuf)
{
	int fd = mnl_socket_get_fd(nl->sk), i;

	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		return -errno;
	for (i = 0; i < n; i++)
		if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, (void *)&groups[i],
					  sizeof(groups[i])))
			return -errno;
	return 0;
}

int xf_nl_fd(const struct xf_nl *nl)
{
	return mnl_socket_get_fd(nl->sk);
}

int xf_nl_drain(struct xf_nl *nl, bool *overrun, xf_nl_cb cb, void *arg)
{
	struct nl_events ev = { .cb = cb, .arg = arg };
	int fd = mnl_socket_get_fd(nl->sk), ret;
	ssize_t len;

	for (;;) {
		len = recv(fd, nl->buf, sizeof(nl->buf), MSG_DONTWAIT);
		if (len < 0 && errno == ENOBUFS) {
			*overrun = true;
			continue;
		}
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? ev.n : -errno;
		/* Events carry sequence 0 and port 0: no check of either. */
		ret = mnl_cb_run(nl->buf, len, 0, 0, nl_event_cb, &ev);
		if (ret < 0 && !ev.err)
			ev.err = -errno;
		if (ev.err)
			return ev.err;
	}
}
