//! What several AlphaZero tests share.

use minnow_envs::TicTacToe;
use minnow_envs::tictactoe::best_moves;
use minnow_rl::alphazero::{AzConfig, EvalConfig, NetworkConfig, SelfPlayConfig, TrainingConfig};
use minnow_rl::mcts::MctsConfig;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Tic-tac-toe: a tiny network and short searches; learns to never
/// lose in well under a minute.
pub fn tictactoe() -> AzConfig {
    AzConfig {
        iterations: 40,
        network: NetworkConfig { width: 48, blocks: 1 },
        mcts: MctsConfig { simulations: 64, dirichlet_alpha: 1.0, leaves_per_round: 4, ..MctsConfig::default() },
        self_play: SelfPlayConfig {
            parallel_games: 32,
            games_per_iteration: 64,
            temperature_moves: 4,
            ..SelfPlayConfig::default()
        },
        training: TrainingConfig {
            lr: 3e-3,
            batch: 128,
            steps_per_iteration: 40,
            replay_capacity: 20_000,
            min_replay: 256,
            ..TrainingConfig::default()
        },
        eval: EvalConfig {
            every: 4,
            games_vs_random: 100,
            games_vs_rollout: 20,
            rollout_simulations: 200,
            yardstick_games: 0,
            simulations: 100,
            threads: 1,
            final_games: 1000,
            elo_pool: 3,
            elo_games: 4,
            elo_opening_moves: 1,
        },
        checkpoint_every: 4,
        ..AzConfig::default()
    }
}

/// The tic-tac-toe solver as a player: a uniformly drawn move among those
/// that keep the minimax value, so the games cover many perfect lines.
#[allow(dead_code)] // Not every test that shares this module plays the solver.
pub fn minimax(seed: u64) -> impl FnMut(&TicTacToe) -> usize {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    move |game| {
        let best = best_moves(game);
        let options: Vec<usize> = (0..9).filter(|c| best >> c & 1 == 1).collect();
        options[rng.random_range(0..options.len())]
    }
}
