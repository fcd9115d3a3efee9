// SPDX-License-Identifier: GPL-2.0
/* A device's own counters: see devstats.h. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "devstats.h"
#include "ethtool.h"
#include "nl.h"

static const char *const std_names[XF_DEV_NSTD] = {
	"rx_packets", "rx_bytes", "rx_errors", "rx_dropped",
	"tx_packets", "tx_bytes", "tx_errors", "tx_dropped",
};

static const char *const xdp_names[XF_DEV_NXDP] = {
	[XF_DEV_XDP_PACKETS] = "xdp_packets",
	[XF_DEV_XDP_BYTES] = "xdp_bytes",
	[XF_DEV_XDP_REDIRECT] = "xdp_redirect",
	[XF_DEV_XDP_DROPS] = "xdp_drops",
	[XF_DEV_XDP_TX] = "xdp_tx",
	[XF_DEV_XDP_TX_ERRORS] = "xdp_tx_errors",
	[XF_DEV_XDP_XMIT] = "xdp_xmit",
	[XF_DEV_XDP_XMIT_ERRORS] = "xdp_xmit_errors",
	[XF_DEV_RX_QUEUE_DROPS] = "rx_queue_drops",
};

const char *xf_devstats_std_name(int i)
{
	return i >= 0 && i < XF_DEV_NSTD ? std_names[i] : NULL;
}

const char *xf_devstats_xdp_name(int i)
{
	return i >= 0 && i < XF_DEV_NXDP ? xdp_names[i] : NULL;
}

/* The drivers' names, with "rx_queue_N_" or "tx_queue_N_" written as
 * "rx_queue_" and "tx_queue_": veth and virtio_net count per queue, mlx5
 * also in sums of its own. */
static const struct {
	const char *name;
	int id;
} driver_names[] = {
	{ "rx_queue_xdp_packets", XF_DEV_XDP_PACKETS },
	{ "rx_queue_xdp_bytes", XF_DEV_XDP_BYTES },
	{ "rx_queue_xdp_redirect", XF_DEV_XDP_REDIRECT },
	{ "rx_queue_xdp_redirects", XF_DEV_XDP_REDIRECT },	/* virtio_net */
	{ "rx_queue_xdp_drops", XF_DEV_XDP_DROPS },
	{ "rx_queue_xdp_tx", XF_DEV_XDP_TX },
	{ "rx_queue_xdp_tx_errors", XF_DEV_XDP_TX_ERRORS },
	{ "rx_queue_drops", XF_DEV_RX_QUEUE_DROPS },
	{ "tx_queue_xdp_xmit", XF_DEV_XDP_XMIT },
	{ "tx_queue_xdp_xmit_errors", XF_DEV_XDP_XMIT_ERRORS },
	{ "rx_xdp_redirect", XF_DEV_XDP_REDIRECT },		/* mlx5 */
	{ "rx_xdp_drop", XF_DEV_XDP_DROPS },
	{ "rx_xdp_tx_xmit", XF_DEV_XDP_TX },
	{ "rx_xdp_tx_err", XF_DEV_XDP_TX_ERRORS },
	{ "tx_xdp_xmit", XF_DEV_XDP_XMIT },
	{ "tx_xdp_err", XF_DEV_XDP_XMIT_ERRORS },
};

int xf_devstats_map(const char *ethtool_name)
{
	char name[ETH_GSTRING_LEN + 1];
	const char *p = ethtool_name;
	size_t i;

	/* "rx_queue_12_xdp_drops" -> "rx_queue_xdp_drops" */
	if ((!strncmp(p, "rx_queue_", 9) || !strncmp(p, "tx_queue_", 9)) &&
	    isdigit((unsigned char)p[9])) {
		const char *q = p + 9;

		while (isdigit((unsigned char)*q))
			q++;
		if (*q != '_')
			return -1;
		snprintf(name, sizeof(name), "%.9s%s", p, q + 1);
	} else {
		snprintf(name, sizeof(name), "%s", p);
	}
	for (i = 0; i < sizeof(driver_names) / sizeof(driver_names[0]); i++)
		if (!strcmp(name, driver_names[i].name))
			return driver_names[i].id;
	return -1;
}

/* The driver's name and its ethtool statistics, summed into d. A device
 * without them (-EOPNOTSUPP) is no error. */
static int read_ethtool(struct xf_devstats *d)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *st = NULL;
	uint32_t n, i;
	int sk, err, id;

	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return -errno;
	err = xf_ethtool_ioctl(sk, d->dev, &info);
	if (err)
		goto out;
	snprintf(d->driver, sizeof(d->driver), "%s", info.driver);
	n = info.n_stats;
	if (!n || n > 65536)
		goto out;
	str = calloc(1, sizeof(*str) + (size_t)n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)n * sizeof(uint64_t));
	if (!str || !st) {
		err = -ENOMEM;
		goto out;
	}
	str->cmd = ETHTOOL_GSTRINGS;
	str->string_set = ETH_SS_STATS;
	str->len = n;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	err = xf_ethtool_ioctl(sk, d->dev, str) ?: xf_ethtool_ioctl(sk, d->dev, st);
	if (err)
		goto out;
	/* The driver may have grown or shrunk its set in between. */
	if (str->len < n)
		n = str->len;
	if (st->n_stats < n)
		n = st->n_stats;
	for (i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, str->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		id = xf_devstats_map(name);
		if (id < 0)
			continue;
		d->has[id] = true;
		d->xdp[id] += st->data[i];
	}
out:
	free(str);
	free(st);
	close(sk);
	return err == -EOPNOTSUPP || err == -ENODEV ? 0 : err;
}

static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct xf_devstats *d = arg;
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK || ifm->ifi_index != d->ifindex)
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifm)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_IFNAME:
			snprintf(d->dev, sizeof(d->dev), "%s", mnl_attr_get_str(a));
			break;
		case IFLA_STATS64: {
			struct rtnl_link_stats64 s = { 0 };
			size_t len = mnl_attr_get_payload_len(a);

			memcpy(&s, mnl_attr_get_payload(a), len < sizeof(s) ? len : sizeof(s));
			d->std[XF_DEV_RX_PACKETS] = s.rx_packets;
			d->std[XF_DEV_RX_BYTES] = s.rx_bytes;
			d->std[XF_DEV_RX_ERRORS] = s.rx_errors;
			d->std[XF_DEV_RX_DROPPED] = s.rx_dropped;
			d->std[XF_DEV_TX_PACKETS] = s.tx_packets;
			d->std[XF_DEV_TX_BYTES] = s.tx_bytes;
			d->std[XF_DEV_TX_ERRORS] = s.tx_errors;
			d->std[XF_DEV_TX_DROPPED] = s.tx_dropped;
			d->has_std = true;
			break;
		}
		}
	}
	return 0;
}

int xf_devstats_read(struct xf_nl *nl, int ifindex, struct xf_devstats *d)
{
	struct nlmsghdr *nlh = xf_nl_msg(nl, RTM_GETLINK, 0);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	int err;

	memset(d, 0, sizeof(*d));
	d->ifindex = ifindex;
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	err = xf_nl_dump(nl, nlh, link_cb, d);
	if (err == -ENODEV || (!err && !d->dev[0]))
		return -ENODEV;
	return err ?: read_ethtool(d);
}
