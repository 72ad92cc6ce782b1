//! Self-play options that shape the training data: random openings,
//! the solver's exact values as targets, playout caps and TD(lambda) targets.

mod common;

use minnow_autodiff::Params;
use minnow_envs::TicTacToe;
use minnow_envs::tictactoe::minimax_value;
use minnow_nn::PolicyValueNetConfig;
use minnow_rl::alphazero::{AzRun, Positions, SelfPlayConfig, SelfPlayWorker};
use minnow_rl::mcts::MctsConfig;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

/// `games` tic-tac-toe games by an untrained network.
fn play(mcts: &MctsConfig, self_play: &SelfPlayConfig, games: usize, seed: u64) -> Positions {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut params = Params::new();
    let net = PolicyValueNetConfig { inputs: 18, width: 16, blocks: 1, policy: 9 }
        .init(&mut params, "net", &mut rng)
        .unwrap();
    let mut worker = SelfPlayWorker::<TicTacToe>::new(&net, Arc::new(params), mcts, self_play).unwrap();
    let mut out = Positions::default();
    worker.play(games, seed, &mut out).unwrap();
    out
}

/// The position behind a recorded tic-tac-toe observation (the mover's
/// marks, then the opponent's).
fn decode(obs: &[f32]) -> TicTacToe {
    let cells = |from: usize| (0..9).filter(|&c| obs[from + c] == 1.0).collect::<Vec<_>>();
    let (me, them) = (cells(0), cells(9));
    // X moves first: with as many marks each, X is to move.
    let (x, o) = if me.len() == them.len() { (me, them) } else { (them, me) };
    let mut moves = Vec::new();
    for i in 0..x.len() {
        moves.push(x[i]);
        if let Some(&c) = o.get(i) {
            moves.push(c);
        }
    }
    TicTacToe::from_moves(&moves).unwrap()
}

fn starts(p: &Positions) -> usize {
    p.obs.chunks_exact(18).filter(|o| o.iter().all(|&x| x == 0.0)).count()
}

#[test]
fn random_openings_vary_the_positions_and_keep_the_run_deterministic() {
    let mcts = MctsConfig { simulations: 16, leaves_per_round: 4, ..MctsConfig::default() };
    let plain = SelfPlayConfig { parallel_games: 8, ..SelfPlayConfig::default() };
    let p = play(&mcts, &plain, 40, 1);
    // Without openings every game records its start position.
    assert_eq!(starts(&p), 40);

    let opened = SelfPlayConfig { random_opening_moves: 4, ..plain };
    let q = play(&mcts, &opened, 40, 1);
    // k is uniform in 0..=4: about a fifth of the games start at the start.
    let s = starts(&q);
    assert!((2..=20).contains(&s), "{s} of 40 games recorded the start position");
    assert!(q.len() < p.len(), "openings are not recorded: {} vs {} positions", q.len(), p.len());
    let again = play(&mcts, &opened, 40, 1);
    assert!(again.obs == q.obs && again.value == q.value, "same seed, different games");
}

#[test]
fn proven_positions_take_their_exact_value_as_target() {
    // Enough simulations to prove most tic-tac-toe positions past move 3.
    let mcts = MctsConfig { simulations: 400, leaves_per_round: 4, solver: true, ..MctsConfig::default() };
    let mixed = SelfPlayConfig { parallel_games: 8, search_value_weight: 0.5, ..SelfPlayConfig::default() };
    let exact = |p: &Positions| p.value.iter().filter(|&&v| v == 1.0 || v == 0.0 || v == -1.0).count();
    let before = play(&mcts, &mixed, 24, 3);
    let proven = SelfPlayConfig { proven_value_target: true, ..mixed };
    let after = play(&mcts, &proven, 24, 3);
    assert!(2 * exact(&before) < exact(&after), "{} vs {} exact targets", exact(&before), exact(&after));
    // Every exact non-zero target is the position's minimax value (a
    // zero may be a mean that happens to be 0).
    let mut checked = 0;
    for (obs, &v) in after.obs.chunks_exact(18).zip(&after.value) {
        if v == 1.0 || v == -1.0 {
            assert_eq!(v, minimax_value(&decode(obs)) as f32, "{obs:?}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn fast_moves_are_played_but_not_recorded() {
    let mcts = MctsConfig { simulations: 32, leaves_per_round: 4, ..MctsConfig::default() };
    let full = SelfPlayConfig { parallel_games: 8, ..SelfPlayConfig::default() };
    let capped = SelfPlayConfig { full_search_fraction: 0.25, fast_simulations: 4, ..full };
    let p = play(&mcts, &full, 64, 5);
    let q = play(&mcts, &capped, 64, 5);
    // Every move of 64 games is recorded, against about a quarter of them.
    let ratio = q.len() as f64 / p.len() as f64;
    assert!((0.12..0.4).contains(&ratio), "{} of {} positions recorded", q.len(), p.len());
}

#[test]
fn random_openings_must_leave_room_for_a_game() {
    let mut c = common::tictactoe();
    c.self_play.max_moves = 9;
    c.self_play.random_opening_moves = 9;
    let err = AzRun::<TicTacToe>::new(c).unwrap_err().to_string();
    assert!(err.contains("random_opening_moves") && err.contains("found 9"), "{err}");
    let mut c = common::tictactoe();
    c.self_play.full_search_fraction = 0.0;
    let err = AzRun::<TicTacToe>::new(c).unwrap_err().to_string();
    assert!(err.contains("full_search_fraction"), "{err}");
    let mut c = common::tictactoe();
    c.self_play.full_search_fraction = 0.5;
    c.self_play.fast_simulations = c.mcts.simulations + 1;
    let err = AzRun::<TicTacToe>::new(c).unwrap_err().to_string();
    assert!(err.contains("fast_simulations") && err.contains("65"), "{err}");
}

#[test]
fn value_lambda_bootstraps_all_but_each_games_last_turn() {
    let mcts = MctsConfig { simulations: 16, leaves_per_round: 4, ..MctsConfig::default() };
    let result = SelfPlayConfig { parallel_games: 8, ..SelfPlayConfig::default() };
    let td0 = SelfPlayConfig { value_lambda: 0.0, ..result };
    let (z, v) = (play(&mcts, &result, 24, 9), play(&mcts, &td0, 24, 9));
    assert_eq!(z.obs, v.obs, "the targets change, not the games");
    assert!(z.value.iter().all(|t| [1.0, 0.0, -1.0].contains(t)), "lambda 1: the results");
    // Every game records its start (no openings): a game's last position
    // is the one before the next start.
    let n = z.len();
    let last: Vec<bool> =
        (0..n).map(|i| i + 1 == n || z.obs[(i + 1) * 18..(i + 2) * 18].iter().all(|&x| x == 0.0)).collect();
    let mut bootstrapped = 0;
    for i in 0..n {
        if last[i] {
            assert_eq!(v.value[i], z.value[i], "a game's last turn takes its result");
        } else if v.value[i] != z.value[i] {
            bootstrapped += 1;
        }
    }
    let earlier = last.iter().filter(|&&l| !l).count();
    assert!(2 * bootstrapped > earlier, "{bootstrapped} of {earlier} earlier targets are search values");
    let mut bad = common::tictactoe();
    bad.self_play.value_lambda = 1.5;
    let err = AzRun::<TicTacToe>::new(bad).unwrap_err().to_string();
    assert!(err.contains("self_play.value_lambda") && err.contains("found 1.5"), "{err}");
}
