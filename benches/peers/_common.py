"""Shared by dqn_step.py and az_forward.py: inputs, init and timing.

The timing mirrors minnow's harness (benches/src/harness.rs): warm up
(which includes compilation), pick a number of calls per sample so that
one sample lasts about 2 ms, then take many samples; statistics are per
call. JAX calls are blocked on (block_until_ready) after every call, so a
call's time is its full latency, as in minnow.
"""

import json
import math
import os
import platform
import statistics
import sys
import time

import numpy as np


def filled(length, seed):
    """minnow's `benches::workloads::filled`: a 64-bit LCG, values in [-1, 1)."""
    mask = (1 << 64) - 1
    a, c = 6364136223846793005, 1442695040888963407
    state = (seed * a + c) & mask
    out = np.empty(length, dtype=np.float32)
    for i in range(length):
        state = (state * a + c) & mask
        out[i] = np.float32((state >> 40) / float(1 << 24)) * np.float32(2.0) - np.float32(1.0)
    return out


def torch_default_linear(rng, fan_in, fan_out):
    """PyTorch's default nn.Linear init: kaiming_uniform(a=sqrt(5)) for the
    weight and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias; both reduce
    to U(-1/sqrt(fan_in), 1/sqrt(fan_in)). Weight stored (fan_in, fan_out)."""
    bound = 1.0 / math.sqrt(fan_in)
    w = rng.uniform(-bound, bound, size=(fan_in, fan_out)).astype(np.float32)
    b = rng.uniform(-bound, bound, size=(fan_out,)).astype(np.float32)
    return w, b


def measure(call, sync=None, warm_up_s=1.0, min_warm_calls=20, samples=60,
            sample_target_s=2e-3, rounds=3):
    """Times `call`; returns dict of per-call median/min/max microseconds.

    `call()` runs one call and returns a value; `sync(value)` waits for it
    (JAX's block_until_ready); it is applied after every call.
    """
    sync = sync or (lambda v: v)
    start = time.perf_counter()
    calls = 0
    while calls < min_warm_calls or time.perf_counter() - start < warm_up_s:
        sync(call())
        calls += 1
    per_call = (time.perf_counter() - start) / calls
    # A second, clean estimate (the first may include compilation).
    t = time.perf_counter()
    n = max(5, int(0.2 / max(per_call, 1e-7)))
    for _ in range(n):
        sync(call())
    per_call = (time.perf_counter() - t) / n
    calls_per_sample = max(1, math.ceil(sample_target_s / per_call))
    times = []
    per_round = math.ceil(samples / rounds)
    for _ in range(rounds):
        for _ in range(per_round):
            t = time.perf_counter()
            for _ in range(calls_per_sample):
                sync(call())
            times.append((time.perf_counter() - t) * 1e6 / calls_per_sample)
    times.sort()
    return {
        "median_us": statistics.median(times),
        "min_us": times[0],
        "max_us": times[-1],
        "samples": len(times),
        "calls_per_sample": calls_per_sample,
    }


def report(workload, framework, threads, result, extra=None):
    row = {
        "workload": workload,
        "framework": framework,
        "threads": threads,
        **result,
        "affinity": sorted(os.sched_getaffinity(0)),
        "python": platform.python_version(),
    }
    if extra:
        row.update(extra)
    print(
        f"{workload:<16} {framework:<22} {threads} thr  median {result['median_us']:9.2f} us"
        f"  min {result['min_us']:9.2f}  max {result['max_us']:9.2f}"
        f"  ({result['samples']} samples x {result['calls_per_sample']} calls)",
        file=sys.stderr,
    )
    print(json.dumps(row), flush=True)


def jax_thread_check(threads):
    """With threads=1 the XLA flags must make Eigen single-threaded."""
    flags = os.environ.get("XLA_FLAGS", "")
    if threads == 1 and "--xla_cpu_multi_thread_eigen=false" not in flags:
        sys.exit("threads=1 needs XLA_FLAGS='--xla_cpu_multi_thread_eigen=false "
                 "intra_op_parallelism_threads=1' (set before jax is imported); see README.md")
