//! The supervised run trains a model it has never heard of: a Sequential
//! built here, regressing two targets from three features, resumed from a
//! checkpoint to the same bits as an uninterrupted run, with no allocation
//! in a steady training step.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_nn::testing::{bits, rng};
use minnow_nn::{Activation, LinearConfig, Params, RegressionDataset, Sequential};
use minnow_optim::{AdamConfig, ScheduleConfig};
use minnow_train::supervised::{Split, Supervised, SupervisedConfig};
use minnow_train::{Metrics, Run};
use rand::Rng;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// y = (x0 + 2 x1, x1 * x2) over 400 random rows; every fifth row held out.
fn data() -> (RegressionDataset, RegressionDataset) {
    let mut r = rng(5);
    let (mut features, mut targets) = (Vec::new(), Vec::new());
    for _ in 0..400 {
        let x: [f32; 3] = [r.random_range(-1.0..1.0), r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)];
        features.extend_from_slice(&x);
        targets.extend_from_slice(&[x[0] + 2.0 * x[1], x[1] * x[2]]);
    }
    RegressionDataset { features, targets, width: 3, outputs: 2 }.split(|i| i % 5 == 0)
}

fn run(steps: u64) -> Supervised<Sequential, RegressionDataset> {
    let mut params = Params::new();
    let model = Sequential::new()
        .push(LinearConfig::new(3, 32).init(&mut params, "fc1", &mut rng(1)).unwrap())
        .push(Activation::Tanh)
        .push(LinearConfig::new(32, 2).init(&mut params, "fc2", &mut rng(2)).unwrap());
    let (train, test) = data();
    let config = SupervisedConfig {
        batch: 16,
        steps,
        optimizer: AdamConfig { lr: 1e-2, ..AdamConfig::default() },
        schedule: ScheduleConfig::constant(1e-2),
        eval_every: 50,
        checkpoint_every: 100,
        shuffle_seed: 3,
    };
    config.build(model, params, train, test).unwrap()
}

#[test]
fn a_model_of_ones_own_learns_a_regression() {
    let mut fitted = run(600);
    let before = fitted.metric(Split::Test).unwrap();
    let cadence = fitted.config().cadence();
    minnow_train::drive(&mut fitted, cadence, None, &mut ()).unwrap();
    let after = fitted.metric(Split::Test).unwrap();
    assert!(after < 0.02 && after < before / 10.0, "test MSE {before} -> {after}");
}

#[test]
fn resume_continues_to_the_same_bits() {
    let dir = minnow_nn::testing::ScratchDir::new("supervised-any-model");
    let path = dir.join("run.safetensors");
    let mut straight = run(200);
    let cadence = straight.config().cadence();
    minnow_train::drive(&mut straight, cadence, None, &mut ()).unwrap();

    let mut first = run(100);
    let cadence = first.config().cadence();
    minnow_train::drive(&mut first, cadence, Some(&path), &mut ()).unwrap();
    let mut resumed = run(200);
    minnow_train::resume(&mut resumed, &path).unwrap();
    let cadence = resumed.config().cadence();
    minnow_train::drive(&mut resumed, cadence, None, &mut ()).unwrap();
    assert_eq!(bits(resumed.params().values()), bits(straight.params().values()));
    assert_eq!(resumed.metric(Split::Test).unwrap(), straight.metric(Split::Test).unwrap());
}

#[test]
fn a_steady_step_allocates_nothing() {
    let mut r = run(100);
    let mut metrics = Metrics::with_capacity(8);
    for _ in 0..5 {
        metrics.clear();
        Run::train_step(&mut r, &mut metrics).unwrap();
    }
    let (_, on_thread, _) = count_allocations(|| {
        metrics.clear();
        Run::train_step(&mut r, &mut metrics).unwrap();
    });
    assert_eq!(on_thread.allocations, 0);
}
