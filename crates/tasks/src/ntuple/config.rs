//! The n-tuple task's config: the network's tuples, TD(0)'s step size,
//! the game, the cadences and the evaluations, with the checks that refuse
//! what could not train.

use crate::game_runs::{GameRunConfig, game_run_config};
use minnow_envs::Game2048Config;
use minnow_optim::Check;
use minnow_rl::RlError;
use minnow_rl::expectimax::{ExpectimaxConfig, MAX_DEPTH};
use serde::{Deserialize, Serialize};

/// The config's name in its errors (`ntuple-2048.alpha: ...`).
pub(crate) const CONFIG: &str = "ntuple-2048";

/// The n-tuple task's whole config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NTupleConfig {
    /// Seeds the training games (game `k` of seed `s` is the same in every run).
    pub seed: u64,
    /// Training games.
    pub games: u64,
    /// TD step size: the share of the TD error a board's value moves by.
    pub alpha: f32,
    /// Cell patterns (cell = 4 * row + col), one table each.
    pub tuples: Vec<Vec<usize>>,
    /// Read each pattern's table at the pattern's 8 rotations and
    /// reflections too (symmetric sampling) instead of at the pattern alone.
    pub symmetric_sampling: bool,
    /// Values a cell takes in the tables: exponents 0..levels - 1, larger
    /// tiles read as the largest (16 keeps every tile apart).
    pub levels: usize,
    /// The game.
    pub env: Game2048Config,
    /// Games between checkpoints.
    pub checkpoint_every: u64,
    /// The greedy evaluations.
    pub eval: NTupleEvalConfig,
    /// Temporal coherence learning (Jaśkowski 2016): each table entry
    /// its own step size, `alpha * |sum of its errors| / sum of their
    /// magnitudes`. Triples the memory (the sums are checkpointed).
    #[serde(default, skip_serializing_if = "is_false")]
    pub coherence: bool,
    /// Multi-stage weights: the tiles (powers of two, ascending) whose
    /// first appearance as the largest tile starts a new copy of every
    /// table (`[8192, 16384]`: three stages). Empty: one stage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<u32>,
    /// The value of a board before any update (optimistic initialisation:
    /// a value above any real return makes the player try what it has not
    /// seen). Every entry starts at this over the entries read per board.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub initial_value: f32,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(v: &f32) -> bool {
    *v == 0.0
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn one() -> usize {
    1
}

/// The evaluations during and after training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NTupleEvalConfig {
    /// Training games between evaluations.
    pub every: u64,
    /// Games per evaluation during training.
    pub during: usize,
    /// Games of the final evaluation.
    pub last: usize,
    /// Seeds the evaluation games (the same at every evaluation).
    pub seed: u64,
    /// The final evaluation's search depth: 1 plays greedily on the
    /// afterstate values, each further level averages over the spawns
    /// and takes the best reply (expectimax). Evaluations during training
    /// stay greedy.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub depth: usize,
    /// Spawn sequences less likely than this are valued by the network
    /// instead of searched (0: search every spawn).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_probability: f32,
}

impl NTupleEvalConfig {
    /// The final evaluation's search.
    pub fn search(&self) -> ExpectimaxConfig {
        ExpectimaxConfig { depth: self.depth, min_probability: self.min_probability, ..ExpectimaxConfig::default() }
    }
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
    let row_and_two = |r: usize| vec![4 * r, 4 * r + 1, 4 * r + 2, 4 * r + 3, 4 * r + 4, 4 * r + 5];
    let rectangle = |r: usize| vec![4 * r, 4 * r + 1, 4 * r + 2, 4 * r + 4, 4 * r + 5, 4 * r + 6];
    let in_rows: Vec<Vec<usize>> = (0..3).map(row_and_two).chain((0..3).map(rectangle)).collect();
    let turned = |tuple: &Vec<usize>| tuple.iter().map(|&c| 4 * (c % 4) + c / 4).collect();
    in_rows.iter().cloned().chain(in_rows.iter().map(turned)).collect()
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
            eval: NTupleEvalConfig {
                every: 10_000,
                during: 100,
                last: 1000,
                seed: 2048,
                depth: 1,
                min_probability: 0.0,
            },
            coherence: false,
            stages: Vec::new(),
            initial_value: 0.0,
        }
    }
}

