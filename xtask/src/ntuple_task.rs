//! `cargo xtask train ntuple-2048`: an n-tuple network learning 2048 by
//! TD(0) on afterstates, one game after another on one core, with a
//! progress bar, metrics, a learning curve, checkpoints with exact
//! `--resume`, and a final greedy evaluation on one view of the board.
//!
//! The default network reads each of its twelve 6-tuple tables at one
//! placement (12 entries per board) and plays on one view of the board.
//! With `"symmetric_sampling": true` each table is read at its tuple's 8
//! rotations and reflections too, so the tables are shared across the
//! board's symmetries (`configs/ntuple-2048-symmetric.json`).

use crate::error::XtaskError;
use crate::train::{FrontEnd, TrainArgs, game_seed, layered};
use minnow_envs::game2048::{Board, BoardSymmetry, MOVE_COUNT};
use minnow_envs::{Env, EnvError, Game2048, Game2048Config};
use minnow_optim::Check;
use minnow_rl::RlError;
use minnow_rl::ntuple::{NTupleNetwork, TdLearner};
use minnow_tasks::eval::{Game2048Result, games_2048};
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The task's whole config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NTupleConfig {
    /// Seeds the training games (game `k` of seed `s` is the same in every run).
    seed: u64,
    /// Training games.
    games: u64,
    /// TD step size: the share of the TD error a board's value moves by.
    alpha: f32,
    /// Cell patterns (cell = 4 * row + col), one table each.
    tuples: Vec<Vec<usize>>,
    /// Read each pattern's table at the pattern's 8 rotations and
    /// reflections too (symmetric sampling) instead of at the pattern alone.
    symmetric_sampling: bool,
    /// Values a cell takes in the tables: exponents 0..levels - 1, larger
    /// tiles read as the largest (16 keeps every tile apart).
    levels: usize,
    env: Game2048Config,
    /// Games between checkpoints.
    checkpoint_every: u64,
    eval: EvalConfig,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EvalConfig {
    /// Training games between evaluations.
    every: u64,
    /// Games per evaluation during training, and in the final one.
    during: usize,
    last: usize,
    seed: u64,
}

/// Twelve 6-tuples, each with its own table read at one placement: a
/// row with two cells of the next row (rows 0-1, 1-2, 2-3), a 2x3
/// rectangle (the left three columns of the same row pairs), and the same
/// six turned into columns. Cells are read by 2 to 8 tuples, most near
/// the top-left corner; the bottom-right corner is read by none (a gap
/// this layout keeps: the results in docs/RESULTS.md are with it).
/// (The shapes are Jaśkowski 2016's; his network reads four of them at
/// all 8 symmetric placements: `configs/ntuple-2048-symmetric.json`.)
fn default_tuples() -> Vec<Vec<usize>> {
    vec![
        vec![0, 1, 2, 3, 4, 5],
        vec![4, 5, 6, 7, 8, 9],
        vec![8, 9, 10, 11, 12, 13],
        vec![0, 1, 2, 4, 5, 6],
        vec![4, 5, 6, 8, 9, 10],
        vec![8, 9, 10, 12, 13, 14],
        vec![0, 4, 8, 12, 1, 5],
        vec![1, 5, 9, 13, 2, 6],
        vec![2, 6, 10, 14, 3, 7],
        vec![0, 4, 8, 1, 5, 9],
        vec![1, 5, 9, 2, 6, 10],
        vec![2, 6, 10, 3, 7, 11],
    ]
}

impl Default for NTupleConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            games: 40_000,
            alpha: 0.25,
            tuples: default_tuples(),
            symmetric_sampling: false,
            levels: 16,
            env: Game2048Config::default(),
            checkpoint_every: 10_000,
            eval: EvalConfig { every: 10_000, during: 100, last: 1000, seed: 2048 },
        }
    }
}

fn bad_count(field: &'static str, expected: &'static str, found: u64) -> RlError {
    Check("ntuple-2048").count(field, expected, found).into()
}

