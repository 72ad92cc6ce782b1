//! The workloads in burn, written the way burn's book writes them:
//! `#[derive(Module)]` structs of `burn::nn::Linear` / `LayerNorm`, the
//! autodiff device for training, `loss.backward()`,
//! `GradientsParams::from_grads` and `optim.step`, burn's `HuberLoss` and
//! `Adam`. The target network is `online.valid()`: the same module on the
//! plain (non-autodiff) device, as burn recommends for inference.
//!
//! burn 0.22's tensors carry their backend in the device (the dispatch
//! backend): `Device::ndarray()` runs burn-ndarray, `Device::flex()` runs
//! burn-flex; the code is the same for both.

use crate::inputs::{
    AZ_BLOCKS, AZ_INPUTS, AZ_LN_EPS, AZ_POLICY, AZ_WIDTH, Bench, DqnSpec, EPS, GAMMA, HUBER_DELTA, LR, az_board,
    dqn_batch, linear_init,
};
use burn::module::{Module, Param};
use burn::nn::loss::{HuberLoss, HuberLossConfig, Reduction};
use burn::nn::{LayerNorm, LayerNormConfig, Linear};
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::{relu, softmax};
use burn::tensor::{Device, Int, Tensor, TensorData};

/// Which of burn's CPU backends.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    NdArray,
    Flex,
}

impl Backend {
    fn device(self) -> Device {
        match self {
            // Deprecated in burn 0.22 (in favour of flex), and still there: measured as asked.
            #[allow(deprecated)]
            Backend::NdArray => Device::ndarray(),
            Backend::Flex => Device::flex(),
        }
    }
}

fn linear(fan_in: usize, fan_out: usize, seed: u64, device: &Device) -> Linear {
    let (w, b) = linear_init(fan_in, fan_out, seed);
    // burn's Linear weight is (fan_in, fan_out).
    Linear {
        weight: Param::from_tensor(Tensor::from_data(TensorData::new(w, [fan_in, fan_out]), device)),
        bias: Some(Param::from_tensor(Tensor::from_data(TensorData::new(b, [fan_out]), device))),
    }
}

fn shape_of(layer: &Linear) -> (usize, usize) {
    let [i, o] = layer.weight.dims();
    (i, o)
}

#[derive(Module, Debug)]
struct Mlp {
    layers: Vec<Linear>,
}

impl Mlp {
    fn new(sizes: &[usize], device: &Device) -> Self {
        let layers = sizes.windows(2).enumerate().map(|(i, p)| linear(p[0], p[1], i as u64, device)).collect();
        Self { layers }
    }

    fn forward(&self, mut x: Tensor<2>) -> Tensor<2> {
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.forward(x);
            if i + 1 < self.layers.len() {
                x = relu(x);
            }
        }
        x
    }
}

/// One DQN training step.
pub struct Dqn {
    online: Option<Mlp>,
    target: Mlp,
    optim: ModuleOptimizer,
    huber: HuberLoss,
    states: Tensor<2>,
    next_states: Tensor<2>,
    actions: Tensor<2, Int>,
    rewards: Tensor<1>,
    dones: Tensor<1>,
}

impl Dqn {
    pub fn new(spec: &DqnSpec, backend: Backend) -> Self {
        let plain = backend.device();
        let device = plain.clone().autodiff();
        let online = Mlp::new(spec.sizes, &device);
        // Same shape and initial values, on the plain device: no gradient.
        let target = online.valid();
        let b = dqn_batch(spec);
        let (n, n_in) = (spec.batch, spec.sizes[0]);
        let actions: Vec<i64> = b.actions.iter().map(|&a| a as i64).collect();
        Self {
            online: Some(online),
            target,
            optim: AdamConfig::new().with_beta_1(0.9).with_beta_2(0.999).with_epsilon(EPS as f32).init(),
            huber: HuberLossConfig::new(HUBER_DELTA).init(),
            states: Tensor::from_data(TensorData::new(b.states, [n, n_in]), &device),
            next_states: Tensor::from_data(TensorData::new(b.next_states, [n, n_in]), &plain),
            actions: Tensor::from_data(TensorData::new(actions, [n, 1]), &device),
            rewards: Tensor::from_data(TensorData::new(b.rewards, [n]), &plain),
            dones: Tensor::from_data(TensorData::new(b.dones, [n]), &plain),
        }
    }

