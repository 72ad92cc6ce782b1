//! DQN's configs and the pieces that need no environment: bad configs
//! are named errors, per-env exploration rates, the curriculum. (DQN on
//! the shipped environments is tested in `minnow-tasks`.)

use minnow_optim::{AdamConfig, Decay, ScheduleConfig};
use minnow_rl::dqn::{CurriculumConfig, DqnConfig, DqnLearner, MemoryConfig, QNetworkConfig, TargetUpdate};

#[test]
fn bad_configs_are_named_errors() {
    let d = DqnConfig::default;
    let cases: [(&str, DqnConfig); 9] = [
        ("DqnConfig.gamma", DqnConfig { gamma: 1.5, ..d() }),
        ("DqnConfig.n_step", DqnConfig { n_step: 0, ..d() }),
        (
            "DqnConfig.replay.capacity",
            DqnConfig { batch_size: 512, replay: MemoryConfig { capacity: 100, ..d().replay }, ..d() },
        ),
        ("DqnConfig.optimizer.lr", DqnConfig { optimizer: AdamConfig { lr: f32::NAN, ..d().optimizer }, ..d() }),
        ("DqnConfig.target.tau", DqnConfig { target: TargetUpdate::Polyak { tau: 0.0 }, ..d() }),
        ("DqnConfig.network.hidden", DqnConfig { network: QNetworkConfig { hidden: vec![], ..d().network }, ..d() }),
        ("DqnConfig.lr_decay.end", DqnConfig { lr_decay: Decay::Linear { steps: 10, end: -1.0 }, ..d() }),
        ("DqnConfig.epsilon.decay.end", DqnConfig { epsilon: ScheduleConfig::linear(1.0, 10, 1.5), ..d() }),
        ("DqnConfig.replay.alpha", DqnConfig { replay: MemoryConfig { alpha: 2.0, ..d().replay }, ..d() }),
    ];
    for (field, config) in cases {
        let err = DqnLearner::new(&config, 4, 2, false).unwrap_err();
        assert!(err.to_string().starts_with(field), "{field}: {err}");
    }
}

/// A JSON config names its sections' keys; unknown ones are refused.
#[test]
fn configs_nest_their_sections_in_json() {
    let config: DqnConfig = serde_json::from_str(
        r#"{"network": {"hidden": [32]}, "replay": {"capacity": 5000, "prioritized": true},
            "optimizer": {"lr": 0.01}, "lr_decay": {"kind": "linear", "steps": 100, "end": 0.001},
            "epsilon": {"base": 1.0, "decay": {"kind": "exponential", "gamma": 0.99, "min": 0.05}}}"#,
    )
    .unwrap();
    assert_eq!(config.network, QNetworkConfig { hidden: vec![32], ..QNetworkConfig::default() });
    assert_eq!((config.replay.capacity, config.replay.prioritized), (5000, true));
    assert_eq!(config.lr_schedule().unwrap().value_at(100), 0.001);
    config.validate().unwrap();
    let err = serde_json::from_str::<DqnConfig>(r#"{"replay": {"capcity": 500}}"#).unwrap_err().to_string();
    assert!(err.contains("unknown field `capcity`"), "{err}");
}

#[test]
fn per_env_epsilons_span_the_ape_x_range() {
    let p = minnow_rl::dqn::PerEnvEpsilon { base: 0.4, alpha: 7.0 };
    assert!((p.rate(0, 64) - 0.4).abs() < 1e-6);
    assert!((p.rate(63, 64) - 0.4f32.powi(8)).abs() < 1e-7);
    assert!(p.rate(10, 64) > p.rate(11, 64));
    assert_eq!(p.rate(0, 1), 0.4);
}

#[test]
fn curriculum_rises_only_on_success_at_its_level() {
    let config = CurriculumConfig { start: 2, max: 4, window: 10, threshold: 0.8 };
    let mut c = minnow_rl::dqn::Curriculum::new(config).unwrap();
    for _ in 0..50 {
        assert!(!c.record(1, true), "easier episodes do not count");
    }
    for k in 0..10 {
        c.record(2, k % 2 == 0);
    }
    assert_eq!(c.level, 2, "50% success is below the threshold");
    let rose = (0..10).filter(|_| c.record(2, true)).count() == 1;
    assert!(rose && c.level == 3);
    assert!(minnow_rl::dqn::Curriculum::new(CurriculumConfig { max: 1, ..config }).is_err());
}
