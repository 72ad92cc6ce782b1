//! A [`PolicyValueNet`]'s inference forward with bf16 weights: every
//! Linear runs on [`minnow_kernels::linear_bf16`] (weights and
//! activations rounded to bf16, f32 accumulation); biases, LayerNorm,
//! the skip connections and the tanh stay f32.

use crate::{LayerNorm, Linear, PolicyValueNet, config_error};
use minnow_autodiff::{ParamId, Params};
use minnow_kernels::{self as k, PackedBf16};

/// One Linear's packed bf16 weight and its f32 bias.
#[derive(Clone, Debug)]
struct Bf16Linear {
    layer: Linear,
    packed: Vec<u32>,
    bias: Vec<f32>,
}

impl Bf16Linear {
    fn new(layer: Linear) -> Self {
        let bias = if layer.b.is_some() { vec![0.0; layer.outputs] } else { Vec::new() };
        Self { layer, packed: vec![0; k::packed_bf16_len(layer.outputs, layer.inputs)], bias }
    }

    fn refresh(&mut self, params: &Params) {
        let l = self.layer;
        k::pack_bf16(params.value(l.w), l.outputs, l.inputs, &mut self.packed);
        if let Some(b) = l.b {
            self.bias.copy_from_slice(params.value(b));
        }
    }

    /// y [rows, outputs] = x [rows, inputs] · Wᵀ + b (ReLU'd if asked).
    fn forward(&self, x: &[f32], y: &mut [f32], relu: bool, scratch: &mut [u32]) {
        let l = self.layer;
        let bias = l.b.map(|_| &self.bias[..]);
        k::linear_bf16(y, x, PackedBf16::new(&self.packed, l.outputs, l.inputs), bias, relu, scratch);
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
    pairs: Vec<u32>,
}

fn at_least<T: Clone + Default>(v: &mut Vec<T>, len: usize) -> &mut [T] {
    if v.len() < len {
        v.resize(len, T::default());
    }
    &mut v[..len]
}

/// A bf16 copy of a [`PolicyValueNet`]'s parameters and the forward that
/// runs on it. [`PolicyValueBf16::refresh`] converts a parameter snapshot
/// (round to nearest even, NaN kept NaN) into buffers made when it was
/// built, so refreshing after each weight update allocates nothing;
/// [`PolicyValueBf16::forward`] allocates nothing once it has seen its
/// largest batch.
///
/// Each Linear's outputs differ from the f32 forward's by at most
/// (2^-7 + 2^-16 + 2 (k + 1) 2^-24) times the sum of |x_p w_p| over its
/// k inputs plus |b| (`minnow_kernels::linear_bf16`); LayerNorm rescales
/// that error with the activations, so the network's outputs keep a
/// relative error of the same order per layer (`tests/policy_value_bf16.rs`
/// asserts the bound it measures).
#[derive(Clone, Debug)]
pub struct PolicyValueBf16 {
    stem: Bf16Linear,
    /// fc1, norm1, fc2, norm2 of each residual block.
    blocks: Vec<(Bf16Linear, Norm, Bf16Linear, Norm)>,
    policy: Bf16Linear,
    value: Bf16Linear,
    width: usize,
    buffers: Buffers,
}

impl PolicyValueBf16 {
    /// Buffers for `net`, filled from `params`; an error if `params` does
    /// not hold `net`'s tensors in their shapes.
    pub fn new(net: &PolicyValueNet, params: &Params) -> crate::Result<Self> {
        let width = net.stem.outputs;
        let mut this = Self {
            stem: Bf16Linear::new(net.stem),
            blocks: net
                .blocks
                .iter()
                .map(|b| {
                    (
                        Bf16Linear::new(b.fc1),
                        Norm::new(b.norm1, width),
                        Bf16Linear::new(b.fc2),
                        Norm::new(b.norm2, width),
                    )
                })
                .collect(),
            policy: Bf16Linear::new(net.head.policy),
            value: Bf16Linear::new(net.head.value),
            width,
            buffers: Buffers::default(),
        };
        this.refresh(params)?;
        Ok(this)
    }

    /// Converts `params` (a snapshot of the network's parameters, after an
    /// update or a load) into the bf16 weights; an error, leaving the old
    /// weights, if its tensors do not have the network's lengths.
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
                    "PolicyValueBf16",
                    format!("parameter tensor {} needs {len} values, the store has {found}", id.index()),
                ))
            }
        };
        let linear = |l: &Bf16Linear| {
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

    /// Observation width.
    pub fn inputs(&self) -> usize {
        self.stem.layer.inputs
    }

    /// Policy logits per row.
    pub fn policy_outputs(&self) -> usize {
        self.policy.layer.outputs
    }

    /// x [B, inputs] -> policy logits [B, policy] and values [B] in
    /// [-1, 1], as [`PolicyValueNet::forward`] computes them (in inference
    /// mode) up to the bf16 rounding of the Linears.
    ///
    /// Panics unless x holds whole rows and the outputs hold as many.
    #[track_caller]
    pub fn forward(&mut self, x: &[f32], logits: &mut [f32], values: &mut [f32]) {
        let (inputs, width, policy) = (self.inputs(), self.width, self.policy_outputs());
        assert!(
            x.len().is_multiple_of(inputs)
                && logits.len() == x.len() / inputs * policy
                && values.len() == x.len() / inputs,
            "PolicyValueBf16::forward: x of {} values ({inputs} per row), logits {} ({policy} per row), values {}",
            x.len(),
            logits.len(),
            values.len()
        );
        let rows = values.len();
        if rows == 0 {
            return;
        }
        let buf = &mut self.buffers;
        // Every Linear reads `inputs` (the stem) or `width` values a row.
        let pairs = at_least(&mut buf.pairs, k::linear_bf16_scratch(rows, inputs.max(width)));
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
            for (hv, &t) in h.iter_mut().zip(b.iter()) {
                let s = *hv + t;
                *hv = if s > 0.0 { s } else { 0.0 };
            }
        }
        self.policy.forward(h, logits, false, pairs);
        let v = at_least(&mut buf.value, rows);
        self.value.forward(h, v, false, pairs);
        k::tanh(v, values);
    }
}
