//! The tuned AlphaZero configs of the shipped games (`cargo xtask train
//! az-connect4 | az-backgammon`).

use minnow_rl::alphazero::{AzConfig, EvalConfig, NetworkConfig, SelfPlayConfig, TrainingConfig};
use minnow_rl::mcts::{ChanceMode, Inference, MctsConfig};

/// Connect four: 4,600 iterations, each 320 self-play games (two
/// threads) overlapped with 64 updates of 256, about 55 minutes on two
/// idle cores. Defined by games and updates, not minutes, so how far a
/// run gets does not depend on the machine's speed. Search reads bf16
/// weights (1.5 times the games per minute of f32 on AVX-512 BF16, the
/// same bits elsewhere, more slowly), which buys 3.2 times the games of
/// the earlier 1,260-iteration f32 preset in the hour. Self-play is
/// made varied and cheap: each game opens with 0-8 random moves and
/// plays its later moves at temperature 0.4 (AlphaZero.jl's
/// connect-four schedule), so it meets positions like
/// those of a real opponent rather than its own main lines; a quarter
/// of the moves get the full 160-simulation search and are recorded,
/// the rest a 32-simulation one (playout cap randomisation), so as
/// many simulations give 2.5 times the games and game results. Value
/// targets average the game's result with the search's value, or take
/// the exact value where the search proved it (solver); the learner
/// sees each sample as stored or mirrored (the board is left-right
/// symmetric). The network reads the stones and each side's threats
/// (the empty cells that would complete four: `ConnectFour`'s observation).
pub fn connect4() -> AzConfig {
    AzConfig {
        iterations: 4600,
        network: NetworkConfig { width: 128, blocks: 4 },
        mcts: MctsConfig {
            simulations: 160,
            dirichlet_alpha: 1.0,
            leaves_per_round: 4,
            solver: true,
            inference: Inference::Bf16,
            ..MctsConfig::default()
        },
        self_play: SelfPlayConfig {
            workers: 2,
            parallel_games: 64,
            games_per_iteration: 160,
            temperature_moves: 10,
            final_temperature: 0.4,
            search_value_weight: 0.5,
            proven_value_target: true,
            random_opening_moves: 8,
            full_search_fraction: 0.25,
            fast_simulations: 32,
            ..SelfPlayConfig::default()
        },
        training: TrainingConfig {
            lr: 2e-3,
            batch: 256,
            steps_per_iteration: 64,
            replay_capacity: 250_000,
            min_replay: 4000,
            // Cosine over the first 4,000 iterations' updates, then the
            // last 600 at `lr_final`: with 4,000 alone two seeds of three
            // missed a bar, by 0.1 and 1 point.
            lr_decay_updates: 256_000,
            lr_final: 1e-4,
            ..TrainingConfig::default()
        },
        eval: EvalConfig {
            every: 40,
            games_vs_random: 50,
            games_vs_rollout: 20,
            rollout_simulations: 1000,
            yardstick_games: 0,
            simulations: 400,
            threads: 2,
            final_games: 400,
            elo_pool: 3,
            elo_games: 4,
            elo_opening_moves: 4,
        },
        // A checkpoint holds the 250,000-position replay (178 MB, about
        // 0.5 s to write), so one every 40 iterations (about 28 s of play,
        // where the evaluations fall) rather than more often.
        checkpoint_every: 40,
        ..AzConfig::default()
    }
}

/// Backgammon: pgx's micro-actions (a search per checker moved) and
/// dice as chance nodes, sampled; 1,000 iterations of 64 games (64,000
/// games; defined by games and updates, not minutes) on a trunk 256
/// wide. Self-play plays the most visited move from the first move on:
/// the dice already vary the games, and with temperature 1 for the first
/// 30 moves the search won 64.0% against pubeval instead of 65.2% (seed
/// 0, 800 simulations). The 3,000 iterations of the earlier preset, with
/// that temperature, won no more (65.4 / 64.0 / 65.1% on seeds 0-2 at
/// 2,400 simulations) in three times the training. The width is what
/// the search needs: after 1,000 iterations the network alone wins 57%
/// against pubeval at width 128 or 256, but MCTS with 400 simulations
/// wins 60.3% on the narrow network and 63.4% on the wide one (four
/// blocks of 128 instead of two: 60.1%). Each position is trained on
/// about 1.6 times: at 8 the value net fitted its replay (squared error
/// 0.39 there, 0.8 on fresh games) and the win rate against random
/// stopped near 90%; at 3.2, 55% against 57% after 1,000 iterations.
/// Value targets are TD(lambda) returns per turn (lambda 0.85), as
/// TD-Gammon learns: with the game's result alone the network stayed
/// near 17% against pubeval; with lambda 0.5 / 0.7 / 0.85 / 0.95 it
/// reached 24 / 38 / 46 / 41% after 19,200 games. The learning rate
/// decays over the run. Search reads bf16 weights (1.55 times the games
/// per minute of f32 here, the same bits elsewhere, more slowly).
/// Evaluation searches 2,400 simulations a move: seeds 0-3 win 65.2 /
/// 65.5 / 66.9 / 66.0% against pubeval there, 65.2 / 65.2 / 65.3 /
/// 63.9% at 800 (at 100 the search loses to the network alone). Every
/// 100 iterations the network alone plays 400 games against pubeval, the
/// learning curve (against random the search wins every game from the
/// first evaluation on, so 20 games there only anchor the ratings).
pub fn backgammon() -> AzConfig {
    let (iterations, steps_per_iteration) = (1000, 60);
    AzConfig {
        iterations,
        network: NetworkConfig { width: 256, blocks: 2 },
        mcts: MctsConfig {
            simulations: 32,
            dirichlet_alpha: 0.5,
            leaves_per_round: 4,
            chance: ChanceMode::Sample,
            inference: Inference::Bf16,
            ..MctsConfig::default()
        },
        self_play: SelfPlayConfig {
            workers: 2,
            parallel_games: 32,
            games_per_iteration: 32,
            temperature_moves: 0,
            max_moves: 3000,
            value_lambda: 0.85,
            ..SelfPlayConfig::default()
        },
        training: TrainingConfig {
            lr: 1e-3,
            batch: 256,
            steps_per_iteration,
            replay_capacity: 300_000,
            min_replay: 10_000,
            // Over the whole run.
            lr_decay_updates: iterations * steps_per_iteration as u64,
            lr_final: 1e-4,
            ..TrainingConfig::default()
        },
        eval: EvalConfig {
            every: 100,
            games_vs_random: 20,
            games_vs_rollout: 0,
            rollout_simulations: 100,
            yardstick_games: 400,
            simulations: 2400,
            threads: 2,
            final_games: 400,
            elo_pool: 3,
            elo_games: 2,
            elo_opening_moves: 0,
        },
        // A checkpoint holds the 300,000-position replay (432 MB).
        checkpoint_every: 100,
        ..AzConfig::default()
    }
}
