#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The route set of make bench's route_fib suite, deterministic from a seed.

    fibset.py SEED V4_COUNT V6_COUNT GW4 GW6 DEV OUT_DIR

writes OUT_DIR/routes.batch (for "ip -batch", r1's namespace: every route
via GW4 / GW6 on DEV, one in a hundred a blackhole and one in a hundred
unreachable, all with protocol 99 so that one flush per family takes them
away), and OUT_DIR/dst4.txt, dst6.txt: the same prefixes one a line, for
xfgen send dst-file. IPv4: V4_COUNT distinct prefixes of 198.18.0.0/15,
lengths /17 to /32; IPv6: V6_COUNT of 2001:2::/48, lengths /49 to /128.
None overlaps the topology's own subnets (scripts/topo.bash: 198.18.1.0/24,
198.18.2.0/24, 2001:2:0:1::/64, 2001:2:0:2::/64; kept clear are
198.18.0.0/22 and 2001:2::/62), so traffic to random addresses of the set
never asks r1 for a neighbour it does not have.

IPv4 takes the same share of every length's prefixes (inside a /15 a /32
is 2^17 times as common as a /17, so most are long, as they must be to
reach 100,000); IPv6 half of the /49-/64 prefixes there are, up to a
quarter of the count, and the rest spread evenly over /65-/128."""
import os
import random
import socket
import sys

# (family, address as an integer, its prefix length, bits)
V4_NET = (socket.AF_INET, 0xc6120000, 15, 32)           # 198.18.0.0/15
V4_KEEP = (0xc6120000, 1 << 10)                          # 198.18.0.0/22
V6_NET = (socket.AF_INET6, 0x20010002 << 96, 48, 128)   # 2001:2::/48
V6_KEEP = (0x20010002 << 96, 1 << 66)                    # 2001:2::/62
PROTO = 99


def text(net, start, length):
    fam, _, _, bits = net
    return f"{socket.inet_ntop(fam, start.to_bytes(bits // 8, 'big'))}/{length}"


def sample(rng, net, keep, length, k):
    """k distinct random /length prefixes of net clear of keep, as text."""
    _, base, plen, bits = net
    avail, size = 1 << (length - plen), 1 << (bits - length)
    ks, kn = keep
    out = []
    if avail <= 4 * k:
        idx = list(range(avail))
        rng.shuffle(idx)
    else:
        idx = iter(lambda: rng.randrange(avail), None)
    seen = set()
    for i in idx:
        if len(out) >= k:
            break
        if i in seen:
            continue
        seen.add(i)
        start = base + i * size
        if start < ks + kn and ks < start + size:
            continue
        out.append(text(net, start, length))
    return out


def v4_set(rng, count):
    lengths = range(17, 33)
    avail = {n: 1 << (n - V4_NET[2]) for n in lengths}
    share = count / sum(avail.values())
    out = []
    for n in lengths:
        out += sample(rng, V4_NET, V4_KEEP, n, round(avail[n] * share * 1.02) + 1)
    rng.shuffle(out)
    return out[:count]


def v6_set(rng, count):
    out = []
    for n in range(49, 65):
        k = min((1 << (n - V6_NET[2])) // 2, count // 4 - len(out))
        if k > 0:
            out += sample(rng, V6_NET, V6_KEEP, n, k)
    rest = count - len(out)
    lengths = range(65, 129)
    for i, n in enumerate(lengths):
        k = rest // len(lengths) + (1 if i < rest % len(lengths) else 0)
        out += sample(rng, V6_NET, V6_KEEP, n, k)
    rng.shuffle(out)
    return out


def main(seed, n4, n6, gw4, gw6, dev, out_dir):
    rng = random.Random(int(seed))
    sets = [(v4_set(rng, int(n4)), gw4, "dst4.txt"), (v6_set(rng, int(n6)), gw6, "dst6.txt")]
    with open(os.path.join(out_dir, "routes.batch"), "w") as b:
        for prefixes, gw, name in sets:
            with open(os.path.join(out_dir, name), "w") as d:
                d.write("\n".join(prefixes) + "\n")
                for i, p in enumerate(prefixes):
                    if i % 100 == 1:
                        b.write(f"route add blackhole {p} proto {PROTO}\n")
                    elif i % 100 == 2:
                        b.write(f"route add unreachable {p} proto {PROTO}\n")
                    else:
                        b.write(f"route add {p} via {gw} dev {dev} proto {PROTO}\n")


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit("Usage: fibset.py SEED V4_COUNT V6_COUNT GW4 GW6 DEV OUT_DIR")
    main(*sys.argv[1:])
