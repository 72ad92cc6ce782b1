//! AlphaZero on tic-tac-toe: a short seeded run that learns to never lose
//! to the exact solver or to random play; exact resume; bad input.

mod common;

use minnow_envs::TicTacToe;
use minnow_rl::alphazero::{
    AzConfig, AzRun, FnPlayer, MatchResult, RandomPlayer, evaluate_snapshot, play_match, play_match_from, reset_start,
};
use std::time::Instant;

fn vs_random(run: &AzRun<TicTacToe>, sims: u32, games: usize, seed: u64) -> MatchResult {
    let me = |s| run.player(sims, s);
    let random = |s| Ok(RandomPlayer::new::<TicTacToe>(s));
    play_match(&me, &random, games, seed, 2, 100).unwrap()
}

#[test]
fn tictactoe_learns_to_never_lose() {
    let started = Instant::now();
    let mut run = AzRun::<TicTacToe>::new(common::tictactoe()).unwrap();
    // The untrained network with a tiny search, as the learning baseline.
    let before = vs_random(&run, 2, 400, 7);
    let mut last = None;
    for _ in 0..run.config().iterations {
        last = Some(run.iterate().unwrap());
    }
    let last = last.unwrap();
    let trained_for = started.elapsed();
    let after = vs_random(&run, 2, 400, 7);
    eprintln!(
        "tictactoe: {} iterations, {} games, {} updates in {:.1} s; loss policy {:.3} value {:.3}",
        run.iteration(),
        run.totals().games,
        run.totals().updates,
        trained_for.as_secs_f64(),
        last.loss.policy,
        last.loss.value
    );
    eprintln!("2 simulations vs random: before {before}, after {after}");
    assert!(
        after.score() > before.score() + 0.1 && after.losses * 4 < before.losses.max(4),
        "no learning: before {before}, after {after}"
    );

    let sims = run.config().eval.simulations;
    let random = vs_random(&run, sims, 1000, 11);
    let me = |s| run.player(sims, s);
    let solver = |s| Ok(FnPlayer(common::minimax(s)));
    let perfect = play_match(&me, &solver, 1000, 13, 2, 100).unwrap();
    eprintln!("{sims} simulations: vs random {random}; vs minimax {perfect}");
    assert_eq!(random.losses, 0, "lost to random: {random}");
    assert_eq!(perfect.losses, 0, "lost to minimax: {perfect}");
    assert_eq!(perfect.wins, 0, "beat a perfect player?! {perfect}");
}

fn small() -> AzConfig {
    let mut c = common::tictactoe();
    c.iterations = 3;
    c.self_play.games_per_iteration = 16;
    c.self_play.parallel_games = 8;
    c.training.min_replay = 32;
    c.training.steps_per_iteration = 5;
    c.training.batch = 32;
    c
}

