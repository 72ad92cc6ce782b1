//! Optimiser state for checkpoints: names, per-parameter slices, loading,
//! exact resumption, and refusing a store of another layout.

mod common;

use common::{set_grads, tiny};
use minnow_autodiff::Params;
use minnow_optim::{
    AdaGradConfig, AdamConfig, AdamWConfig, OptimError, Optimizer, RmsPropConfig, SgdConfig, load_state_by_param,
    split_state, state_by_param,
};
use std::collections::HashMap;

/// One of each optimiser, with every state buffer switched on.
fn all(params: &Params) -> Vec<Box<dyn Optimizer>> {
    vec![
        Box::new(SgdConfig { lr: 0.1, momentum: 0.9, dampening: 0.2, ..SgdConfig::default() }.build(params).unwrap()),
        Box::new(AdamConfig { lr: 0.01, weight_decay: 0.1, ..AdamConfig::default() }.build(params).unwrap()),
        Box::new(AdamWConfig { lr: 0.01, ..AdamWConfig::default() }.build(params).unwrap()),
        Box::new(RmsPropConfig { momentum: 0.9, centered: true, ..RmsPropConfig::default() }.build(params).unwrap()),
        Box::new(
            AdaGradConfig { lr_decay: 0.1, initial_accumulator_value: 0.1, ..AdaGradConfig::default() }
                .build(params)
                .unwrap(),
        ),
    ]
}

fn names(opt: &dyn Optimizer) -> Vec<String> {
    opt.state().into_iter().map(|(name, _)| name).collect()
}

#[test]
fn state_names() {
    let params = tiny();
    let got: Vec<Vec<String>> = all(&params).iter().map(|o| names(o.as_ref())).collect();
    assert_eq!(
        got,
        [
            vec!["sgd.momentum_buffer"],
            vec!["adam.m", "adam.v"],
            vec!["adamw.m", "adamw.v"],
            vec!["rmsprop.square_avg", "rmsprop.grad_avg", "rmsprop.momentum_buffer"],
            vec!["adagrad.sum"],
        ]
    );
    // Buffers a setting leaves off are not state.
    assert!(names(&SgdConfig::default().build(&params).unwrap()).is_empty());
    assert_eq!(names(&RmsPropConfig::default().build(&params).unwrap()), ["rmsprop.square_avg"]);
    for opt in all(&params) {
        for (name, flat) in opt.state() {
            assert_eq!(flat.len(), params.values().len(), "{name}");
        }
    }
}

#[test]
fn split_state_slices_per_parameter() {
    let params = tiny();
    let flat: Vec<f32> = (0..params.values().len()).map(|i| i as f32).collect();
    let pieces = split_state(&params, "adam.m", &flat).unwrap();
    let w = params.range(params.find("fc.weight").unwrap());
    let b = params.range(params.find("fc.bias").unwrap());
    assert_eq!(pieces.len(), 2);
    assert_eq!(pieces[0].0, "adam.m.fc.weight");
    assert_eq!(pieces[0].1, &flat[w]);
    assert_eq!(pieces[1].0, "adam.m.fc.bias");
    assert_eq!(pieces[1].1, &flat[b]);
    let err = split_state(&params, "adam.m", &flat[1..]).unwrap_err();
    assert_eq!(err.to_string(), format!("state 'adam.m': expected {} values, found {}", flat.len(), flat.len() - 1));
}

#[test]
fn resuming_from_saved_state_continues_exactly() {
    let (fresh, mut trained) = (tiny(), tiny());
    for (k, mut opt) in all(&fresh).into_iter().enumerate() {
        trained.copy_values_from(&fresh).unwrap();
        for t in 0..3 {
            set_grads(&mut trained, t);
            opt.step(&mut trained).unwrap();
        }
        // A checkpoint: parameter values, state per parameter, step count.
        let saved: HashMap<String, Vec<f32>> =
            state_by_param(opt.as_ref(), &trained).unwrap().into_iter().map(|(n, s)| (n, s.to_vec())).collect();
        let mut resumed_params = tiny();
        resumed_params.copy_values_from(&trained).unwrap();
        let mut resumed = all(&fresh).swap_remove(k);
        load_state_by_param(resumed.as_mut(), &resumed_params, |name| saved.get(name).map(|v| &v[..])).unwrap();
        resumed.set_step_count(opt.step_count());
        for t in 3..6 {
            set_grads(&mut trained, t);
            set_grads(&mut resumed_params, t);
            opt.step(&mut trained).unwrap();
            resumed.step(&mut resumed_params).unwrap();
        }
        assert_eq!(trained.values(), resumed_params.values(), "optimiser {k}: {:?}", names(opt.as_ref()));
    }
}

#[test]
fn loading_needs_every_piece() {
    let params = tiny();
    let mut adam = AdamConfig::default().build(&params).unwrap();
    let err = load_state_by_param(&mut adam, &params, |_| None).unwrap_err();
    assert_eq!(err.to_string(), "state 'adam.m.fc.weight' is missing");
    let short = [0.0f32; 2];
    let err = load_state_by_param(&mut adam, &params, |_| Some(&short[..])).unwrap_err();
    assert_eq!(err.to_string(), "state 'adam.m.fc.weight': expected 4 values, found 2");
}

#[test]
fn load_state_checks_the_name_and_length() {
    let params = tiny();
    let n = params.values().len();
    let mut rms = RmsPropConfig { centered: true, ..RmsPropConfig::default() }.build(&params).unwrap();
    let err = rms.load_state("rmsprop.momentum_buffer", &vec![0.0; n]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "RmsProp has no state named 'rmsprop.momentum_buffer'; expected one of: rmsprop.square_avg, rmsprop.grad_avg"
    );
    let err = rms.load_state("rmsprop.grad_avg", &[1.0]).unwrap_err();
    assert_eq!(err, OptimError::StateLength { name: "rmsprop.grad_avg".into(), expected: n, found: 1 });
    rms.load_state("rmsprop.grad_avg", &vec![0.5; n]).unwrap();
    assert!(rms.state()[1].1.iter().all(|&v| v == 0.5));
    let mut sgd = SgdConfig::default().build(&params).unwrap();
    let err = sgd.load_state("sgd.momentum_buffer", &vec![0.0; n]).unwrap_err();
    assert_eq!(err.to_string(), "Sgd has no state named 'sgd.momentum_buffer'; expected one of: (no state)");
}

#[test]
fn a_store_of_another_layout_is_refused() {
    let params = tiny();
    let mut other = Params::new();
    other.add("fc.weight", &[2, 2], |_| {}).unwrap();
    other.add("fc.bias", &[4], |_| {}).unwrap();
    let mut fewer = Params::new();
    fewer.add("fc.weight", &[2, 2], |_| {}).unwrap();
    for mut opt in all(&params) {
        let before = other.values().to_vec();
        let err = opt.step(&mut other).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter layout differs from the one the optimizer was built for: \
             expected 'fc.bias' [3], found 'fc.bias' [4]"
        );
        assert_eq!(other.values(), &before[..]);
        assert_eq!(opt.step_count(), 0);
        let err = opt.step(&mut fewer).unwrap_err();
        assert!(err.to_string().ends_with("expected 2 tensors, found 1"), "{err}");
    }
}
