//! What several AlphaZero tests share.

use minnow_rl::alphazero::{AzConfig, EvalConfig, NetworkConfig, SelfPlayConfig, TrainingConfig};
use minnow_rl::mcts::MctsConfig;

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
