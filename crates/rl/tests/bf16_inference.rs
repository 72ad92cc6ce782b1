//! The `mcts.inference` switch: "f32" by default and left out of written
//! configs (so every existing run's config identity is unchanged), "bf16"
//! runs the leaf evaluator on bf16 weights close to the f32 outputs and
//! refreshed with each snapshot, a bad value is an error naming the key.

mod common;

use minnow_autodiff::Params;
use minnow_envs::{Game, TicTacToe};
use minnow_nn::{PolicyValueNet, PolicyValueNetConfig};
use minnow_rl::alphazero::{AzConfig, AzRun, Positions, SelfPlayConfig, SelfPlayWorker};
use minnow_rl::mcts::{Evaluator, Inference, MctsConfig, NetEvaluator};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

/// A policy head wider than tic-tac-toe's 9 actions, as the benchmarks'
/// network is wider than backgammon's: the extra logits are dropped.
fn network(policy: usize, seed: u64) -> (PolicyValueNet, Params) {
    let mut params = Params::new();
    let net = PolicyValueNetConfig { inputs: 18, width: 33, blocks: 2, policy }
        .init(&mut params, "net", &mut Pcg64Mcg::seed_from_u64(seed))
        .unwrap();
    (net, params)
}

fn positions() -> Vec<TicTacToe> {
    let mut games = vec![TicTacToe::new()];
    for a in [4, 0, 8, 2, 6] {
        let mut g = *games.last().unwrap();
        g.apply(a).unwrap();
        games.push(g);
    }
    games
}

fn evaluate(eval: &mut NetEvaluator<TicTacToe>, states: &[TicTacToe]) -> (Vec<f32>, Vec<f32>) {
    let (mut l, mut v) = (vec![f32::NAN; states.len() * TicTacToe::ACTIONS], vec![f32::NAN; states.len()]);
    eval.evaluate(states, &mut l, &mut v);
    (l, v)
}

fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn inference_is_f32_by_default_and_left_out_of_written_configs() {
    let config = AzConfig::default();
    assert_eq!(config.mcts.inference, Inference::F32);
    let text = serde_json::to_string(&config).unwrap();
    assert!(!text.contains("inference"), "{text}");
    let (net, params) = network(9, 1);
    assert_eq!(NetEvaluator::<TicTacToe>::new(&net, Arc::new(params)).unwrap().inference(), Inference::F32);
}

#[test]
fn bf16_is_written_and_read_back() {
    let config: AzConfig = serde_json::from_str(r#"{"mcts": {"inference": "bf16", "simulations": 12}}"#).unwrap();
    assert_eq!((config.mcts.inference, config.mcts.simulations), (Inference::Bf16, 12));
    let text = serde_json::to_string(&config).unwrap();
    assert!(text.contains(r#""inference":"bf16""#), "{text}");
    assert_eq!(serde_json::from_str::<AzConfig>(&text).unwrap(), config);
    let f32_config: AzConfig = serde_json::from_str(r#"{"mcts": {"inference": "f32"}}"#).unwrap();
    assert_eq!(f32_config, AzConfig::default());
}

#[test]
fn a_bad_inference_value_is_an_error_naming_the_key() {
    // A config file is read through `layered`, which puts the key's path
    // before serde's message.
    for bad in [r#""bf17""#, r#""F32""#, r#""""#, "16"] {
        let file: serde_json::Value = serde_json::from_str(&format!(r#"{{"mcts": {{"inference": {bad}}}}}"#)).unwrap();
        let err = minnow_train::config::layered(AzConfig::default(), &file).unwrap_err().to_string();
        assert!(err.starts_with("mcts.inference: "), "{bad}: {err}");
    }
    let err = serde_json::from_str::<AzConfig>(r#"{"mcts": {"inference": "bf17"}}"#).unwrap_err().to_string();
    assert!(err.contains(r#"expected "f32" or "bf16", found "bf17""#), "{err}");
    assert!("half".parse::<Inference>().unwrap_err().contains(r#"found "half""#));
}

/// The bf16 evaluator's logits and values stay within 0.05 of the f32
/// evaluator's (the network-level bound of `minnow-nn`'s
/// `tests/policy_value_inference.rs`), and a new snapshot reaches it
/// through `set_params`.
#[test]
fn the_bf16_evaluator_is_close_to_the_f32_one_and_follows_new_snapshots() {
    for policy in [9, 40] {
        let (net, params) = network(policy, 2);
        let params = Arc::new(params);
        let mut f32_eval = NetEvaluator::<TicTacToe>::new(&net, params.clone()).unwrap();
        let mut bf16_eval = NetEvaluator::<TicTacToe>::with_inference(&net, params, Inference::Bf16).unwrap();
        assert_eq!(bf16_eval.inference(), Inference::Bf16);
        let states = positions();
        let (l32, v32) = evaluate(&mut f32_eval, &states);
        let (l16, v16) = evaluate(&mut bf16_eval, &states);
        let (dl, dv) = (largest_difference(&l32, &l16), largest_difference(&v32, &v16));
        assert!(dl > 0.0 && dl <= 0.05 && dv <= 0.05, "policy {policy}: logits {dl}, values {dv}");

        let (_, other) = network(policy, 3);
        let other = Arc::new(other);
        f32_eval.set_params(other.clone()).unwrap();
        bf16_eval.set_params(other).unwrap();
        let (l32b, v32b) = evaluate(&mut f32_eval, &states);
        let (l16b, v16b) = evaluate(&mut bf16_eval, &states);
        assert!(largest_difference(&l32b, &l32) > 0.1, "the new snapshot should change the outputs");
        let (dl, dv) = (largest_difference(&l32b, &l16b), largest_difference(&v32b, &v16b));
        assert!(dl <= 0.05 && dv <= 0.05, "policy {policy} after set_params: logits {dl}, values {dv}");
    }
}

/// Self-play under `mcts.inference = "bf16"` plays whole games, the same
/// ones again from the same seed.
#[test]
fn self_play_runs_with_bf16_inference_and_is_deterministic() {
    let mcts = MctsConfig { simulations: 16, inference: Inference::Bf16, ..MctsConfig::default() };
    let self_play = SelfPlayConfig { parallel_games: 4, ..SelfPlayConfig::default() };
    let play = || {
        let (net, params) = network(9, 4);
        let mut worker = SelfPlayWorker::<TicTacToe>::new(&net, Arc::new(params), &mcts, &self_play).unwrap();
        let mut out = Positions::default();
        worker.play(6, 11, &mut out).unwrap();
        out
    };
    let (a, b) = (play(), play());
    assert!(a.len() >= 6 * 5, "{} positions", a.len());
    assert_eq!((a.obs, a.policy, a.value), (b.obs, b.policy, b.value));
}

/// A whole run under bf16: self-play on each new snapshot, training, an
/// evaluation match; its players run the bf16 forward too.
#[test]
fn a_run_iterates_and_evaluates_with_bf16_inference() {
    let mut c = common::tictactoe();
    c.iterations = 2;
    c.self_play.games_per_iteration = 8;
    c.training.min_replay = 8;
    c.mcts.inference = Inference::Bf16;
    let mut run = AzRun::<TicTacToe>::new(c).unwrap();
    for _ in 0..2 {
        let report = run.iterate().unwrap();
        assert!(report.self_play.games >= 8, "{report:?}");
    }
    assert!(run.totals().updates > 0);
    let player = run.player(8, 1).unwrap();
    assert!(format!("{player:?}").contains("bf16: true"), "{player:?}");
    let report = run.play_matches(10, 0, 3).unwrap();
    assert_eq!(report.vs_random.games, 10);
}
