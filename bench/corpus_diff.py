#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The hostile corpus's runs, each forwarder against the kernel.

corpus_diff.py CORPUS DIR REFERENCE CONFIG...
    DIR holds, for each configuration, what `corpus.py split` made of h2's
    capture: CONFIG.fwd (the frames r1 forwarded, sorted hex lines) and
    CONFIG.own (r1's own ICMP errors). For each configuration, prints one
    JSON line: how many frames it delivered that REFERENCE (the kernel)
    did not ("extra") and the other way round ("missing"), as multisets of
    whole frames, the same for r1's own ICMP errors, and the corpus kinds
    (corpus.py's second column) those frames were made from.

A forwarded frame is traced back to its corpus frame by its bytes with
the MAC addresses, the IPv4 TTL and header checksum or the IPv6 hop
limit masked (what forwarding changes): the corpus frame that shares the
longest prefix with it. Every corpus frame carries its own IP ID, flow
label or ports, so the prefix tells them apart."""
import collections
import json
import sys


def mask(raw):
    b = bytearray(raw[12:])
    if b[0:2] == b"\x08\x00" and len(b) >= 14:
        b[2 + 8] = 0
        b[2 + 10:2 + 12] = b"\0\0"
    elif b[0:2] == b"\x86\xdd" and len(b) >= 10:
        b[2 + 7] = 0
    return bytes(b)


def common(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def lines(path):
    try:
        with open(path) as f:
            return [x.strip() for x in f if x.strip()]
    except FileNotFoundError:
        return None


def kinds_of(frames, corpus):
    out = collections.Counter()
    for h in frames:
        k = mask(bytes.fromhex(h))
        best = max(corpus, key=lambda c: common(k, c[1]))
        out[best[0]] += 1
    return sorted(f"{k} x{n}" if n > 1 else k for k, n in out.items())


def main(corpus_path, d, ref, configs):
    corpus = []
    with open(corpus_path) as f:
        for line in f:
            label, kind, hexed = line.split()
            if label != "wire":
                corpus.append((kind, mask(bytes.fromhex(hexed))))
    rf, ro = lines(f"{d}/{ref}.fwd"), lines(f"{d}/{ref}.own")
    for c in configs:
        xf, xo = lines(f"{d}/{c}.fwd"), lines(f"{d}/{c}.own")
        r = {"corpus": "diff", "config": c, "versus": ref, "frames": len(corpus)}
        if rf is None or xf is None:
            r["error"] = "no capture of " + (ref if rf is None else c)
            print(json.dumps(r))
            continue
        a, b = collections.Counter(xf), collections.Counter(rf)
        extra, missing = list((a - b).elements()), list((b - a).elements())
        oa, ob = collections.Counter(xo or []), collections.Counter(ro or [])
        r.update(delivered=len(xf), extra=len(extra), missing=len(missing),
                 own=len(xo or []), own_extra=sum((oa - ob).values()),
                 own_missing=sum((ob - oa).values()),
                 extra_kinds=kinds_of(extra, corpus),
                 missing_kinds=kinds_of(missing, corpus))
        print(json.dumps(r))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
