/* SPDX-License-Identifier: GPL-2.0 */
/* The only code that talks to netlink sockets (libmnl, extended ACK). */
#ifndef XF_NL_H
#define XF_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netlink.h>

struct xf_nl;

/* Callback for each message of a dump: 0 to go on, <0 (-errno) to stop. */
typedef int (*xf_nl_cb)(const struct nlmsghdr *nlh, void *arg);

/* Open a socket on bus (NETLINK_ROUTE, NETLINK_GENERIC). 0/-errno. */
int xf_nl_open(struct xf_nl **nl, int bus);
void xf_nl_close(struct xf_nl *nl);
/* Start a message of type with flags (NLM_F_REQUEST added) in the socket's
 * buffer; valid until the next call on nl. */
struct nlmsghdr *xf_nl_msg(struct xf_nl *nl, uint16_t type, uint16_t flags);
/* Send nlh and wait for its ACK. The kernel's extack message, if any, is
 * printed as "Error: <msg>" on failure. 0/-errno. */
int xf_nl_request(struct xf_nl *nl, struct nlmsghdr *nlh);
/* Like xf_nl_request but the reply messages go to cb (a GET or a dump). */
int xf_nl_dump(struct xf_nl *nl, struct nlmsghdr *nlh, xf_nl_cb cb, void *arg);
/* Like xf_nl_dump, for a question whose "no" is an answer (an entry that
 * may not exist): the kernel's extack message is not printed, the caller
 * says what the error means. */
int xf_nl_ask(struct xf_nl *nl, struct nlmsghdr *nlh, xf_nl_cb cb, void *arg);
/* On a NETLINK_GENERIC socket: the id of the generic netlink family name,
 * in *id when id is not NULL. 0, -ENOENT when this kernel has no such
 * family, or -errno. */
int xf_nl_genl_family(struct xf_nl *nl, const char *name, uint16_t *id);

/* Events: join the multicast groups (RTNLGRP_*) on a socket of its own
 * (one that asks nothing, so that no reply is taken for an event), with
 * a receive buffer of rcvbuf bytes when not 0 (forced past rmem_max where
 * the caller may). 0/-errno. */
int xf_nl_join(struct xf_nl *nl, const unsigned int *groups, int n, int rcvbuf);
/* The socket's descriptor, to poll for events. */
int xf_nl_fd(const struct xf_nl *nl);
/* Every event queued on the socket, each message to cb, without waiting
 * for more. The number of messages read, or -errno; *overrun is set when
 * the kernel dropped events because the buffer was full (ENOBUFS): the
 * caller then reads the whole state again. */
int xf_nl_drain(struct xf_nl *nl, bool *overrun, xf_nl_cb cb, void *arg);

#endif
