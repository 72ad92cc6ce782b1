//! `ntuple-2048`: an n-tuple network learning 2048 by TD(0) on
//! afterstates, one game after another on one core, evaluated greedily
//! on one view of the board as it trains and at the end.
//!
//! Play is greedy on the afterstate values, or an expectimax search over
//! the spawns (`eval.depth`, [`minnow_rl::expectimax`]); training can use
//! temporal coherence (`coherence`), multi-stage tables (`stages`) and
//! optimistic initial values (`initial_value`).
//!
//! The default network reads each of its twelve 6-tuple tables at one
//! placement (12 entries per board) and plays on one view of the board.
//! With `"symmetric_sampling": true` each table is read at its tuple's 8
//! rotations and reflections too, so the tables are shared across the
//! board's symmetries (`configs/ntuple-2048-symmetric.json`).
//!
//! A trained player reads back with [`NTupleAgent::load`], from a run
//! checkpoint or from the agent [`write_agent`] ships (the tables' sparse
//! form), and [`ntuple_suite`] plays it on seeded games.

mod agent;
mod config;
mod player;
mod run;
mod suite;

pub use agent::{NTupleAgent, SPARSE_GAPS, SPARSE_VALUES, SparseCount, write_agent};
pub use config::{NTupleConfig, NTupleEvalConfig};
pub use run::WEIGHTS;
pub use run::{COHERENCE_ERRORS, COHERENCE_MAGNITUDES};
pub use suite::{NTupleReport, REPORTED_TILES, ntuple_suite};

use minnow_train::{Evaluate, Evaluation, Session, Task, TaskError, View};
use run::{NTupleRun, TASK};
use std::time::Instant;

/// The n-tuple task on 2048.
#[derive(Clone, Copy, Debug, Default)]
pub struct NTuple2048;

impl Task for NTuple2048 {
    type Config = NTupleConfig;

    fn name(&self) -> &str {
        TASK
    }

    fn about(&self) -> &str {
        "n-tuple network playing 2048, TD(0) on afterstates, one view"
    }

    fn defaults(&self) -> NTupleConfig {
        NTupleConfig::default()
    }

    fn set_seed(&self, config: &mut NTupleConfig, seed: u64) {
        config.seed = seed;
    }

    fn set_steps(&self, config: &mut NTupleConfig, games: u64) {
        config.games = games;
    }

    /// The config's ranges, and tables that fit in memory (refused before
    /// anything is allocated).
    fn check(&self, config: &NTupleConfig) -> Result<(), TaskError> {
        config.validate()?;
        minnow_train::memory::check_fits("the n-tuple tables", config.table_bytes())?;
        Ok(())
    }

    fn train(&self, config: &NTupleConfig, session: &mut dyn Session) -> Result<(), TaskError> {
        let mut run = NTupleRun::new(config.clone())?;
        session.resume(&mut run)?;
        if let Some(out) = session.out() {
            let net = &run.learner.player.net;
            let weights = net.weights().len();
            minnow_train::outln!(
                "training {TASK} for {} games: {} tables, {weights} weights ({:.0} MiB), {} entries read per board{} -> {}",
                config.games,
                config.tuples.len(),
                weights as f64 * 4.0 / (1 << 20) as f64,
                net.features(),
                [
                    if config.symmetric_sampling { " (symmetric sampling)" } else { "" },
                    if config.coherence { ", temporal coherence" } else { "" },
                    if config.stages.is_empty() { "" } else { ", multi-stage" },
                ]
                .concat(),
                out.display()
            );
        }
        let (started, start_games) = (Instant::now(), run.games());
        let cadence = run.cadence();
        let timing = session.drive(&mut run, cadence, View { headline: "mean_score", show: &[], observer: &mut () })?;
        let train_seconds = timing.train_seconds;
        minnow_train::outln!(
            "{TASK}: {} games, {} moves in {train_seconds:.1} s of training ({:.0} moves/s; {:.1} s in all)",
            run.games() - start_games,
            run.moves_trained,
            run.moves_trained as f64 / train_seconds.max(1e-9),
            started.elapsed().as_secs_f64()
        );
        let t = Instant::now();
        let learner = &run.learner;
        let search = config.eval.search();
        let r = learner.player.evaluate(&learner.prototype, config.eval.last, config.eval.seed, &search, &|| {})?;
        let play = if search.depth == 1 { "greedy".to_string() } else { format!("depth-{} expectimax", search.depth) };
        minnow_train::outln!("final {play} evaluation, one view ({:.1} s):\n{r}", t.elapsed().as_secs_f64());
        minnow_train::write_json(session, "eval.json", &r)
    }

    /// The final evaluation's games on saved tables (a run's, or the
    /// shipped sparse ones), `overrides` laid over their config
    /// (`{"eval": {"seed": 7, "depth": 3}}`).
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        let mut agent = NTupleAgent::load(request.checkpoint)?;
        agent.config = minnow_train::config::layered(agent.config, request.overrides)?;
        self.check(&agent.config)?;
        let (games, seed) = (request.games.unwrap_or(agent.config.eval.last), agent.config.eval.seed);
        let report = ntuple_suite(&agent, games, seed, &agent.config.eval.search(), request.progress)?;
        let title = format!("{}: {TASK} tables after {} games\n", request.checkpoint.display(), agent.games);
        Ok(Evaluation { figures: report.figures(), table: title + &report.table() })
    }
}
