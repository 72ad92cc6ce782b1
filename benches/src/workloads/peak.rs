//! `peak/fma`, `peak/bf16`: the cores' arithmetic limits, chains of
//! independent FMAs (or bf16 dot products) in registers, on one thread
//! and on every core at once (`/Nthr`). Probes of the roofline: with the
//! largest GEMMs (`gemm.rs`), they set the FMA peak each floor divides by.

use crate::roofline::{Limit, Precision, Roofline};
use crate::{Work, Workload};
use minnow_kernels as k;

/// Rounds of the probe per thread per call: a few tens of microseconds,
/// long against waking the second thread.
const PEAK_ROUNDS: usize = 10_000;

/// The FMA (or bf16 dot-product) throughput of `threads` cores.
struct Peak {
    precision: Precision,
    threads: usize,
}

impl Peak {
    /// One thread's probe: (result, flops).
    fn probe(&self, seed: f32) -> (f32, f64) {
        match self.precision {
            Precision::F32 => k::fma_peak_probe(PEAK_ROUNDS, seed),
            Precision::Bf16 => k::bf16_peak_probe(PEAK_ROUNDS, seed).expect("registered only with native bf16"),
        }
    }
}

/// Runs `f` once on each of `threads` threads of rayon's pool at once.
fn on_each_thread(threads: usize, f: &(impl Fn() + Sync)) {
    if threads <= 1 {
        return f();
    }
    let left = threads / 2;
    rayon::join(|| on_each_thread(left, f), || on_each_thread(threads - left, f));
}

impl Workload for Peak {
    fn name(&self) -> String {
        let kind = match self.precision {
            Precision::F32 => "peak/fma",
            Precision::Bf16 => "peak/bf16",
        };
        if self.threads == 1 { kind.to_string() } else { format!("{kind}/{}thr", self.threads) }
    }
    fn work(&self) -> Work {
        Work::Flops(self.threads as f64 * self.probe(1.0).1)
    }
    fn run(&mut self) {
        on_each_thread(self.threads, &|| {
            std::hint::black_box(self.probe(std::hint::black_box(1.0)));
        });
    }
    fn roofline(&self) -> Roofline {
        Roofline::Probe { limit: Limit::Compute(self.precision), threads: self.threads }
    }
}

/// Adds this file's workloads to `list`: f32 always, bf16 where the CPU
/// has its dot-product instruction, each on one thread and on all cores.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    let cores = rayon::current_num_threads();
    let mut precisions = vec![Precision::F32];
    if k::bf16_peak_probe(1, 0.0).is_some() {
        precisions.push(Precision::Bf16);
    }
    for precision in precisions {
        for threads in if cores > 1 { vec![1, cores] } else { vec![1] } {
            list.push(Box::new(Peak { precision, threads }));
        }
    }
}
