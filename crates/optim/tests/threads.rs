//! Every optimiser split over 2, 3 or 4 threads updates the parameters and
//! its state to the same bits as on one thread, with the bands cut inside
//! tensors (by rows, not on cache lines) and the small tensors and padding
//! between them updated whole; `step_and_zero_grads` updates to the same
//! bits as `step` and leaves every gradient at zero.

mod common;

use minnow_autodiff::Params;
use minnow_optim::{AdaGradConfig, AdamConfig, AdamWConfig, Optimizer, RmsPropConfig, SgdConfig};

/// Tensors of 30,000, 7 and 10,000 floats and a 131 x 97 matrix: split by
/// elements and by rows, with a small tensor and padding between them.
fn store() -> Params {
    let mut p = Params::new();
    for (name, dims) in [("a", &[30_000][..]), ("b", &[7]), ("c", &[10_000]), ("w", &[131, 97])] {
        p.add(name, dims, |v| v.iter_mut().enumerate().for_each(|(i, x)| *x = common::grad(99, i))).unwrap();
    }
    p
}

/// Builds an optimiser for a store.
type Build = Box<dyn Fn(&Params) -> Box<dyn Optimizer>>;

/// The values and every state buffer after 5 steps on `threads` threads,
/// each step by `step_and_zero_grads` if `zero` (which must leave every
/// gradient at zero).
fn run(build: &Build, threads: usize, zero: bool) -> Vec<u32> {
    let mut params = store();
    let mut opt = build(&params);
    opt.set_threads(threads);
    for t in 0..5 {
        common::set_grads(&mut params, t);
        if zero {
            opt.step_and_zero_grads(&mut params).unwrap();
            assert!(params.grads().iter().all(|&g| g == 0.0), "a gradient is left after step {t}");
        } else {
            opt.step(&mut params).unwrap();
        }
    }
    let state = opt.state().into_iter().flat_map(|(_, s)| s.to_vec());
    params.values().iter().copied().chain(state).map(f32::to_bits).collect()
}

#[test]
fn every_optimiser_gives_the_same_bits_on_any_thread_count() {
    let builds: [(&str, Build); 6] = [
        ("adam", Box::new(|p| Box::new(AdamConfig { weight_decay: 0.01, ..Default::default() }.build(p).unwrap()))),
        ("adamw", Box::new(|p| Box::new(AdamWConfig::default().build(p).unwrap()))),
        (
            "sgd",
            Box::new(|p| Box::new(SgdConfig { momentum: 0.9, nesterov: true, ..Default::default() }.build(p).unwrap())),
        ),
        ("sgd without momentum", Box::new(|p| Box::new(SgdConfig::default().build(p).unwrap()))),
        (
            "rmsprop",
            Box::new(|p| {
                Box::new(RmsPropConfig { momentum: 0.5, centered: true, ..Default::default() }.build(p).unwrap())
            }),
        ),
        ("adagrad", Box::new(|p| Box::new(AdaGradConfig::default().build(p).unwrap()))),
    ];
    for (name, build) in &builds {
        let one = run(build, 1, false);
        for threads in [1, 2, 3, 4] {
            assert!(one == run(build, threads, true), "{name} zeroing on {threads} threads differs from step");
            assert!(one == run(build, threads, false), "{name} on {threads} threads differs from one thread");
        }
    }
}
