//! Configs: PyTorch's defaults, and errors that name the field, what it
//! should be and what it was.

mod common;

use common::tiny;
use minnow_optim::{AdaGradConfig, AdamConfig, AdamWConfig, OptimError, RmsPropConfig, ScheduleConfig, SgdConfig};

#[track_caller]
fn message(err: OptimError) -> String {
    err.to_string()
}

#[test]
fn defaults_are_pytorch_defaults() {
    assert_eq!(AdamConfig::default(), AdamConfig { lr: 1e-3, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 0.0 });
    assert_eq!(AdamWConfig::default().weight_decay, 1e-2);
    assert_eq!(AdamWConfig::default().eps, 1e-8);
    let sgd = SgdConfig::default();
    assert_eq!((sgd.lr, sgd.momentum, sgd.dampening, sgd.weight_decay, sgd.nesterov), (1e-3, 0.0, 0.0, 0.0, false));
    let rms = RmsPropConfig::default();
    assert_eq!((rms.lr, rms.alpha, rms.eps, rms.momentum, rms.centered), (1e-2, 0.99, 1e-8, 0.0, false));
    let ada = AdaGradConfig::default();
    assert_eq!((ada.lr, ada.lr_decay, ada.initial_accumulator_value, ada.eps), (1e-2, 0.0, 0.0, 1e-10));
    let params = tiny();
    AdamConfig::default().build(&params).unwrap();
    AdamWConfig::default().build(&params).unwrap();
    SgdConfig::default().build(&params).unwrap();
    RmsPropConfig::default().build(&params).unwrap();
    AdaGradConfig::default().build(&params).unwrap();
}

#[test]
fn adam_errors_name_the_field_and_value() {
    let p = tiny();
    let bad = |c: AdamConfig| message(c.build(&p).unwrap_err());
    let d = AdamConfig::default();
    assert_eq!(bad(AdamConfig { lr: -0.1, ..d }), "AdamConfig.lr: expected a finite value >= 0, found -0.1");
    assert_eq!(bad(AdamConfig { lr: f32::NAN, ..d }), "AdamConfig.lr: expected a finite value >= 0, found NaN");
    assert_eq!(bad(AdamConfig { betas: (1.0, 0.999), ..d }), "AdamConfig.betas.0: expected a value in [0, 1), found 1");
    assert_eq!(
        bad(AdamConfig { betas: (0.9, -0.5), ..d }),
        "AdamConfig.betas.1: expected a value in [0, 1), found -0.5"
    );
    assert_eq!(bad(AdamConfig { eps: 0.0, ..d }), "AdamConfig.eps: expected a finite value > 0, found 0");
    assert_eq!(
        bad(AdamConfig { weight_decay: f32::INFINITY, ..d }),
        "AdamConfig.weight_decay: expected a finite value >= 0, found inf"
    );
    let err = AdamWConfig { betas: (0.9, 1.5), ..AdamWConfig::default() }.build(&p).unwrap_err();
    assert_eq!(message(err), "AdamWConfig.betas.1: expected a value in [0, 1), found 1.5");
}

#[test]
fn sgd_errors_follow_pytorch() {
    let p = tiny();
    let bad = |c: SgdConfig| message(c.build(&p).unwrap_err());
    let d = SgdConfig::default();
    assert_eq!(bad(SgdConfig { momentum: -0.9, ..d }), "SgdConfig.momentum: expected a finite value >= 0, found -0.9");
    assert_eq!(
        bad(SgdConfig { weight_decay: -1.0, ..d }),
        "SgdConfig.weight_decay: expected a finite value >= 0, found -1"
    );
    assert_eq!(bad(SgdConfig { dampening: f32::NAN, ..d }), "SgdConfig.dampening: expected a finite value, found NaN");
    assert_eq!(
        bad(SgdConfig { nesterov: true, ..d }),
        "SgdConfig.nesterov: expected momentum > 0 and dampening = 0, found momentum 0 and dampening 0"
    );
    let err = SgdConfig { nesterov: true, momentum: 0.9, dampening: 0.1, ..d }.build(&p).unwrap_err();
    assert_eq!(err, OptimError::Nesterov { config: "SgdConfig", momentum: 0.9, dampening: 0.1 });
    SgdConfig { nesterov: true, momentum: 0.9, ..d }.build(&p).unwrap();
}

#[test]
fn rmsprop_and_adagrad_errors() {
    let p = tiny();
    let rms = RmsPropConfig::default();
    let err = RmsPropConfig { alpha: 1.5, ..rms }.build(&p).unwrap_err();
    assert_eq!(message(err), "RmsPropConfig.alpha: expected a value in [0, 1], found 1.5");
    let err = RmsPropConfig { momentum: -0.1, ..rms }.build(&p).unwrap_err();
    assert_eq!(message(err), "RmsPropConfig.momentum: expected a finite value >= 0, found -0.1");
    let err = RmsPropConfig { eps: -1e-8, ..rms }.build(&p).unwrap_err();
    assert!(message(err).starts_with("RmsPropConfig.eps: expected a finite value > 0, found -0.00000001"));
    let ada = AdaGradConfig::default();
    let err = AdaGradConfig { lr_decay: -1.0, ..ada }.build(&p).unwrap_err();
    assert_eq!(message(err), "AdaGradConfig.lr_decay: expected a finite value >= 0, found -1");
    let err = AdaGradConfig { initial_accumulator_value: -0.5, ..ada }.build(&p).unwrap_err();
    assert_eq!(message(err), "AdaGradConfig.initial_accumulator_value: expected a finite value >= 0, found -0.5");
}

#[test]
fn schedule_errors() {
    let bad = |c: ScheduleConfig| message(c.build().unwrap_err());
    assert_eq!(
        bad(ScheduleConfig::step_decay(0.1, 0, 0.5)),
        "ScheduleConfig.decay.step_size: expected at least 1, found 0"
    );
    assert_eq!(
        bad(ScheduleConfig::step_decay(0.1, 10, -0.5)),
        "ScheduleConfig.decay.gamma: expected a finite value >= 0, found -0.5"
    );
    assert_eq!(bad(ScheduleConfig::cosine(0.1, 0, 0.0)), "ScheduleConfig.decay.t_max: expected at least 1, found 0");
    assert_eq!(
        bad(ScheduleConfig::cosine(0.1, 10, -1.0)),
        "ScheduleConfig.decay.eta_min: expected a finite value >= 0, found -1"
    );
    assert_eq!(bad(ScheduleConfig::constant(-1.0)), "ScheduleConfig.base: expected a finite value >= 0, found -1");
    assert_eq!(
        bad(ScheduleConfig::constant(0.1).with_warmup(0, 0.5)),
        "ScheduleConfig.warmup.steps: expected at least 1, found 0"
    );
    assert_eq!(
        bad(ScheduleConfig::constant(0.1).with_warmup(5, 0.0)),
        "ScheduleConfig.warmup.start_factor: expected a value in (0, 1], found 0"
    );
    assert_eq!(
        bad(ScheduleConfig::exponential(1.0, 0.0, 0.1)),
        "ScheduleConfig.decay.gamma: expected a value in (0, 1], found 0"
    );
    assert_eq!(
        bad(ScheduleConfig::linear(1.0, 10, -0.1)),
        "ScheduleConfig.decay.end: expected a finite value >= 0, found -0.1"
    );
}
