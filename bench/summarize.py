#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench/run's raw lines (one JSON object a line) into latest.json,
latest.md, profile.md and a PNG chart.

Lines with "suite" and "value" are measurements (suite, config, round);
the reference of each suite is its first configuration, and every ratio
is taken inside one round, then the median and spread of those ratios
are given. Lines with "noise" are the noise record (per-measurement
generator CPU share and machine busy share, calibration loops), lines
with "profile" the profile pass, and one line gives machine and date.
The targets of issue 7 are checked here, each as a ratio of the same run;
they are constants and are never adjusted to the figures."""
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
         "redirect_pps_per_cpu": ("M per gen CPU-s", 1e-6)}

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
    meas, noise, calib, prof, meta = [], [], [], [], {}
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
        elif "suite" in r and "value" in r:
            meas.append(r)
    return meas, noise, calib, prof, meta


PER_CPU = ["route_pps_inet", "route_pps_inet6", "route_local_pps", "redirect_pps"]


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


# Issue 7's targets: (name, suite, numerator, denominator, kind, bound).
# kind "ge": per-round ratio median >= bound; "le_ratio": median of
# numerator's values <= median of denominator's; "lt_abs": numerator's
# median < bound (in the suite's raw unit).
TARGETS = [
    ("route xdp IPv4 64 B vs kernel", "route_pps_inet", "xdp", "kernel", "ge", 3.0),
    ("route xdp IPv4 64 B vs XDP_DROP ceiling", "route_pps_inet", "xdp", "drop", "ge", 0.5),
    ("route xdp IPv6 64 B vs kernel", "route_pps_inet6", "xdp", "kernel", "ge", 2.5),
    ("route tc TCP Gbit/s vs kernel", "route_tcp", "tc", "kernel", "ge", 1.05),
    ("route tc on traffic it does not forward", "route_local_pps", "tc", "kernel", "ge", 0.97),
    ("route xdp on traffic it does not forward", "route_local_pps", "xdp", "kernel", "ge", 0.97),
    ("chain ns per extra member vs tail-call step", "chain_per_member_ns", "inlined", "tail",
     "le_ratio", 1.0),
    ("redirect egress vs Linux bridge", "redirect_pps", "egress", "bridge", "ge", 1.15),
    ("redirect peer vs kernel routing", "redirect_pps", "peer", "kernel", "ge", 2.0),
    ("xfwd -j stats, 64 interfaces (ms)", "stats_cost_us", "stats_64_ifaces", None,
     "lt_abs", 100000),
]


def targets(suites, prof):
    out = []
    for name, suite, a, b, kind, bound in TARGETS:
        s = suites.get(suite)
        t = {"target": name, "suite": suite, "config": a, "versus": b, "bound": bound}
        if not s or a not in s["configs"] or (b and b not in s["configs"]):
            t.update(status="not measured", ratio=None)
        elif kind == "ge":
            r = ratio_rounds(s, a, b)
            t.update(ratio=median(r), ratio_min=min(r), ratio_max=max(r),
                     status="met" if median(r) >= bound else "missed",
                     text=f">= {bound:.2f}x {b}",
                     settled=min(r) >= bound or max(r) < bound)
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
        if kind == "ge" and pc:
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
          "programs: route_xdp.jited.txt, route_tc.jited.txt.", "",
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
    for name, s in suites.items():
        ref = s["configs"][0]
        unit, scale = UNITS.get(name, ("Mpps", 1e-6))
        n = noise_of(noise, {"route_rtt_median_us": "route_rtt", "route_rtt_p99_us": "route_rtt",
                             "chain_per_member_ns": "chain_step"}.get(
                                 name, name.removesuffix("_per_cpu")))
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
            md.append(f"| {c} | {med * scale:.2f} | {rmed:.2f} | {spread(ratios)} |")
        md += ["", f"{len(s['rounds'])} rounds. Noise: {noise_text(n)}.", ""]
        result["suites"][name] = {"reference": ref, "unit": unit, "configs": out,
                                  "noise": n}
    tg = targets(suites, prof)
    result["targets"] = tg
    md += ["## Targets", "", "Each a ratio of the same run (median of per-round ratios, "
           "min-max); \"rounds on both sides\": some rounds met the bound and some "
           "did not, so the verdict is the noise's as much as the code's. The "
           "per-CPU-second column judges the same bound on the *_per_cpu suites. "
           "Profile figures from profile.md.", "",
           "| target | bound | ratio | spread | status | same ratio per generator CPU-second "
           "| profile |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for t in tg:
        r = "-" if t.get("ratio") is None else f"{t['ratio']:.2f}"
        sp = (f"{t['ratio_min']:.2f}-{t['ratio_max']:.2f}" if "ratio_min" in t
              else (f"{t['value']:.2f} vs {t['versus_value']:.2f} ns"
                    if "versus_value" in t else
                    (f"{t['value'] / 1000:.1f} ms" if "value" in t else "-")))
        pcr = (f"{t['per_cpu_ratio']:.2f} ({t['per_cpu_min']:.2f}-{t['per_cpu_max']:.2f}): "
               f"{t['per_cpu_status']}" if "per_cpu_ratio" in t else "-")
        st = f"**{t['status']}**"
        if t.get("settled") is False:
            st += " (rounds on both sides)"
        md.append(f"| {t['target']} | {t.get('text', '')} | {r} | {sp} | {st} | {pcr} | "
                  f"{t['profile']} |")
    md.append("")
    json.dump(result, open(f"{out_dir}/latest.json", "w"), indent=2)
    open(f"{out_dir}/latest.md", "w").write("\n".join(md) + "\n")
    open(f"{out_dir}/profile.md", "w").write("\n".join(profile_md(prof, meta)) + "\n")
    print("\n".join(md))
    chart(result, out_dir)


def chart(result, out_dir):
    data = []
    for name, s in result["suites"].items():
        if name == "chain_step":
            continue	# 21 rows; chain_per_member_ns sums them up
        for c, v in s["configs"].items():
            if v["ratio"] > 0:
                data.append(f'"{name}/{c}" {v["ratio"]:.3f} '
                            f'{max(v["ratio_min"], 0.01):.3f} {v["ratio_max"]:.3f}')
    m = result.get("machine", {})
    title = (f"xfwd make bench, {result.get('date', '')}: {m.get('cpu', '')}, "
             f"{m.get('vcpus', '')} vCPUs, kernel {m.get('kernel', '')}")
    script = f"""
set terminal png size 1400,700
set bmargin 14
set termoption noenhanced
set output '{out_dir}/latest.png'
set title '{title}'
set style fill solid 0.6
set boxwidth 0.7
set ylabel 'ratio to the suite reference, same round (log scale)'
set xtics rotate by -60 font ',8'
set logscale y
set yrange [0.01:*]
set rmargin 10
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot '-' using 0:2:xtic(1) with boxes notitle, \\
     '-' using 0:2:3:4 with yerrorbars pt 0 lc rgb 'black' notitle
{chr(10).join(data)}
e
{chr(10).join(data)}
e
"""
    try:
        subprocess.run(["gnuplot"], input=script.encode(), check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"chart not drawn: {e}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
