//! The n-tuple player of 2048: an afterstate value function that picks
//! the move with the largest reward plus value, and learns by TD(0) as it
//! plays.

use super::config::{NTupleConfig, bad_count};
use crate::eval::{Game2048Result, games_2048};
use minnow_config::{ConfigError, Found};
use minnow_envs::game2048::{Board, BoardSymmetry, MOVE_COUNT};
use minnow_envs::{Env, EnvError, Game2048};
use minnow_rl::RlError;
use minnow_rl::ntuple::{NTupleNetwork, TdLearner};

/// The afterstate value function over 2048 boards.
#[derive(Clone, Debug)]
pub(crate) struct Player {
    pub(crate) net: NTupleNetwork,
    top: u8,
}

impl Player {
    /// The network `config` describes, all values 0; a layout the network
    /// refuses is named by the config's key (`ntuple-2048.tuples`).
    pub(crate) fn new(config: &NTupleConfig) -> Result<Self, RlError> {
        let tables: Vec<Vec<Vec<usize>>> = if config.symmetric_sampling {
            let symmetries = BoardSymmetry::all();
            let image = |tuple: &Vec<usize>, s: &BoardSymmetry| tuple.iter().map(|&c| s.map_cell(c)).collect();
            config.tuples.iter().map(|t| symmetries.iter().map(|s| image(t, s)).collect()).collect()
        } else {
            config.tuples.iter().map(|t| vec![t.clone()]).collect()
        };
        let net = NTupleNetwork::new(16, config.levels, &tables).map_err(|e| match e {
            RlError::Config(ConfigError { expected, found: Found::Count(found), .. }) => {
                bad_count("tuples", expected, found)
            }
            e => e,
        })?;
        Ok(Self { net, top: config.levels as u8 - 1 })
    }

    /// The network's input: each cell's exponent, capped at the top level.
    pub(crate) fn cells(&self, board: Board) -> [u8; 16] {
        let bits = board.bits();
        std::array::from_fn(|c| (((bits >> (4 * c)) & 0xf) as u8).min(self.top))
    }

    fn value(&self, board: Board) -> f32 {
        self.net.value(&self.cells(board))
    }

    /// The legal move with the largest reward + V(afterstate), with its
    /// afterstate and reward; `None` when the game is over.
    pub(crate) fn best_move(&self, board: Board) -> Option<(usize, Board, u32)> {
        let (after, gains) = board.slides();
        let mut best = None;
        let mut best_q = f32::NEG_INFINITY;
        for m in 0..MOVE_COUNT {
            if after[m] == board {
                continue;
            }
            let q = gains[m] as f32 + self.value(after[m]);
            if q > best_q {
                (best, best_q) = (Some((m, after[m], gains[m])), q);
            }
        }
        best
    }

    /// Plays `env` greedily to the end.
    pub(crate) fn play(&self, env: &mut Game2048) -> Result<(), EnvError> {
        while let Some((m, _, _)) = self.best_move(env.board()) {
            env.step(m)?;
        }
        Ok(())
    }

    /// Plays one game from `seed`, learning after every move; returns the
    /// sum of squared TD errors.
    pub(crate) fn train_game(&mut self, td: &mut TdLearner, env: &mut Game2048, seed: u64) -> Result<f64, EnvError> {
        env.reset(seed);
        let mut squared = 0.0;
        while let Some((m, after, gain)) = self.best_move(env.board()) {
            let cells = self.cells(after);
            let error = td.step(&mut self.net, &cells, gain as f32);
            squared += (error as f64).powi(2);
            env.step(m)?;
        }
        Ok(squared + (td.finish(&mut self.net) as f64).powi(2))
    }