    /// One step; returns the loss (before the update).
    fn step(&mut self) -> Tensor<1> {
        // target = r + 0.99 (1 - done) max_a' Q_target(s', a'), on the plain device.
        let q_next = self.target.forward(self.next_states.clone()).max_dim(1).squeeze_dim::<1>(1);
        let y = self.rewards.clone() + self.dones.clone().mul_scalar(-GAMMA).add_scalar(GAMMA) * q_next;
        let online = self.online.take().expect("the online network");
        let q = online.forward(self.states.clone()).gather(1, self.actions.clone()).squeeze_dim::<1>(1);
        let loss = self.huber.forward(q, y.autodiff(), Reduction::Mean);
        let grads = GradientsParams::from_grads(loss.backward(), &online);
        self.online = Some(self.optim.step(LR, online, grads));
        loss
    }

    fn online(&self) -> &Mlp {
        self.online.as_ref().expect("the online network")
    }
}

impl Bench for Dqn {
    fn call(&mut self) {
        std::hint::black_box(self.step());
    }
    fn n_params(&self) -> usize {
        self.online().num_params()
    }
    fn linear_shapes(&self) -> Vec<(usize, usize)> {
        self.online().layers.iter().map(shape_of).collect()
    }
    fn probe(&mut self) -> Vec<f32> {
        vec![self.step().into_scalar::<f32>()]
    }
}

#[derive(Module, Debug)]
struct Block {
    l1: Linear,
    n1: LayerNorm,
    l2: Linear,
    n2: LayerNorm,
}

#[derive(Module, Debug)]
struct AzNet {
    stem: Linear,
    blocks: Vec<Block>,
    policy: Linear,
    value: Linear,
}

impl AzNet {
    /// Policy (softmax) and value (tanh).
    fn forward(&self, x: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let mut x = relu(self.stem.forward(x));
        for b in &self.blocks {
            let y = b.n2.forward(b.l2.forward(relu(b.n1.forward(b.l1.forward(x.clone())))));
            x = relu(x + y);
        }
        (softmax(self.policy.forward(x.clone()), 1), self.value.forward(x).tanh())
    }
}

/// The 283,477-parameter policy/value network, inference only.
pub struct Az {
    net: AzNet,
    input: Tensor<2>,
}

impl Az {
    pub fn new(batch: usize, backend: Backend) -> Self {
        let device = backend.device();
        let mut seed = 100;
        let mut lin = |i, o| {
            seed += 1;
            linear(i, o, seed, &device)
        };
        let stem = lin(AZ_INPUTS, AZ_WIDTH);
        let mut blocks = Vec::new();
        for _ in 0..AZ_BLOCKS {
            let l1 = lin(AZ_WIDTH, AZ_WIDTH);
            let l2 = lin(AZ_WIDTH, AZ_WIDTH);
            let norm = || LayerNormConfig::new(AZ_WIDTH).with_epsilon(AZ_LN_EPS).init(&device);
            blocks.push(Block { l1, n1: norm(), l2, n2: norm() });
        }
        let policy = lin(AZ_WIDTH, AZ_POLICY);
        let value = lin(AZ_WIDTH, 1);
        let net = AzNet { stem, blocks, policy, value }.valid();
        Self { net, input: Tensor::from_data(TensorData::new(az_board(batch), [batch, AZ_INPUTS]), &device) }
    }
}

impl Bench for Az {
    fn call(&mut self) {
        std::hint::black_box(self.net.forward(self.input.clone()));
    }
    fn n_params(&self) -> usize {
        self.net.num_params()
    }
    fn linear_shapes(&self) -> Vec<(usize, usize)> {
        let mut all = vec![shape_of(&self.net.stem)];
        for b in &self.net.blocks {
            all.extend([shape_of(&b.l1), shape_of(&b.l2)]);
        }
        all.extend([shape_of(&self.net.policy), shape_of(&self.net.value)]);
        all
    }
    fn probe(&mut self) -> Vec<f32> {
        let (p, v) = self.net.forward(self.input.clone());
        let p: Vec<f32> = p.into_data().try_to_vec().expect("f32 policy");
        let v: Vec<f32> = v.into_data().try_to_vec().expect("f32 value");
        vec![v[0], p[..AZ_POLICY].iter().sum(), p[0]]
    }
}
