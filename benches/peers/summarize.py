#!/usr/bin/env python3
"""Markdown tables from run_all.sh output folders.

    summarize.py RUN_DIR [RUN_DIR ...]

For one folder: each peer's median/min/max us per call, and the ratio of
the peer's median to minnow's median measured in the same quiet period
(minnow is timed right before and right after the peers; the mean of the
two medians is the denominator).

For several folders (repeated runs): per row, the median over runs of the
per-run medians, the smallest min and largest max, and the median over runs
of the per-run ratios (with the range of the ratios), and the smallest
per-run median ("best run").

Peers that report heap allocations per call (the Rust peers, candle and
burn) get a second table with them.

Rows timed while a foreign rustc, cargo or xtask (or another foreign
program) was seen running (busy_during_measurement.txt, matched to the
programs' start times in log.txt) are left out; --keep-disturbed keeps them."""

import json
import re
import pathlib
import statistics
import sys

ORDER = ["dqn_step/cube", "dqn_step/2048", "az_forward/b1", "az_forward/b8", "az_forward/b64"]
FRAMEWORKS = ["minnow", "jax-jit", "torch", "torch-fused", "torch-compile", "candle", "burn-ndarray", "burn-flex"]


def seconds(hms):
    h, m, s = (int(x) for x in hms.split(":"))
    return 3600 * h + 60 * m + s


def disturbed_windows(out):
    """Programs during which a foreign rustc/cargo/xtask (or another foreign
    program, other than the session machinery's and short-lived shells) was
    seen running: {("minnow", group, tag) | (group, framework, threads)}."""
    log = out / "log.txt"
    busy = out / "busy_during_measurement.txt"
    if not log.exists() or not busy.exists():
        return set()
    starts = []
    for line in log.read_text().splitlines():
        t, _, msg = line[1:].partition("] ")
        # Python peers log "peer: dqn_step.py --framework ...", the Rust
        # peers "peer: dqn_step (rust) --framework ...".
        m = re.match(r"peer: (\w+)(?:\.py| \(rust\)) --framework (\S+) --threads (\d+)", msg)
        n = re.match(r"minnow: .*bench (\w+) \((\w+)\)", msg)
        key = (m.group(1), {"jax": "jax-jit"}.get(m.group(2), m.group(2)), int(m.group(3))) if m else \
            ("minnow", n.group(1), n.group(2)) if n else None
        starts.append((seconds(t), key))
    hits = set()
    for line in busy.read_text().splitlines():
        t = seconds(line.split()[0])
        pids = line.split("busy:")[1].split("running:")[0].split()
        running = [r for r in line.split("running:")[1].split()
                   if not r.split(":", 1)[1].startswith(("memfd:", "bash"))]
        if not pids and not running:
            continue
        for (t0, key), (t1, _) in zip(starts, starts[1:] + [(10**9, None)]):
            if key and t0 <= t < t1:
                hits.add(key)
    return hits


def load(out, keep_disturbed=False, allocs=None):
    """{(workload, framework, threads): (median, min, max, ratio)} for one run;
    rows measured while the machine was disturbed are left out. Heap
    allocations per call, where a peer reports them (the Rust peers), go to
    `allocs` as {key: [per-run values]}."""
    rows = {}
    minnow = {}
    bad = set() if keep_disturbed else disturbed_windows(out)
    for path in sorted(out.glob("minnow-*-*.json")):
        group, tag = path.stem.split("-")[1:3]
        if ("minnow", group, tag) in bad:
            continue
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
        if (w.split("/")[0], p["framework"], p["threads"]) in bad:
            continue
        ratio = p["median_us"] / base[w] if w in base else None
        key = (w, p["framework"], p["threads"])
        rows[key] = (p["median_us"], p["min_us"], p["max_us"], ratio)
        if allocs is not None and "allocs_per_call" in p:
            allocs.setdefault(key, []).append(p["allocs_per_call"])
    return rows


def key_order(k):
    w, f, t = k
    return (ORDER.index(w) if w in ORDER else 99, t, FRAMEWORKS.index(f) if f in FRAMEWORKS else 99)


def main():
    keep = "--keep-disturbed" in sys.argv
    dirs = [pathlib.Path(a) for a in sys.argv[1:] if a != "--keep-disturbed"]
    allocs = {}
    runs = [load(d, keep, allocs) for d in dirs]
    for d in dirs:
        bad = disturbed_windows(d)
        if bad and not keep:
            print(f"<!-- {d.name}: left out (disturbed): {sorted(map(str, bad))} -->")
    keys = sorted({k for r in runs for k in r}, key=key_order)
    many = len(runs) > 1
    if many:
        print(f"Over {len(runs)} runs ({', '.join(d.name for d in dirs)}): median of the per-run medians; "
              "min and max over all samples of all runs; median (and range) of the per-run ratios.\n")
        print("| workload | framework | threads | median us | min us | max us | best run's median us | peer / minnow (median of runs) | ratio range over runs |")
        print("|---|---|---|---|---|---|---|---|---|")
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
            best = min(v[0] for v in vals)
            line = line.replace(f"| {hi:.1f} | {rmed} |", f"| {hi:.1f} | {best:.1f} | {rmed} |")
            rng = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios and f != "minnow" else ""
            line += f" {rng} |"
            if len(vals) < len(runs):
                line = line.replace(f"| {t} |", f"| {t} ({len(vals)}/{len(runs)} runs) |", 1)
        print(line)
    if allocs:
        print("\nHeap allocations per call (counted by the Rust peers' counting allocator, untimed, after the timing):\n")
        print("| workload | framework | threads | allocations per call |")
        print("|---|---|---|---|")
        for k in sorted(allocs, key=key_order):
            w, f, t = k
            vals = sorted(set(round(v) for v in allocs[k]))
            shown = str(vals[0]) if len(vals) == 1 else f"{vals[0]}-{vals[-1]}"
            print(f"| `{w}` | {f} | {t} | {shown} |")


if __name__ == "__main__":
    main()
