//! Self-play on backgammon: micro-actions by the same player in a row and
//! dice as chance nodes go through search, recording and training.

use minnow_autodiff::Params;
use minnow_envs::{Backgammon, Game, TicTacToe, Turn};
use minnow_nn::PolicyValueNetConfig;
use minnow_rl::RlError;
use minnow_rl::alphazero::{
    AzConfig, AzRun, NetworkConfig, Positions, RandomPlayer, SelfPlayConfig, SelfPlayWorker, network_config, play_match,
};
use minnow_rl::mcts::{ChanceMode, MctsConfig, NetEvaluator, RolloutEvaluator, Search};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

#[test]
fn one_backgammon_iteration_records_labelled_positions() {
    let mut c = AzConfig::default();
    c.mcts.chance = ChanceMode::Sample;
    c.self_play.max_moves = 3000;
    c.network.width = 32;
    c.network.blocks = 1;
    c.mcts.simulations = 8;
    c.self_play.workers = 1;
    c.self_play.parallel_games = 4;
    c.self_play.games_per_iteration = 4;
    c.training.min_replay = 64;
    c.training.batch = 32;
    c.training.steps_per_iteration = 4;
    let mut run = AzRun::<Backgammon>::new(c).unwrap();
    let first = run.iterate().unwrap();
    assert_eq!(first.self_play.games, 4);
    assert_eq!(first.self_play.results.iter().sum::<u64>(), 4);
    assert_eq!(first.self_play.results[1], 0, "backgammon has no draws");
    // Every micro-action of a game is a recorded position.
    assert_eq!(run.replay().len() as u64, first.self_play.moves);
    assert!(first.self_play.moves > 4 * 40, "{} moves in 4 games", first.self_play.moves);
    assert_eq!(first.self_play.simulations, 8 * first.self_play.moves);
    let second = run.iterate().unwrap();
    assert_eq!(second.updates, 4);
    assert!(second.loss.policy.is_finite() && second.loss.value.is_finite());
}

/// Value targets of 8 self-play games at lambda 1 with a small random
/// network: each is the game's result for the mover.
fn value_targets(points: bool) -> Vec<f32> {
    let mut params = Params::new();
    let shape = network_config::<Backgammon>(&NetworkConfig { width: 16, blocks: 0 });
    let net = shape.init(&mut params, "n", &mut Pcg64Mcg::seed_from_u64(1)).unwrap();
    let mcts = MctsConfig { simulations: 4, chance: ChanceMode::Sample, points, ..MctsConfig::default() };
    let config = SelfPlayConfig { workers: 1, parallel_games: 4, max_moves: 3000, ..SelfPlayConfig::default() };
    let mut worker = SelfPlayWorker::<Backgammon>::new(&net, Arc::new(params), &mcts, &config).unwrap();
    let mut out = Positions::default();
    worker.play(8, 3, &mut out).unwrap();
    out.value
}

#[test]
fn with_points_self_play_learns_the_points_won() {
    assert!(value_targets(false).iter().all(|v| v.abs() == 1.0), "every win is 1 without points");
    let third = |v: f32| (3.0 * v.abs()).round();
    let values = value_targets(true);
    assert!(values.iter().all(|&v| (3.0 * v.abs() - third(v)).abs() < 1e-6 && third(v) >= 1.0), "{values:?}");
    assert!(values.iter().any(|&v| third(v) == 1.0), "a single game is worth 1/3");
    assert!(values.iter().any(|&v| third(v) >= 2.0), "8 near-random games see a gammon");
}

#[test]
fn rollout_search_beats_random_at_backgammon() {
    let start = Backgammon::default();
    let me = |s| minnow_rl::alphazero::rollout_player(32, &start, s);
    let random = |s| Ok(RandomPlayer::new::<Backgammon>(s));
    let r = play_match(&me, &random, 10, 5, 1, 3000).unwrap();
    // Random against random wins 8 or more of 10 with probability 5.5%.
    assert!(r.wins >= 8, "{r}");
}

#[test]
fn search_follows_dice_and_repeated_moves() {
    let mut rng = Pcg64Mcg::seed_from_u64(4);
    let mut game = Backgammon::default();
    game.reset(8);
    let config = MctsConfig { simulations: 200, ..MctsConfig::default() };
    let mut search = Search::new(&config, &game).unwrap();
    let mut eval = RolloutEvaluator::new::<Backgammon>(1, 1);
    let mut outcomes = [0.0; 21];
    let mut kept = 0;
    for _ in 0..30 {
        match search.root().turn() {
            Turn::Player(_) => {
                search.run(&mut eval, true, &mut rng).unwrap();
                let a = search.choose_action(1.0, &mut rng).unwrap();
                let visits = search.visits(a);
                search.apply(a).unwrap();
                kept += (search.root_visits() == visits && visits > 0) as u32;
            }
            Turn::Chance => {
                let n = search.root().chance_outcomes(&mut outcomes);
                assert_eq!(n, 21);
                search.apply_chance(3).unwrap();
            }
            Turn::Over => break,
        }
    }
    assert!(kept > 10, "subtrees kept on {kept} of 30 moves");
}

#[test]
fn a_network_for_another_game_is_refused() {
    let mut params = Params::new();
    let net = PolicyValueNetConfig { inputs: 18, width: 8, blocks: 0, policy: 9 }
        .init(&mut params, "n", &mut Pcg64Mcg::seed_from_u64(0))
        .unwrap();
    let err = NetEvaluator::<Backgammon>::new(&net, Arc::new(params.clone())).unwrap_err();
    assert!(matches!(err, RlError::Length { expected: 202, found: 18, .. }), "{err}");
    assert!(err.to_string().contains("observation"), "{err}");
    assert!(NetEvaluator::<TicTacToe>::new(&net, Arc::new(params)).is_ok());
    assert_eq!(TicTacToe::OBSERVATION_SIZE, 18);
}
