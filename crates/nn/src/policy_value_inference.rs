//! A [`PolicyValueNet`]'s inference forward without the tape, on its own
//! copy of the weights in the layout each precision reads best:
//!
//! - **f32**: each Linear's weight rows padded to whole cache lines, so no
//!   row straddles two (a batch-1 product over rows of 140 or 198 floats
//!   runs about 15% faster from padded rows, docs/notebook/kernels-and-gemm.md). The
//!   products, epilogues, LayerNorms and tanh are the tape's kernels in
//!   the tape's order, so the outputs are the tape forward's bit for bit.
//! - **bf16**: every Linear on [`minnow_kernels::linear_bf16`] (weights and
//!   activations rounded to bf16, f32 accumulation); biases, LayerNorm,
//!   the skip connections and the tanh stay f32.

use crate::{LayerNorm, Linear, PolicyValueNet, config_error};
use minnow_arena::{AlignedBuf, whole_lines};
use minnow_autodiff::{ParamId, Params};
use minnow_kernels::{self as k, PackedBf16, Par, View, ViewMut};

/// One Linear's weight in its precision's layout.
#[derive(Clone, Debug)]
enum Weights {
    /// W [outputs, inputs], row j starting at `j * stride` (a whole number
    /// of cache lines; the padding is never read).
    F32 { rows: AlignedBuf, stride: usize },
    /// W as [`k::pack_bf16`] lays it out.
    Bf16(Vec<u32>),
}

/// One Linear's weight and its f32 bias.
#[derive(Clone, Debug)]
struct PackedLinear {
    layer: Linear,
    weights: Weights,
    bias: Vec<f32>,
}

impl PackedLinear {
    fn new(layer: Linear, bf16: bool) -> Self {
        let bias = if layer.b.is_some() { vec![0.0; layer.outputs] } else { Vec::new() };
        let weights = if bf16 {
            Weights::Bf16(vec![0; k::packed_bf16_len(layer.outputs, layer.inputs)])
        } else {
            let stride = whole_lines(layer.inputs);
            Weights::F32 { rows: AlignedBuf::zeros(layer.outputs * stride), stride }
        };
        Self { layer, weights, bias }
    }

    fn refresh(&mut self, params: &Params) {
        let l = self.layer;
        let w = params.value(l.w);
        match &mut self.weights {
            Weights::F32 { rows, stride } => {
                for (dst, src) in rows.chunks_exact_mut(*stride).zip(w.chunks_exact(l.inputs)) {
                    dst[..l.inputs].copy_from_slice(src);
                }
            }
            Weights::Bf16(packed) => k::pack_bf16(w, l.outputs, l.inputs, packed),
        }
        if let Some(b) = l.b {
            self.bias.copy_from_slice(params.value(b));
        }
    }

    /// y [rows, outputs] = x [rows, inputs] · Wᵀ + b (ReLU'd if asked).
    fn forward(&self, x: &[f32], y: &mut [f32], relu: bool, scratch: &mut [u32]) {
        let l = self.layer;
        let bias = l.b.map(|_| &self.bias[..]);
        match &self.weights {
            Weights::F32 { rows, stride } => {
                let batch = x.len() / l.inputs;
                let w = View::with_ld(rows, l.outputs, l.inputs, *stride).t();
                k::gemm(ViewMut::new(y, batch, l.outputs), 0.0, View::new(x, batch, l.inputs), w, 1.0, Par::Seq);
                k::linear_epilogue(y, bias, relu);
            }
            Weights::Bf16(packed) => {
                k::linear_bf16(y, x, PackedBf16::new(packed, l.outputs, l.inputs), bias, relu, scratch)
            }
        }
    }
}

/// A LayerNorm's f32 parameters.
#[derive(Clone, Debug)]
struct Norm {
    layer: LayerNorm,
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

impl Norm {
    fn new(layer: LayerNorm, width: usize) -> Self {
        Self { layer, gamma: vec![0.0; width], beta: vec![0.0; width] }
    }

