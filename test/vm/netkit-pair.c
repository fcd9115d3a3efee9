// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-pair NETNS NAME PEER l2|l3: create a netkit pair NAME <-> PEER in
 * the named network namespace, in the given mode, through xfwd's own
 * netlink code (bookworm's ip cannot set a netkit's mode). The tests move
 * PEER into a pod afterwards. Exit 0, or 1 with one Error line.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "nl.h"
#include "nl_link.h"

int main(int argc, char **argv)
{
	char path[256];
	struct xf_nl *nl;
	int fd, err;

	if (argc != 5 || (strcmp(argv[4], "l2") && strcmp(argv[4], "l3"))) {
		fprintf(stderr, "Usage: netkit-pair NETNS NAME PEER l2|l3\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "Error: cannot enter %s: %s.\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	err = xf_nl_open(&nl, NETLINK_ROUTE);
	if (!err) {
		err = xf_link_add_netkit_pair(nl, argv[2], argv[3], !strcmp(argv[4], "l2"));
		xf_nl_close(nl);
	}
	if (err) {
		fprintf(stderr, "Error: cannot create netkit %s: %s.\n", argv[2], strerror(-err));
		return 1;
	}
	return 0;
}
