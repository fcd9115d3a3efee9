// SPDX-License-Identifier: GPL-2.0
/* route get: build a packet, run it through the program attached on its
 * ingress interface with BPF_PROG_RUN, and read back the decision. The run
 * carries a trace record (XDP metadata or skb->cb), so the program writes
 * its reasoning to xf_rt_trace and does not count the packet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>

#include "csum.h"
#include "nl_link.h"
#include "nl_neigh.h"
#include "route/route.h"
#include "internal.h"

#define PKT_MAX 1600		/* room for a frame of len <= 1500 + headers */

static const uint8_t src_mac[ETH_ALEN] = { 0x02, 0x78, 0x66, 0x77, 0x64, 0x01 };

static size_t l4_hlen(uint8_t proto)
{
	return proto == IPPROTO_TCP ? 20 : 8;
}

/* One frame: Ethernet to iif's address, IP, a minimal L4 header, zeros. */
static int build_frame(const struct xf_route_get_req *r, const struct xf_addr *src,
		       const uint8_t *dmac, uint8_t *f, size_t *flen)
{
	bool v6 = r->dst.family == AF_INET6;
	size_t iph = v6 ? 40 : 20, l4 = l4_hlen(r->proto);
	size_t len = r->len ? r->len : iph + l4;
	uint8_t proto = r->proto, *ip = f + ETH_HLEN, *p;
	uint32_t sum;

	if (len < iph + l4) {
		fprintf(stderr, "Error: len %zu is shorter than the headers (%zu).\n", len,
			iph + l4);
		return -XF_EUSAGE;
	}
	if (ETH_HLEN + len > PKT_MAX) {
		fprintf(stderr, "Error: len %zu is larger than route get builds (%d).\n", len,
			PKT_MAX - ETH_HLEN);
		return -XF_EUSAGE;
	}
	memset(f, 0, ETH_HLEN + len);
	memcpy(f, dmac, ETH_ALEN);
	memcpy(f + ETH_ALEN, src_mac, ETH_ALEN);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		if (proto == IPPROTO_ICMP)
			proto = IPPROTO_ICMPV6;
		ip[0] = 0x60;
		ip[4] = (len - iph) >> 8;
		ip[5] = (len - iph) & 0xff;
		ip[6] = proto;
		ip[7] = r->ttl;
		memcpy(ip + 8, src->bytes, 16);
		memcpy(ip + 24, r->dst.bytes, 16);
	} else {
		ip[0] = 0x45;
		ip[2] = len >> 8;
		ip[3] = len & 0xff;
		ip[8] = r->ttl;
		ip[9] = proto;
		memcpy(ip + 12, src->bytes, 4);
		memcpy(ip + 16, r->dst.bytes, 4);
		sum = xf_csum_fold(xf_csum_add(0, ip, 20));
		ip[10] = sum >> 8;
		ip[11] = sum & 0xff;
	}
	p = ip + iph;
	if (proto == IPPROTO_UDP || proto == IPPROTO_TCP) {
		uint16_t sport = r->sport ?: 40000;
		uint16_t dport = r->dport ?: proto == IPPROTO_UDP ? 53 : 80;

		p[0] = sport >> 8;
		p[1] = sport & 0xff;
		p[2] = dport >> 8;
		p[3] = dport & 0xff;
		if (proto == IPPROTO_UDP) {
			p[4] = (len - iph) >> 8;
			p[5] = (len - iph) & 0xff;
		} else {
			p[12] = 5 << 4;
			p[13] = 0x02;	/* SYN */
		}
	} else {
		p[0] = proto == IPPROTO_ICMPV6 ? 128 : 8;	/* echo request */
	}
	*flen = ETH_HLEN + len;
	return 0;
}

/* Without "from", a neighbour on iif's subnet: its first host address that
 * is not iif's own, so that rp_filter sees a plausible source. */
static int default_src(struct xf_nl *nl, int iif, int family, struct xf_addr *src)
{
	struct xf_addr own;
	int n = family == AF_INET ? 4 : 16, i, err;

	err = xf_addr_first(nl, iif, family, &own);
	if (err) {
		fprintf(stderr, "Error: the interface has no %s address to derive \"from\" "
			"from; give one.\n", family == AF_INET ? "IPv4" : "IPv6");
		return err;
	}
	*src = own;
	for (i = 0; i < n; i++) {
		int bits = own.plen - i * 8;

		if (bits <= 0)
			src->bytes[i] = 0;
		else if (bits < 8)
			src->bytes[i] &= 0xff << (8 - bits);
	}
	src->bytes[n - 1] |= 1;
	if (!memcmp(src->bytes, own.bytes, n))
		src->bytes[n - 1] ^= 3;
	src->plen = n * 8;
	return 0;
}

static int only_member(int *iif)
{
	int ifx[2], n = rt_pinned_ifindexes(ifx, 2);

	if (n == 1) {
		*iif = ifx[0];
		return 0;
	}
	fprintf(stderr, n ? "Error: give \"iif IFNAME\": the forwarding set has several "
			    "interfaces.\n" :
			    "Error: xfwd route is not attached in this namespace.\n");
	return n ? -XF_EUSAGE : -ENOENT;
}