/// The error for a count out of range, naming its key.
pub(crate) fn bad_count(field: &'static str, expected: &'static str, found: u64) -> RlError {
    Check(CONFIG).count(field, expected, found).into()
}

impl NTupleConfig {
    /// Refuses a value out of range, naming its key.
    pub fn validate(&self) -> Result<(), RlError> {
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1.0) {
            let (field, expected, found) = ("alpha", "a value in (0, 1]", self.alpha);
            return Err(Check(CONFIG).value(field, expected, found).into());
        }
        self.plan().check(CONFIG)?;
        Check(CONFIG).at_least_one("eval.during", self.eval.during as u64)?;
        Check(CONFIG).at_least_one("eval.last", self.eval.last as u64)?;
        if !(2..=16).contains(&self.levels) {
            return Err(bad_count("levels", "2..=16 (a cell holds exponents 0..=15)", self.levels as u64));
        }
        if let Some(&cell) = self.tuples.iter().flatten().find(|&&c| c >= 16) {
            return Err(bad_count("tuples", "cells 0..=15 (4 * row + col)", cell as u64));
        }
        Check(CONFIG).count_in("eval.depth", "1..=6", self.eval.depth as u64, 1, MAX_DEPTH as u64)?;
        Check(CONFIG).unit_open("eval.min_probability", self.eval.min_probability)?;
        Check(CONFIG).non_negative("initial_value", self.initial_value)?;
        let ascending = self.stages.windows(2).all(|w| w[0] < w[1]);
        if let Some(&tile) = self.stages.iter().find(|t| !(4..=32768).contains(*t) || !t.is_power_of_two()) {
            return Err(bad_count("stages", "tiles that are powers of two from 4 to 32768", tile as u64));
        }
        if !ascending || self.stages.len() > 15 {
            return Err(bad_count("stages", "at most 15 tiles in ascending order", self.stages.len() as u64));
        }
        self.env.validate()?;
        Ok(())
    }

    /// The bytes of the tables: one f32 per entry of each tuple's table,
    /// levels^(cells in the tuple).
    /// Temporal coherence's two sums per entry triple it, each stage
    /// multiplies it.
    pub fn table_bytes(&self) -> f64 {
        let entries: f64 = self.tuples.iter().map(|t| (self.levels as f64).powi(t.len() as i32)).sum();
        let copies = (self.stages.len() + 1) as f64 * if self.coherence { 3.0 } else { 1.0 };
        4.0 * entries * copies
    }
}

game_run_config!(NTupleConfig);

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(err(|c| c.eval.depth = 0), "ntuple-2048.eval.depth: expected 1..=6, found 0");
        assert!(err(|c| c.eval.min_probability = 1.0).starts_with("ntuple-2048.eval.min_probability"));
        assert!(err(|c| c.initial_value = -1.0).starts_with("ntuple-2048.initial_value"));
        assert_eq!(
            err(|c| c.stages = vec![8192, 3]),
            "ntuple-2048.stages: expected tiles that are powers of two from 4 to 32768, found 3"
        );
        assert!(
            err(|c| c.stages = vec![16384, 8192])
                .starts_with("ntuple-2048.stages: expected at most 15 tiles in ascending")
        );
        let unknown = serde_json::from_str::<NTupleConfig>(r#"{"eval": {"dept": 2}}"#).unwrap_err().to_string();
        assert!(unknown.contains("dept"), "{unknown}");
        let unknown = serde_json::from_str::<NTupleConfig>(r#"{"alfa": 0.1}"#).unwrap_err().to_string();
        assert!(unknown.contains("alfa"), "{unknown}");
    }
}
