//! DQN on the shipped environments: the learner's targets, learning on
//! the cube (from its model too), oracle pretraining, and checkpoints that
//! resume exactly, at a boundary or between.

use minnow_envs::{CartPole, CartPoleConfig, Cube2, Cube2Config, Env};
use minnow_nn::testing::ScratchDir;
use minnow_nn::{Checkpoint, Forward};
use minnow_optim::{AdamConfig, ScheduleConfig};
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{CurriculumConfig, DqnConfig, DqnLearner, DqnRun, EnvModel, MemoryConfig, QNetworkConfig};
use minnow_rl::{RlError, Transition, TransitionSink};
use minnow_tasks::eval::evaluate_cube;
use minnow_tasks::{CartPoleDqn, CubeDqn, presets};
use rand::{Rng, SeedableRng};

fn small(config: DqnConfig) -> DqnConfig {
    DqnConfig {
        network: QNetworkConfig { hidden: vec![32], ..config.network.clone() },
        batch_size: 16,
        replay: MemoryConfig { capacity: 1_000, ..config.replay },
        learning_starts: 16,
        ..config
    }
}

/// With gamma 0 the target is the reward, so a learner replaying two
/// one-step transitions must bring Q of each action to its own reward
/// (and with PER the importance weights must not bias that).
#[test]
fn q_converges_to_one_step_rewards() {
    for prioritized in [false, true] {
        let base = small(DqnConfig::default());
        let config = DqnConfig {
            gamma: 0.0,
            n_step: 1,
            optimizer: AdamConfig { lr: 1e-2, ..base.optimizer },
            replay: MemoryConfig { prioritized, ..base.replay },
            ..base
        };
        let mut learner = DqnLearner::new(&config, 4, 2, false).unwrap();
        let (obs, next) = ([1.0, 0.0, 0.5, 0.0], [0.0; 4]);
        for (action, reward) in [(0, 2.0), (1, -1.0)] {
            for _ in 0..8 {
                let t = Transition::one_step(&obs, action, reward, &next, false, 0.0);
                learner.memory_mut().push_transition(&t).unwrap();
            }
        }
        for _ in 0..600 {
            learner.update(&cartpole()).unwrap();
        }
        let mut g = minnow_autodiff::Tape::new();
        let mut inference = g.inference(learner.params());
        let x = inference.input(&[1, 4], &obs).unwrap();
        let q = learner.network().forward(&mut inference, x).unwrap();
        let q = inference.value(q);
        assert!((q[0] - 2.0).abs() < 0.05 && (q[1] + 1.0).abs() < 0.05, "prioritized {prioritized}: Q = {q:?}");
    }
}

fn cube_env() -> CubeDqn {
    CubeDqn(Cube2::new(Cube2Config { scramble_depth: 1, max_steps: 6, reward_solved: 0.0, reward_step: -1.0 }).unwrap())
}

/// A random policy's share of depth-2 positions solved within 4 moves.
fn random_solve_rate(positions: &[minnow_envs::CubeState]) -> f64 {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
    let mut solved = 0;
    for &s in positions {
        let mut env = cube_env();
        env.reset_to(s);
        for _ in 0..4 {
            if env.step(rng.random_range(0..6)).unwrap().done {
                solved += 1;
                break;
            }
        }
    }
    solved as f64 / positions.len() as f64
}

#[test]
fn cube_agent_learns_short_scrambles() {
    for all_actions in [false, true] {
        assert_learns_short_scrambles(all_actions);
    }
}

fn assert_learns_short_scrambles(all_actions: bool) {
    let config = DqnConfig {
        all_actions,
        seed: 3,
        network: QNetworkConfig { hidden: vec![128], ..QNetworkConfig::default() },
        batch_size: 64,
        replay: MemoryConfig { capacity: 20_000, ..MemoryConfig::default() },
        learning_starts: 1_000,
        num_envs: 16,
        updates_per_step: 1,
        n_step: 1,
        optimizer: AdamConfig { lr: 1e-3, ..AdamConfig::default() },
        epsilon: ScheduleConfig::linear(1.0, 5_000, 0.1),
        curriculum: Some(CurriculumConfig { start: 2, max: 3, window: 200, threshold: 0.9 }),
        env_steps: 12_000,
        checkpoint_every: 1_000_000,
        ..DqnConfig::default()
    };
    let mut run = DqnRun::new(&config, cube_env()).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    let positions = minnow_envs::CubeDistances::get().evaluation_set(2, 300, 5).unwrap();
    let random = random_solve_rate(&positions);
    let learned = evaluate_cube(run.learner_mut(), [1, 2], 300, 5).unwrap();
    assert_eq!(learned[0].solved_within_d, 1.0, "all_actions {all_actions}: distance 1 in one move: {learned:?}");
    assert!(
        learned[1].solved_within_2d > 0.9 && learned[1].solved_within_2d > 3.0 * random,
        "all_actions {all_actions}: distance 2: learned {:?}, random {random}",
        learned[1]
    );
}

