//! An AlphaZero run as the run driver (`minnow_train::drive`) sees it: a
//! step is one iteration, an evaluation plays the matches of the config's
//! `eval` section (the task's yardstick first, if it set one), the
//! config's time limit ends a run early, and the checkpoint takes the
//! run-checkpoint layout (`docs/CHECKPOINT.md`): the network under
//! `model.`, Adam's moments in the parameters' shapes under `optimizer.`,
//! the replay under `replay.`, the learner's RNG, the totals and the
//! config, and the ratings' record and held snapshots under `league`.

use super::run::network_label;
use super::{AzConfig, AzRun};
use crate::Result;
use minnow_envs::Game;
use minnow_train::{Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use std::path::Path;
use std::time::Instant;

/// Seed of the evaluation matches during a run: fixed, so every
/// evaluation plays the same games.
pub const EVAL_SEED: u64 = 20_261_122;

/// The prefix of the network's parameters in a checkpoint.
pub(super) const MODEL: &str = "model";
const OPTIMIZER: &str = "optimizer";
const REPLAY: &str = "replay";
/// The best snapshot's file in its directory (`AzRun::keep_best_in`).
pub const BEST_FILE: &str = "checkpoint.safetensors";

/// The task name in the checkpoints of an AlphaZero run of game `G`
/// (`az-connect4`): a checkpoint resumes and loads only for its game.
pub fn task_name<G: Game>() -> String {
    format!("az-{}", G::NAME)
}

impl<G: Game + Default + Send + Sync> Run for AzRun<G> {
    fn task(&self) -> &str {
        &self.task
    }

    /// The seed, the network's shape and every section that shapes the
    /// games and the updates; iterations, the time limit, evaluations and
    /// the checkpoint cadence may change on a resume.
    fn identity(&self) -> String {
        identity(&self.config)
    }

    fn step(&self) -> u64 {
        self.iteration
    }

    fn total(&self) -> u64 {
        self.config.iterations
    }

    /// Once self-play and training have run `time_limit_minutes`.
    fn ends_early(&self) -> bool {
        self.out_of_time()
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let report = self.iterate().map_err(TrainError::task)?;
        metrics.extend(report.metrics());
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let e = self.config.eval;
        let mut vs_yardstick = None;
        if let Some(yardstick) = self.yardstick.as_ref().filter(|_| e.yardstick_games > 0) {
            let started = Instant::now();
            let report = yardstick.play(&self.agent(), e.yardstick_games, EVAL_SEED).map_err(TrainError::task)?;
            metrics.extend(report.metrics);
            metrics.push(("yardstick_seconds", started.elapsed().as_secs_f64()));
            vs_yardstick = Some((yardstick.opponent(), report.result));
        }
        let mut report =
            self.play_matches(e.games_vs_random, e.games_vs_rollout, EVAL_SEED).map_err(TrainError::task)?;
        report.vs_yardstick = vs_yardstick;
        metrics.extend(report.metrics());
        if let Some(elo) = self.rate(&report).map_err(TrainError::task)? {
            metrics.extend(elo.metrics());
            if elo.new_best
                && let Some(dir) = &self.best_dir
            {
                self.save_best(dir)?;
            }
        }
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        let params = self.trainer.params();
        checkpoint.params(MODEL, params).optimizer(OPTIMIZER, &self.trainer.adam, params)?;
        let replay = self.replay.save(REPLAY);
        for array in &replay.arrays {
            checkpoint.tensor(&array.name, &array.dims, &array.values);
        }
        for (key, value) in replay.meta {
            checkpoint.meta(&key, value);
        }
        checkpoint
            .meta("network", network_label::<G>(&self.config))
            .json("config", &self.config)
            .json("totals", &self.totals)
            .rng("learn", &self.rng);
        self.league.save(checkpoint);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        let trainer = &mut self.trainer;
        checkpoint.restore_params(MODEL, &mut trainer.params)?;
        checkpoint.restore_optimizer(OPTIMIZER, &mut trainer.adam, &trainer.params)?;
        self.replay.restore(checkpoint.raw(), REPLAY).map_err(TrainError::task)?;
        self.rng = checkpoint.rng("learn")?;
        self.totals = checkpoint.json("totals")?;
        self.iteration = checkpoint.step()?;
        self.league.restore(checkpoint, &self.trainer.params)?;
        self.publish_snapshot().map_err(TrainError::task)
    }
}

/// The config identity of the run's checkpoints: every setting but those
/// a resume may change.
fn identity(c: &AzConfig) -> String {
    minnow_train::config_identity(c, &["iterations", "time_limit_minutes", "eval", "checkpoint_every"])
}

impl<G: Game + Default + Send> AzRun<G> {
    /// Writes the league's best snapshot to `dir/checkpoint.safetensors`
    /// in the run-checkpoint layout, the network only (no optimiser or
    /// replay: it loads for evaluation and play, not for resuming), its
    /// step the iteration it was taken at, its rating under `elo`.
    fn save_best(&self, dir: &Path) -> Result<(), TrainError> {
        let Some((iteration, params, rating)) = self.league.best() else { return Ok(()) };
        std::fs::create_dir_all(dir).map_err(TrainError::io(dir))?;
        RunCheckpointWriter::new(&self.task, &identity(&self.config), iteration)
            .params(MODEL, params)
            .meta("network", network_label::<G>(&self.config))
            .json("config", &self.config)
            .json("elo", &rating)
            .save(&dir.join(BEST_FILE))
    }
}

impl<G: Game + Default + Send + Sync> AzRun<G> {
    /// The run saved at `path` (by `minnow_train::save` or the driver),
    /// continued under `config`, which must shape the computation as the
    /// saved run's did. A checkpoint of another game, network or config
    /// identity, or of an older layout, is an error naming what differs.
    pub fn resume(config: AzConfig, path: &Path) -> Result<Self> {
        let mut run = Self::new(config)?;
        minnow_train::resume(&mut run, path)?;
        Ok(run)
    }
}
