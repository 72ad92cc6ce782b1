//! User mistakes give errors that say what was expected and found.

use minnow_autodiff::Error;
use minnow_nn::{Forward, LinearConfig, MlpConfig, Params, Tape};
use rand::SeedableRng;

fn rng() -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(0)
}

#[test]
fn wrong_input_width_names_both_shapes() {
    let mut params = Params::new();
    let mlp = MlpConfig::new(&[4, 8, 2]).init(&mut params, "mlp", &mut rng()).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let x = g.input(&[3, 5], &[0.0; 15]).unwrap();
    let err = mlp.forward(&mut g, x).unwrap_err();
    assert_eq!(err.to_string(), "linear: shapes [3, 5] and [8, 4] do not match");
}

#[test]
fn input_data_that_does_not_fill_its_shape() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let err = g.input(&[2, 3], &[0.0; 5]).unwrap_err();
    assert!(err.to_string().contains("5 values cannot fill shape [2, 3]"), "{err}");
}

#[test]
fn class_index_out_of_range() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let logits = g.input(&[2, 3], &[0.0; 6]).unwrap();
    let err = g.cross_entropy(logits, &[1, 3], None).unwrap_err();
    assert_eq!(err, Error::IndexOutOfRange { op: "cross_entropy", index: 3, bound: 3 });
    let err = g.cross_entropy(logits, &[1], None).unwrap_err();
    assert_eq!(err.to_string(), "cross_entropy: expected 2 indices, found 1");
}

#[test]
fn non_finite_loss_refuses_to_backpropagate() {
    let mut params = Params::new();
    let lin = LinearConfig::new(2, 1).init(&mut params, "fc", &mut rng()).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.graph(&mut params);
    let x = g.input(&[1, 2], &[f32::NAN, 1.0]).unwrap();
    let y = lin.forward(&mut g, x).unwrap();
    let loss = g.mse(y, &[0.0], None).unwrap();
    let err = g.backward(loss).unwrap_err();
    assert!(matches!(err, Error::NonFiniteLoss { .. }), "{err}");
    assert!(err.to_string().contains("not finite"));
}

#[test]
fn zero_sized_layers_are_config_errors() {
    let mut params = Params::new();
    let err = LinearConfig::new(0, 4).init(&mut params, "fc", &mut rng()).unwrap_err();
    assert_eq!(err.to_string(), "invalid configuration: fc: Linear needs inputs and outputs > 0, found 0x4");
    let err = MlpConfig::new(&[3]).init(&mut params, "mlp", &mut rng()).unwrap_err();
    assert!(err.to_string().contains("at least 2 sizes"), "{err}");
    assert!(params.is_empty(), "a failed build adds nothing");
}

#[test]
fn huber_with_a_bad_delta() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let p = g.input(&[2], &[0.0; 2]).unwrap();
    assert!(g.huber(p, &[0.0; 2], 0.0, None).unwrap_err().to_string().contains("delta"));
    let err = g.mse(p, &[0.0; 3], None).unwrap_err();
    assert!(err.to_string().contains("3 values cannot fill shape [2]"), "{err}");
}