impl NTupleConfig {
    fn validate(&self) -> Result<(), RlError> {
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1.0) {
            let (field, expected, found) = ("alpha", "a value in (0, 1]", self.alpha);
            return Err(Check("ntuple-2048").value(field, expected, found).into());
        }
        if self.games == 0 {
            return Err(bad_count("games", "at least 1", 0));
        }
        if !(2..=16).contains(&self.levels) {
            return Err(bad_count("levels", "2..=16 (a cell holds exponents 0..=15)", self.levels as u64));
        }
        if self.checkpoint_every == 0 {
            return Err(bad_count("checkpoint_every", "at least 1", 0));
        }
        for (field, value) in [("eval.every", self.eval.every), ("eval.during", self.eval.during as u64)] {
            if value == 0 {
                return Err(bad_count(field, "at least 1", 0));
            }
        }
        if self.eval.last == 0 {
            return Err(bad_count("eval.last", "at least 1", 0));
        }
        if let Some(&cell) = self.tuples.iter().flatten().find(|&&c| c >= 16) {
            return Err(bad_count("tuples", "cells 0..=15 (4 * row + col)", cell as u64));
        }
        self.env.validate()?;
        Ok(())
    }
}

/// The afterstate value function over 2048 boards.
#[derive(Clone, Debug)]
struct Player {
    net: NTupleNetwork,
    top: u8,
}

impl Player {
    fn new(config: &NTupleConfig) -> Result<Self, String> {
        let tables: Vec<Vec<Vec<usize>>> = if config.symmetric_sampling {
            let symmetries = BoardSymmetry::all();
            let image = |tuple: &Vec<usize>, s: &BoardSymmetry| tuple.iter().map(|&c| s.map_cell(c)).collect();
            config.tuples.iter().map(|t| symmetries.iter().map(|s| image(t, s)).collect()).collect()
        } else {
            config.tuples.iter().map(|t| vec![t.clone()]).collect()
        };
        let net = NTupleNetwork::new(16, config.levels, &tables).map_err(|e| format!("config key tuples: {e}"))?;
        Ok(Self { net, top: config.levels as u8 - 1 })
    }

    /// The network's input: each cell's exponent, capped at the top level.
    fn cells(&self, board: Board) -> [u8; 16] {
        let bits = board.bits();
        std::array::from_fn(|c| (((bits >> (4 * c)) & 0xf) as u8).min(self.top))
    }

    fn value(&self, board: Board) -> f32 {
        self.net.value(&self.cells(board))
    }

    /// The legal move with the largest reward + V(afterstate), with its
    /// afterstate and reward; `None` when the game is over.
    fn best_move(&self, board: Board) -> Option<(usize, Board, u32)> {
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
    fn play(&self, env: &mut Game2048) -> Result<(), EnvError> {
        while let Some((m, _, _)) = self.best_move(env.board()) {
            env.step(m)?;
        }
        Ok(())
    }

    /// Plays one game from `seed`, learning after every move; returns the
    /// sum of squared TD errors.
    fn train_game(&mut self, td: &mut TdLearner, env: &mut Game2048, seed: u64) -> Result<f64, EnvError> {
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

    fn evaluate(&self, prototype: &Game2048, games: usize, seed: u64) -> Result<Game2048Result, EnvError> {
        let mut envs = games_2048(prototype, games, seed);
        for env in &mut envs {
            self.play(env)?;
        }
        Ok(Game2048Result::of_games(&envs))
    }
}

/// Training statistics since the last metrics line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Window {
    games: u64,
    moves: u64,
    score: u64,
    squared_error: f64,
}

impl Window {
    /// A game of 2048 ends before its tiles sum past 16 * 2^15 (a move
    /// adds a tile of 2 or more), so it has fewer moves than this, and its
    /// score (each merge scores the new tile) stays below the other.
    const MOVES_PER_GAME: u64 = 1 << 18;
    const SCORE_PER_GAME: u64 = 1 << 24;

    /// Checks a window read from a checkpoint at `step` games: no more
    /// games than the run has played, no more moves or points than they
    /// can hold, a finite error.
    fn check(&self, step: u64) -> Result<(), TrainError> {
        let bound = |per_game: u64| self.games.checked_mul(per_game).unwrap_or(0);
        let problem = if self.games > step {
            format!("{} games in the window, more than the run's {step}", self.games)
        } else if self.moves > bound(Self::MOVES_PER_GAME) || self.score > bound(Self::SCORE_PER_GAME) {
            format!("{} moves and {} points are more than {} games can hold", self.moves, self.score, self.games)
        } else if !(self.squared_error.is_finite() && self.squared_error >= 0.0) {
            format!("squared_error {} is not a finite value >= 0", self.squared_error)
        } else {
            return Ok(());
        };
        Err(TrainError::BadState { key: "window".into(), detail: problem })
    }
}

const WEIGHTS: &str = "ntuple.weights";
const TASK: &str = "ntuple-2048";

/// An n-tuple run as the run driver sees it: one step is one game.
struct NTupleRun {
    config: NTupleConfig,
    player: Player,
    td: TdLearner,
    prototype: Game2048,
    env: Game2048,
    games: u64,
    window: Window,
    log_every: u64,
    moves_trained: u64,
}

impl NTupleRun {
    /// A run at its start (the config validated).
    fn new(config: NTupleConfig) -> Result<Self, String> {
        let prototype = Game2048::new(config.env).map_err(|e| e.to_string())?;
        Ok(Self {
            player: Player::new(&config)?,
            td: TdLearner::new(config.alpha),
            env: prototype.clone(),
            prototype,
            games: 0,
            window: Window::default(),
            log_every: (config.games / 1000).max(1),
            moves_trained: 0,
            config,
        })
    }

