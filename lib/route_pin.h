/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the route library: the pinned instance and its helpers. */
#ifndef XF_ROUTE_PIN_H
#define XF_ROUTE_PIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "route.h"

#define RT_PATH_MAX 256
#define RT_MAX_PINNED (XF_RT_MAX_IF + 1)


enum { RT_PROG_XDP, RT_PROG_TC, RT_MAP_TX, RT_MAP_IFCFG, RT_MAP_STATS, RT_MAP_TRACE,
       RT_MAP_LOCAL, RT_MAP_IFC, RT_NFDS };

/* The namespace's one instance: fds of its pinned programs and maps. */
struct rt_inst {
	int fd[RT_NFDS];
	bool created;		/* by this command: removed again on failure */
	char dir[RT_PATH_MAX];
};

/* Open the pinned instance of this namespace. 0, -ENOENT or -errno. */
int rt_inst_open(struct rt_inst *in);
void rt_inst_close(struct rt_inst *in);
/* XF_PIN_ROOT/ns<id>/<ifindex>/route into buf. 0/-errno. */
int rt_link_pin_path(char *buf, size_t len, int ifindex);
/* The pinned link of ifindex as an fd, or -ENOENT. */
int rt_link_open(int ifindex);
/* The hook "auto" picks for a device of this kind and XDP features, and why. */
const char *rt_hook_why(const char *kind, uint64_t features, enum xf_hook *hook);
/* XF_RTIF_RP_* for the rp_filter the kernel applies on ifindex. */
uint32_t rt_rp_filter_flags(int ifindex);
/* Every ifindex with a route link pin in this namespace, also of interfaces
 * that have gone, sorted. Returns the count. */
int rt_pinned_ifindexes(int *out, int max);
/* Set XF_RTIF_INET/INET6 from XF_RTIF_WANT_* and the forwarding sysctls. */
void rt_family_flags(uint32_t *flags);
/* Re-read redirect capability and rp_filter for every member. 0/-errno. */
int rt_refresh(struct rt_inst *in);

#endif
