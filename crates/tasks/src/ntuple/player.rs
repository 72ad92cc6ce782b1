//! The n-tuple player of 2048: an afterstate value function that picks
//! the move with the largest reward plus value (or searches deeper with
//! expectimax), and learns by TD(0) as it plays.

use super::config::{NTupleConfig, bad_count};
use crate::Game2048Chance;
use crate::eval::{Game2048Result, games_2048};
use minnow_config::{ConfigError, Found};
use minnow_envs::game2048::{Board, BoardSymmetry, MOVE_COUNT};
use minnow_envs::{Env, EnvError, Game2048};
use minnow_rl::RlError;
use minnow_rl::expectimax::{Expectimax, ExpectimaxConfig};
use minnow_rl::ntuple::{NTupleNetwork, TdLearner};
use rayon::prelude::*;

/// The afterstate value function over 2048 boards.
#[derive(Clone, Debug)]
pub(crate) struct Player {
    pub(crate) net: NTupleNetwork,
    top: u8,
    /// The tile exponents that start each stage after the first (ascending).
    stage_starts: Vec<u8>,
}

impl Player {
    /// The network `config` describes, every value `initial_value`; a
    /// layout the network refuses is named by the config's key
    /// (`ntuple-2048.tuples`).
    pub(crate) fn new(config: &NTupleConfig) -> Result<Self, RlError> {
        let tables: Vec<Vec<Vec<usize>>> = if config.symmetric_sampling {
            let symmetries = BoardSymmetry::all();
            let image = |tuple: &Vec<usize>, s: &BoardSymmetry| tuple.iter().map(|&c| s.map_cell(c)).collect();
            config.tuples.iter().map(|t| symmetries.iter().map(|s| image(t, s)).collect()).collect()
        } else {
            config.tuples.iter().map(|t| vec![t.clone()]).collect()
        };
        let stages = config.stages.len() + 1;
        let mut net = NTupleNetwork::staged(16, config.levels, &tables, stages).map_err(|e| match e {
            RlError::Config(ConfigError { expected, found: Found::Count(found), .. }) => {
                bad_count("tuples", expected, found)
            }
            e => e,
        })?;
        if config.initial_value != 0.0 {
            net.fill(config.initial_value / net.features() as f32);
        }
        let stage_starts = config.stages.iter().map(|t| t.trailing_zeros() as u8).collect();
        Ok(Self { net, top: config.levels as u8 - 1, stage_starts })
    }

    /// The learner `config` asks for: TD(0), with temporal coherence if set.
    pub(crate) fn learner(&self, config: &NTupleConfig) -> TdLearner {
        if config.coherence { TdLearner::coherent(config.alpha, &self.net) } else { TdLearner::new(config.alpha) }
    }

    /// The network's input: each cell's exponent, capped at the top level.
    pub(crate) fn cells(&self, board: Board) -> [u8; 16] {
        let bits = board.bits();
        std::array::from_fn(|c| (((bits >> (4 * c)) & 0xf) as u8).min(self.top))
    }

    /// The stage whose tables value `board`: how many stage-starting tiles
    /// its largest tile has reached.
    fn stage(&self, board: Board) -> usize {
        if self.stage_starts.is_empty() {
            return 0;
        }
        let bits = board.bits();
        let largest = (0..16).map(|c| ((bits >> (4 * c)) & 0xf) as u8).max().unwrap_or(0);
        self.stage_starts.iter().filter(|&&start| largest >= start).count()
    }

