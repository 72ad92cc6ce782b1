//! A stop is exact at every step: for each task, a short run stopped after
//! its step k (as Ctrl-C, SIGTERM, SIGUSR1 or `minnow_train::request_stop`
//! would stop it) and resumed ends bit for bit as the run that was never
//! stopped, for every k, and so does one killed during its final suite:
//! the metrics lines (wall-clock fields aside), the checkpoint's tensors
//! and metadata, and every file the task writes (`eval.json`,
//! `summary.json`, the logic CA's circuit, AlphaZero's `best/` and Elo
//! curve). The configs are tiny; the runs train through the registry and
//! a session of the test's own (`stops`), as `cargo xtask train` does.

mod stops;

use serde_json::{Value, json};

/// Trains registry task `name` with `config` for `steps` (its own unit),
/// stopped at every step in turn.
fn every_stop(name: &str, config: Value, steps: u64) {
    let registry = minnow_tasks::registry();
    let task = registry.get(name).unwrap();
    let configured = task.configure(&config, Some(3), Some(steps)).unwrap();
    stops::check_every_stop(task, &configured);
}

#[test]
fn digits_mlp() {
    every_stop("digits-mlp", json!({"hidden": 8, "batch": 16, "eval_every": 3, "checkpoint_every": 5}), 24);
}

#[test]
fn digits_cnn() {
    every_stop("digits-cnn", json!({"hidden": 8, "batch": 8, "eval_every": 3, "checkpoint_every": 5}), 8);
}

#[test]
fn digits_lstm() {
    every_stop("digits-lstm", json!({"hidden": 8, "batch": 8, "eval_every": 3, "checkpoint_every": 5}), 8);
}

/// Two members, a restart at step 6 and a repair every third step.
#[test]
fn logic_ca() {
    let config = json!({"variant": "game-of-life", "population": 2, "restart_after": 6, "checkpoint_every": 4,
        "repair": {"every": 3, "from": 0.0, "evaluations": 20}});
    every_stop("logic-ca", config, 12);
}

/// A DQN config for tiny runs: two environments, learning from the
/// fourth step, an evaluation every five steps and a checkpoint every
/// eight (both cut across episodes).
fn dqn(more: Value) -> Value {
    let dqn = json!({
        "network": {"hidden": [8]},
        "batch_size": 8,
        "learning_starts": 8,
        "num_envs": 2,
        "replay": {"capacity": 64, "prioritized": true},
        "eval_every": 10,
        "checkpoint_every": 16,
    });
    json!({"dqn": laid_over(dqn, more), "eval": {"during": 1, "last": 1}})
}

#[test]
fn dqn_cartpole() {
    every_stop("dqn-cartpole", dqn(json!({})), 64);
}

/// The curriculum rises during the run (its near-greedy env explores
/// little from the fourth step on), so the episodes replayed on a resume
/// started at different levels.
#[test]
fn dqn_cube() {
    let epsilon = json!({"base": 1.0, "decay": {"kind": "linear", "steps": 8, "end": 0.0}});
    let curriculum = json!({"start": 1, "max": 14, "window": 2, "threshold": 0.5});
    let mut config = dqn(json!({"n_step": 2, "epsilon": epsilon, "curriculum": curriculum}));
    config["env"] = json!({"max_steps": 4});
    every_stop("dqn-cube", config, 64);
}

#[test]
fn dqn_2048() {
    every_stop("dqn-2048", dqn(json!({})), 64);
}

#[test]
fn ntuple_2048() {
    let config = json!({"tuples": [[0, 1, 2, 3], [0, 4, 8, 12]], "levels": 8, "checkpoint_every": 5,
        "eval": {"every": 4, "during": 1, "last": 1}});
    every_stop("ntuple-2048", config, 16);
}

/// Temporal coherence's sums and a second stage of tables (from the
/// first 64) carried across every stop; the final evaluation searches two
/// levels deep.
#[test]
fn ntuple_2048_coherent_staged() {
    let config = json!({"tuples": [[0, 1, 2, 3], [0, 4, 8, 12]], "levels": 8, "checkpoint_every": 5,
        "coherence": true, "stages": [64], "alpha": 1.0, "initial_value": 100.0,
        "eval": {"every": 4, "during": 1, "last": 1, "depth": 2}});
    every_stop("ntuple-2048", config, 16);
}

#[test]
fn cube_solver() {
    let config = json!({
        "training": {"net": {"hidden": 8, "width": 8, "blocks": 1}, "batch_size": 8, "max_scramble": 4},
        "eval": {"every": 4, "checkpoint_every": 5, "during": 1, "last": 1},
    });
    every_stop("cube-solver", config, 16);
}

#[test]
fn td_backgammon() {
    let config = json!({"hidden": 4, "checkpoint_every": 5,
        "eval": {"every": 4, "games": 1, "final_games": 1, "candidates": 2, "threads": 1}});
    every_stop("td-backgammon", config, 16);
}

/// An AlphaZero config for tiny runs: a rated evaluation every second
/// iteration (the Elo league, best/), a checkpoint every third; `eval`
/// adds to the evaluation's keys.
fn az(eval: Value) -> Value {
    let mut config = json!({
        "network": {"width": 8, "blocks": 1}, "mcts": {"simulations": 2},
        "self_play": {"workers": 1, "games_per_iteration": 2, "parallel_games": 2, "fast_simulations": 2},
        "training": {"min_replay": 8, "steps_per_iteration": 2, "batch": 8},
        "eval": {"every": 2, "games_vs_random": 2, "games_vs_rollout": 0, "simulations": 2, "threads": 1,
                 "final_games": 2},
        "checkpoint_every": 3,
    });
    config["eval"] = laid_over(config["eval"].take(), eval);
    config
}

/// `base` with the keys of `more` in place of its own.
fn laid_over(mut base: Value, more: Value) -> Value {
    base.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
    base
}

#[test]
fn az_connect4() {
    every_stop("az-connect4", az(json!({})), 10);
}

/// Slow: the final suite plays 5,000 games against pubeval, whatever
/// the config (`cargo test --release -- --ignored`).
#[test]
#[ignore]
fn az_backgammon() {
    every_stop("az-backgammon", az(json!({"yardstick_games": 1})), 6);
}
