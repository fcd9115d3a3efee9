// SPDX-License-Identifier: GPL-2.0
/* The kernel's sysctls that decide a member's flags, read as the kernel
 * applies them: IPv6 forwarding. */
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
