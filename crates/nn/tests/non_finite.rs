//! Non-finite values through a model: NaN propagates as in PyTorch, and
//! nothing non-finite reaches the weights.

use minnow_nn::{Forward, MlpConfig, Params, Tape};
use minnow_optim::{AdamConfig, Optimizer};

use minnow_nn::testing::{bits, inputs, rng};

/// NaN propagates as in PyTorch: a NaN input gives NaN outputs in its row
/// (ReLU no longer turns it into 0), the loss is NaN and the backward pass
/// refuses it, so nothing reaches the weights.
#[test]
fn nan_inputs_give_nan_outputs_and_no_update() {
    let mut params = Params::new();
    let mlp = MlpConfig::new(&[3, 8, 8, 2]).init(&mut params, "mlp", &mut rng(5)).unwrap();
    let mut x = inputs(4 * 3, 4);
    x[2 * 3 + 1] = f32::NAN;
    let y = {
        let mut tape = Tape::new();
        let mut g = tape.inference(&params);
        let input = g.input(&[4, 3], &x).unwrap();
        let y = mlp.forward(&mut g, input).unwrap();
        g.value(y).to_vec()
    };
    for (row, out) in y.chunks_exact(2).enumerate() {
        if row == 2 {
            assert!(out.iter().all(|v| v.is_nan()), "row {row}: {out:?}");
        } else {
            assert!(out.iter().all(|v| v.is_finite()), "row {row}: {out:?}");
        }
    }
    let mut tape = Tape::new();
    let before = params.clone();
    let mut g = tape.graph(&mut params);
    let input = g.input(&[4, 3], &x).unwrap();
    let pred = mlp.forward(&mut g, input).unwrap();
    let loss = g.mse(pred, &[0.0; 8], None).unwrap();
    assert!(matches!(g.backward(loss), Err(minnow_autodiff::Error::NonFiniteLoss { .. })));
    assert!(params.grads().iter().all(|&d| d == 0.0));
    assert_eq!(params, before);
}

/// A finite loss whose gradient is not finite (a huge input through a
/// last layer of tiny weights: the loss is about 1e22, its gradient in
/// that layer's weight past f32's range) trains nothing: Adam refuses the
/// step naming the parameter, and the parameters, moments and step count
/// stay as they were.
#[test]
fn an_overflowing_gradient_is_refused_naming_the_parameter() {
    let mut params = Params::new();
    let mlp = MlpConfig::new(&[2, 8, 1]).init(&mut params, "mlp", &mut rng(6)).unwrap();
    params.value_mut(mlp.layers[1].w).iter_mut().for_each(|w| *w *= 1e-19);
    let mut adam = AdamConfig::default().build(&params).unwrap();
    let x = [1e30, 1e30, -1e30, 1e30];
    let mut tape = Tape::new();
    params.zero_grads();
    let mut g = tape.graph(&mut params);
    let input = g.input(&[2, 2], &x).unwrap();
    let pred = mlp.forward(&mut g, input).unwrap();
    let loss = g.mse(pred, &[0.0, 0.0], None).unwrap();
    assert!(g.scalar(loss).is_finite(), "loss {}", g.scalar(loss));
    g.backward(loss).unwrap();
    assert!(params.grad(mlp.layers[1].w).iter().any(|d| !d.is_finite()));
    let before = params.values().to_vec();
    let err = adam.step(&mut params).unwrap_err();
    assert!(err.to_string().starts_with("parameter 'mlp.1.weight': the gradient is not finite"), "{err}");
    assert_eq!(bits(params.values()), bits(&before));
    assert_eq!(adam.step_count(), 0);
    assert!(adam.state().iter().all(|(_, s)| s.iter().all(|&v| v == 0.0)));
}
