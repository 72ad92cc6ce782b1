//! DQN's configs and the pieces that need no environment: bad configs
//! are named errors, per-env exploration rates, the curriculum. (DQN on
//! the shipped environments is tested in `minnow-tasks`.)

use minnow_rl::dqn::{CurriculumConfig, DqnConfig, DqnLearner, TargetUpdate};

#[test]
fn bad_configs_are_named_errors() {
    let cases: [(&str, DqnConfig); 6] = [
        ("gamma", DqnConfig { gamma: 1.5, ..DqnConfig::default() }),
        ("n_step", DqnConfig { n_step: 0, ..DqnConfig::default() }),
        ("replay_capacity", DqnConfig { batch_size: 512, replay_capacity: 100, ..DqnConfig::default() }),
        ("lr", DqnConfig { lr: f32::NAN, ..DqnConfig::default() }),
        ("target.tau", DqnConfig { target: TargetUpdate::Polyak { tau: 0.0 }, ..DqnConfig::default() }),
        ("hidden", DqnConfig { hidden: vec![], ..DqnConfig::default() }),
    ];
    for (field, config) in cases {
        let err = DqnLearner::new(&config, 4, 2, false).unwrap_err();
        assert!(err.to_string().contains(field), "{field}: {err}");
    }
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
