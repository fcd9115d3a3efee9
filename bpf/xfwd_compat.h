/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The few kernel constants that the build host's uapi headers may lack. */
#ifndef XFWD_COMPAT_H
#define XFWD_COMPAT_H

/* Since 6.6 (tcx, bpf_mprog): relative placement flags. */
#ifndef BPF_F_BEFORE
#define BPF_F_BEFORE (1U << 3)
#endif
#ifndef BPF_F_AFTER
#define BPF_F_AFTER (1U << 4)
#endif
/* tcx attach types are enum values (46, 47 since 6.6); xfwd attaches
 * through libbpf's bpf_program__attach_tcx() and never names them. */
#define XF_BPF_TCX_INGRESS 46
#define XF_BPF_TCX_EGRESS 47

/* bpf_redirect_peer() flag: out of the peer's egress path. Merged into
 * bpf-next after 7.2; older kernels do not refuse it at load
 * time, the helper returns TC_ACT_SHOT. Only a run-time probe tells. */
#ifndef BPF_F_EGRESS
#define BPF_F_EGRESS (1U << 1)
#endif

/* ip6gre's link type: glibc's net/if_arp.h lacks it, and linux/if_arp.h
 * clashes with net/if.h. */
#ifndef ARPHRD_IP6GRE
#define ARPHRD_IP6GRE 823
#endif

/* Since 6.3: netdev xdp_features (netdev genetlink family). */
#ifndef NETDEV_XDP_ACT_NDO_XMIT
#define NETDEV_XDP_ACT_BASIC 1
#define NETDEV_XDP_ACT_REDIRECT 2
#define NETDEV_XDP_ACT_NDO_XMIT 4
#define NETDEV_XDP_ACT_NDO_XMIT_SG 64
#endif

#endif
