// SPDX-License-Identifier: GPL-2.0
/* Hooks: see hook.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hook.h"
#include "xbpf.h"

const char *xf_hook_name(enum xf_hook h)
{
	return h == XF_HOOK_XDP ? "xdp" : h == XF_HOOK_TC ? "tc" : "auto";
}

int xf_hook_pin(int link_fd, int ifindex, const char *dev, const char *pin)
{
	int err;

	err = xf_pin_if(link_fd, ifindex, pin);
	close(link_fd);
	if (err) {
		fprintf(stderr, "Error: cannot pin the link of %s: %s.\n", dev, strerror(-err));
		/* The directory made for the pin, unless something else is in it. */
		xf_pin_remove(ifindex, NULL);
	}
	return err;
}

int xf_hook_tcx(int prog_fd, int ifindex, const char *dev, bool ingress, const char *pin)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	int fd, err;

	fd = bpf_link_create(prog_fd, ifindex, ingress ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, &lo);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "Error: cannot attach to %s %s: %s.\n", dev,
			ingress ? "ingress" : "egress", strerror(-err));
		return err;
	}
	return xf_hook_pin(fd, ifindex, dev, pin);
}

int xf_hook_unpin(int ifindex, const char *pin)
{
	return xf_pin_remove(ifindex, pin);
}