    fn refresh(&mut self, params: &Params) {
        self.gamma.copy_from_slice(params.value(self.layer.gamma));
        self.beta.copy_from_slice(params.value(self.layer.beta));
    }
}

/// The f32 activations of one forward, grown to the largest batch seen.
#[derive(Clone, Debug, Default)]
struct Buffers {
    h: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    value: Vec<f32>,
    mean: Vec<f32>,
    rstd: Vec<f32>,
    /// bf16 activations (the bf16 copy only).
    pairs: Vec<u32>,
}

fn at_least<T: Clone + Default>(v: &mut Vec<T>, len: usize) -> &mut [T] {
    if v.len() < len {
        v.resize(len, T::default());
    }
    &mut v[..len]
}

/// A copy of a [`PolicyValueNet`]'s parameters in f32 or bf16 and the
/// forward that runs on it (module doc). [`PolicyValueInference::refresh`]
/// copies a parameter snapshot (to bf16: round to nearest even, NaN kept
/// NaN) into buffers made when it was built, so refreshing after each
/// weight update allocates nothing; [`PolicyValueInference::forward`]
/// allocates nothing once it has seen its largest batch.
///
/// The f32 copy's outputs are the net's [`forward`](crate::Forward::forward)'s
/// on an inference graph on one thread, bit for bit. In bf16 each Linear's
/// outputs differ from the f32 forward's by at most (2^-7 + 2^-16 + 2 (k + 1) 2^-24)
/// times the sum of |x_p w_p| over its k inputs plus |b|
/// (`minnow_kernels::linear_bf16`); LayerNorm rescales that error with the
/// activations, so the network's outputs keep a relative error of the
/// same order per layer (`tests/policy_value_inference.rs` asserts the
/// bound it measures).
#[derive(Clone, Debug)]
pub struct PolicyValueInference {
    stem: PackedLinear,
    /// fc1, norm1, fc2, norm2 of each residual block.
    blocks: Vec<(PackedLinear, Norm, PackedLinear, Norm)>,
    policy: PackedLinear,
    value: PackedLinear,
    width: usize,
    buffers: Buffers,
}

impl PolicyValueInference {
    /// The f32 copy of `net`, filled from `params`; an error if `params`
    /// does not hold `net`'s tensors in their shapes.
    pub fn f32(net: &PolicyValueNet, params: &Params) -> crate::Result<Self> {
        Self::new(net, params, false)
    }

    /// The bf16 copy of `net`, filled from `params`; an error as for
    /// [`PolicyValueInference::f32`].
    pub fn bf16(net: &PolicyValueNet, params: &Params) -> crate::Result<Self> {
        Self::new(net, params, true)
    }

    fn new(net: &PolicyValueNet, params: &Params, bf16: bool) -> crate::Result<Self> {
        let width = net.stem.outputs;
        let linear = |layer| PackedLinear::new(layer, bf16);
        let mut this = Self {
            stem: linear(net.stem),
            blocks: net
                .blocks
                .iter()
                .map(|b| (linear(b.fc1), Norm::new(b.norm1, width), linear(b.fc2), Norm::new(b.norm2, width)))
                .collect(),
            policy: linear(net.head.policy),
            value: linear(net.head.value),
            width,
            buffers: Buffers::default(),
        };
        this.refresh(params)?;
        Ok(this)
    }

    /// Copies `params` (a snapshot of the network's parameters, after an
    /// update or a load) into this copy's weights; an error, leaving the
    /// old weights, if its tensors do not have the network's lengths.
    pub fn refresh(&mut self, params: &Params) -> crate::Result<()> {
        self.check(params)?;
        self.stem.refresh(params);
        for (fc1, norm1, fc2, norm2) in &mut self.blocks {
            fc1.refresh(params);
            norm1.refresh(params);
            fc2.refresh(params);
            norm2.refresh(params);
        }
        self.policy.refresh(params);
        self.value.refresh(params);
        Ok(())
    }

