// SPDX-License-Identifier: GPL-2.0
/* The other end of a veth or netkit pair, read in the namespace it lives in.
 *
 * The kernel names a peer in another namespace by the id this namespace
 * gives that namespace (IFLA_LINK_NETNSID), and has no call that opens a
 * namespace by id. So the candidates are opened (the names under
 * /run/netns first, then every process's namespace) and asked for their id
 * until one matches. A socket made while inside the peer's namespace stays
 * there, so the ioctls that read the peer run from home.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/nsfs.h>

#include "ethtool.h"
#include "nl_link.h"
#include "peer.h"

#define NETNS_RUN_DIR "/run/netns"

#define PEER_SEEN_MAX 64

/* Namespaces already asked, by inode: most processes share a few. */
struct peer_seen {
	ino_t ino[PEER_SEEN_MAX];
	int n;
};

/* Open dir/name and keep it when it is a network namespace whose id is
 * nsid. The fd, or -1. */
static int peer_try(struct xf_nl *nl, struct peer_seen *seen, const char *dir,
		    const char *name, int nsid)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, id, i;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Not a namespace (a name whose mount went): no question to ask. */
	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET || fstat(fd, &st))
		goto no;
	for (i = 0; i < seen->n; i++)
		if (seen->ino[i] == st.st_ino)
			goto no;
	if (seen->n < PEER_SEEN_MAX)
		seen->ino[seen->n++] = st.st_ino;
	if (!xf_netns_nsid(nl, fd, &id) && id == nsid)
		return fd;
no:
	close(fd);
	return -1;
}

/* The namespace of id nsid as an fd, and how to name it in where. */
static int peer_find_ns(struct xf_nl *nl, int nsid, char *where, size_t len)
{
	char sub[NAME_MAX + 8];
	struct peer_seen seen = { .n = 0 };
	struct dirent *e;
	DIR *d;
	int fd = -1;

	d = opendir(NETNS_RUN_DIR);
	while (d && fd < 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		fd = peer_try(nl, &seen, NETNS_RUN_DIR, e->d_name, nsid);
		if (fd >= 0)
			snprintf(where, len, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	d = fd < 0 ? opendir("/proc") : NULL;
	while (d && fd < 0 && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(sub, sizeof(sub), "%s/ns/net", e->d_name);
		fd = peer_try(nl, &seen, "/proc", sub, nsid);
		if (fd >= 0)
			snprintf(where, len, "pid %.32s", e->d_name);
	}
	if (d)
		closedir(d);
	return fd;
}

/* A datagram socket in the namespace open at nsfd. The fd, or -errno. */
static int peer_socket(int nsfd)
{
	int home, s, err;

	home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET)) {
		err = -errno;
		close(home);
		return err;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = s < 0 ? -errno : 0;
	/* Coming home cannot fail for a namespace we were in a moment ago
	 * with the same rights; if it did, nothing else would be right. */
	if (setns(home, CLONE_NEWNET)) {
		err = -errno;
		if (s >= 0)
			close(s);
	}
	close(home);
	return err ? err : s;
}

int xf_peer_get(struct xf_nl *nl, const struct xf_link *l, struct xf_peer *p)
{
	struct ifreq ifr;
	int s, nsfd, err = 0;

	memset(p, 0, sizeof(*p));
	if (!l->link)
		return -ENOENT;
	if (l->link_netnsid < 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -errno;
	} else {
		nsfd = peer_find_ns(nl, l->link_netnsid, p->netns, sizeof(p->netns));
		if (nsfd < 0)
			return -ENOENT;
		s = peer_socket(nsfd);
		close(nsfd);
		if (s < 0)
			return s;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = l->link;
	if (ioctl(s, SIOCGIFNAME, &ifr)) {
		err = -errno;
		goto out;
	}
	memcpy(p->name, ifr.ifr_name, sizeof(p->name));
	err = xf_ethtool_get(s, p->name, ETHTOOL_GTXCSUM);
	if (err >= 0) {
		int q = xf_ethtool_feature(s, p->name, "tx-vlan-hw-insert"),
		    ad = xf_ethtool_feature(s, p->name, "tx-vlan-stag-hw-insert");

		p->tx_csum = err;
		err = 0;
		p->tx_vlan = q > 0 || ad > 0 ? 1 : q < 0 && q != -ENOENT ? -1 :
			     ad < 0 && ad != -ENOENT ? -1 : 0;
	}
out:
	close(s);
	return err;
}

const char *xf_peer_str(const struct xf_peer *p, char *buf, size_t len)
{
	if (p->netns[0])
		snprintf(buf, len, "%s (netns %s)", p->name, p->netns);
	else
		snprintf(buf, len, "%s", p->name);
	return buf;
}