/// The cube's model agrees with stepping the environment, move by move.
#[test]
fn cube_successors_match_the_environment() {
    let mut env = cube_env();
    let (mut obs, mut stepped) = ([0.0; 144], [0.0; 144]);
    let (mut next, mut rewards, mut terminal) = ([0.0; 6 * 144], [0.0; 6], [0.0; 6]);
    for seed in 0..30 {
        env.reset(seed);
        let start = *env.state();
        env.observe(&mut obs);
        env.successors(&obs, &mut next, &mut rewards, &mut terminal).unwrap();
        for m in 0..6 {
            env.reset_to(start);
            let step = env.step(m).unwrap();
            env.observe(&mut stepped);
            assert_eq!(&next[m * 144..(m + 1) * 144], &stepped[..], "seed {seed}, move {m}");
            assert_eq!((rewards[m], terminal[m] == 1.0), (step.reward, step.done), "seed {seed}, move {m}");
        }
    }
    assert!(env.successors(&[0.5; 144], &mut next, &mut rewards, &mut terminal).is_err(), "not a cube");
}

#[test]
fn all_actions_needs_a_model_one_step_targets_and_uniform_replay() {
    let config = DqnConfig { all_actions: true, n_step: 1, ..DqnConfig::default() };
    let err = DqnRun::new(&config, cartpole()).unwrap_err();
    assert!(matches!(err, RlError::NoModel { env: "cartpole", option: "all_actions", .. }), "{err}");
    for (field, bad) in [
        ("n_step", DqnConfig { n_step: 3, ..config.clone() }),
        (
            "replay.prioritized",
            DqnConfig { replay: MemoryConfig { prioritized: true, ..config.replay }, ..config.clone() },
        ),
    ] {
        let err = DqnRun::new(&bad, cube_env()).unwrap_err().to_string();
        assert!(err.contains(field), "{field}: {err}");
    }
    let mut plain = DqnLearner::new(&DqnConfig::default(), 144, 6, false).unwrap();
    assert!(plain.update_all_actions(&cube_env()).is_err(), "a learner built without all_actions");
}

#[test]
fn illegal_actions_are_errors_not_panics() {
    let mut env = cartpole();
    assert!(env.step(7).is_err());
    let mut learner = DqnLearner::new(&small(DqnConfig::default()), 4, 2, false).unwrap();
    // Too few transitions for a batch.
    assert!(matches!(learner.update(&cartpole()), Err(RlError::BatchTooLarge { .. })));
    let mut envs = vec![env];
    let outcomes = play_greedy(&mut learner, &mut envs, 3).unwrap();
    assert_eq!(outcomes[0].steps, 3);
}

fn cartpole_config() -> DqnConfig {
    let base = small(presets::cartpole());
    DqnConfig {
        env_steps: 2_400,
        checkpoint_every: 1_200,
        num_envs: 4,
        replay: MemoryConfig { prioritized: true, ..base.replay },
        ..base
    }
}

fn cartpole() -> CartPoleDqn {
    CartPoleDqn(CartPole::new(CartPoleConfig::default()).unwrap())
}

