//! A task's own yardstick during an AlphaZero run: played at every
//! evaluation with the current snapshot, its metrics first and its games
//! in the ratings, skipped when its games are 0, and training unchanged
//! by it.

mod common;

use minnow_envs::TicTacToe;
use minnow_rl::alphazero::{
    AzConfig, AzRun, EVAL_SEED, PolicyPlayer, RandomPlayer, Yardstick, YardstickReport, play_match,
};
use minnow_rl::mcts::NetEvaluator;
use minnow_train::{Cadence, Event, Observer};
use std::sync::{Arc, Mutex};

fn config(yardstick_games: usize) -> AzConfig {
    let mut c = common::tictactoe();
    c.iterations = 4;
    c.self_play.games_per_iteration = 32;
    c.training.min_replay = 64;
    c.training.steps_per_iteration = 20;
    c.eval.every = 2;
    c.eval.simulations = 4;
    c.eval.games_vs_random = 10;
    c.eval.games_vs_rollout = 0;
    c.eval.elo_pool = 1;
    c.eval.elo_games = 2;
    c.eval.yardstick_games = yardstick_games;
    c
}

/// Each evaluation's metric names and values.
#[derive(Default)]
struct Evals(Vec<Vec<(&'static str, f64)>>);

impl Observer for Evals {
    fn observe(&mut self, event: Event<'_>) -> minnow_train::Result<()> {
        if let Event::Eval { metrics, .. } = event {
            self.0.push(metrics.to_vec());
        }
        Ok(())
    }
}

/// The network's policy against the random player: what the yardstick
/// plays, with each call's (iteration, games, seed) logged.
fn yardstick(calls: Arc<Mutex<Vec<(u64, usize, u64)>>>) -> Yardstick {
    Yardstick::new("random policy", "policy_win_rate_vs_random", move |agent, games, seed| {
        calls.lock().unwrap().push((agent.iteration, games, seed));
        let policy = |_: u64| Ok(PolicyPlayer::new(NetEvaluator::new(&agent.net, agent.params.clone())?));
        let random = |s: u64| Ok(RandomPlayer::new::<TicTacToe>(s));
        let result = play_match::<TicTacToe, _, _>(&policy, &random, games, seed, 1, 100)?;
        let metrics = vec![("policy_win_rate_vs_random", result.win_rate()), ("yardstick_games", result.games as f64)];
        Ok(YardstickReport { result, metrics })
    })
}

/// Drives a run with (or without) a yardstick; its evaluations, final
/// parameters and the games its ratings recorded against the yardstick.
fn drive(yardstick_games: usize, with: Option<Yardstick>) -> (Evals, Vec<f32>, u64) {
    let mut run = AzRun::<TicTacToe>::new(config(yardstick_games)).unwrap();
    if let Some(y) = with {
        run.set_yardstick(y);
    }
    let cadence = Cadence { eval_every: 2, checkpoint_every: 100, eval_at_end: false };
    let mut evals = Evals::default();
    minnow_train::drive(&mut run, cadence, None, &mut evals).unwrap();
    let record = run.league().record();
    let rated = match record.player("random policy") {
        Some(p) => record.pairs.iter().filter(|r| r.a == p || r.b == p).map(|r| r.result.games).sum(),
        None => 0,
    };
    (evals, run.agent().params.values().to_vec(), rated)
}

#[test]
fn the_yardstick_plays_each_evaluation_first_and_leaves_training_alone() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (evals, params, rated) = drive(30, Some(yardstick(calls.clone())));
    assert_eq!(*calls.lock().unwrap(), [(2, 30, EVAL_SEED), (4, 30, EVAL_SEED)]);
    assert_eq!(evals.0.len(), 2);
    for metrics in &evals.0 {
        assert_eq!(metrics[0].0, "policy_win_rate_vs_random", "the headline first: {metrics:?}");
        assert!((0.0..=1.0).contains(&metrics[0].1));
        assert_eq!(metrics[1], ("yardstick_games", 30.0));
        assert_eq!(metrics[2].0, "yardstick_seconds");
        assert!(metrics.iter().any(|(k, _)| *k == "win_rate_vs_random"), "the generic matches still play");
    }

    // Both evaluations' games are rated against the yardstick.
    assert_eq!(rated, 60);

    let (plain, plain_params, _) = drive(30, None);
    assert!(plain.0.iter().all(|m| m[0].0 == "win_rate_vs_random"));
    assert_eq!(params, plain_params, "the yardstick changed training");
}

#[test]
fn no_yardstick_games_means_no_yardstick() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (evals, _, rated) = drive(0, Some(yardstick(calls.clone())));
    assert!(calls.lock().unwrap().is_empty());
    assert_eq!(rated, 0);
    assert!(evals.0.iter().all(|m| m[0].0 == "win_rate_vs_random"));
}
