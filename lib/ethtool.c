// SPDX-License-Identifier: GPL-2.0
/* The ethtool ioctls that xfwd reads: see ethtool.h. */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "ethtool.h"

int xf_ethtool_get(int sk, const char *ifname, uint32_t cmd)
{
	struct ethtool_value ev = { .cmd = cmd };
	struct ifreq ifr;
	int s = sk, err = 0;

	if (s < 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -errno;
	}
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name) - 1);
	ifr.ifr_data = (void *)&ev;
	if (ioctl(s, SIOCETHTOOL, &ifr))
		err = -errno;
	if (sk < 0)
		close(s);
	return err ? err : !!ev.data;
}
