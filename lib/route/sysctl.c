// SPDX-License-Identifier: GPL-2.0
/* The kernel's sysctls that decide a member's flags, read as the kernel
 * applies them: IPv6 forwarding, rp_filter and accept_local. */
#include <net/if.h>
#include <stdio.h>

#include "internal.h"

static int rt_sysctl_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v;

	if (!f)
		return dflt;
	if (fscanf(f, "%d", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* IPv6 forwarding as the kernel decides it is "all.forwarding", while
 * bpf_fib_lookup() looks at the ingress device only: with it off, IPv6 is
 * left to the kernel. The family asked for is kept in XF_RTIF_WANT_*. */
void rt_family_flags(uint32_t *flags)
{
	*flags &= ~(XF_RTIF_INET | XF_RTIF_INET6);
	if (*flags & XF_RTIF_WANT_INET)
		*flags |= XF_RTIF_INET;
	if ((*flags & XF_RTIF_WANT_INET6) &&
	    rt_sysctl_int("/proc/sys/net/ipv6/conf/all/forwarding", 0) > 0)
		*flags |= XF_RTIF_INET6;
}

/* rp_filter as the kernel applies it: the larger of "all" and the device. */
uint32_t rt_rp_filter_flags(int ifindex)
{
	char name[IF_NAMESIZE], path[128];
	int all, dev, v;

	if (!if_indextoname(ifindex, name))
		return 0;
	all = rt_sysctl_int("/proc/sys/net/ipv4/conf/all/rp_filter", 0);
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/rp_filter", name);
	dev = rt_sysctl_int(path, 0);
	v = all > dev ? all : dev;
	return v == 1 ? XF_RTIF_RP_STRICT : v == 2 ? XF_RTIF_RP_LOOSE : 0;
}

/* accept_local as the kernel applies it: "all" or the device. */
bool rt_accept_local(int ifindex)
{
	char name[IF_NAMESIZE], path[128];

	if (!if_indextoname(ifindex, name))
		return false;
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/accept_local", name);
	return rt_sysctl_int("/proc/sys/net/ipv4/conf/all/accept_local", 0) > 0 ||
	       rt_sysctl_int(path, 0) > 0;
}
