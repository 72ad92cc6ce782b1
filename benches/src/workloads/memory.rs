//! The limits: one core's FMA throughput; a plain copy (memory bandwidth);
//! and the column-sum reduction
//! (bias gradient) on a matrix far larger than L2, in GB/s.
//! Copy counts bytes read plus bytes written (the STREAM convention);
//! column sums count bytes read.

use super::filled;
use crate::{Work, Workload};
use minnow_kernels::{self as k, Accum};

/// 64 MiB of f32: far beyond L2 (1 MiB per Zen 5 core) and L3 per core.
const BIG: usize = 16 << 20;

struct Copy {
    src: Vec<f32>,
    dst: Vec<f32>,
}

impl Workload for Copy {
    fn name(&self) -> String {
        "memory/copy/64MiB".into()
    }
    fn work(&self) -> Work {
        Work::Bytes(2.0 * (self.src.len() * 4) as f64)
    }
    fn run(&mut self) {
        self.dst.copy_from_slice(&self.src);
        std::hint::black_box(&mut self.dst);
    }
}

/// The FMA throughput of one core: the ceiling for every GFLOP/s figure.
struct FmaPeak;

const PEAK_ROUNDS: usize = 10_000;

impl Workload for FmaPeak {
    fn name(&self) -> String {
        "peak/fma".into()
    }
    fn work(&self) -> Work {
        Work::Flops(k::fma_peak_probe(PEAK_ROUNDS, 1.0).1)
    }
    fn run(&mut self) {
        std::hint::black_box(k::fma_peak_probe(PEAK_ROUNDS, std::hint::black_box(1.0)));
    }
}

struct ColSums {
    cols: usize,
    x: Vec<f32>,
    out: Vec<f32>,
}

impl Workload for ColSums {
    fn name(&self) -> String {
        format!("reduce/col_sums/{}x{}", self.x.len() / self.cols, self.cols)
    }
    fn work(&self) -> Work {
        Work::Bytes((self.x.len() * 4) as f64)
    }
    fn run(&mut self) {
        k::col_sums(&self.x, self.cols, &mut self.out, Accum::Replace);
        std::hint::black_box(&mut self.out);
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(FmaPeak));
    list.push(Box::new(Copy { src: filled(BIG, 3), dst: vec![0.0; BIG] }));
    for cols in [128, 1024] {
        list.push(Box::new(ColSums { cols, x: filled(BIG, 4), out: vec![0.0; cols] }));
    }
    // The DQN bias gradients themselves: tiny and cache resident.
    list.push(Box::new(ColSums { cols: 128, x: filled(64 * 128, 5), out: vec![0.0; 128] }));
}