static const char *verdict_name(enum xf_hook hook, int v)
{
	static const char *const xdp[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
					   "XDP_REDIRECT" };

	if (hook == XF_HOOK_XDP)
		return v >= 0 && v <= 4 ? xdp[v] : "XDP_?";
	switch (v) {
	case TC_ACT_UNSPEC: return "TC_ACT_UNSPEC";
	case TC_ACT_OK: return "TC_ACT_OK";
	case TC_ACT_SHOT: return "TC_ACT_SHOT";
	case TC_ACT_REDIRECT: return "TC_ACT_REDIRECT";
	default: return "TC_ACT_?";
	}
}

static int run_prog(int prog_fd, enum xf_hook hook, int iif, const uint8_t *frame,
		    size_t flen, uint32_t cookie, const struct xf_link *vdev,
		    struct xf_route_get_res *res)
{
	struct xf_route_trace_in tin = {
		.magic = { XF_RT_TRACE_MAGIC0, XF_RT_TRACE_MAGIC1 }, .cookie = cookie,
	};
	uint8_t in[sizeof(tin) + PKT_MAX], out[sizeof(tin) + PKT_MAX + 256];
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_out = out, .data_size_out = sizeof(out));
	struct __sk_buff skb = { 0 };
	struct xdp_md xmd = { 0 };
	size_t off = 0, ipoff;
	int err;

	if (hook == XF_HOOK_XDP) {
		memcpy(in, &tin, sizeof(tin));
		memcpy(in + sizeof(tin), frame, flen);
		if (res->tagged && flen + 4 <= PKT_MAX) {
			/* XDP sees the tag in the frame, after the addresses. */
			uint16_t tag[2] = {
				htons(vdev && vdev->vlan.ad ? ETH_P_8021AD : ETH_P_8021Q),
				htons(res->vlan),
			};

			memmove(in + sizeof(tin) + 16, in + sizeof(tin) + 12, flen - 12);
			memcpy(in + sizeof(tin) + 12, tag, sizeof(tag));
			flen += 4;
		}
		xmd.data = sizeof(tin);
		xmd.data_end = sizeof(tin) + flen;
		xmd.ingress_ifindex = iif;
		t.data_in = in;
		t.data_size_in = sizeof(tin) + flen;
		t.ctx_in = &xmd;
		t.ctx_size_in = sizeof(xmd);
		t.ctx_out = &xmd;
		t.ctx_size_out = sizeof(xmd);
	} else {
		skb.ifindex = iif;
		memcpy(skb.cb, &tin, 3 * sizeof(uint32_t));
		if (res->tagged) {
			skb.cb[3] = XF_RT_TRACE_VLAN | res->vlan;
			skb.cb[4] = htons(vdev && vdev->vlan.ad ? ETH_P_8021AD : ETH_P_8021Q);
		}
		t.data_in = frame;
		t.data_size_in = flen;
		t.ctx_in = &skb;
		t.ctx_size_in = sizeof(skb);
	}
	err = bpf_prog_test_run_opts(prog_fd, &t);
	if (err) {
		err = -errno;
		fprintf(stderr, "Error: BPF_PROG_RUN failed: %s.\n", strerror(-err));
		return err;
	}
	res->verdict = (int)t.retval;
	res->verdict_name = verdict_name(hook, res->verdict);
	if (hook == XF_HOOK_XDP)
		off = xmd.data;
	/* The frame out may carry a tag (egress to a VLAN device on xdp). */
	ipoff = off + 12;
	if (t.data_size_out > ipoff + 2 &&
	    ((out[ipoff] == 0x81 && !out[ipoff + 1]) || (out[ipoff] == 0x88 && out[ipoff + 1] == 0xa8)))
		ipoff += 4;
	ipoff += 2;
	if (t.data_size_out > ipoff + 8)
		res->ttl_out = frame[12] == 0x86 ? out[ipoff + 7] : out[ipoff + 8];
	return 0;
}

struct vlan_find {
	int parent;
	uint16_t id;
	struct xf_link *out;
};

static int vlan_find_cb(const struct xf_link *l, void *arg)
{
	struct vlan_find *f = arg;

	if (!l->vlan.is || l->link != f->parent || l->link_netnsid >= 0 ||
	    l->vlan.id != f->id || l->vlan.ad)
		return 0;
	*f->out = *l;
	return 1;
}

/* "vlan N" and an iif that is a VLAN device: a run tagged on the parent,
 * which becomes res->iif. vdev: the parent's 802.1Q device with that id,
 * if any (ifindex 0: none). 0, or -XF_EUSAGE with the Error line. */
static int get_vlan(struct xf_nl *nl, const struct xf_route_get_req *req,
		    struct xf_link *l, struct xf_link *vdev, struct xf_route_get_res *res)
{
	struct vlan_find f = { .out = vdev };

