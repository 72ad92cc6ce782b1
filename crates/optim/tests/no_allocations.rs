//! After its first step, no optimiser step touches the heap, on one thread
//! or split over two; nor do clipping and schedules.

mod common;

use common::{set_grads, tiny};
use minnow_arena::{CountingAlloc, count_allocations};
use minnow_optim::{
    AdaGradConfig, AdamConfig, AdamWConfig, Optimizer, RmsPropConfig, ScheduleConfig, SgdConfig, clip_grad_norm,
    clip_grad_value,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn steps_allocate_nothing_after_the_first() {
    let mut params = tiny();
    let schedule = ScheduleConfig::cosine(0.01, 100, 1e-4).with_warmup(5, 0.1).build().unwrap();
    let mut optimizers: Vec<(&str, Box<dyn Optimizer>)> = vec![
        ("sgd", Box::new(SgdConfig::default().build(&params).unwrap())),
        (
            "sgd nesterov",
            Box::new(SgdConfig { momentum: 0.9, nesterov: true, ..SgdConfig::default() }.build(&params).unwrap()),
        ),
        ("adam", Box::new(AdamConfig::default().build(&params).unwrap())),
        ("adamw", Box::new(AdamWConfig::default().build(&params).unwrap())),
        ("rmsprop", Box::new(RmsPropConfig::default().build(&params).unwrap())),
        (
            "rmsprop centered momentum",
            Box::new(
                RmsPropConfig { momentum: 0.9, centered: true, ..RmsPropConfig::default() }.build(&params).unwrap(),
            ),
        ),
        ("adagrad", Box::new(AdaGradConfig { lr_decay: 0.01, ..AdaGradConfig::default() }.build(&params).unwrap())),
    ];
    for (name, opt) in &mut optimizers {
        set_grads(&mut params, 0);
        opt.step(&mut params).unwrap();
        let (_, on_thread, _) = count_allocations(|| {
            for t in 1..20 {
                set_grads(&mut params, t);
                clip_grad_norm(&mut params, 1.0).unwrap();
                clip_grad_value(&mut params, 0.5).unwrap();
                schedule.apply(opt.as_mut());
                opt.step(&mut params).unwrap();
            }
        });
        assert_eq!(on_thread.allocations, 0, "{name}: {on_thread:?}");
    }
    // Split over two threads, a step allocates nothing on any thread (the
    // count covers all threads, hence one test per binary). It runs inside
    // rayon's pool, as a split run should: handing work in from outside
    // allocates a block of rayon's queue every 63 calls.
    let mut params = minnow_autodiff::Params::new();
    params.add("w", &[200, 200], |v| v.fill(0.5)).unwrap();
    let mut adam = AdamConfig::default().build(&params).unwrap();
    adam.set_threads(2);
    set_grads(&mut params, 0);
    rayon::scope(|_| {
        // Warm-up, long enough (a few ms) for the second worker to wake and
        // steal: its first steal allocates its share of the deques' memory
        // reclamation, once per thread.
        for _ in 0..500 {
            adam.step(&mut params).unwrap();
        }
        let (_, _, all) = count_allocations(|| {
            for t in 1..200 {
                adam.step(&mut params).unwrap();
                set_grads(&mut params, t);
                adam.step_and_zero_grads(&mut params).unwrap();
                set_grads(&mut params, t);
            }
        });
        assert_eq!(all.allocations, 0, "adam on two threads: {all:?}");
    });
}
