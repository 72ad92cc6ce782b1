//! The workloads in candle (candle-core + candle-nn), written the way
//! candle's own examples write them: `candle_nn::Linear` / `LayerNorm`
//! modules, trainable weights as `Var`s, `loss.backward()` and candle-nn's
//! Adam (`AdamW` with weight decay 0, which is Adam).

use crate::inputs::{
    AZ_BLOCKS, AZ_INPUTS, AZ_LN_EPS, AZ_POLICY, AZ_WIDTH, Bench, DqnSpec, EPS, GAMMA, HUBER_DELTA, LR, az_board,
    dqn_batch, linear_init,
};
use candle_core::{Device, Result, Tensor, Var};
use candle_nn::{AdamW, LayerNorm, Linear, Module, Optimizer, ParamsAdamW};

const CPU: Device = Device::Cpu;

/// Weight (candle's layout: (fan_out, fan_in)) and bias of one layer.
fn linear_tensors(fan_in: usize, fan_out: usize, seed: u64) -> Result<(Tensor, Tensor)> {
    let (w, b) = linear_init(fan_in, fan_out, seed);
    let w = Tensor::from_vec(w, (fan_in, fan_out), &CPU)?.t()?.contiguous()?;
    Ok((w, Tensor::from_vec(b, fan_out, &CPU)?))
}

fn shape_of(layer: &Linear) -> (usize, usize) {
    let (out, inp) = layer.weight().dims2().expect("a 2-d weight");
    (inp, out)
}

fn count(layer: &Linear) -> usize {
    layer.weight().elem_count() + layer.bias().map_or(0, Tensor::elem_count)
}

/// An MLP with ReLU between its linear layers.
struct Mlp {
    layers: Vec<Linear>,
}

impl Mlp {
    /// Trainable (its weights are `Var`s, returned too) or constant.
    fn new(sizes: &[usize], trainable: bool) -> Result<(Self, Vec<Var>)> {
        let mut layers = Vec::new();
        let mut vars = Vec::new();
        for (i, pair) in sizes.windows(2).enumerate() {
            let (w, b) = linear_tensors(pair[0], pair[1], i as u64)?;
            let (w, b) = if trainable {
                let (w, b) = (Var::from_tensor(&w)?, Var::from_tensor(&b)?);
                let tensors = (w.as_tensor().clone(), b.as_tensor().clone());
                vars.extend([w, b]);
                tensors
            } else {
                (w, b)
            };
            layers.push(Linear::new(w, Some(b)));
        }
        Ok((Self { layers }, vars))
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut x = x.clone();
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.forward(&x)?;
            if i + 1 < self.layers.len() {
                x = x.relu()?;
            }
        }
        Ok(x)
    }
}

/// Huber loss (smooth L1, delta 1), mean: 0.5 min(|d|, 1)^2 + (|d| - min(|d|, 1)).
fn huber(pred: &Tensor, target: &Tensor) -> Result<Tensor> {
    let abs = (pred - target)?.abs()?;
    let quadratic = abs.minimum(HUBER_DELTA)?;
    let linear = (&abs - &quadratic)?;
    ((quadratic.sqr()? * 0.5)? + (linear * HUBER_DELTA as f64)?)?.mean_all()
}

/// One DQN training step.
pub struct Dqn {
    online: Mlp,
    target: Mlp,
    opt: AdamW,
    states: Tensor,
    next_states: Tensor,
    actions: Tensor,
    rewards: Tensor,
    dones: Tensor,
}

impl Dqn {
    pub fn new(spec: &DqnSpec) -> Result<Self> {
        let (online, vars) = Mlp::new(spec.sizes, true)?;
        // Same shape and initial values, separate buffers, no gradient.
        let (target, _) = Mlp::new(spec.sizes, false)?;
        let opt = AdamW::new(vars, ParamsAdamW { lr: LR, beta1: 0.9, beta2: 0.999, eps: EPS, weight_decay: 0.0 })?;
        let b = dqn_batch(spec);
        let (n, n_in) = (spec.batch, spec.sizes[0]);
        Ok(Self {
            online,
            target,
            opt,
            states: Tensor::from_vec(b.states, (n, n_in), &CPU)?,
            next_states: Tensor::from_vec(b.next_states, (n, n_in), &CPU)?,
            actions: Tensor::from_vec(b.actions, (n, 1), &CPU)?,
            rewards: Tensor::from_vec(b.rewards, n, &CPU)?,
            dones: Tensor::from_vec(b.dones, n, &CPU)?,
        })
    }