	if (l->vlan.is) {
		if (req->has_vlan && req->vlan != l->vlan.id) {
			fprintf(stderr, "Error: %s has VLAN id %u, not %u.\n", l->name,
				l->vlan.id, req->vlan);
			return -XF_EUSAGE;
		}
		if (l->link_netnsid >= 0 || !l->link) {
			fprintf(stderr, "Error: the parent of %s is not in this namespace.\n",
				l->name);
			return -XF_EUSAGE;
		}
		*vdev = *l;
		res->vlan = l->vlan.id;
		res->iif = l->link;
	} else if (req->has_vlan) {
		res->vlan = req->vlan;
		f.parent = l->ifindex;
		f.id = req->vlan;
		if (req->vlan)
			xf_link_list(nl, vlan_find_cb, &f);
	} else {
		return 0;
	}
	res->tagged = true;
	if (!if_indextoname(res->iif, res->vlan_parent))
		return -ENODEV;
	memcpy(res->iif_name, res->vlan_parent, sizeof(res->iif_name));
	return 0;
}

/* The state of the entry of the next hop the run found, as the kernel
 * has it now (res->neigh: -1 when there is no next hop or it cannot be
 * read, 0 when there is no entry). */
static void route_get_neigh(struct xf_nl *nl, struct xf_route_get_res *res)
{
	uint16_t st;
	int err;

	res->neigh = -1;
	if (!res->trace.oif ||
	    (res->trace.nh_family != AF_INET && res->trace.nh_family != AF_INET6))
		return;
	err = xf_neigh_state(nl, res->trace.oif, res->trace.nh_family,
			     (const uint8_t *)res->trace.nh, &st);
	if (!err)
		res->neigh = st;
	else if (err == -ENOENT)
		res->neigh = 0;
}

int xf_route_get(struct xf_nl *nl, const struct xf_route_get_req *req,
		 struct xf_route_get_res *res)
{
	struct bpf_link_info li;
	uint8_t frame[PKT_MAX];
	uint32_t len = sizeof(li), key = 0, cookie;
	struct xf_link l, vdev;
	struct xf_inst in;
	size_t flen;
	int lfd, pfd = -1, err;

	memset(res, 0, sizeof(*res));
	res->iif = req->iif;
	if (!res->iif) {
		err = only_member(&res->iif);
		if (err)
			return err;
	}
	err = xf_link_get(nl, NULL, res->iif, &l);
	if (err) {
		fprintf(stderr, "Error: ifindex %d does not exist.\n", res->iif);
		return err;
	}
	memcpy(res->iif_name, l.name, sizeof(res->iif_name));
	memset(&vdev, 0, sizeof(vdev));
	err = get_vlan(nl, req, &l, &vdev, res);
	if (err)
		return err;
	lfd = res->tagged ? rt_carrier_link(res->iif) : rt_link_open(res->iif);
	if (lfd < 0) {
		fprintf(stderr, "Error: xfwd route is not attached to %s: the kernel "
			"forwards its packets.\n", l.name);
		return lfd;
	}
	memset(&li, 0, sizeof(li));
	if (bpf_link_get_info_by_fd(lfd, &li, &len)) {
		err = -errno;
		close(lfd);
		return err;
	}
	close(lfd);
	res->hook = li.type == BPF_LINK_TYPE_XDP ? XF_HOOK_XDP : XF_HOOK_TC;
	res->prog_id = li.prog_id;
	/* A tagged frame is addressed to, and sourced on, its VLAN device. */
	if (req->has_src)
		res->src = req->src;
	else if ((err = default_src(nl, vdev.ifindex ?: res->iif, req->dst.family, &res->src)))
		return err;
	err = build_frame(req, &res->src, vdev.ifindex ? vdev.addr : l.addr, frame, &flen);
	if (err)
		return err;
	err = xf_inst_open(&in, &rt_inst_desc);
	if (err) {
		fprintf(stderr, "Error: the route fast path's maps are not pinned: %s.\n",
			strerror(-err));
		return err;
	}
	pfd = bpf_prog_get_fd_by_id(li.prog_id);
	if (pfd < 0) {
		err = -errno;
		fprintf(stderr, "Error: cannot open the attached program %u: %s%s.\n",
			li.prog_id, strerror(-err), err == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
		goto out;
	}
	if (getrandom(&cookie, sizeof(cookie), 0) != sizeof(cookie))
		cookie = getpid();
	err = run_prog(pfd, res->hook, res->iif, frame, flen, cookie,
		       vdev.ifindex ? &vdev : NULL, res);
	if (err)
		goto out;
	if (bpf_map_lookup_elem(in.fd[RT_MAP_TRACE], &key, &res->trace) ||
	    res->trace.cookie != cookie) {
		fprintf(stderr, "Error: the program left no trace of its decision.\n");
		err = -EIO;
		goto out;
	}
	/* A tag that mapped to a VLAN device made it the trace's iif. */
	if (res->tagged && res->trace.iif && res->trace.iif != (uint32_t)res->iif)
		if_indextoname(res->trace.iif, res->vlan_dev);
	if (res->trace.oif && !if_indextoname(res->trace.oif, res->oif_name))
		snprintf(res->oif_name, sizeof(res->oif_name), "%u", res->trace.oif);
	route_get_neigh(nl, res);
out:
	if (pfd >= 0)
		close(pfd);
	xf_inst_close(&in);
	return err;
}
