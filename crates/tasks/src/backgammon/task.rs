//! `td-backgammon`: TD-Gammon's method as a task. One game after another
//! on one core, so a run is the same from its seed on any machine; a
//! short 1-ply match against pubeval every `eval.every` games; at the end
//! the network alone and a 2-ply search against pubeval
//! ([`td_suite`](crate::backgammon::td_suite)), written to `eval.json`.

use crate::backgammon::td_run::TdRun;
use crate::backgammon::{EVAL_SEED, FEATURES, OUTPUTS, TdBackgammonConfig, load, td_suite};
use minnow_train::{Evaluate, Evaluation, Session, Task, TaskError, View};
use std::time::Instant;

/// The task's name.
pub const TD_BACKGAMMON: &str = "td-backgammon";

/// TD(lambda) self-play on backgammon's afterstates, judged against pubeval.
#[derive(Clone, Copy, Debug, Default)]
pub struct TdBackgammon;

impl Task for TdBackgammon {
    type Config = TdBackgammonConfig;

    fn name(&self) -> &str {
        TD_BACKGAMMON
    }

    fn about(&self) -> &str {
        "TD(lambda) self-play on afterstates (TD-Gammon), backgammon, judged against pubeval"
    }

    fn defaults(&self) -> TdBackgammonConfig {
        TdBackgammonConfig::default()
    }

    fn set_seed(&self, config: &mut TdBackgammonConfig, seed: u64) {
        config.seed = seed;
    }

    fn set_steps(&self, config: &mut TdBackgammonConfig, games: u64) {
        config.games = games;
    }

    fn check(&self, config: &TdBackgammonConfig) -> Result<(), TaskError> {
        Ok(config.validate()?)
    }

    fn train(&self, config: &TdBackgammonConfig, session: &mut dyn Session) -> Result<(), TaskError> {
        let mut run = TdRun::new(config.clone())?;
        session.resume(&mut run)?;
        if let Some(out) = session.out() {
            minnow_train::outln!(
                "training {TD_BACKGAMMON} for {} games: {FEATURES}-{}-{OUTPUTS} network ({} parameters), lambda {}, step size {} -> {} -> {}",
                config.games,
                config.hidden,
                run.learner.net.params().len(),
                config.td.lambda,
                config.td.learning_rate,
                config.learning_rate_end,
                out.display()
            );
        }
        let (started, start_games) = (Instant::now(), run.games());
        let cadence = run.cadence();
        let view = View { headline: "win_rate_vs_pubeval", show: &[], observer: &mut () };
        let timing = session.drive(&mut run, cadence, view)?;
        let (games, train_seconds) = (run.games() - start_games, timing.train_seconds);
        minnow_train::outln!(
            "{TD_BACKGAMMON}: {games} games, {} decisions in {train_seconds:.1} s of training ({:.0} games/s; {:.1} s in all)",
            run.moves_trained,
            games as f64 / train_seconds.max(1e-9),
            started.elapsed().as_secs_f64()
        );
        let eval = &config.eval;
        let report = td_suite(&run.learner.net, eval.final_games, eval, EVAL_SEED ^ 1, session.progress())?;
        minnow_train::out!("{}", report.table());
        minnow_train::write_json(session, "eval.json", &report)?;
        Ok(())
    }

    /// The final suite on a saved network, `overrides` laid over the
    /// config it was trained with (`{"eval": {"candidates": 1}}`).
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        let saved = load(request.checkpoint)?;
        let config = minnow_train::config::layered(saved.config, request.overrides)?;
        self.check(&config)?;
        let eval = &config.eval;
        let games = request.games.unwrap_or(eval.final_games);
        let report = td_suite(&saved.net, games, eval, EVAL_SEED ^ 1, request.progress)?;
        let title = format!("{}: {TD_BACKGAMMON} network after {} games\n", request.checkpoint.display(), saved.games);
        Ok(Evaluation { figures: report.metrics(), table: title + &report.table() })
    }
}
