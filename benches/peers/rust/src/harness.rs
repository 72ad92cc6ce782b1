//! The timing loop of `benches/peers/_common.py::measure`, which mirrors
//! minnow's harness (benches/src/harness.rs): warm up for at least 1 s and
//! 20 calls, estimate the time per call again, choose calls per sample so
//! that a sample lasts about 2 ms, take 60 samples in 3 rounds; median, min
//! and max are per call, over samples.

use std::time::{Duration, Instant};

/// Per-call statistics over the samples, in microseconds.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub median_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    pub samples: usize,
    pub calls_per_sample: usize,
}

const WARM_UP: Duration = Duration::from_secs(1);
const MIN_WARM_CALLS: usize = 20;
const SAMPLES: usize = 60;
const SAMPLE_TARGET_S: f64 = 2e-3;
const ROUNDS: usize = 3;

/// Times `call` (each call runs to completion: every backend here is eager).
pub fn measure(mut call: impl FnMut()) -> Stats {
    let start = Instant::now();
    let mut calls = 0usize;
    while calls < MIN_WARM_CALLS || start.elapsed() < WARM_UP {
        call();
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    // A second, clean estimate (the first includes the first calls' setup).
    let n = 5usize.max((0.2 / per_call.max(1e-7)) as usize);
    let t = Instant::now();
    for _ in 0..n {
        call();
    }
    let per_call = t.elapsed().as_secs_f64() / n as f64;
    let calls_per_sample = 1usize.max((SAMPLE_TARGET_S / per_call).ceil() as usize);
    let per_round = SAMPLES.div_ceil(ROUNDS);
    let mut times = Vec::with_capacity(per_round * ROUNDS);
    for _ in 0..ROUNDS {
        for _ in 0..per_round {
            let t = Instant::now();
            for _ in 0..calls_per_sample {
                call();
            }
            times.push(t.elapsed().as_secs_f64() * 1e6 / calls_per_sample as f64);
        }
    }
    times.sort_by(f64::total_cmp);
    let mid = times.len() / 2;
    // Python's statistics.median: the mean of the middle two for an even count.
    let median_us = if times.len() % 2 == 0 { (times[mid - 1] + times[mid]) / 2.0 } else { times[mid] };
    Stats { median_us, min_us: times[0], max_us: times[times.len() - 1], samples: times.len(), calls_per_sample }
}