    /// One step; returns the loss (before the update).
    fn step(&mut self) -> Result<Tensor> {
        // target = r + 0.99 (1 - done) max_a' Q_target(s', a'); nothing here is a Var.
        let q_next = self.target.forward(&self.next_states)?.max(1)?;
        let y = (&self.rewards + (self.dones.affine(-GAMMA, GAMMA)? * q_next)?)?;
        let q = self.online.forward(&self.states)?.gather(&self.actions, 1)?.squeeze(1)?;
        let loss = huber(&q, &y)?;
        let grads = loss.backward()?;
        self.opt.step(&grads)?;
        Ok(loss)
    }
}

impl Bench for Dqn {
    fn call(&mut self) {
        std::hint::black_box(self.step().expect("a valid step"));
    }
    fn n_params(&self) -> usize {
        self.online.layers.iter().map(count).sum()
    }
    fn linear_shapes(&self) -> Vec<(usize, usize)> {
        self.online.layers.iter().map(shape_of).collect()
    }
    fn probe(&mut self) -> Vec<f32> {
        vec![self.step().and_then(|l| l.to_scalar::<f32>()).expect("a valid step")]
    }
}

struct Block {
    l1: Linear,
    n1: LayerNorm,
    l2: Linear,
    n2: LayerNorm,
}

/// The 283,477-parameter policy/value network, inference only.
pub struct Az {
    stem: Linear,
    blocks: Vec<Block>,
    policy: Linear,
    value: Linear,
    input: Tensor,
}

impl Az {
    pub fn new(batch: usize) -> Result<Self> {
        let mut seed = 0;
        let mut linear = |i, o| -> Result<Linear> {
            seed += 1;
            let (w, b) = linear_tensors(i, o, 100 + seed)?;
            Ok(Linear::new(w, Some(b)))
        };
        let layer_norm = || -> Result<LayerNorm> {
            Ok(LayerNorm::new(
                Tensor::ones(AZ_WIDTH, candle_core::DType::F32, &CPU)?,
                Tensor::zeros(AZ_WIDTH, candle_core::DType::F32, &CPU)?,
                AZ_LN_EPS,
            ))
        };
        let stem = linear(AZ_INPUTS, AZ_WIDTH)?;
        let mut blocks = Vec::new();
        for _ in 0..AZ_BLOCKS {
            blocks.push(Block {
                l1: linear(AZ_WIDTH, AZ_WIDTH)?,
                n1: layer_norm()?,
                l2: linear(AZ_WIDTH, AZ_WIDTH)?,
                n2: layer_norm()?,
            });
        }
        let policy = linear(AZ_WIDTH, AZ_POLICY)?;
        let value = linear(AZ_WIDTH, 1)?;
        Ok(Self { stem, blocks, policy, value, input: Tensor::from_vec(az_board(batch), (batch, AZ_INPUTS), &CPU)? })
    }

    fn linears(&self) -> Vec<&Linear> {
        let mut all = vec![&self.stem];
        for b in &self.blocks {
            all.extend([&b.l1, &b.l2]);
        }
        all.extend([&self.policy, &self.value]);
        all
    }

    /// Policy (softmax) and value (tanh).
    fn forward(&self) -> Result<(Tensor, Tensor)> {
        let mut x = self.stem.forward(&self.input)?.relu()?;
        for b in &self.blocks {
            let y = b.n1.forward(&b.l1.forward(&x)?)?.relu()?;
            let y = b.n2.forward(&b.l2.forward(&y)?)?;
            x = (x + y)?.relu()?;
        }
        let policy = candle_nn::ops::softmax_last_dim(&self.policy.forward(&x)?)?;
        let value = self.value.forward(&x)?.tanh()?;
        Ok((policy, value))
    }
}

impl Bench for Az {
    fn call(&mut self) {
        std::hint::black_box(self.forward().expect("a valid forward"));
    }
    fn n_params(&self) -> usize {
        let norm = |n: &LayerNorm| n.weight().elem_count() + n.bias().map_or(0, Tensor::elem_count);
        let norms: usize = self.blocks.iter().map(|b| norm(&b.n1) + norm(&b.n2)).sum();
        self.linears().into_iter().map(count).sum::<usize>() + norms
    }
    fn linear_shapes(&self) -> Vec<(usize, usize)> {
        self.linears().into_iter().map(shape_of).collect()
    }
    fn probe(&mut self) -> Vec<f32> {
        let (p, v) = self.forward().expect("a valid forward");
        let p = p.to_vec2::<f32>().expect("f32 policy");
        let v = v.to_vec2::<f32>().expect("f32 value");
        vec![v[0][0], p[0].iter().sum(), p[0][0]]
    }
}