    /// An error unless every tensor the copy reads has its length in
    /// `params` (checked without allocating, since refresh runs after
    /// every update).
    fn check(&self, params: &Params) -> crate::Result<()> {
        let tensor = |id: ParamId, len: usize| {
            let found = if id.index() < params.len() { params.value(id).len() } else { 0 };
            if found == len {
                Ok(())
            } else {
                Err(config_error(
                    "PolicyValueInference",
                    format!("parameter tensor {} needs {len} values, the store has {found}", id.index()),
                ))
            }
        };
        let linear = |l: &PackedLinear| {
            tensor(l.layer.w, l.layer.outputs * l.layer.inputs)?;
            l.layer.b.map_or(Ok(()), |b| tensor(b, l.layer.outputs))
        };
        let norm = |n: &Norm| {
            tensor(n.layer.gamma, self.width)?;
            tensor(n.layer.beta, self.width)
        };
        linear(&self.stem)?;
        for (fc1, norm1, fc2, norm2) in &self.blocks {
            linear(fc1)?;
            norm(norm1)?;
            linear(fc2)?;
            norm(norm2)?;
        }
        linear(&self.policy)?;
        linear(&self.value)
    }

    /// Whether the weights are bf16 (else f32).
    pub fn is_bf16(&self) -> bool {
        matches!(self.stem.weights, Weights::Bf16(_))
    }

    /// Observation width.
    pub fn inputs(&self) -> usize {
        self.stem.layer.inputs
    }

    /// Policy logits per row.
    pub fn policy_outputs(&self) -> usize {
        self.policy.layer.outputs
    }

    /// x `[B, inputs]` -> policy logits `[B, policy]` and values `[B]` in
    /// [-1, 1], as [`forward`](crate::Forward::forward) computes them on an inference graph
    /// (exactly in f32; up to the Linears' rounding in bf16).
    ///
    /// Panics unless x holds whole rows and the outputs hold as many.
    #[track_caller]
    pub fn forward(&mut self, x: &[f32], logits: &mut [f32], values: &mut [f32]) {
        let (inputs, width, policy) = (self.inputs(), self.width, self.policy_outputs());
        assert!(
            x.len().is_multiple_of(inputs)
                && logits.len() == x.len() / inputs * policy
                && values.len() == x.len() / inputs,
            "PolicyValueInference::forward: x of {} values ({inputs} per row), logits {} ({policy} per row), values {}",
            x.len(),
            logits.len(),
            values.len()
        );
        let rows = values.len();
        if rows == 0 {
            return;
        }
        // Every bf16 Linear reads `inputs` (the stem) or `width` values a row.
        let pairs_len = if self.is_bf16() { k::linear_bf16_scratch(rows, inputs.max(width)) } else { 0 };
        let buf = &mut self.buffers;
        let pairs = at_least(&mut buf.pairs, pairs_len);
        let h = at_least(&mut buf.h, rows * width);
        let a = at_least(&mut buf.a, rows * width);
        let b = at_least(&mut buf.b, rows * width);
        let mean = at_least(&mut buf.mean, rows);
        let rstd = at_least(&mut buf.rstd, rows);
        self.stem.forward(x, h, true, pairs);
        for (fc1, norm1, fc2, norm2) in &self.blocks {
            fc1.forward(h, a, false, pairs);
            k::layer_norm_relu(a, &norm1.gamma, &norm1.beta, norm1.layer.eps, b, mean, rstd);
            fc2.forward(b, a, false, pairs);
            k::layer_norm(a, &norm2.gamma, &norm2.beta, norm2.layer.eps, b, mean, rstd);
            // The tape's `add_relu` (the sum, then ReLU keeping NaN) in
            // one pass: `<=` is false for NaN, which passes through.
            for (hv, &t) in h.iter_mut().zip(b.iter()) {
                let s = *hv + t;
                *hv = if s <= 0.0 { 0.0 } else { s };
            }
        }
        self.policy.forward(h, logits, false, pairs);
        let v = at_least(&mut buf.value, rows);
        self.value.forward(h, v, false, pairs);
        k::tanh(v, values);
    }
}
