// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/devstats.c: the drivers' ethtool names to the
 * stable names stats shows, the queue numbers left out. */
#include <string.h>

#include "check.h"
#include "devstats.h"

static const char *name(const char *ethtool)
{
	return xf_devstats_xdp_name(xf_devstats_map(ethtool)) ?: "-";
}

int main(void)
{
	struct check c = { 0 };

	/* veth, this machine's 6.18 (ethtool -S on a veth). */
	check_str(&c, name("rx_queue_0_xdp_packets"), "xdp_packets", __LINE__);
	check_str(&c, name("rx_queue_0_xdp_bytes"), "xdp_bytes", __LINE__);
	check_str(&c, name("rx_queue_0_drops"), "rx_queue_drops", __LINE__);
	check_str(&c, name("rx_queue_0_xdp_redirect"), "xdp_redirect", __LINE__);
	check_str(&c, name("rx_queue_0_xdp_drops"), "xdp_drops", __LINE__);
	check_str(&c, name("rx_queue_0_xdp_tx"), "xdp_tx", __LINE__);
	check_str(&c, name("rx_queue_0_xdp_tx_errors"), "xdp_tx_errors", __LINE__);
	check_str(&c, name("tx_queue_0_xdp_xmit"), "xdp_xmit", __LINE__);
	check_str(&c, name("tx_queue_0_xdp_xmit_errors"), "xdp_xmit_errors", __LINE__);
	/* Any queue, summed under the same name. */
	check_str(&c, name("rx_queue_17_xdp_drops"), "xdp_drops", __LINE__);
	check_str(&c, name("tx_queue_123_xdp_xmit"), "xdp_xmit", __LINE__);
	/* virtio_net and mlx5 spell some differently. */
	check_str(&c, name("rx_queue_3_xdp_redirects"), "xdp_redirect", __LINE__);
	check_str(&c, name("rx_xdp_drop"), "xdp_drops", __LINE__);
	check_str(&c, name("tx_xdp_err"), "xdp_xmit_errors", __LINE__);
	/* Not shown: other counters, malformed queue names, a tx queue's
	 * "drops" (which is no receive drop). */
	check_str(&c, name("peer_ifindex"), "-", __LINE__);
	check_str(&c, name("rx_queue_x_xdp_drops"), "-", __LINE__);
	check_str(&c, name("rx_queue_1xdp_drops"), "-", __LINE__);
	check_str(&c, name("rx_queue_"), "-", __LINE__);
	check_str(&c, name("tx_queue_0_drops"), "-", __LINE__);
	check_str(&c, name(""), "-", __LINE__);
	/* Every stable name is distinct. */
	for (int i = 0; i < XF_DEV_NXDP; i++)
		for (int j = i + 1; j < XF_DEV_NXDP; j++)
			check_true(&c, strcmp(xf_devstats_xdp_name(i), xf_devstats_xdp_name(j)),
				   "distinct", __LINE__);
	return check_done(&c, "test_devstats");
}
