//! Elementwise and row kernels in GB/s (bytes read plus written), at a
//! cache-resident size (the DQN and AlphaZero activation sizes) and at a
//! size that streams from memory.

use super::filled;
use crate::{Work, Workload};
use minnow_kernels::{self as k, Accum, AdamParams};

struct Kernel {
    name: String,
    bytes: f64,
    x: Vec<f32>,
    y: Vec<f32>,
    out: Vec<f32>,
    state: Vec<f32>,
    kind: Kind,
}

#[derive(Clone, Copy)]
enum Kind {
    Add,
    Axpy,
    Relu,
    ReluBackward,
    Tanh,
    BiasRelu(usize),
    Softmax(usize),
    LayerNorm(usize),
    Adam,
}

impl Kind {
    /// Streams of `len` floats each call touches (reads + writes).
    fn streams(self) -> f64 {
        match self {
            Kind::Add | Kind::ReluBackward => 3.0,
            Kind::Axpy => 3.0,
            Kind::Relu | Kind::Tanh | Kind::BiasRelu(_) | Kind::Softmax(_) | Kind::LayerNorm(_) => 2.0,
            // params, m, v read and written; grads read.
            Kind::Adam => 7.0,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Add => "add",
            Kind::Axpy => "axpy",
            Kind::Relu => "relu",
            Kind::ReluBackward => "relu_backward",
            Kind::Tanh => "tanh",
            Kind::BiasRelu(_) => "bias_relu",
            Kind::Softmax(_) => "softmax",
            Kind::LayerNorm(_) => "layer_norm",
            Kind::Adam => "adam",
        }
    }
}

impl Kernel {
    fn new(kind: Kind, len: usize, size: &str) -> Self {
        Self {
            name: format!("kernel/{}/{size}", kind.label()),
            bytes: kind.streams() * (len * 4) as f64,
            x: filled(len, 6),
            y: filled(len, 7),
            out: vec![0.0; len],
            state: filled(3 * len, 8).iter().map(|v| v.abs()).collect(),
            kind,
        }
    }
}

impl Workload for Kernel {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn work(&self) -> Work {
        Work::Bytes(self.bytes)
    }
    fn run(&mut self) {
        let (x, y, out) = (&self.x, &self.y, &mut self.out);
        match self.kind {
            Kind::Add => k::add(x, y, out),
            Kind::Axpy => k::axpy(1e-3, x, out),
            Kind::Relu => k::relu(x, out),
            Kind::ReluBackward => k::relu_backward(x, y, out, Accum::Replace),
            Kind::Tanh => k::tanh(x, out),
            Kind::BiasRelu(cols) => k::bias_relu(x, &y[..cols], out),
            Kind::Softmax(cols) => k::softmax_rows(x, cols, out),
            Kind::LayerNorm(cols) => {
                let rows = x.len() / cols;
                let (stats, _) = self.state.split_at_mut(2 * rows);
                let (mean, rstd) = stats.split_at_mut(rows);
                k::layer_norm(x, &y[..cols], &y[cols..2 * cols], 1e-5, out, mean, rstd);
            }
            Kind::Adam => {
                let len = out.len();
                let (m, v) = self.state.split_at_mut(len);
                let hp = AdamParams::new(1e-3, 0.9, 0.999, 1e-8, 0.0, false, 10);
                k::adam_step(out, x, m, &mut v[..len], &hp);
            }
        }
        std::hint::black_box(&mut self.out);
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    const SMALL: usize = 64 * 128;
    const LARGE: usize = 4 << 20;
    for kind in [Kind::Add, Kind::Axpy, Kind::Relu, Kind::ReluBackward, Kind::Tanh] {
        list.push(Box::new(Kernel::new(kind, SMALL, "64x128")));
        list.push(Box::new(Kernel::new(kind, LARGE, "16MiB")));
    }
    list.push(Box::new(Kernel::new(Kind::BiasRelu(128), SMALL, "64x128")));
    list.push(Box::new(Kernel::new(Kind::Softmax(676), 64 * 676, "64x676")));
    list.push(Box::new(Kernel::new(Kind::LayerNorm(140), 64 * 140, "64x140")));
    list.push(Box::new(Kernel::new(Kind::Adam, 283_477, "283K")));
}