    fn cadence(&self) -> Cadence {
        let config = &self.config;
        Cadence { eval_every: config.eval.every, checkpoint_every: config.checkpoint_every, eval_at_end: false }
    }
}

impl Run for NTupleRun {
    fn task(&self) -> &str {
        TASK
    }

    /// Everything but the game budget, the checkpoint cadence and the
    /// evaluations.
    fn identity(&self) -> String {
        minnow_train::config_identity(&self.config, &["games", "checkpoint_every", "eval"])
    }

    fn step(&self) -> u64 {
        self.games
    }

    fn total(&self) -> u64 {
        self.config.games
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let seed = game_seed(self.config.seed, self.games);
        let squared = self.player.train_game(&mut self.td, &mut self.env, seed).map_err(TrainError::task)?;
        self.moves_trained += self.env.moves();
        self.games += 1;
        let window = &mut self.window;
        window.games += 1;
        window.moves += self.env.moves();
        window.score += self.env.score();
        window.squared_error += squared;
        if self.games.is_multiple_of(self.log_every) || self.games == self.config.games {
            let n = window.games as f64;
            // "loss": the mean squared TD error per move, which grows with
            // the values as the games get longer.
            metrics.extend([
                ("loss", window.squared_error / window.moves.max(1) as f64),
                ("train_mean_score", window.score as f64 / n),
                ("train_mean_moves", window.moves as f64 / n),
            ]);
            *window = Window::default();
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let eval = self.config.eval;
        let r = self.player.evaluate(&self.prototype, eval.during, eval.seed).map_err(TrainError::task)?;
        metrics.extend(r.metrics());
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        let weights = self.player.net.weights();
        checkpoint.tensor(WEIGHTS, &[weights.len()], weights).json("config", &self.config).json("window", &self.window);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.player.net.restore(checkpoint.raw(), WEIGHTS).map_err(TrainError::task)?;
        let (window, games): (Window, u64) = (checkpoint.json("window")?, checkpoint.step()?);
        window.check(games)?;
        (self.window, self.games) = (window, games);
        Ok(())
    }
}

pub fn train_ntuple(args: &TrainArgs) -> Result<(), XtaskError> {
    let mut config = layered(NTupleConfig::default(), args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(games) = args.steps {
        config.games = games;
    }
    config.validate().map_err(|e| e.to_string())?;
    // One f32 per entry of each tuple's table: levels^(cells in the tuple).
    let entries: f64 = config.tuples.iter().map(|t| (config.levels as f64).powi(t.len() as i32)).sum();
    minnow_train::memory::check_fits("the n-tuple tables", 4.0 * entries)?;
    let (out, checkpoint) = crate::train::run_dir(args, TASK)?;
    let total = config.games;
    let mut run = NTupleRun::new(config)?;
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    }
    let config = run.config.clone();
    crate::train::write_json(&out.join("config.json"), &config)?;

    println!(
        "training {TASK} for {total} games: {} tables, {} weights ({:.0} MiB), {} entries read per board{} -> {}",
        config.tuples.len(),
        run.player.net.weights().len(),
        run.player.net.weights().len() as f64 * 4.0 / (1 << 20) as f64,
        run.player.net.features(),
        if config.symmetric_sampling { " (symmetric sampling)" } else { "" },
        out.display()
    );
    let mut front = FrontEnd::open(&out, run.games, total, "mean_score")?;
    let (started, start_games) = (Instant::now(), run.games);
    let cadence = run.cadence();
    let timing = minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front)?;
    front.bar.finish_and_clear();
    front.plot(&out.join("curve.png"), TASK)?;
    let train_seconds = timing.train_seconds;
    println!(
        "{TASK}: {} games, {} moves in {train_seconds:.1} s of training ({:.0} moves/s; {:.1} s in all)",
        run.games - start_games,
        run.moves_trained,
        run.moves_trained as f64 / train_seconds.max(1e-9),
        started.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let r = run.player.evaluate(&run.prototype, config.eval.last, config.eval.seed).map_err(|e| e.to_string())?;
    println!("final greedy evaluation, one view ({:.1} s):\n{r}", t.elapsed().as_secs_f64());
    crate::train::write_json(&out.join("eval.json"), &r)?;
    println!("wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, eval.json}}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_arena::count_allocations;

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
    fn bad_configs_are_errors_naming_the_key() {
        let err = |edit: fn(&mut NTupleConfig)| {
            let mut c = NTupleConfig::default();
            edit(&mut c);
            c.validate().unwrap_err().to_string()
        };
        assert_eq!(err(|c| c.alpha = 0.0), "ntuple-2048.alpha: expected a value in (0, 1], found 0");
        assert!(err(|c| c.games = 0).starts_with("ntuple-2048.games"));
        assert!(err(|c| c.levels = 17).starts_with("ntuple-2048.levels"));
        assert!(err(|c| c.checkpoint_every = 0).starts_with("ntuple-2048.checkpoint_every"));
        assert!(err(|c| c.eval.every = 0).starts_with("ntuple-2048.eval.every"));
        assert_eq!(err(|c| c.tuples[1][2] = 16), "ntuple-2048.tuples: expected cells 0..=15 (4 * row + col), found 16");
        assert!(err(|c| c.env.four_probability = 2.0).contains("four_probability"));
        let repeated = NTupleConfig { tuples: vec![vec![0, 1, 1]], ..NTupleConfig::default() };
        assert!(Player::new(&repeated).unwrap_err().contains("tuples"));
        let unknown = serde_json::from_str::<NTupleConfig>(r#"{"alfa": 0.1}"#).unwrap_err().to_string();
        assert!(unknown.contains("alfa"), "{unknown}");
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
        let r = player.evaluate(&env, 100, 9).unwrap();
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

    /// Four 4-cell tables, 6 games, a checkpoint and an evaluation of one
    /// game every 3.
    fn tiny_config() -> NTupleConfig {
        let tuples = (0..4).map(|k| vec![4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]).collect();
        let eval = EvalConfig { every: 3, during: 1, last: 1, seed: 5 };
        NTupleConfig { tuples, levels: 12, games: 6, checkpoint_every: 3, eval, ..NTupleConfig::default() }
    }

    /// A checkpoint after 3 games, made once.
    fn saved() -> &'static minnow_nn::Checkpoint {
        static SAVED: std::sync::OnceLock<minnow_nn::Checkpoint> = std::sync::OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(NTupleRun::new(tiny_config()).unwrap(), 3))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the window, the step, the config, the task
        /// and identity tags) is refused or trains on; never a panic.
        #[test]
        fn crafted_ntuple_metadata_resumes_or_is_refused((key, value) in minnow_nn::testing::crafted_metadata(saved())) {
            let run = NTupleRun::new(tiny_config()).unwrap();
            let cadence = run.cadence();
            minnow_train::testing::resume_crafted(saved(), &key, value, run, cadence);
        }
    }

    #[test]
    fn a_window_the_run_cannot_hold_is_refused_naming_it() {
        let dir = minnow_nn::testing::ScratchDir::new("ntuple-window");
        let path = dir.join("window.safetensors");
        let refused = |window: Window| {
            saved().rewrite(&["window"]).meta("window", serde_json::to_string(&window).unwrap()).save(&path).unwrap();
            minnow_train::resume(&mut NTupleRun::new(tiny_config()).unwrap(), &path).unwrap_err().to_string()
        };
        let err = refused(Window { games: u64::MAX, ..Window::default() });
        assert!(err.contains("metadata 'window'") && err.contains("more than the run's 3"), "{err}");
        assert!(refused(Window { games: 1, moves: u64::MAX, ..Window::default() }).contains("1 games can hold"));
        assert!(refused(Window { squared_error: -1.0, ..Window::default() }).contains("squared_error -1"));
    }

    /// The default run, trained and then evaluated on 1,000 games on one
    /// view: `cargo test --release -p xtask -- --ignored ntuple_default`.
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
        let r = player.evaluate(&env, 1000, config.eval.seed).unwrap();
        eprintln!("trained in {seconds:.1} s; {r:?}");
        assert!(seconds < 1800.0, "training took {seconds:.0} s");
        assert!(r.reached_2048 >= 0.5, "{r:?}");
        assert!(r.mean_score > 20_000.0, "{r:?}");
    }
}