    /// Plays `games` games (seeds derived from `seed`) greedily to the
    /// end, calling `tick` after each.
    pub(crate) fn evaluate(
        &self,
        prototype: &Game2048,
        games: usize,
        seed: u64,
        tick: &dyn Fn(),
    ) -> Result<Game2048Result, EnvError> {
        let mut envs = games_2048(prototype, games, seed);
        for env in &mut envs {
            self.play(env)?;
            tick();
        }
        Ok(Game2048Result::of_games(&envs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_runs::game_seed;
    use minnow_arena::count_allocations;
    use std::time::Instant;

    /// Rows, columns and the nine 2x2 squares, each its own small table.
    fn small_config() -> NTupleConfig {
        let lines = (0..4).flat_map(|k| [vec![4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3], vec![k, k + 4, k + 8, k + 12]]);
        let squares = (0..9).map(|k| {
            let c = 4 * (k / 3) + k % 3;
            vec![c, c + 1, c + 4, c + 5]
        });
        NTupleConfig { tuples: lines.chain(squares).collect(), symmetric_sampling: false, ..NTupleConfig::default() }
    }

    #[test]
    fn a_layout_the_network_refuses_is_named_by_its_key() {
        let repeated = NTupleConfig { tuples: vec![vec![0, 1, 1]], ..NTupleConfig::default() };
        let err = Player::new(&repeated).unwrap_err().to_string();
        assert_eq!(err, "ntuple-2048.tuples: expected each cell at most once in a placement, found 1");
    }

    #[test]
    fn a_board_that_is_not_powers_of_two_is_an_error() {
        let err = Board::from_rows([[2, 4, 0, 0], [0, 0, 6, 0], [0; 4], [0; 4]]).unwrap_err();
        assert_eq!(err.to_string(), "2048: cell 6 holds 6, expected 0 or a power of two from 2 to 32768");
        assert!(Board::from_rows([[1, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).is_err(), "1 is not a tile");
        assert!(Board::from_rows([[0; 4], [0; 4], [0; 4], [0, 0, 0, 65536]]).is_err(), "above 32768");
    }

    #[test]
    fn symmetric_sampling_reads_each_table_at_eight_placements() {
        let one = NTupleConfig {
            tuples: vec![vec![0, 1, 2, 3]],
            symmetric_sampling: false,
            levels: 4,
            ..NTupleConfig::default()
        };
        let plain = Player::new(&one).unwrap();
        let shared = Player::new(&NTupleConfig { symmetric_sampling: true, ..one }).unwrap();
        assert_eq!((plain.net.features(), shared.net.features()), (1, 8));
        assert_eq!(plain.net.weights().len(), shared.net.weights().len());
        // Symmetric sampling values a board and its mirror image alike.
        let mut shared = shared;
        let board = Board::from_rows([[2, 4, 8, 0], [0; 4], [0; 4], [0, 0, 2, 0]]).unwrap();
        let cells = shared.cells(board);
        shared.net.update(&cells, 1.0);
        for symmetry in BoardSymmetry::all() {
            assert_eq!(shared.value(symmetry.apply(board)), shared.value(board));
        }
        // Tiles above the top level read as the top level.
        let big = Board::from_rows([[1024, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        assert_eq!(plain.cells(big)[0], 3);
    }

    #[test]
    fn training_beats_random_play_within_a_few_hundred_games() {
        // A random player averages about 1,100 points.
        let config = small_config();
        let mut player = Player::new(&config).unwrap();
        let mut td = TdLearner::new(config.alpha);
        let mut env = Game2048::new(config.env).unwrap();
        for k in 0..400 {
            player.train_game(&mut td, &mut env, game_seed(3, k)).unwrap();
        }
        let r = player.evaluate(&env, 100, 9, &|| {}).unwrap();
        assert!(r.mean_score > 2500.0, "mean score {} after 400 games", r.mean_score);
        assert!(r.reached_512 > 0.2, "{r:?}");
    }

    #[test]
    fn training_and_play_allocate_nothing_per_move() {
        let config = small_config();
        let mut player = Player::new(&config).unwrap();
        let mut td = TdLearner::new(config.alpha);
        let mut env = Game2048::new(config.env).unwrap();
        player.train_game(&mut td, &mut env, 1).unwrap();
        let mut moves = 0;
        let (_, on_thread, _) = count_allocations(|| {
            for k in 2..12 {
                player.train_game(&mut td, &mut env, k).unwrap();
                moves += env.moves();
                env.reset(k);
                player.play(&mut env).unwrap();
                moves += env.moves();
            }
        });
        assert!(moves > 1000, "{moves} moves");
        assert_eq!(on_thread.allocations, 0, "{} bytes over {moves} moves", on_thread.bytes);
    }

    /// The default run, trained and then evaluated on 1,000 games on one
    /// view: `cargo test --release -p minnow-tasks -- --ignored ntuple_default`.
    #[test]
    #[ignore = "trains the default config: minutes in release"]
    fn ntuple_default_reaches_2048_in_half_the_games() {
        let config = NTupleConfig::default();
        let mut player = Player::new(&config).unwrap();
        let mut td = TdLearner::new(config.alpha);
        let mut env = Game2048::new(config.env).unwrap();
        let started = Instant::now();
        for k in 0..config.games {
            player.train_game(&mut td, &mut env, game_seed(config.seed, k)).unwrap();
        }
        let seconds = started.elapsed().as_secs_f64();
        let r = player.evaluate(&env, 1000, config.eval.seed, &|| {}).unwrap();
        eprintln!("trained in {seconds:.1} s; {r:?}");
        assert!(seconds < 1800.0, "training took {seconds:.0} s");
        assert!(r.reached_2048 >= 0.5, "{r:?}");
        assert!(r.mean_score > 20_000.0, "{r:?}");
    }
}
