//! A gradient holding NaN or an infinity stops every optimiser's step with
//! an error naming the parameter, and nothing changes: values, state,
//! step count, and (for `step_and_zero_grads`) the gradients themselves.

mod common;

use common::{set_grads, tiny};
use minnow_autodiff::{Params, Tape};
use minnow_optim::{AdaGradConfig, AdamConfig, AdamWConfig, OptimError, Optimizer, RmsPropConfig, SgdConfig};

fn optimizers(params: &Params) -> Vec<(&'static str, Box<dyn Optimizer>)> {
    vec![
        ("sgd", Box::new(SgdConfig::default().build(params).unwrap())),
        ("sgd momentum", Box::new(SgdConfig { momentum: 0.9, ..SgdConfig::default() }.build(params).unwrap())),
        ("adam", Box::new(AdamConfig::default().build(params).unwrap())),
        ("adamw", Box::new(AdamWConfig::default().build(params).unwrap())),
        ("rmsprop", Box::new(RmsPropConfig::default().build(params).unwrap())),
        (
            "rmsprop centered momentum",
            Box::new(
                RmsPropConfig { momentum: 0.9, centered: true, ..RmsPropConfig::default() }.build(params).unwrap(),
            ),
        ),
        ("adagrad", Box::new(AdaGradConfig::default().build(params).unwrap())),
    ]
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Everything a step could change: values, gradients, every state buffer.
fn snapshot(opt: &dyn Optimizer, params: &Params) -> Vec<Vec<u32>> {
    let mut all = vec![bits(params.values()), bits(params.grads())];
    all.extend(opt.state().into_iter().map(|(_, s)| bits(s)));
    all
}

#[test]
fn every_optimizer_refuses_a_non_finite_gradient_and_changes_nothing() {
    for threads in [1, 2] {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut params = tiny();
            for (name, mut opt) in optimizers(&params) {
                opt.set_threads(threads);
                set_grads(&mut params, 0);
                opt.step(&mut params).unwrap();
                set_grads(&mut params, 1);
                let bias = params.find("fc.bias").unwrap();
                params.grad_mut(bias)[1] = bad;
                let before = snapshot(opt.as_ref(), &params);
                for zero in [false, true] {
                    let err = if zero { opt.step_and_zero_grads(&mut params) } else { opt.step(&mut params) }
                        .expect_err(name);
                    match &err {
                        OptimError::NonFiniteGradient { name: param, index: 1, value } => {
                            assert_eq!(param, "fc.bias", "{name}");
                            assert_eq!(value.to_bits(), bad.to_bits(), "{name}");
                        }
                        other => panic!("{name}: {other}"),
                    }
                    assert!(err.to_string().contains("'fc.bias'"), "{name}: {err}");
                    assert_eq!(opt.step_count(), 1, "{name}: the refused step counted");
                    assert!(snapshot(opt.as_ref(), &params) == before, "{name} (zero {zero}): something changed");
                }
                // Once the gradient is finite again, steps go on.
                set_grads(&mut params, 2);
                opt.step(&mut params).unwrap();
                assert_eq!(opt.step_count(), 2, "{name}");
            }
        }
    }
}

/// The first parameter (in store order) with a bad gradient is the one named.
#[test]
fn the_first_bad_parameter_is_named() {
    let mut params = tiny();
    let mut adam = AdamConfig::default().build(&params).unwrap();
    set_grads(&mut params, 0);
    let (w, b) = (params.find("fc.weight").unwrap(), params.find("fc.bias").unwrap());
    params.grad_mut(b)[0] = f32::NAN;
    params.grad_mut(w)[3] = f32::INFINITY;
    let err = adam.step(&mut params).unwrap_err();
    assert_eq!(err, OptimError::NonFiniteGradient { name: "fc.weight".into(), index: 3, value: f32::INFINITY });
}

/// A finite loss can still have an infinite gradient: here y = w x with x
/// = 1e30 and w = 1e-16 gives the loss (y - 0)² = 1e28, but dL/dw = 2 y x
/// overflows. The graph's backward accepts the loss; the step refuses the
/// gradient and leaves the weight alone.
#[test]
fn an_overflowing_gradient_of_a_finite_loss_is_refused() {
    let mut params = Params::new();
    let w = params.add("layer.weight", &[1, 1], |v| v[0] = 1e-16).unwrap();
    let mut sgd = SgdConfig { lr: 0.1, ..SgdConfig::default() }.build(&params).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.graph(&mut params);
    let x = g.input(&[1, 1], &[1e30]).unwrap();
    let wv = g.param(w);
    let y = g.linear(x, wv, None).unwrap();
    let loss = g.mse(y, &[0.0], None).unwrap();
    assert!(g.scalar(loss).is_finite());
    g.backward(loss).unwrap();
    assert!(!params.grad(w)[0].is_finite());
    let err = sgd.step(&mut params).unwrap_err();
    assert!(matches!(&err, OptimError::NonFiniteGradient { name, .. } if name == "layer.weight"), "{err}");
    assert_eq!(params.value(w), &[1e-16]);
}