#[test]
fn resumed_run_continues_exactly() {
    let config = cartpole_config();
    let dir = std::env::temp_dir().join(format!("minnow-dqn-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.safetensors");

    let straight = DqnRun::new(&config, cartpole()).unwrap();
    let mut first = DqnRun::new(&config, cartpole()).unwrap();
    while !first.at_boundary() || first.env_steps() == 0 {
        first.step().unwrap();
    }
    first.save(&path).unwrap();
    drop(first);
    let resumed = DqnRun::resume(&config, cartpole(), &path).unwrap();
    assert_eq!(resumed.env_steps(), 1_200);
    assert_end_alike(straight, resumed);

    // Another network shape: a clear error naming what differs.
    let wider = DqnConfig { network: QNetworkConfig { hidden: vec![64], ..config.network.clone() }, ..config.clone() };
    let err = DqnRun::resume(&wider, cartpole(), &path).unwrap_err().to_string();
    assert!(err.contains("hidden"), "{err}");
    // Another task.
    let err = DqnRun::resume(&config, cube_env(), &path).unwrap_err().to_string();
    assert!(err.contains("cartpole"), "{err}");
    // A truncated file.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(DqnRun::resume(&config, cartpole(), &path).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Trains both runs to their end and asserts they learned alike.
fn assert_end_alike(mut straight: DqnRun<CartPoleDqn>, mut resumed: DqnRun<CartPoleDqn>) {
    for run in [&mut straight, &mut resumed] {
        while !run.is_done() {
            run.step().unwrap();
        }
    }
    assert_eq!(straight.learner().params().values(), resumed.learner().params().values());
    assert_eq!(straight.learner().updates(), resumed.learner().updates());
    assert_eq!(straight.recent(), resumed.recent());
}

/// Saved between boundaries (where a stop lands), a run carries its
/// episodes under way and continues exactly; crafted ones are refused,
/// naming the env and what cannot be.
#[test]
fn a_run_saved_mid_episode_continues_exactly() {
    let config = cartpole_config();
    let dir = ScratchDir::new("dqn-mid-episode");
    let path = dir.join("run.safetensors");
    let straight = DqnRun::new(&config, cartpole()).unwrap();
    let mut first = DqnRun::new(&config, cartpole()).unwrap();
    while first.env_steps() < 1_000 {
        first.step().unwrap();
    }
    assert!(!first.at_boundary());
    first.save(&path).unwrap();
    drop(first);
    assert_end_alike(straight, DqnRun::resume(&config, cartpole(), &path).unwrap());

    let saved = Checkpoint::load(&path).unwrap();
    let crafted = dir.join("crafted.safetensors");
    let episode = |level: usize, actions: &[u8]| serde_json::json!({"seed": 7, "level": level, "actions": actions});
    let refused = |running: serde_json::Value| {
        saved.rewrite(&["running"]).meta("running", running.to_string()).save(&crafted).unwrap();
        DqnRun::resume(&config, cartpole(), &crafted).unwrap_err().to_string()
    };
    let fine = episode(0, &[0, 1]);
    let err = refused(serde_json::json!([fine, fine]));
    assert!(err.contains("'running'") && err.contains("2 episodes under way, expected one per env (4)"), "{err}");
    let err = refused(serde_json::json!([fine, fine, fine, episode(0, &[1, 5])]));
    assert!(err.contains("env 3, action 1"), "{err}");
    let err = refused(serde_json::json!([fine, episode(2, &[]), fine, fine]));
    assert!(err.contains("env 1: level 2, expected one in 0..=0"), "{err}");
    // Always left: the pole falls within a few hundred steps.
    let err = refused(serde_json::json!([fine, fine, episode(0, &[0; 300]), fine]));
    assert!(err.contains("env 2: the episode ends at action"), "{err}");
}

#[test]
fn oracle_pretraining_teaches_short_distances() {
    let cube = presets::cube();
    let config = DqnConfig {
        network: QNetworkConfig { hidden: vec![128], ..cube.network.clone() },
        batch_size: 64,
        optimizer: AdamConfig { lr: 2e-3, ..cube.optimizer },
        ..cube
    };
    let mut learner = DqnLearner::new(&config, 144, 6, false).unwrap();
    let before = evaluate_cube(&mut learner, [1], 200, 8).unwrap()[0].solved_within_d;
    let loss = minnow_tasks::pretrain_cube(&mut learner, 400, 64, -1.0, 0.0, 4).unwrap();
    let after = evaluate_cube(&mut learner, [1, 2], 200, 8).unwrap();
    assert!(loss.is_finite());
    assert!(after[0].solved_within_d > 0.95 && before < 0.5, "before {before}, after {after:?}");
}
