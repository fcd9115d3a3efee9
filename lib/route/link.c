// SPDX-License-Identifier: GPL-2.0
/* The route links and their pins: one pin per member under
 * XF_PIN_ROOT/ns<id>/<ifindex>/route, of the link that runs the program
 * for it (its own tcx or XDP link, or its parent's for a VLAN device: see
 * vlan.c), and what a link tells of where it runs. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "nl_link.h"
#include "xbpf.h"

int rt_link_pin_path(char *buf, size_t len, int ifindex)
{
	return xf_pin_path(buf, len, ifindex, "route");
}

/* The link pinned for ifindex, as an fd, or -ENOENT. */
int rt_link_open(int ifindex)
{
	char path[RT_PATH_MAX];
	int fd, err;

	err = rt_link_pin_path(path, sizeof(path), ifindex);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int rt_pinned_ifindexes(int *out, int max)
{
	char path[RT_PATH_MAX];
	int n, i, cnt = 0;

	n = xf_layout_ifindexes(false, out, max);
	for (i = 0; i < n; i++)
		if (!rt_link_pin_path(path, sizeof(path), out[i]) && !access(path, F_OK))
			out[cnt++] = out[i];
	return cnt;
}

/* The ifindex a route link runs on (tcx or, when xdp, XDP), or 0. */
static int rt_link_ifindex(int fd, bool xdp)
{
	struct bpf_link_info li;
	uint32_t len = sizeof(li);

	memset(&li, 0, sizeof(li));
	if (bpf_link_get_info_by_fd(fd, &li, &len))
		return 0;
	if (li.type == BPF_LINK_TYPE_TCX)
		return li.tcx.ifindex;
	if (li.type == BPF_LINK_TYPE_XDP && xdp)
		return li.xdp.ifindex;
	return 0;
}

int rt_link_carrier(int fd)
{
	return rt_link_ifindex(fd, true);
}

bool rt_carrier_others(int carrier, int except)
{
	int ifx[RT_MAX_PINNED], n, i, fd;
	bool found = false;

	n = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	for (i = 0; i < n && !found; i++) {
		if (ifx[i] == except)
			continue;
		fd = rt_link_open(ifx[i]);
		if (fd < 0)
			continue;
		found = rt_link_ifindex(fd, true) == carrier;
		close(fd);
	}
	return found;
}

int rt_carrier_link(int carrier)
{
	int ifx[RT_MAX_PINNED], n, i, fd;

	n = rt_pinned_ifindexes(ifx, RT_MAX_PINNED);
	for (i = 0; i < n; i++) {
		fd = rt_link_open(ifx[i]);
		if (fd < 0)
			continue;
		if (rt_link_ifindex(fd, true) == carrier)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

bool rt_on_xdp_link(int fd)
{
	return rt_link_ifindex(fd, true) && !rt_link_ifindex(fd, false);
}

int rt_vlan_parent(int ifindex)
{
	int fd = rt_link_open(ifindex), p;

	if (fd < 0)
		return 0;
	p = rt_link_ifindex(fd, true);
	close(fd);
	return p == ifindex ? 0 : p;
}

uint32_t rt_xdp_target(int ifindex, uint32_t *flags)
{
	int p = rt_vlan_parent(ifindex);

	if (p)
		*flags |= XF_RTIF_VLAN;
	else
		*flags &= ~XF_RTIF_VLAN;
	return p ?: ifindex;
}

const char *rt_port_of(struct xf_nl *nl, const struct xf_link *l, struct xf_link *m)
{
	static const char *const kinds[] = { "bridge", "bond", "team", "openvswitch" };
	static const char *const what[] = { "a port of bridge", "a slave of bond",
					    "a port of team", "a port of Open vSwitch" };
	size_t i;

	if (!l->master || xf_link_get(nl, NULL, l->master, m))
		return NULL;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(m->kind, kinds[i]))
			return what[i];
	return NULL;
}

struct rt_slaves_walk {
	int bond;
	int *out, max, n;
};

static int rt_slaves_cb(const struct xf_link *l, void *arg)
{
	struct rt_slaves_walk *w = arg;

	if (l->master != w->bond)
		return 0;
	if (w->n < w->max)
		w->out[w->n] = l->ifindex;
	w->n++;
	return 0;
}

int rt_slaves(struct xf_nl *nl, int bond, int *out, int max)
{
	struct rt_slaves_walk w = { .bond = bond, .out = out, .max = max };
	int err = xf_link_list(nl, rt_slaves_cb, &w);

	return err ?: w.n;
}