#[test]
fn a_resumed_run_continues_bit_for_bit() {
    let dir = std::env::temp_dir().join(format!("minnow-az-resume-{}", std::process::id()));
    let path = dir.join("checkpoint.safetensors");
    let mut straight = AzRun::<TicTacToe>::new(small()).unwrap();
    for _ in 0..3 {
        straight.iterate().unwrap();
    }
    let mut first = AzRun::<TicTacToe>::new(small()).unwrap();
    first.iterate().unwrap();
    first.iterate().unwrap();
    minnow_train::save(&first, &path).unwrap();
    drop(first);
    let mut resumed = AzRun::<TicTacToe>::resume(small(), &path).unwrap();
    assert_eq!(resumed.iteration(), 2);
    resumed.iterate().unwrap();
    assert_eq!(resumed.totals().games, straight.totals().games);
    assert_eq!(resumed.replay().pushed(), straight.replay().pushed());
    assert!(resumed.snapshot().values() == straight.snapshot().values(), "parameters differ after resuming");

    // Another network shape, another seed, another game: clear errors.
    let mut wider = small();
    wider.network.width = 64;
    let err = AzRun::<TicTacToe>::resume(wider, &path).unwrap_err().to_string();
    assert!(err.contains("network.width = 48, this run is network.width = 64"), "{err}");
    let mut reseeded = small();
    reseeded.seed = 99;
    let err = AzRun::<TicTacToe>::resume(reseeded, &path).unwrap_err().to_string();
    assert!(err.contains("trained with") && err.contains("this run is seed = 99"), "{err}");
    let err = AzRun::<minnow_envs::ConnectFour>::resume(small(), &path).unwrap_err().to_string();
    assert!(err.contains("tictactoe") && err.contains("connect4"), "{err}");
    let err = AzRun::<TicTacToe>::resume(small(), &dir.join("missing.safetensors")).unwrap_err().to_string();
    assert!(err.contains("missing.safetensors"), "{err}");
    // A checkpoint of the layout before the run checkpoint: refused, naming the format.
    let old = dir.join("old.safetensors");
    minnow_nn::CheckpointWriter::new().meta("task", "alphazero").meta("game", "tictactoe").save(&old).unwrap();
    let err = AzRun::<TicTacToe>::resume(small(), &old).unwrap_err().to_string();
    assert!(err.contains("format 'minnow-run/1'") && err.contains("no format tag"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Random against random: the side that moves first wins far more often
/// (about 58% against 29% in tic-tac-toe), so each seat's tally must show
/// it, half the games go to each seat, and the seats sum to the match.
#[test]
fn a_match_splits_by_seat() {
    let random = |s| Ok(RandomPlayer::new::<TicTacToe>(s));
    let seats = play_match_from(&random, &random, 2000, 5, 2, 100, &reset_start::<TicTacToe>).unwrap();
    assert_eq!((seats.moving_first.games, seats.moving_second.games), (1000, 1000));
    assert!(seats.moving_first.win_rate() > 0.5 && seats.moving_second.win_rate() < 0.4, "{seats:?}");
    let total = play_match::<TicTacToe, _, _>(&random, &random, 2000, 5, 2, 100).unwrap();
    assert_eq!(seats.total(), total);
}

/// A progress count sees every game of the evaluation matches and
/// changes none of them.
#[test]
fn evaluation_matches_tick_once_a_game_and_play_the_same() {
    let mut c = common::tictactoe();
    c.eval.threads = 2;
    let agent = AzRun::<TicTacToe>::new(c).unwrap().agent();
    let ticks = std::sync::atomic::AtomicU64::new(0);
    let tick = || {
        ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let evaluate = |tick: &(dyn Fn() + Sync)| {
        evaluate_snapshot::<TicTacToe>(&agent.net, &agent.params, &agent.config, 10, 6, 3, tick).unwrap()
    };
    let (counted, silent) = (evaluate(&tick), evaluate(&|| {}));
    assert_eq!(ticks.into_inner(), 16);
    assert_eq!((counted.vs_random, counted.vs_rollout), (silent.vs_random, silent.vs_rollout));
}

#[test]
fn bad_configs_are_clear_errors() {
    let mut c = common::tictactoe();
    c.mcts.simulations = 0;
    let err = AzRun::<TicTacToe>::new(c).unwrap_err().to_string();
    assert!(err.contains("simulations") && err.contains("found 0"), "{err}");
    let mut c = common::tictactoe();
    c.self_play.temperature = -0.5;
    let err = AzRun::<TicTacToe>::new(c).unwrap_err().to_string();
    assert!(err.contains("temperature") && err.contains("-0.5"), "{err}");
    let mut c = common::tictactoe();
    c.training.lr = f32::NAN;
    assert!(AzRun::<TicTacToe>::new(c).unwrap_err().to_string().contains("lr"));
    let mut c = common::tictactoe();
    c.training.lr_final = 1.0;
    assert!(AzRun::<TicTacToe>::new(c).unwrap_err().to_string().contains("lr_final"));
    let mut c = common::tictactoe();
    c.eval.elo_opening_moves = c.self_play.max_moves;
    let err = AzRun::<TicTacToe>::new(c).unwrap_err().to_string();
    assert!(err.contains("elo_opening_moves") && err.contains("max_moves"), "{err}");
    let err = serde_json::from_str::<AzConfig>(r#"{"mcts": {"simulatoins": 5}}"#).unwrap_err().to_string();
    assert!(err.contains("simulatoins"), "{err}");
}
