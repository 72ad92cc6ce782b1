//! `gemm/...`: minnow's GEMM wrapper (faer, or minnow's own small-shape
//! kernels where they were measured faster); `faer/...`: faer's `matmul` called
//! directly on the same row-major slices (the wrapper's overhead);
//! `faer-colmajor/...`: the same product on faer's own column-major `Mat`s
//! (what the row-major layout costs or saves at each shape).
//! Shapes are `m x k x n` (dst m x n); the DQN shapes are a Linear layer's
//! forward (x Wᵀ), weight gradient (dyᵀ x) and input gradient (dy W).
//! The largest square products are probes of the roofline: the best rate
//! a GEMM reaches is a candidate for the FMA peak.

use super::filled;
use crate::roofline::{Limit, Precision, Roofline};
use crate::{Work, Workload};
use faer::{Accum, Mat, MatMut, MatRef};
use minnow_kernels::{self as k, Par, View, ViewMut};

#[derive(Clone, Copy)]
enum Op {
    /// A · B
    Nn,
    /// A · Bᵀ (Linear forward: x · Wᵀ)
    Nt,
    /// Aᵀ · B (Linear weight gradient: dyᵀ · x)
    Tn,
}

struct Gemm {
    name: String,
    m: usize,
    k: usize,
    n: usize,
    op: Op,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

impl Gemm {
    fn new(name: String, m: usize, k: usize, n: usize, op: Op) -> Self {
        Self { name, m, k, n, op, a: filled(m * k, 1), b: filled(k * n, 2), c: vec![0.0; m * n] }
    }
}

/// The roofline role of an `m x k x n` product: the largest square one
/// probes the f32 FMA peak; the rest state nothing.
fn roofline_of(m: usize, k: usize, n: usize) -> Roofline {
    if m == PROBE_SIDE && k == PROBE_SIDE && n == PROBE_SIDE {
        Roofline::Probe { limit: Limit::Compute(Precision::F32), threads: 1 }
    } else {
        Roofline::NoFloor("a kernel figure, not a defining workload")
    }
}

/// The side of the square products that probe the FMA peak: the largest
/// timed, where packing costs least against the arithmetic.
const PROBE_SIDE: usize = 1024;

impl Workload for Gemm {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn roofline(&self) -> Roofline {
        roofline_of(self.m, self.k, self.n)
    }
    fn work(&self) -> Work {
        Work::Flops(2.0 * (self.m * self.k * self.n) as f64)
    }
    fn run(&mut self) {
        let (m, kk, n) = (self.m, self.k, self.n);
        let (a, b) = match self.op {
            Op::Nn => (View::new(&self.a, m, kk), View::new(&self.b, kk, n)),
            Op::Nt => (View::new(&self.a, m, kk), View::new(&self.b, n, kk).t()),
            Op::Tn => (View::new(&self.a, kk, m).t(), View::new(&self.b, kk, n)),
        };
        k::gemm(ViewMut::new(&mut self.c, m, n), 0.0, a, b, 1.0, Par::Seq);
    }
}

/// faer's `matmul` on the same row-major slices, without the wrapper.
struct FaerRowMajor(Gemm);

impl Workload for FaerRowMajor {
    fn name(&self) -> String {
        self.0.name.clone()
    }
    fn roofline(&self) -> Roofline {
        self.0.roofline()
    }
    fn work(&self) -> Work {
        self.0.work()
    }
    fn run(&mut self) {
        let g = &mut self.0;
        let (m, kk, n) = (g.m, g.k, g.n);
        let a = match g.op {
            Op::Tn => MatRef::from_row_major_slice(&g.a, kk, m).transpose(),
            _ => MatRef::from_row_major_slice(&g.a, m, kk),
        };
        let b = match g.op {
            Op::Nt => MatRef::from_row_major_slice(&g.b, n, kk).transpose(),
            _ => MatRef::from_row_major_slice(&g.b, kk, n),
        };
        let c = MatMut::from_column_major_slice_with_stride_mut(&mut g.c, n, m, n).transpose_mut();
        faer::linalg::matmul::matmul(c, Accum::Replace, a, b, 1.0f32, faer::Par::Seq);
    }
}

/// The same product through faer's own column-major `Mat`s.
struct FaerDirect {
    name: String,
    op: Op,
    a: Mat<f32>,
    b: Mat<f32>,
    c: Mat<f32>,
    flops: f64,
    roofline: Roofline,
}

impl FaerDirect {
    fn new(name: String, m: usize, k: usize, n: usize, op: Op) -> Self {
        let (a_rows, a_cols) = if matches!(op, Op::Tn) { (k, m) } else { (m, k) };
        let (b_rows, b_cols) = if matches!(op, Op::Nt) { (n, k) } else { (k, n) };
        let (va, vb) = (filled(a_rows * a_cols, 1), filled(b_rows * b_cols, 2));
        Self {
            name,
            op,
            a: Mat::from_fn(a_rows, a_cols, |i, j| va[i * a_cols + j]),
            b: Mat::from_fn(b_rows, b_cols, |i, j| vb[i * b_cols + j]),
            c: Mat::zeros(m, n),
            flops: 2.0 * (m * k * n) as f64,
            roofline: roofline_of(m, k, n),
        }
    }
}

impl Workload for FaerDirect {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn roofline(&self) -> Roofline {
        self.roofline
    }
    fn work(&self) -> Work {
        Work::Flops(self.flops)
    }
    fn run(&mut self) {
        let (a, b) = match self.op {
            Op::Nn => (self.a.as_ref(), self.b.as_ref()),
            Op::Nt => (self.a.as_ref(), self.b.transpose()),
            Op::Tn => (self.a.transpose(), self.b.as_ref()),
        };
        faer::linalg::matmul::matmul(self.c.as_mut(), Accum::Replace, a, b, 1.0f32, faer::Par::Seq);
    }
}

/// Minnow's `gemm`, faer on the same data, and faer column-major.
fn trio(list: &mut Vec<Box<dyn Workload>>, label: &str, m: usize, k: usize, n: usize, op: Op) {
    list.push(Box::new(Gemm::new(format!("gemm/{label}"), m, k, n, op)));
    list.push(Box::new(FaerRowMajor(Gemm::new(format!("faer/{label}"), m, k, n, op))));
    list.push(Box::new(FaerDirect::new(format!("faer-colmajor/{label}"), m, k, n, op)));
}

/// A Linear layer `inp -> out` at `batch`: forward, and optionally its
/// weight and input gradients.
fn linear(list: &mut Vec<Box<dyn Workload>>, batch: usize, inp: usize, out: usize, dw: bool, dx: bool) {
    let label = format!("{batch}x{inp}x{out}");
    trio(list, &label, batch, inp, out, Op::Nt);
    if dw {
        trio(list, &format!("{label}/dW"), out, batch, inp, Op::Tn);
    }
    if dx {
        trio(list, &format!("{label}/dx"), batch, out, inp, Op::Nn);
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    for n in [64, 128, 256, 512, PROBE_SIDE] {
        trio(list, &n.to_string(), n, n, n, Op::Nn);
    }
    // dqn_step/cube: MLP 144-128-64-6 at batch 64.
    for (inp, out) in [(144, 128), (128, 64), (64, 6)] {
        linear(list, 64, inp, out, true, true);
    }
    // dqn_step/2048: MLP 16-64-64-4 at batch 32; the first layer's input
    // gradient is never needed.
    linear(list, 32, 16, 64, true, false);
    linear(list, 32, 64, 64, true, true);
    linear(list, 32, 64, 4, true, true);
    // az_forward/bB: 198 -> 140, residual 140 -> 140, heads 140 -> 676 and
    // 140 -> 1, at batch 1 and 8 (minnow's small kernels) and 64 (faer).
    for batch in [1, 8] {
        for (inp, out) in [(198, 140), (140, 140), (140, 676), (140, 1)] {
            linear(list, batch, inp, out, false, false);
        }
    }
    linear(list, 64, 140, 140, false, false);
    // Larger Linear layers, where the small kernels hand over to faer.
    linear(list, 128, 128, 128, true, true);
}