    /// The afterstate value of `board`.
    pub(crate) fn value(&self, board: Board) -> f32 {
        self.net.staged_value(self.stage(board), &self.cells(board))
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

    /// Plays `env` to the end: greedily at depth 1, else the move
    /// `search` finds over `game`'s spawns.
    pub(crate) fn play(
        &self,
        env: &mut Game2048,
        game: &Game2048Chance,
        search: &mut Expectimax<Board>,
    ) -> Result<(), EnvError> {
        if search.config().depth == 1 {
            while let Some((m, _, _)) = self.best_move(env.board()) {
                env.step(m)?;
            }
        } else {
            let value = |after: Board| self.value(after);
            while let Some(m) = search.best_move(game, env.board(), &value) {
                env.step(m.action)?;
            }
        }
        Ok(())
    }

    /// Plays one game from `seed`, learning after every move; returns the
    /// sum of squared TD errors.
    pub(crate) fn train_game(&mut self, td: &mut TdLearner, env: &mut Game2048, seed: u64) -> Result<f64, EnvError> {
        env.reset(seed);
        let mut squared = 0.0;
        while let Some((m, after, gain)) = self.best_move(env.board()) {
            let (stage, cells) = (self.stage(after), self.cells(after));
            let error = td.staged_step(&mut self.net, stage, &cells, gain as f32);
            squared += (error as f64).powi(2);
            env.step(m)?;
        }
        Ok(squared + (td.finish(&mut self.net) as f64).powi(2))
    }

    /// Plays `games` games (seeds derived from `seed`) to the end with
    /// `search`'s depth, calling `tick` after each. Games deeper than
    /// greedy run in parallel on rayon's pool, each thread with its own
    /// searcher; every game's moves are its own, so the result does not
    /// depend on the threads.
    pub(crate) fn evaluate(
        &self,
        prototype: &Game2048,
        games: usize,
        seed: u64,
        search: &ExpectimaxConfig,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Game2048Result, RlError> {
        let game = Game2048Chance::new(prototype.config());
        let mut envs = games_2048(prototype, games, seed);
        let searcher = || Expectimax::new::<Game2048Chance>(search);
        if search.depth == 1 {
            let mut searcher = searcher()?;
            for env in &mut envs {
                self.play(env, &game, &mut searcher)?;
                tick();
            }
        } else {
            searcher()?;
            envs.par_iter_mut().try_for_each_init(
                || searcher().expect("checked above"),
                |searcher, env| -> Result<(), RlError> {
                    self.play(env, &game, searcher)?;
                    tick();
                    Ok(())
                },
            )?;
        }
        Ok(Game2048Result::of_games(&envs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_runs::game_seed;
    use minnow_arena::count_allocations;
    use minnow_envs::Game2048Config;
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
        let r = player.evaluate(&env, 100, 9, &ExpectimaxConfig::default(), &|| {}).unwrap();
        assert!(r.mean_score > 2500.0, "mean score {} after 400 games", r.mean_score);
        assert!(r.reached_512 > 0.2, "{r:?}");
    }

    #[test]
    fn training_and_play_allocate_nothing_per_move() {
        let config = small_config();
        let mut env = Game2048::new(config.env).unwrap();
        let game = Game2048Chance::new(&config.env);
        for (coherence, stages) in [(false, vec![]), (true, vec![256])] {
            let config = NTupleConfig { coherence, stages, ..config.clone() };
            let mut player = Player::new(&config).unwrap();
            let mut td = player.learner(&config);
            let mut searcher = Expectimax::new::<Game2048Chance>(&ExpectimaxConfig::default()).unwrap();
            player.train_game(&mut td, &mut env, 1).unwrap();
            let mut moves = 0;
            let (_, on_thread, _) = count_allocations(|| {
                for k in 2..12 {
                    player.train_game(&mut td, &mut env, k).unwrap();
                    moves += env.moves();
                    env.reset(k);
                    player.play(&mut env, &game, &mut searcher).unwrap();
                    moves += env.moves();
                }
            });
            assert!(moves > 1000, "{moves} moves");
            assert_eq!(on_thread.allocations, 0, "{} bytes over {moves} moves (TC {coherence})", on_thread.bytes);
        }
    }

    /// A small player trained for a few hundred games, to search with.
    fn trained_player() -> Player {
        let config = small_config();
        let mut player = Player::new(&config).unwrap();
        let mut td = TdLearner::new(config.alpha);
        let mut env = Game2048::new(config.env).unwrap();
        for k in 0..200 {
            player.train_game(&mut td, &mut env, game_seed(5, k)).unwrap();
        }
        player
    }

    fn searcher(depth: usize) -> Expectimax<Board> {
        let config = ExpectimaxConfig { depth, ..ExpectimaxConfig::default() };
        Expectimax::new::<Game2048Chance>(&config).unwrap()
    }

    #[test]
    fn expectimax_allocates_nothing_per_move_after_warm_up() {
        let player = trained_player();
        let game = Game2048Chance::new(&Game2048Config::default());
        let mut env = Game2048::new(Game2048Config::default()).unwrap();
        for depth in [2, 3] {
            let mut search = searcher(depth);
            env.reset(1);
            let value = |after: Board| player.value(after);
            search.best_move(&game, env.board(), &value);
            let mut moves = 0;
            let (_, on_thread, _) = count_allocations(|| {
                for _ in 0..if depth == 2 { 300 } else { 40 } {
                    let Some(m) = search.best_move(&game, env.board(), &value) else { break };
                    env.step(m.action).unwrap();
                    moves += 1;
                }
            });
            assert!(moves >= 40, "{moves} moves at depth {depth}");
            assert_eq!(on_thread.allocations, 0, "depth {depth}: {} bytes over {moves} moves", on_thread.bytes);
        }
    }

    #[test]
    fn expectimax_at_depth_one_plays_the_greedy_moves() {
        let player = trained_player();
        let game = Game2048Chance::new(&Game2048Config::default());
        let mut search = searcher(1);
        let value = |after: Board| player.value(after);
        let mut env = Game2048::new(Game2048Config::default()).unwrap();
        let mut moves = 0;
        for seed in 0..5 {
            env.reset(seed);
            loop {
                let (greedy, searched) = (player.best_move(env.board()), search.best_move(&game, env.board(), &value));
                assert_eq!(greedy.map(|g| (g.0, g.1)), searched.map(|m| (m.action, m.after)), "game {seed}");
                let Some((m, _, _)) = greedy else { break };
                env.step(m).unwrap();
                moves += 1;
            }
        }
        assert!(moves > 200, "{moves} moves");
    }

    /// Both legal moves merge the two 64s for 128 points. Left keeps the
    /// 128 in the corner, which the value function likes, but leaves the
    /// free cell where no spawn can merge: every spawn ends the game.
    /// Right leaves it above the 2, so a spawned 2 (9 times in 10) merges.
    /// Greedy play goes left; a two-level search goes right.
    #[test]
    fn expectimax_avoids_a_move_that_a_spawn_punishes() {
        use minnow_envs::game2048::{LEFT, RIGHT};
        use minnow_rl::expectimax::{ChanceGame, Move, Outcome};
        let board =
            Board::from_rows([[64, 64, 8, 16], [2, 32, 128, 256], [8, 512, 4, 1024], [32, 4, 2048, 8]]).unwrap();
        let game = Game2048Chance::new(&Game2048Config::default());
        let value = |after: Board| 1000.0 + after.rows()[0][0] as f32;
        let greedy = searcher(1).best_move(&game, board, &value).unwrap();
        assert_eq!((greedy.action, greedy.reward), (LEFT, 128.0));
        // Every spawn after the greedy move ends the game.
        let (mut outcomes, mut replies) = ([Outcome::default(); 32], [Move::default(); 4]);
        let n = game.outcomes(greedy.after, &mut outcomes);
        assert_eq!(n, 2);
        assert!(outcomes[..n].iter().all(|o| game.moves(o.state, &mut replies) == 0));
        let deep = searcher(2).best_move(&game, board, &value).unwrap();
        assert_eq!(deep.action, RIGHT, "{deep:?}");
        // The same at depth 3, with and without the table.
        for table_bits in [0, 16] {
            let config = ExpectimaxConfig { depth: 3, table_bits, ..ExpectimaxConfig::default() };
            let mut search = Expectimax::new::<Game2048Chance>(&config).unwrap();
            assert_eq!(search.best_move(&game, board, &value).unwrap().action, RIGHT);
        }
    }

    /// The default run, trained and then evaluated on 1,000 games on one
    /// view: `cargo test --release -p minnow-tasks -- --ignored ntuple_default`.
    #[test]
    #[ignore = "trains the default config: minutes in release"]
    fn ntuple_default_reaches_2048_in_half_the_games() {
        let config = NTupleConfig::default();
        let mut player = Player::new(&config).unwrap();
        let mut td = player.learner(&config);
        let mut env = Game2048::new(config.env).unwrap();
        let started = Instant::now();
        for k in 0..config.games {
            player.train_game(&mut td, &mut env, game_seed(config.seed, k)).unwrap();
        }
        let seconds = started.elapsed().as_secs_f64();
        let r = player.evaluate(&env, 1000, config.eval.seed, &config.eval.search(), &|| {}).unwrap();
        eprintln!("trained in {seconds:.1} s; {r:?}");
        assert!(seconds < 1800.0, "training took {seconds:.0} s");
        assert!(r.reached_2048 >= 0.5, "{r:?}");
        assert!(r.mean_score > 20_000.0, "{r:?}");
    }
}
