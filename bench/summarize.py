#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Medians and per-round ratios of bench/run's raw lines (one JSON object a
line: suite, config, round, value) into latest.json, latest.md and a PNG
chart. The reference of each suite is its first configuration."""
import json
import statistics
import subprocess
import sys

UNITS = {"route_tcp": ("Gbit/s", 1e-9), "route_rtt_us": ("us", 1),
         "chain_step": ("ns", 1), "stats_cost_us": ("ms", 1e-3)}


def main(raw_path, out_dir):
    rows = [json.loads(line) for line in open(raw_path) if line.strip()]
    suites = {}
    for r in rows:
        s = suites.setdefault(r["suite"], {"configs": [], "rounds": {}})
        if r["config"] not in s["configs"]:
            s["configs"].append(r["config"])
        s["rounds"].setdefault(r["round"], {})[r["config"]] = r["value"]
    result = {"suites": {}}
    md = ["# xfwd benchmarks", "",
          "Medians over rounds; ratio = value / reference in the same round "
          "(median, min-max). Reference: the first configuration.", ""]
    for name, s in suites.items():
        ref = s["configs"][0]
        unit, scale = UNITS.get(name, ("Mpps", 1e-6))
        md += [f"## {name}", "", f"| config | median {unit} | ratio vs {ref} | spread |",
               "| --- | --- | --- | --- |"]
        out = {}
        for c in s["configs"]:
            vals = [rd[c] for rd in s["rounds"].values() if c in rd]
            ratios = [rd[c] / rd[ref] for rd in s["rounds"].values()
                      if c in rd and rd.get(ref)]
            med = statistics.median(vals)
            rmed = statistics.median(ratios) if ratios else 0
            out[c] = {"median": med, "ratio": rmed, "ratio_min": min(ratios, default=0),
                      "ratio_max": max(ratios, default=0), "values": vals}
            md.append(f"| {c} | {med * scale:.2f} | {rmed:.2f} | "
                      f"{min(ratios, default=0):.2f}-{max(ratios, default=0):.2f} |")
        md.append("")
        result["suites"][name] = {"reference": ref, "unit": unit, "configs": out}
    json.dump(result, open(f"{out_dir}/latest.json", "w"), indent=2)
    open(f"{out_dir}/latest.md", "w").write("\n".join(md) + "\n")
    print("\n".join(md))
    chart(result, out_dir)


def chart(result, out_dir):
    data = []
    for name, s in result["suites"].items():
        for c, v in s["configs"].items():
            data.append(f'"{name}/{c}" {v["ratio"]:.3f}')
    script = f"""
set terminal png size 1200,600
set bmargin 12
set termoption noenhanced
set output '{out_dir}/latest.png'
set style fill solid 0.6
set boxwidth 0.7
set ylabel 'ratio to the suite reference (same round)'
set xtics rotate by -60 font ',8'
set yrange [0:*]
set grid ytics
plot '-' using 0:2:xtic(1) with boxes notitle
{chr(10).join(data)}
e
"""
    try:
        subprocess.run(["gnuplot"], input=script.encode(), check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"chart not drawn: {e}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
