#!/usr/bin/env python3
"""Markdown tables from run_all.sh output folders.

    summarize.py RUN_DIR [RUN_DIR ...]

For one folder: each peer's median/min/max us per call, and the ratio of
the peer's median to minnow's median measured in the same quiet period
(minnow is timed right before and right after the peers; the mean of the
two medians is the denominator).

For several folders (repeated runs): per row, the median over runs of the
per-run medians, the smallest min and largest max, and the median over runs
of the per-run ratios (with the range of the ratios)."""

import json
import pathlib
import statistics
import sys

ORDER = ["dqn_step/cube", "dqn_step/2048", "az_forward/b1", "az_forward/b8", "az_forward/b64"]
FRAMEWORKS = ["minnow", "jax-jit", "torch", "torch-fused", "torch-compile"]


def load(out):
    """{(workload, framework, threads): (median, min, max, ratio)} for one run."""
    rows = {}
    minnow = {}
    for path in sorted(out.glob("minnow-*-*.json")):
        for r in json.loads(path.read_text())["results"]:
            minnow.setdefault(r["name"], []).append(r)
    base = {}
    for w, rs in minnow.items():
        base[w] = statistics.mean(r["median_ns"] for r in rs) / 1e3
        rows[(w, "minnow", 1)] = (base[w], min(r["min_ns"] for r in rs) / 1e3,
                                  max(r["max_ns"] for r in rs) / 1e3, 1.0)
    peers = out / "peers.jsonl"
    for line in peers.read_text().splitlines() if peers.exists() else []:
        if not line.strip():
            continue
        p = json.loads(line)
        w = p["workload"]
        ratio = p["median_us"] / base[w] if w in base else None
        rows[(w, p["framework"], p["threads"])] = (p["median_us"], p["min_us"], p["max_us"], ratio)
    return rows


def key_order(k):
    w, f, t = k
    return (ORDER.index(w) if w in ORDER else 99, t, FRAMEWORKS.index(f) if f in FRAMEWORKS else 99)


def main():
    dirs = [pathlib.Path(a) for a in sys.argv[1:]]
    runs = [load(d) for d in dirs]
    keys = sorted({k for r in runs for k in r}, key=key_order)
    many = len(runs) > 1
    if many:
        print(f"Over {len(runs)} runs ({', '.join(d.name for d in dirs)}): median of the per-run medians; "
              "min and max over all samples of all runs; median (and range) of the per-run ratios.\n")
        print("| workload | framework | threads | median us | min us | max us | peer / minnow (median of runs) | ratio range over runs |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print("| workload | framework | threads | median us | min us | max us | peer / minnow |")
        print("|---|---|---|---|---|---|---|")
    for k in keys:
        vals = [r[k] for r in runs if k in r]
        w, f, t = k
        med = statistics.median(v[0] for v in vals)
        lo = min(v[1] for v in vals)
        hi = max(v[2] for v in vals)
        ratios = [v[3] for v in vals if v[3] is not None]
        name = f"**{f}**" if f == "minnow" else f
        rmed = f"{statistics.median(ratios):.2f}" if ratios else "-"
        if f == "minnow":
            rmed = "1.00"
        line = f"| `{w}` | {name} | {t} | {med:.1f} | {lo:.1f} | {hi:.1f} | {rmed} |"
        if many:
            rng = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios and f != "minnow" else ""
            line += f" {rng} |"
            if len(vals) < len(runs):
                line = line.replace(f"| {t} |", f"| {t} ({len(vals)}/{len(runs)} runs) |", 1)
        print(line)


if __name__ == "__main__":
    main()
