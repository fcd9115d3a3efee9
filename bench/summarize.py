#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench/run's raw lines (one JSON object a line) into latest.json,
latest.md, profile.md and a PNG chart.

Lines with "suite" and "value" are measurements (suite, config, round);
the reference of each suite is its first configuration, and every ratio
is taken inside one round, then the median and spread of those ratios
are given. Lines with "noise" are the noise record (per-measurement
generator CPU share and machine busy share, calibration loops), lines
with "profile" the profile pass, one line gives machine and date, one
the peer (xdp-forward: there, or missing and why), and lines with
"corpus" the hostile corpus's runs against the kernel
(bench/corpus_diff.py). The targets (issue 14's for route, earlier
issues' for redirect, chain and stats) are checked here, each on figures
of the same run; they are constants and are never adjusted to the
figures."""
import json
import statistics
import subprocess
import sys

UNITS = {"route_tcp": ("Gbit/s", 1e-9), "route_rtt_median_us": ("us", 1),
         "route_rtt_p99_us": ("us", 1), "chain_step": ("ns", 1),
         "chain_per_member_ns": ("ns", 1), "stats_cost_us": ("ms", 1e-3),
         "route_pps_inet_per_cpu": ("M per gen CPU-s", 1e-6),
         "route_pps_inet6_per_cpu": ("M per gen CPU-s", 1e-6),
         "route_local_pps_per_cpu": ("M per gen CPU-s", 1e-6),
         "redirect_pps_per_cpu": ("M per gen CPU-s", 1e-6),
         "route_fib_inet_per_cpu": ("M per gen CPU-s", 1e-6),
         "route_fib_inet6_per_cpu": ("M per gen CPU-s", 1e-6)}

CHAIN_KINDS = ["tail", "inlined", "inlined-nocnt", "hash"]
CHAIN_FIT = [2, 4, 8, 16]


def median(v):
    return statistics.median(v) if v else None


def slope(xs, ys):
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    sxx = sum(x * x for x in xs)
    sxy = sum(x * y for x, y in zip(xs, ys))
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def load(raw_path):
    meas, noise, calib, prof, meta = [], [], [], [], {"corpus": [], "fib_count": []}
    for line in open(raw_path):
        if not line.strip():
            continue
        r = json.loads(line)
        if "machine" in r:
            meta.update(r)
        elif "elapsed_s" in r:
            meta.update(r)
        elif r.get("noise") == "calib":
            calib.append(r)
        elif "noise" in r:
            noise.append(r)
        elif "profile" in r:
            prof.append(r)
        elif "peer" in r:
            meta["peer"] = r["peer"]
        elif "corpus" in r:
            meta["corpus"].append(r)
        elif "fib_count" in r:
            meta["fib_count"].append(r)
        elif "fib_table" in r:
            meta["fib_table"] = r["fib_table"]
        elif "suite" in r and "value" in r:
            meas.append(r)
    return meas, noise, calib, prof, meta


PER_CPU = ["route_pps_inet", "route_pps_inet6", "route_local_pps", "redirect_pps",
           "route_fib_inet", "route_fib_inet6"]


def group(meas, noise):
    suites = {}
    for r in meas:
        s = suites.setdefault(r["suite"], {"configs": [], "rounds": {}})
        if r["config"] not in s["configs"]:
            s["configs"].append(r["config"])
        s["rounds"].setdefault(r["round"], {})[r["config"]] = r["value"]
    # Chain: ns per added member, a least-squares fit over 2..16 members,
    # one per round and kind; tail calls first, the reference.
    ch = suites.get("chain_step")
    if ch:
        d = {"configs": [], "rounds": {}}
        for rnd, vals in ch["rounds"].items():
            for k in CHAIN_KINDS:
                ys = [vals.get(f"{k}-{m}") for m in CHAIN_FIT]
                if None in ys:
                    continue
                if k not in d["configs"]:
                    d["configs"].append(k)
                d["rounds"].setdefault(rnd, {})[k] = slope(CHAIN_FIT, ys)
        suites["chain_per_member_ns"] = d
    # Packets per CPU-second of the generator: the path of a packet runs in
    # the generator's send call, so this rate moves much less than pps
    # when other jobs take the CPU from the generator.
    share = {(n["suite"], n["config"], n["round"]): n["gen_cpu"] for n in noise
             if n.get("noise") == "sample" and n.get("gen_cpu")}
    for name in PER_CPU:
        s = suites.get(name)
        if not s:
            continue
        d = {"configs": list(s["configs"]), "rounds": {}}
        for rnd, vals in s["rounds"].items():
            for c, v in vals.items():
                g = share.get((name, c, rnd))
                if g:
                    d["rounds"].setdefault(rnd, {})[c] = v / g
        suites[name + "_per_cpu"] = d
    return suites


def ratio_rounds(s, a, b):
    """Per-round a / b of one suite."""
    return [rd[a] / rd[b] for rd in s["rounds"].values()
            if a in rd and rd.get(b)]


def spread(v):
    return f"{min(v):.2f}-{max(v):.2f}" if v else "-"


def noise_of(noise, suite):
    out = {}
    for key in ("gen_cpu", "host_busy", "steal"):
        v = [n[key] for n in noise
             if n.get("suite") == suite and n.get(key) is not None]
        if v:
            out[key] = {"median": median(v), "min": min(v), "max": max(v), "n": len(v)}
    return out


def noise_text(n):
    parts = []
    names = {"gen_cpu": "generator CPU share", "host_busy": "machine busy (2 CPUs)",
             "steal": "steal"}
    for key, name in names.items():
        if key in n:
            x = n[key]
            parts.append(f"{name} {x['median'] * 100:.0f}% "
                         f"({x['min'] * 100:.0f}-{x['max'] * 100:.0f}%)")
    return "; ".join(parts) if parts else "not recorded"


# Targets: (name, suite, numerator, denominator, kind, bound).
# kind "ge": per-round ratio median >= bound; "ns_plus": the numerator's
# XDP program ns/run in the profile pass <= the denominator's + bound;
# "exact": the hostile corpus's run of the numerator delivers the same
# frames as the kernel's (none beyond it, none short of it); "le_ratio":
# median of numerator's values <= median of denominator's; "lt_abs":
# numerator's median < bound (in the suite's raw unit).
# Issue 14 replaced the route targets of issue 7 (xdp >= 3.0x and IPv6
# >= 2.5x the kernel, >= 0.5x the XDP_DROP ceiling): route is now judged
# against xdp-forward on XDP and against the kernel on tc. Issue 46
# restated the bounds that lay above their own run's ceiling (IPv6 xdp
# >= 1.05x fib full, TCP >= 1.05x and traffic to r1 >= 0.97x the kernel,
# redirect peer >= 2.0x the kernel) as shares of that ceiling in the same
# run: fib direct, tc-floor, the pass-only programs and peer-floor.
PEER = "fwd-full"
TARGETS = [
    ("route xdp IPv6 64 B vs xdp-forward fib direct", "route_pps_inet6", "xdp", "fwd-direct",
     "ge", 0.97),
    ("route xdp IPv6 64 B vs xdp-forward fib full", "route_pps_inet6", "xdp", PEER, "ge", 1.00),
    ("route xdp IPv4 64 B vs xdp-forward fib full", "route_pps_inet", "xdp", PEER, "ge", 0.98),
    ("route xdp IPv4 program ns/run vs xdp-forward's", "route_pps_inet", "xdp", PEER,
     "ns_plus", 40),
    ("route tc IPv4 64 B vs kernel", "route_pps_inet", "tc", "kernel", "ge", 1.20),
    ("route tc IPv6 64 B vs kernel", "route_pps_inet6", "tc", "kernel", "ge", 1.10),
    ("route tc TCP Gbit/s vs tc-floor", "route_tcp", "tc", "tc-floor", "ge", 0.98),
    ("route tc on traffic it does not forward", "route_local_pps", "tc", "tc-pass", "ge", 0.98),
    ("route xdp on traffic it does not forward", "route_local_pps", "xdp", "xdp-pass", "ge",
     0.98),
    ("route xdp: hostile corpus as the kernel", "corpus", "xdp", "kernel", "exact", 0),
    ("route tc: hostile corpus as the kernel", "corpus", "tc", "kernel", "exact", 0),
    ("chain ns per extra member vs tail-call step", "chain_per_member_ns", "inlined", "tail",
     "le_ratio", 1.0),
    ("redirect egress vs Linux bridge", "redirect_pps", "egress", "bridge", "ge", 1.15),
    ("redirect peer vs minimal redirect_peer", "redirect_pps", "peer", "peer-floor", "ge", 0.95),
    ("xfwd -j stats, 64 interfaces (ms)", "stats_cost_us", "stats_64_ifaces", None,
     "lt_abs", 100000),
]

# Ceilings: for a "ge" target, a configuration of the same suite that does
# at most what any exact program for that target must do, so the
# numerator cannot beat it but by noise: the peer with one lookup of the
# main table and nothing else (fwd-direct: parse, lookup, rewrite,
# redirect), its like on tc (tc-floor: bench/progs/fib_floor.bpf.c's
# xf_fib_floor_fwd, with redirect_peer as route hook tc delivers), or a
# program that passes every packet, attached the same way, or
# peer-floor (bench/progs/peer_floor.bpf.c: bpf_redirect_peer of every
# skb, nothing else) for redirect mode peer.
# Its median per-round ratio to the target's denominator is what this run
# allowed; a bound above it is out of reach on this machine in this run,
# whatever the code. Where the denominator is the ceiling itself, that
# ratio is 1 by definition: the bound is then the share of the ceiling
# the target asks for, and can only be out of reach when it is above 1.
CEILINGS = {
    ("route_pps_inet6", "xdp"): "fwd-direct",
    ("route_pps_inet", "xdp"): "fwd-direct",
    ("route_pps_inet6", "tc"): "tc-floor",
    ("route_pps_inet", "tc"): "tc-floor",
    ("route_tcp", "tc"): "tc-floor",
    ("route_local_pps", "tc"): "tc-pass",
    ("route_local_pps", "xdp"): "xdp-pass",
    ("redirect_pps", "peer"): "peer-floor",
}


def ceiling(t, s, suites):
    """The target's ceiling (CEILINGS) into t: ceiling, ceiling_ratio and
    its spread, per round and per generator CPU-second; beyond_ceiling when
    the bound is above the ceiling's median ratio."""
    c = CEILINGS.get((t["suite"], t["config"]))
    if not c or c not in s["configs"]:
        return
    if c == t["versus"]:
        t.update(ceiling=c, ceiling_is_versus=True, ceiling_ratio=1.0, ceiling_min=1.0,
                 ceiling_max=1.0, beyond_ceiling=t["bound"] > 1.0)
        return
    r = ratio_rounds(s, c, t["versus"])
    if not r:
        return
    t.update(ceiling=c, ceiling_ratio=median(r), ceiling_min=min(r), ceiling_max=max(r),
             beyond_ceiling=median(r) < t["bound"])
    pc = suites.get(t["suite"] + "_per_cpu")
    r = ratio_rounds(pc, c, t["versus"]) if pc else []
    if r:
        t["ceiling_per_cpu_ratio"] = median(r)


def ceiling_text(t):
    if "ceiling" not in t:
        return "-"
    if t.get("ceiling_is_versus"):
        return (f"{t['ceiling']} itself: the bound is its share" +
                (": **above it**" if t["beyond_ceiling"] else ""))
    # Three decimals where two would print the bound itself.
    n = 3 if f"{t['ceiling_ratio']:.2f}" == f"{t['bound']:.2f}" else 2
    out = (f"{t['ceiling']} {t['ceiling_ratio']:.{n}f} "
           f"({t['ceiling_min']:.2f}-{t['ceiling_max']:.2f})")
    if "ceiling_per_cpu_ratio" in t:
        out += f", per CPU-s {t['ceiling_per_cpu_ratio']:.2f}"
    return out + (": **below the bound**" if t["beyond_ceiling"] else "")


def peer_missing(meta):
    """Why the peer is not in this run, or None when it is."""
    p = meta.get("peer")
    if not p:
        return "the run recorded no peer"
    return None if p.get("status") == "ok" else (p.get("why") or "no reason recorded")


def xdp_ns(p):
    """ns per run of the XDP programs on r1's veth1 in one profile line."""
    v = [g["run_ns"] / g["runs"] for g in p.get("progs", [])
         if g.get("type") == 6 and g.get("runs")]
    return sum(v) if v else None


def find_prof(prof, suite, config):
    for p in prof:
        if p["suite"] == suite and p["config"] == config:
            return p
    return None


def corpus_row(meta, config):
    for r in meta.get("corpus", []):
        if r.get("config") == config:
            return r
    return None


def targets(suites, prof, meta):
    out = []
    missing = peer_missing(meta)
    for name, suite, a, b, kind, bound in TARGETS:
        s = suites.get(suite)
        t = {"target": name, "suite": suite, "config": a, "versus": b, "bound": bound}
        if (a.startswith("fwd-") or (b or "").startswith("fwd-")) and missing:
            t.update(status="not measured: PEER MISSING", ratio=None, why=missing,
                     text=f">= {bound:.2f}x {b}" if kind == "ge" else "")
        elif kind == "exact":
            r = corpus_row(meta, a)
            t["text"] = "0 frames beyond or short of the kernel's"
            if not r or "extra" not in r:
                t.update(status="not measured", ratio=None,
                         why=(r or {}).get("error", "corpus not run"))
            else:
                t.update(ratio=None, extra=r["extra"], missing=r["missing"],
                         own_extra=r["own_extra"], own_missing=r["own_missing"],
                         status="met" if r["extra"] + r["missing"] + r["own_extra"] +
                         r["own_missing"] == 0 else "missed")
        elif kind == "ns_plus":
            pa, pb = find_prof(prof, suite, a), find_prof(prof, suite, b)
            na, nb = (xdp_ns(pa) if pa else None), (xdp_ns(pb) if pb else None)
            t["text"] = f"<= {b}'s + {bound} ns"
            if na is None or nb is None:
                t.update(status="not measured", ratio=None, why="no profile pass")
            else:
                t.update(ratio=None, value=na, versus_value=nb,
                         status="met" if na <= nb + bound else "missed")
        elif not s or a not in s["configs"] or (b and b not in s["configs"]):
            t.update(status="not measured", ratio=None,
                     text=f">= {bound:.2f}x {b}" if kind == "ge" else "")
        elif kind == "ge":
            r = ratio_rounds(s, a, b)
            t.update(ratio=median(r), ratio_min=min(r), ratio_max=max(r), rounds=r,
                     status="met" if median(r) >= bound else "missed",
                     text=f">= {bound:.2f}x {b}",
                     settled=min(r) >= bound or max(r) < bound)
            ceiling(t, s, suites)
        elif kind == "le_ratio":
            va = [rd[a] for rd in s["rounds"].values() if a in rd]
            vb = [rd[b] for rd in s["rounds"].values() if b in rd]
            ma, mb = median(va), median(vb)
            t.update(ratio=ma / mb if mb else None, value=ma, versus_value=mb,
                     status="met" if ma <= mb else "missed",
                     text=f"<= {b}'s per-step cost")
        else:
            v = [rd[a] for rd in s["rounds"].values() if a in rd]
            t.update(value=median(v), ratio=median(v) / bound,
                     status="met" if median(v) < bound else "missed",
                     text=f"< {bound / 1000:.0f} ms")
        pc = suites.get(suite + "_per_cpu")
        if kind == "ge" and pc and t.get("ratio") is not None:
            r = ratio_rounds(pc, a, b)
            if r:
                t["per_cpu_ratio"] = median(r)
                t["per_cpu_min"], t["per_cpu_max"] = min(r), max(r)
                t["per_cpu_status"] = "met" if median(r) >= bound else "missed"
        t["profile"] = profile_note(t, prof)
        out.append(t)
    return out


def prog_figures(p):
    """ns per run of the programs on r1's veth1, from one profile line."""
    out = []
    for g in p.get("progs", []):
        if g.get("runs"):
            out.append(f"{g['name']} {g['run_ns'] / g['runs']:.0f} ns/run "
                       f"({g.get('verified_insns', '?')} insns verified, "
                       f"{g.get('jited', '?')} B JITed)")
    return out


def budget(p):
    """Wall ns per delivered packet of the whole path (1 s / pps)."""
    return 1e9 / p["value"] if p.get("value") else None


def cpu_budget(p):
    """The generator's CPU ns per packet sent: what one packet cost on the
    CPU while the generator ran, the time others took from it left out."""
    return p["gen_cpu_s"] * 1e9 / p["sent"] if p.get("gen_cpu_s") and p.get("sent") else None


def runs_per_pkt(p, g):
    pkts = p["value"] * p["seconds"] if p.get("seconds") and p.get("value") else None
    return g["runs"] / pkts if pkts and g.get("runs") else None


def profile_note(t, prof):
    """The profile figures that bear on one target, in one line."""
    def find(suite, config):
        for p in prof:
            if p["suite"] == suite and p["config"] == config:
                return p
        return None
    a = find(t["suite"], t["config"])
    b = find(t["suite"], t["versus"]) if t.get("versus") else None
    notes = []
    for p in (a, b):
        if not p:
            continue
        bud, cpu = budget(p), cpu_budget(p)
        what = f"{p['config']}: "
        if t["suite"] == "route_tcp":
            what += f"{p['value'] / 1e9:.1f} Gbit/s"
        elif bud:
            what += f"{bud:.0f} ns wall"
            if cpu:
                what += f", {cpu:.0f} ns generator CPU"
            what += " per packet"
        figs = prog_figures(p)
        if figs:
            what += ", of which " + ", ".join(figs)
        notes.append(what)
    return "; ".join(notes)


def profile_md(prof, meta):
    md = ["# xfwd benchmark profile", "",
          f"{meta.get('date', '')}, {meta.get('machine', {}).get('cpu', '')}, "
          f"kernel {meta.get('machine', {}).get('kernel', '')}.", "",
          "One run per configuration after the measured rounds, with "
          "kernel.bpf_stats_enabled=1 (which itself adds some ns to every program "
          "run, so these runs are a little slower than the measured ones). "
          "wall ns/pkt = 1 s / delivered pps, the time one packet costs end to end "
          "including the time other jobs took the CPU; gen CPU ns/pkt = the "
          "generator's CPU time per packet sent: the path of one packet (XDP_TX out "
          "of h1, r1's receive and forwarding, h2's receive) runs in the generator's "
          "send call as long as softirqs are not pushed to ksoftirqd, so this is the "
          "per-packet CPU budget, a lower bound. share = program ns per packet / gen "
          "CPU ns per packet. "
          "Programs: those attached to r1's veth1 (XDP and tc), ns per run from "
          "run_time_ns / run_cnt, the verifier's processed instructions "
          "(verified_insns) and the xlated and JITed sizes. JIT dumps of the route "
          "programs: bench/results/route_xdp.jited.txt, route_tc.jited.txt (each run's own, not published).", "",
          "| suite | config | delivered | wall ns/pkt | gen CPU ns/pkt | program | "
          "ns/run | runs/pkt | share of CPU budget | insns verified | xlated B | JITed B |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in prof:
        tcp = p["suite"] == "route_tcp"
        deliv = f"{p['value'] / 1e9:.2f} Gbit/s" if tcp else f"{p['value'] / 1e6:.3f} Mpps"
        bud = "-" if tcp else f"{budget(p):.0f}"
        gen = f"{cpu_budget(p):.0f}" if cpu_budget(p) else "-"
        progs = [g for g in p.get("progs", [])] or [None]
        for g in progs:
            if g is None:
                md.append(f"| {p['suite']} | {p['config']} | {deliv} | {bud} | {gen} | "
                          "(none) | | | | | | |")
                continue
            nsr = g["run_ns"] / g["runs"] if g.get("runs") else 0
            rpp = None if tcp else runs_per_pkt(p, g)
            share = (nsr * rpp / cpu_budget(p)) if rpp and cpu_budget(p) else None
            if tcp and p.get("seconds") and g.get("runs"):
                rate = g["runs"] / p["seconds"]
                rpp_s = f"{rate / 1e3:.0f}k runs/s, {p['value'] / 8 / rate:.0f} B/run"
            else:
                rpp_s = "-" if rpp is None else f"{rpp:.2f}"
            md.append(f"| {p['suite']} | {p['config']} | {deliv} | {bud} | {gen} | "
                      f"{g['name']} (id {g['id']}) | {nsr:.1f} | {rpp_s} | "
                      f"{'-' if share is None else f'{share * 100:.0f}%'} | "
                      f"{g.get('verified_insns', '-')} | {g.get('xlated', '-')} | "
                      f"{g.get('jited', '-')} |")
    return md


def kind_groups(kinds):
    """Corpus kinds grouped by their name without its last part
    (ip4-csum-0, ip4-csum-ffff: "ip4-csum x2"), in first-seen order."""
    groups = {}
    for k in kinds:
        name, _, n = k.partition(" x")
        base = name.rsplit("-", 1)[0] if name.count("-") >= 2 else name
        groups[base] = groups.get(base, 0) + (int(n) if n else 1)
    return [f"{g} x{n}" if n > 1 else g for g, n in groups.items()]


def exactness_md(meta, missing):
    """The hostile corpus against the kernel, one row per forwarder."""
    rows = meta.get("corpus", [])
    if not rows:
        return []
    md = ["## Exactness: the hostile corpus against the kernel", "",
          "The frames of test/hostile.bats (test/fixtures/corpus.py, "
          f"{rows[0].get('frames', '?')} frames that reach r1), sent from h1 through r1 "
          "to h2 once per forwarder, in that suite's deterministic topology, and "
          "compared frame by frame with what the kernel alone delivered to h2. "
          "A frame the forwarder changed differently from the kernel counts in both "
          "columns. Kinds: the corpus's names of the frames delivered beyond the "
          "kernel.", "",
          "| forwarder | delivered to h2 | delivered, the kernel would not | "
          "the kernel delivered, it did not | r1's ICMP errors beyond / short | "
          "kinds delivered beyond the kernel |",
          "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if "extra" not in r:
            md.append(f"| {r['config']} | {r.get('error', '?')} | | | | |")
            continue
        kinds = ", ".join(kind_groups(r["extra_kinds"])) or "-"
        md.append(f"| {r['config']} | {r['delivered']} | {r['extra']} | {r['missing']} | "
                  f"{r['own_extra']} / {r['own_missing']} | {kinds} |")
    if missing:
        md.append(f"| fwd-full, fwd-direct | **PEER MISSING** | {missing} | | | |")
    return md + [""]


def fib_count_row(meta, fam, config):
    for r in meta.get("fib_count", []):
        if r.get("fib_count") == fam and r.get("config") == config:
            return r
    return None


def fib_count_text(meta, fam, config):
    """The count run of route_fib: delivered of sent, and whether it is
    the kernel's count."""
    r, k = fib_count_row(meta, fam, config), fib_count_row(meta, fam, "kernel")
    if not r:
        return "-"
    out = f"{r['delivered']} of {r['sent']}"
    if r.get("other"):
        out += f" (+{r['other']} other)"
    if config != "kernel" and k:
        d = r["delivered"] - k["delivered"]
        out += ": the kernel's" if d == 0 else f": **{d:+d} vs the kernel**"
    return out


def fib_md(result, meta):
    """route_fib beside route_pps: does the advantage hold with a big table
    and many destinations?"""
    ft = meta.get("fib_table")
    su = result["suites"]
    if not ft or not any(f"route_fib_{f}" in su for f in ("inet", "inet6")):
        return []
    md = ["## Scale: a big table and many destinations against one flow", "",
          f"route_fib: {ft['v4']} IPv4 and {ft['v6']} IPv6 prefixes on r1 "
          f"(bench/fibset.py, seed {ft['seed']}: /17-/32 of 198.18.0.0/15, /49-/128 of "
          "2001:2::/48, via h2, 1% blackhole and 1% unreachable), each frame to a "
          "random prefix of the set at a random address in it; route_pps: one flow "
          "to h2 through r1's few routes. Ratios to the kernel in the same round of "
          "each suite; \"count run\": "
          f"{ft['count']} frames of one seed at {ft['rate']} pps, the generator's "
          "frames delivered to h2 against the kernel's count (\"other\": any other frame that "
          "reached h2 in that run, such as a neighbour probe of r1's, counted apart). "
          f"The table loaded (ip -batch) in {ft['load_ms'] / 1000:.1f} s and took "
          f"{ft['mem_kb'] / 1024:.0f} MB; flushed in {ft['flush_ms'] / 1000:.1f} s; "
          f"xfwd route attach with it in place took {ft['attach_ms']['xdp'] / 1000:.1f} s "
          f"(hook xdp) and {ft['attach_ms']['tc'] / 1000:.1f} s (hook tc).", "",
          "| config | IPv4 one flow | IPv4 big table | IPv4 count run | IPv6 one flow | "
          "IPv6 big table | IPv6 count run |", "| --- | --- | --- | --- | --- | --- | --- |"]
    configs = []
    for f in ("inet", "inet6"):
        for c in su.get(f"route_fib_{f}", {}).get("configs", {}):
            if c not in configs:
                configs.append(c)

    def ratio(name, c):
        v = su.get(name, {}).get("configs", {}).get(c)
        return f"{v['ratio']:.2f}" if v and v["values"] else "-"
    for c in configs:
        md.append(f"| {c} | {ratio('route_pps_inet', c)} | {ratio('route_fib_inet', c)} | "
                  f"{fib_count_text(meta, 'inet', c)} | {ratio('route_pps_inet6', c)} | "
                  f"{ratio('route_fib_inet6', c)} | {fib_count_text(meta, 'inet6', c)} |")
    return md + [""]


def main(raw_path, out_dir):
    meas, noise, calib, prof, meta = load(raw_path)
    suites = group(meas, noise)
    mach = meta.get("machine", {})
    result = {"date": meta.get("date"), "mode": meta.get("mode"), "machine": mach,
              "calibration": calib, "suites": {}}
    md = ["# xfwd benchmarks", "",
          f"{meta.get('date', '')}, `make bench` ({meta.get('mode', '')}); "
          f"{mach.get('cpu', '?')}, {mach.get('vcpus', '?')} vCPUs, "
          f"kernel {mach.get('kernel', '?')}.", "",
          "Medians over interleaved rounds; ratio = value / reference in the same "
          "round, median and spread (min-max) over the rounds. Reference: the first "
          "configuration of each suite. Noise: the generator's CPU share and the "
          "whole machine's busy share during each measurement (median, min-max); "
          "other jobs share this 2-vCPU machine. Suites *_per_cpu divide each "
          "delivered rate by the generator's CPU share in that measurement: "
          "packets per CPU-second of the generator, in whose send call the whole "
          "path runs; they show what the other jobs' load did to the pps figures. "
          "Targets are judged on the pps figures, as the issue sets them.", ""]
    cal = [f"{c['when']} {c['ns_per_iter']:.2f} ns/step "
           f"(wall {c['wall_s']:.2f} s for {c['cpu_s']:.2f} s CPU, load {c['loadavg']})"
           for c in calib]
    md += ["Calibration loop (fixed 2e8-step CPU loop): " + "; ".join(cal), ""]
    if meta.get("elapsed_s"):
        md += [f"The run took {meta['elapsed_s']} s.", ""]
        result["elapsed_s"] = meta["elapsed_s"]
    missing = peer_missing(meta)
    peer = meta.get("peer", {})
    result["peer"] = peer
    result["corpus"] = meta.get("corpus", [])
    if missing:
        md += [f"**PEER MISSING: xdp-forward is not in this run: {missing}.** "
               "The targets against it are not measured.", ""]
    else:
        md += [f"Peer: {peer.get('version', 'xdp-forward')}, from Debian trixie's "
               "xdp-tools, extracted by scripts/fetch-peer and run through its own "
               "loader (scripts/peer-run): configurations fwd-full and fwd-direct "
               "(xdp-forward load --fib-mode full / direct on r1's veth1 and veth2).",
               ""]
    md += ["Configurations: kernel = r1's own forwarding; xdp, tc = xfwd route "
           "attach hook xdp / tc; fwd-full, fwd-direct = the peer; drop = XDP_DROP "
           "on r1's veth1, the offered-load ceiling, counted where it drops; "
           "tc-floor = a minimal tc forwarder on tcx of r1's veths (one lookup of the "
           "main table, MAC and TTL rewrite, bpf_redirect_peer; no other check: not "
           "exact), the ceiling of route hook tc; "
           "xdp-pass, tc-pass = a program that only passes, on r1's veth1 (XDP, tcx), "
           "in the suite of traffic to r1: the floor of any program on that hook; "
           "peer-floor = a tc program on tcx of r1's veth1 that hands every skb to "
           "bpf_redirect_peer() of veth2 and does nothing else, the ceiling of redirect "
           "mode peer. Route "
           "pps is counted at h2's tc ingress for every forwarding configuration. "
           "The corpus column: frames of the hostile corpus (test/fixtures/corpus.py) "
           "that the configuration delivered to h2 and the kernel did not / that the "
           "kernel delivered and it did not (a frame forwarded differently counts "
           "on both sides); see Exactness.", ""]
    for name, s in suites.items():
        ref = s["configs"][0]
        unit, scale = UNITS.get(name, ("Mpps", 1e-6))
        n = noise_of(noise, {"route_rtt_median_us": "route_rtt", "route_rtt_p99_us": "route_rtt",
                             "chain_per_member_ns": "chain_step"}.get(
                                 name, name.removesuffix("_per_cpu")))
        with_corpus = name in ("route_pps_inet", "route_pps_inet6")
        fib_fam = name.removeprefix("route_fib_") if name in ("route_fib_inet",
                                                              "route_fib_inet6") else None
        if fib_fam:
            md += [f"## {name}", "", f"| config | median {unit} | ratio vs {ref} | spread | "
                   "count run: delivered to h2 (the kernel's) |",
                   "| --- | --- | --- | --- | --- |"]
        elif with_corpus:
            md += [f"## {name}", "", f"| config | median {unit} | ratio vs {ref} | spread | "
                   "corpus: beyond the kernel / short of it |", "| --- | --- | --- | --- | --- |"]
        else:
            md += [f"## {name}", "", f"| config | median {unit} | ratio vs {ref} | spread |",
                   "| --- | --- | --- | --- |"]
        out = {}
        for c in s["configs"]:
            vals = [rd[c] for rd in s["rounds"].values() if c in rd]
            ratios = ratio_rounds(s, c, ref)
            med = median(vals)
            rmed = median(ratios) if ratios else 0
            out[c] = {"median": med, "ratio": rmed, "ratio_min": min(ratios, default=0),
                      "ratio_max": max(ratios, default=0), "values": vals,
                      "rounds": len(vals)}
            row = f"| {c} | {med * scale:.2f} | {rmed:.2f} | {spread(ratios)} |"
            if fib_fam:
                row += f" {fib_count_text(meta, fib_fam, c)} |"
            if with_corpus:
                cr = corpus_row(meta, c)
                row += (f" {cr['extra']} / {cr['missing']} |" if cr and "extra" in cr
                        else " - |")
            md.append(row)
        if with_corpus and missing:
            md.append(f"| fwd-full, fwd-direct | **PEER MISSING** | {missing} | | |")
        md += ["", f"{len(s['rounds'])} rounds. Noise: {noise_text(n)}.", ""]
        result["suites"][name] = {"reference": ref, "unit": unit, "configs": out,
                                  "noise": n}
    md += exactness_md(meta, missing)
    md += fib_md(result, meta)
    result["fib_table"] = meta.get("fib_table")
    result["fib_count"] = meta.get("fib_count", [])
    tg = targets(suites, prof, meta)
    result["targets"] = tg
    md += ["## Targets", "", "Speed targets are ratios of the same run: the median of "
           "per-round ratios, with each round's ratio in round order; \"rounds on both "
           "sides\": some rounds met the bound and some did not, so the verdict is the "
           "noise's as much as the code's. The per-CPU-second column judges the same "
           "bound on the *_per_cpu suites. Program ns/run: the XDP programs on r1's "
           "veth1 in the profile pass (bpf_stats). Corpus: frames delivered beyond / "
           "short of the kernel's, r1's ICMP errors in brackets. Ceiling: where the "
           "suite has one, a configuration that does no more than any exact program "
           "for the target must (the peer's one-table lookup and nothing else, "
           "tc-floor's one lookup, rewrite and redirect_peer on tc, a program "
           "that passes everything, or peer-floor's bare redirect_peer), as the same "
           "ratio: what this run allowed; a bound above it cannot be met here, whatever "
           "the code. Where the bound's denominator is the ceiling itself, the bound "
           "is the share of the ceiling asked for. Profile figures "
           "from profile.md.", "",
           "| target | bound | figure | per round | status | same ratio per generator "
           "CPU-second | ceiling in this run | profile |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for t in tg:
        if t.get("ratio") is not None and "ratio_min" in t:
            fig = f"{t['ratio']:.2f} ({t['ratio_min']:.2f}-{t['ratio_max']:.2f})"
        elif "extra" in t:
            fig = (f"{t['extra']} / {t['missing']} ({t['own_extra']} / "
                   f"{t['own_missing']})")
        elif "versus_value" in t:
            fig = f"{t['value']:.1f} vs {t['versus_value']:.1f} ns"
        elif "value" in t:
            fig = f"{t['value'] / 1000:.1f} ms"
        else:
            fig = t.get("why", "-")
        rounds = " ".join(f"{x:.2f}" for x in t.get("rounds", [])) or "-"
        pcr = (f"{t['per_cpu_ratio']:.2f} ({t['per_cpu_min']:.2f}-{t['per_cpu_max']:.2f}): "
               f"{t['per_cpu_status']}" if "per_cpu_ratio" in t else "-")
        st = f"**{t['status']}**"
        if t.get("settled") is False:
            st += " (rounds on both sides)"
        md.append(f"| {t['target']} | {t.get('text', '')} | {fig} | {rounds} | {st} | "
                  f"{pcr} | {ceiling_text(t)} | {t['profile']} |")
    md.append("")
    json.dump(result, open(f"{out_dir}/latest.json", "w"), indent=2)
    open(f"{out_dir}/latest.md", "w").write("\n".join(md) + "\n")
    open(f"{out_dir}/profile.md", "w").write("\n".join(profile_md(prof, meta)) + "\n")
    print("\n".join(md))
    chart(result, out_dir)


# The chart: one panel per suite, its configurations side by side as
# medians of per-round ratios to the suite's reference (min-max as error
# bars), xfwd in blue, the kernel's own paths in grey, the peer in orange,
# each target as a red line over the bar it bounds.
PANELS = [
    ("route_pps_inet", "route IPv4, 64 B UDP pps, vs kernel forwarding"),
    ("route_pps_inet6", "route IPv6, 64 B UDP pps, vs kernel forwarding"),
    ("route_fib_inet", "route IPv4, big table, random destinations, vs kernel"),
    ("route_fib_inet6", "route IPv6, big table, random destinations, vs kernel"),
    ("route_tcp", "route TCP (iperf3) Gbit/s, vs kernel"),
    ("route_local_pps", "traffic to r1 itself, pps, vs kernel"),
    ("redirect_pps", "redirect, 64 B UDP pps, vs kernel routing"),
    ("chain_per_member_ns", "chain, ns per extra member, vs tail calls"),
    ("stats_cost_us", "xfwd -j stats over 64 interfaces, ms"),
    ("corpus", "hostile corpus: frames delivered that the kernel would not "
     "(labels: beyond / short of the kernel's; xfwd's target 0 / 0)"),
]
LABELS = {"kernel": "kernel", "xdp": "xfwd xdp", "tc": "xfwd tc",
          "fwd-full": "xdp-forward\\nfib full", "fwd-direct": "xdp-forward\\nfib direct",
          "drop": "XDP_DROP\\nceiling", "bridge": "Linux\\nbridge",
          "xdp-pass": "XDP_PASS\\nonly", "tc-pass": "tc pass\\nonly",
          "tc-floor": "tc minimal\\nforwarder", "peer-floor": "minimal\\nredirect_peer",
          "egress": "xfwd\\negress", "peer": "xfwd\\npeer", "neigh": "xfwd\\nneigh",
          "xfwd_help": "xfwd help\\n(start-up)", "stats_64_ifaces": "xfwd -j stats",
          "tail": "tail\\ncalls", "inlined": "xfwd\\ninlined",
          "inlined-nocnt": "inlined,\\nno counters", "hash": "hash-map\\ncalls"}
COLOURS = {"xfwd": "#1f6fb4", "kernel": "#9a9a9a", "peer": "#f08a24", "missing": "#d62728"}


def q(text):
    """A gnuplot double-quoted string; newlines stay line breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def colour_of(c):
    if c.startswith("fwd-"):
        return COLOURS["peer"]
    if c in ("kernel", "bridge", "drop", "xfwd_help", "tail", "xdp-pass", "tc-pass",
             "tc-floor", "peer-floor"):
        return COLOURS["kernel"]
    return COLOURS["xfwd"]


def panel_script(result, suite, title):
    """gnuplot commands for one panel, or None when it has nothing."""
    tg = [t for t in result.get("targets", []) if t["suite"] == suite]
    bars, lines, notes = [], [], []
    if suite == "corpus":
        for r in result.get("corpus", []):
            if "extra" in r:
                bars.append((r["config"], r["extra"], r["extra"], r["extra"],
                             f"{r['extra']} / {r['missing']}"))
        if not bars:
            return None
        ylabel = "frames"
        peer = result.get("peer", {})
        if peer.get("status") != "ok":
            notes.append("PEER MISSING: " + (peer.get("why") or "not recorded"))
    else:
        s = result["suites"].get(suite)
        if not s:
            return None
        absolute = suite == "stats_cost_us"
        for c, v in s["configs"].items():
            if absolute:
                vals = [x / 1000 for x in v["values"]]
                bars.append((c, median(vals), min(vals), max(vals), None))
            elif v["values"]:
                # A slope of 0 (or a little below, in noise) is a bar of 0.
                bars.append((c, max(v["ratio"], 0), max(v["ratio_min"], 0),
                             max(v["ratio_max"], 0), f"{v['ratio']:.2f}"))
        ylabel = "ms per command" if absolute else f"ratio to {s['reference']}, same round"
        for t in tg:
            b = t.get("versus")
            if "extra" in t or t["config"] not in s["configs"]:
                continue
            if t.get("text", "").startswith(">="):
                base = s["configs"][b]["ratio"] if b in s["configs"] else None
                if base:
                    lines.append((t["config"], t["bound"] * base,
                                  f">= {t['bound']:.2f}x {b}"))
            elif t.get("text", "").startswith("<="):
                if b in s["configs"] and "ns/run" not in t["target"]:
                    lines.append((t["config"], s["configs"][b]["ratio"], "<= tail calls"))
            elif absolute:
                lines.append((t["config"], t["bound"] / 1000, f"< {t['bound'] / 1000:.0f} ms"))
        peer = result.get("peer", {})
        if suite.startswith("route_pps") and peer.get("status") != "ok":
            notes.append("PEER MISSING: " + (peer.get("why") or "not recorded"))
    if not bars:
        return None
    # Linear axis; the XDP_DROP ceiling is cut at the top with its value.
    top = max([b[3] for b in bars if b[0] != "drop"] + [y for _, y, _ in lines] + [1.0])
    top *= 1.35
    cmds = [f"set title {q(title)}", f"set ylabel {q(ylabel)}",
            f"set xrange [-0.6:{len(bars) - 0.4}]", f"set yrange [0:{top:.3f}]",
            "set xtics (" + ", ".join(f'"{LABELS.get(c, c)}" {i}'
                                      for i, (c, *_) in enumerate(bars)) + ")",
            "unset arrow", "unset label"]
    if suite not in ("corpus", "stats_cost_us"):
        cmds.append("set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 "
                    "lc rgb '#606060'")
    idx = {c: i for i, (c, *_) in enumerate(bars)}
    # Two targets over one bar (IPv6 xdp against fib direct and fib full)
    # lie close: the lower one's label goes under its line.
    lines.sort(key=lambda x: x[1])
    for k, (c, y, text) in enumerate(lines):
        if c not in idx:
            continue
        i = idx[c]
        above = not any(c2 == c and y2 > y for c2, y2, _ in lines[k + 1:])
        cmds.append(f"set arrow from {i - 0.45}, {y:.4f} to {i + 0.45}, {y:.4f} nohead "
                    "lw 3 lc rgb '#d62728' front")
        cmds.append(f"set label {q(text)} at {i}, {y:.4f} center offset 0,"
                    f"{0.7 if above else -0.7} font ',8' tc rgb '#d62728' boxed front")
    for k, n in enumerate(notes):
        cmds.append(f"set label {q(n)} at graph 0.02, graph {0.93 - 0.07 * k} left "
                    "font ',9' tc rgb '#d62728' front")
    # Values are written inside the foot of their bar (above it when the
    # bar is too short), so that the target lines' labels stay clear.
    data = []
    for i, (c, v, lo, hi, text) in enumerate(bars):
        shown = min(v, top * 0.97)
        val = text or f"{v:.2f}"
        inside = shown >= top * 0.12
        y = top * 0.03 if inside else shown + top * 0.02
        data.append(f"{i} {shown:.4f} {min(lo, top * 0.97):.4f} {min(hi, top * 0.97):.4f} "
                    f"{int(colour_of(c)[1:], 16)} {y:.4f} "
                    f"{0xffffff if inside else 0} \"{val}\"")
    block = "\n".join(data)
    cmds.append("plot '-' using 1:2:5 with boxes lc rgb variable notitle, "
                "'-' using 1:3:(0):($4 - $3) with vectors nohead lc rgb 'black' notitle, "
                "'-' using 1:6:8:7 with labels tc rgb variable font ',9' notitle")
    cmds += [block, "e", block, "e", block, "e"]
    return cmds


def chart(result, out_dir):
    m = result.get("machine", {})
    title = (f"xfwd make bench ({result.get('mode', '')}), {result.get('date', '')}: "
             f"{m.get('cpu', '')}, {m.get('vcpus', '')} vCPUs, kernel {m.get('kernel', '')}.\n"
             "Bars: medians of per-round ratios, black lines: min-max over rounds. "
             "Blue: xfwd; grey: the kernel's own paths; orange: xdp-forward (peer); "
             "red: targets")
    panels = [p for p in (panel_script(result, s, t) for s, t in PANELS) if p]
    if not panels:
        return
    cols = 2
    rows = (len(panels) + cols - 1) // cols
    script = [f"set terminal pngcairo size 1600,{360 * rows + 60} font 'sans,10'",
              "set termoption noenhanced", f"set output '{out_dir}/latest.png'",
              f"set multiplot layout {rows},{cols} title {q(title)} font ',11'",
              "set style fill solid 0.85 border -1", "set boxwidth 0.7",
              "set grid ytics lc rgb '#d0d0d0'", "set xtics font ',8' nomirror",
              "set bmargin 4", "set tmargin 2.5", "set style textbox opaque noborder"]
    for p in panels:
        script += p
    script.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(script).encode(), check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"chart not drawn: {e}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
