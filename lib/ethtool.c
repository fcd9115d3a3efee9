// SPDX-License-Identifier: GPL-2.0
/* The ethtool ioctls that xfwd reads: see ethtool.h. */
#include <errno.h>
#include <stdlib.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "ethtool.h"

int xf_ethtool_ioctl(int sk, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name) - 1);
	ifr.ifr_data = data;
	return ioctl(sk, SIOCETHTOOL, &ifr) ? -errno : 0;
}

int xf_ethtool_get(int sk, const char *ifname, uint32_t cmd)
{
	struct ethtool_value ev = { .cmd = cmd };
	int s = sk, err;

	if (s < 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -errno;
	}
	err = xf_ethtool_ioctl(s, ifname, &ev);
	if (sk < 0)
		close(s);
	return err ? err : !!ev.data;
}

/* The index of the feature name among the kernel's names, or -errno. */
static int ethtool_feature_index(int s, const char *ifname, const char *name)
{
	struct {
		struct ethtool_sset_info h;
		uint32_t len;
	} ss = { .h = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_FEATURES } };
	struct ethtool_gstrings *gs;
	uint32_t n, i;
	int err;

	err = xf_ethtool_ioctl(s, ifname, &ss);
	if (err)
		return err;
	if (!ss.h.sset_mask || !ss.len || ss.len > 4096)
		return -ENOENT;
	n = ss.len;
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	if (!gs)
		return -ENOMEM;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_FEATURES;
	gs->len = n;
	err = xf_ethtool_ioctl(s, ifname, gs);
	for (i = 0; !err && i < gs->len && i < n; i++)
		if (!strncmp((const char *)gs->data + (size_t)i * ETH_GSTRING_LEN, name,
			     ETH_GSTRING_LEN))
			break;
	if (!err)
		err = i < gs->len && i < n ? (int)i : -ENOENT;
	free(gs);
	return err;
}

int xf_ethtool_feature(int sk, const char *ifname, const char *name)
{
	struct ethtool_gfeatures *gf = NULL;
	int s = sk, idx, err;

	if (s < 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -errno;
	}
	idx = ethtool_feature_index(s, ifname, name);
	err = idx < 0 ? idx : 0;
	if (!err) {
		uint32_t blocks = (uint32_t)idx / 32 + 1;

		gf = calloc(1, sizeof(*gf) + blocks * sizeof(gf->features[0]));
		err = gf ? 0 : -ENOMEM;
		if (gf) {
			gf->cmd = ETHTOOL_GFEATURES;
			gf->size = blocks;
			err = xf_ethtool_ioctl(s, ifname, gf);
		}
		if (!err)
			err = !!(gf->features[idx / 32].active & (1U << (idx % 32)));
	}
	free(gf);
	if (sk < 0)
		close(s);
	return err;
}
