//! Every optimiser and schedule config reads from JSON: missing fields
//! take PyTorch's defaults, unknown keys are refused by name, and a config
//! written out reads back equal.

use minnow_optim::{AdaGradConfig, AdamConfig, AdamWConfig, Decay, RmsPropConfig, ScheduleConfig, SgdConfig};
use serde::Serialize;
use serde::de::DeserializeOwned;

#[track_caller]
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(config: T) {
    let text = serde_json::to_string(&config).unwrap();
    assert_eq!(serde_json::from_str::<T>(&text).unwrap(), config, "{text}");
}

#[test]
fn configs_round_trip_through_json() {
    round_trip(AdamConfig { lr: 3e-4, ..AdamConfig::default() });
    round_trip(AdamWConfig::default());
    round_trip(SgdConfig { momentum: 0.9, nesterov: true, ..SgdConfig::default() });
    round_trip(RmsPropConfig { centered: true, ..RmsPropConfig::default() });
    round_trip(AdaGradConfig::default());
    round_trip(ScheduleConfig::cosine(1e-3, 1000, 1e-5).with_warmup(100, 0.1));
    round_trip(ScheduleConfig::step_decay(1e-2, 10, 0.5));
    round_trip(ScheduleConfig::constant(0.1));
}

#[test]
fn missing_fields_take_the_defaults() {
    let adam: AdamConfig = serde_json::from_str(r#"{"lr": 0.01}"#).unwrap();
    assert_eq!(adam, AdamConfig { lr: 0.01, ..AdamConfig::default() });
    let sgd: SgdConfig = serde_json::from_str("{}").unwrap();
    assert_eq!(sgd, SgdConfig::default());
    let schedule: ScheduleConfig =
        serde_json::from_str(r#"{"lr": 0.1, "warmup": null, "decay": {"kind": "step", "step_size": 5, "gamma": 0.5}}"#)
            .unwrap();
    assert_eq!(schedule.decay, Decay::Step { step_size: 5, gamma: 0.5 });
    // The base value by its own name, with no warm-up key at all.
    let schedule: ScheduleConfig =
        serde_json::from_str(r#"{"base": 1.0, "decay": {"kind": "linear", "steps": 10, "end": 0.1}}"#).unwrap();
    assert_eq!(schedule, ScheduleConfig::linear(1.0, 10, 0.1));
}

#[test]
fn unknown_keys_are_named() {
    let err = serde_json::from_str::<AdamConfig>(r#"{"learning_rate": 0.01}"#).unwrap_err().to_string();
    assert!(err.contains("unknown field `learning_rate`"), "{err}");
    let err = serde_json::from_str::<ScheduleConfig>(
        r#"{"lr": 0.1, "warmup": null, "decay": {"kind": "cosine", "t_max": 5, "eta_min": 0, "gamma": 1}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown field `gamma`"), "{err}");
    let err = serde_json::from_str::<ScheduleConfig>(r#"{"lr": 0.1, "warmup": null, "decay": {"kind": "polynomial"}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown variant `polynomial`"), "{err}");
}
