//! ntuple-2048's yardstick: seeded games played to the end on one view of
//! the board, greedily or with expectimax search (`eval.depth`), as at the
//! end of training (`eval.last` games from `eval.seed` give the run's
//! final figures again).

use super::agent::NTupleAgent;
use crate::eval::Game2048Result;
use minnow_envs::Game2048;
use minnow_rl::expectimax::ExpectimaxConfig;
use minnow_train::{Progress, TaskError, with_progress};
use serde::Serialize;
use std::time::Instant;

/// The tiles whose share of games the report names.
pub const REPORTED_TILES: [u32; 5] = [2048, 4096, 8192, 16384, 32768];

/// The yardstick's results.
#[derive(Clone, Debug, Serialize)]
pub struct NTupleReport {
    /// The seed the games are drawn from.
    pub seed: u64,
    /// The search that chose the moves.
    pub depth: usize,
    /// See [`ExpectimaxConfig::min_probability`].
    pub min_probability: f32,
    /// The games played out.
    pub result: Game2048Result,
    /// Wall seconds.
    pub seconds: f64,
}

impl NTupleReport {
    /// Moves played per wall second (over every thread that played).
    pub fn moves_per_second(&self) -> f64 {
        self.result.mean_moves * self.result.games as f64 / self.seconds.max(1e-9)
    }

    /// The share of games reaching each of [`REPORTED_TILES`], named `reached_TILE`.
    pub fn figures(&self) -> Vec<(&'static str, f64)> {
        let mut figures = self.result.metrics();
        let names = ["reached_2048", "reached_4096", "reached_8192", "reached_16384", "reached_32768"];
        for (name, tile) in names.into_iter().zip(REPORTED_TILES).skip(1) {
            figures.push((name, self.result.reached(tile)));
        }
        figures.push(("moves_per_second", self.moves_per_second()));
        figures
    }

    /// The report as the command line prints it.
    pub fn table(&self) -> String {
        let play = match self.depth {
            1 => "greedy play".to_string(),
            d if self.min_probability > 0.0 => {
                format!("expectimax depth {d} (spawn sequences below p {} valued as leaves)", self.min_probability)
            }
            d => format!("expectimax depth {d}"),
        };
        let reached: Vec<String> =
            REPORTED_TILES.iter().map(|&t| format!("{t} {:.1}%", 100.0 * self.result.reached(t))).collect();
        let indented = self.result.to_string().replace('\n', "\n  ");
        format!(
            "{play} on one view, games from seed {}:\n  {indented}\n  reached {}\n  ({:.1} s, {:.0} moves/s)\n",
            self.seed,
            reached.join(", "),
            self.seconds,
            self.moves_per_second()
        )
    }
}

/// `agent` plays `games` games to the end with `search`, game `k` drawn
/// from `seed` as the run's evaluations draw it, ticking `progress` once a
/// game.
pub fn ntuple_suite(
    agent: &NTupleAgent,
    games: usize,
    seed: u64,
    search: &ExpectimaxConfig,
    progress: &dyn Progress,
) -> Result<NTupleReport, TaskError> {
    let prototype = Game2048::new(agent.config.env)?;
    let t = Instant::now();
    let label = if search.depth == 1 { "greedy games".to_string() } else { format!("depth-{} games", search.depth) };
    let result = with_progress(progress, &label, games as u64, |tick| {
        agent.player.evaluate(&prototype, games, seed, search, tick)
    })?;
    let (depth, min_probability) = (search.depth, search.min_probability);
    Ok(NTupleReport { seed, depth, min_probability, result, seconds: t.elapsed().as_secs_f64() })
}
