//! ntuple-2048's yardstick: greedy play of seeded games on one view of
//! the board, as at the end of training (`eval.last` games from
//! `eval.seed` give the run's final figures again).

use super::agent::NTupleAgent;
use crate::eval::Game2048Result;
use minnow_envs::Game2048;
use minnow_train::{Progress, TaskError, with_progress};
use serde::Serialize;
use std::time::Instant;

/// The yardstick's results.
#[derive(Clone, Debug, Serialize)]
pub struct NTupleReport {
    /// The seed the games are drawn from.
    pub seed: u64,
    /// The games played out.
    pub result: Game2048Result,
    /// Wall seconds.
    pub seconds: f64,
}

impl NTupleReport {
    /// The report as the command line prints it.
    pub fn table(&self) -> String {
        let indented = self.result.to_string().replace('\n', "\n  ");
        format!("greedy play on one view, games from seed {}:\n  {indented}\n  ({:.1} s)\n", self.seed, self.seconds)
    }
}

/// `agent` plays `games` games greedily to the end, game `k` drawn from
/// `seed` as the run's evaluations draw it, ticking `progress` once a game.
pub fn ntuple_suite(
    agent: &NTupleAgent,
    games: usize,
    seed: u64,
    progress: &dyn Progress,
) -> Result<NTupleReport, TaskError> {
    let prototype = Game2048::new(agent.config.env)?;
    let t = Instant::now();
    let result = with_progress(progress, "greedy games, one view", games as u64, |tick| {
        agent.player.evaluate(&prototype, games, seed, tick)
    })?;
    Ok(NTupleReport { seed, result, seconds: t.elapsed().as_secs_f64() })
}
