//! The memory limits: bandwidth from L2, from the last-level cache and
//! from main memory, on one thread and on every core at once (`/Nthr`),
//! as `y += a x` (axpy: x and y read, y written, 12 bytes an element,
//! all of them real traffic since y is updated in place); a plain copy;
//! and the column-sum reduction (bias gradient) on a matrix far larger
//! than L2. Copy counts bytes read plus bytes written (the STREAM
//! convention); column sums count bytes read. All but the small column
//! sums are probes of the roofline: each level's bandwidth is the best
//! of its probes.

use super::filled;
use crate::roofline::{Limit, Memory, Roofline};
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
    fn roofline(&self) -> Roofline {
        Roofline::Probe { limit: Limit::Bandwidth(Memory::Dram), threads: 1 }
    }
}

/// y += a x on `threads` threads, each over its own part of x and y,
/// `passes` times a call.
struct Axpy {
    level: Memory,
    threads: usize,
    passes: usize,
    x: Vec<f32>,
    y: Vec<f32>,
}

impl Axpy {
    /// Each thread's x and y are `floats` long: 2 x 64 KiB stays in any
    /// L2 we run on and is four times L1; 2 x 2 MiB is past L2 and well
    /// inside a 32 MiB L3; main memory's 256 MiB in all is eight times
    /// that L3. Passes make every call move at least 12 MiB, long against
    /// waking the second thread.
    fn new(level: Memory, threads: usize) -> Self {
        let (floats, passes) = match level {
            Memory::L2 => (16 << 10, 64),
            Memory::L3 => (512 << 10, 4),
            Memory::Dram => ((32 << 20) / threads, 1),
        };
        Self { level, threads, passes, x: filled(floats * threads, 6), y: filled(floats * threads, 7) }
    }
}

/// Runs `f` on `threads` equal parts of x and y, one per thread of
/// rayon's pool.
fn split(threads: usize, x: &[f32], y: &mut [f32], f: &(impl Fn(&[f32], &mut [f32]) + Sync)) {
    if threads <= 1 {
        return f(x, y);
    }
    let left = threads / 2;
    let mid = x.len() / threads * left;
    let ((x0, x1), (y0, y1)) = (x.split_at(mid), y.split_at_mut(mid));
    rayon::join(|| split(left, x0, y0, f), || split(threads - left, x1, y1, f));
}

impl Workload for Axpy {
    fn name(&self) -> String {
        let level = match self.level {
            Memory::L2 => "l2",
            Memory::L3 => "l3",
            Memory::Dram => "dram",
        };
        if self.threads == 1 {
            format!("memory/axpy/{level}")
        } else {
            format!("memory/axpy/{level}/{}thr", self.threads)
        }
    }
    fn work(&self) -> Work {
        Work::Bytes((12 * self.x.len() * self.passes) as f64)
    }
    fn run(&mut self) {
        let passes = self.passes;
        split(self.threads, &self.x, &mut self.y, &|x: &[f32], y: &mut [f32]| {
            for _ in 0..passes {
                // Small enough that y stays near its start for any run.
                k::axpy(std::hint::black_box(1e-9), x, y);
                std::hint::black_box(&mut *y);
            }
        });
    }
    fn roofline(&self) -> Roofline {
        Roofline::Probe { limit: Limit::Bandwidth(self.level), threads: self.threads }
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
    fn roofline(&self) -> Roofline {
        if self.x.len() >= BIG {
            Roofline::Probe { limit: Limit::Bandwidth(Memory::Dram), threads: 1 }
        } else {
            Roofline::NoFloor("a bandwidth figure of an L1-resident reduction, not a workload")
        }
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    let cores = rayon::current_num_threads();
    for level in [Memory::L2, Memory::L3, Memory::Dram] {
        list.push(Box::new(Axpy::new(level, 1)));
        if cores > 1 {
            list.push(Box::new(Axpy::new(level, cores)));
        }
    }
    list.push(Box::new(Copy { src: filled(BIG, 3), dst: vec![0.0; BIG] }));
    for cols in [128, 1024] {
        list.push(Box::new(ColSums { cols, x: filled(BIG, 4), out: vec![0.0; cols] }));
    }
    // The DQN bias gradients themselves: tiny and cache resident.
    list.push(Box::new(ColSums { cols: 128, x: filled(64 * 128, 5), out: vec![0.0; 128] }));
}
