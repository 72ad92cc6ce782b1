//! CartPole as the data-parallel DQN tests train it: two small configs
//! that between them take every path of an update (uniform and
//! prioritized replay, plain and dueling heads, n-step returns, clipping,
//! Polyak and hard targets, a batch that splits evenly and one that does
//! not), a run of a fixed number of steps, and how far two parameter
//! buffers lie apart.

use minnow_dist::Collective;
use minnow_envs::{CartPole, CartPoleConfig, Env, EnvError, Step};
use minnow_optim::ScheduleConfig;
use minnow_rl::dqn::{DqnConfig, DqnEnv, DqnRun, MemoryConfig, QNetworkConfig, Shards, TargetUpdate};
use std::rc::Rc;

/// CartPole with what DQN needs to know about it (nothing more than it is).
#[derive(Clone, Debug)]
pub struct Pole(pub CartPole);

impl Env for Pole {
    const NAME: &'static str = CartPole::NAME;

    fn observation_size(&self) -> usize {
        self.0.observation_size()
    }

    fn action_count(&self) -> usize {
        self.0.action_count()
    }

    fn reset(&mut self, seed: u64) {
        self.0.reset(seed)
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        self.0.step(action)
    }

    fn legal_mask(&self) -> u64 {
        self.0.legal_mask()
    }

    fn observe(&self, out: &mut [f32]) {
        self.0.observe(out)
    }

    fn is_over(&self) -> bool {
        self.0.is_over()
    }
}

impl DqnEnv for Pole {}

/// Environment steps of every run: 4 envs, learning from the 200th, 26
/// vector steps of 2 updates each (52 updates).
pub const STEPS: u64 = 300;

/// The configs the tests train, by name.
pub fn configs() -> [(&'static str, DqnConfig); 2] {
    let base = DqnConfig {
        seed: 3,
        network: QNetworkConfig { hidden: vec![64, 64], layer_norm: false, dueling: false },
        n_step: 1,
        batch_size: 64,
        replay: MemoryConfig { capacity: 1_000, ..MemoryConfig::default() },
        num_envs: 4,
        learning_starts: 200,
        updates_per_step: 2,
        epsilon: ScheduleConfig::linear(1.0, 300, 0.1),
        env_steps: STEPS,
        checkpoint_every: 1_000,
        ..DqnConfig::default()
    };
    let prioritized = DqnConfig {
        seed: 4,
        network: QNetworkConfig { hidden: vec![48, 32], layer_norm: true, dueling: true },
        n_step: 3,
        batch_size: 50,
        replay: MemoryConfig { prioritized: true, ..base.replay },
        max_grad_norm: 1.0,
        target: TargetUpdate::Hard { every: 10 },
        ..base.clone()
    };
    [
        ("uniform replay, double DQN, batch 64", base),
        ("prioritized replay, dueling, LayerNorm, 3-step, batch 50", prioritized),
    ]
}

/// A step of `run`, as one rank of `shards`' group when given.
pub fn step<E: DqnEnv>(run: &mut DqnRun<E>, shards: Option<&mut Shards>) -> minnow_rl::Result<()> {
    match shards {
        Some(shards) => run.step_sharded(shards),
        None => run.step(),
    }
}

/// `run` trained to its end, on `comm`'s ranks when given.
pub fn train_to_end<E: DqnEnv>(mut run: DqnRun<E>, comm: Option<Rc<dyn Collective>>) -> DqnRun<E> {
    let mut shards = comm.map(|comm| run.shards(comm).expect("a batch with a row for every rank"));
    while !run.is_done() {
        step(&mut run, shards.as_mut()).expect("a step");
    }
    assert!(!shards.is_some_and(|s| s.stop_requested()), "no rank was asked to stop");
    run
}

/// A run of `config` to its end, on `comm`'s ranks when given.
pub fn train(config: &DqnConfig, comm: Option<Rc<dyn Collective>>) -> DqnRun<Pole> {
    let env = Pole(CartPole::new(CartPoleConfig::default()).expect("the default CartPole"));
    train_to_end(DqnRun::new(config, env).expect("a valid config"), comm)
}

/// How far two parameter buffers lie apart.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Difference {
    /// The largest absolute difference.
    pub abs: f32,
    /// The largest difference in units in the last place, over the values
    /// of magnitude at least [`LARGE`] (near 0 an ulp is as small as the
    /// value, and a count of them says nothing).
    pub ulps: u32,
    /// Values that differ at all.
    pub differing: usize,
}

/// The magnitude from which [`Difference::ulps`] counts.
pub const LARGE: f32 = 1e-3;

/// How far `a` and `b`, of one length, lie apart.
pub fn difference(a: &[f32], b: &[f32]) -> Difference {
    assert_eq!(a.len(), b.len(), "difference: buffers of {} and {} values", a.len(), b.len());
    // Floats ordered as integers: the distance counts the floats between.
    let ordered = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 { i32::MIN - bits } else { bits }
    };
    a.iter().zip(b).fold(Difference::default(), |d, (&x, &y)| Difference {
        abs: d.abs.max((x - y).abs()),
        ulps: if x.abs().max(y.abs()) >= LARGE { d.ulps.max(ordered(x).abs_diff(ordered(y))) } else { d.ulps },
        differing: d.differing + (x.to_bits() != y.to_bits()) as usize,
    })
}
