//! The learner of a distributed run: the one-process run driven as rank 0,
//! its games played by the actor ranks.

use super::actors::Actors;
use super::{AzRun, IterationReport, Positions};
use crate::Result;
use minnow_dist::Collective;
use minnow_envs::Game;
use minnow_train::{Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use std::rc::Rc;

/// The learner of a distributed run: an [`AzRun`] whose games the other
/// ranks of the job play. A [`minnow_train::Run`] like the run itself
/// (checkpoints, evaluations and resume are the run's own); the MPI world
/// stays here, on the thread that drives it, so the run keeps sharing
/// freely with evaluation threads.
#[derive(Debug)]
pub struct Learner<G: Game> {
    run: AzRun<G>,
    actors: Actors,
}

impl<G: Game + Default + Send + Sync> Learner<G> {
    /// `run` (fresh or resumed) as rank 0 of `comm`, every other rank an
    /// actor ([`play_for_learner`](super::play_for_learner)); its self-play threads are dropped.
    /// The learner runs `steps_per_iteration` updates per actor per
    /// iteration, so its replay ratio is the configured one at any number
    /// of actors. End with [`finish`](Self::finish), or the actors wait.
    pub fn new(mut run: AzRun<G>, comm: Rc<dyn Collective>) -> Result<Self> {
        let actors = Actors::new(comm, run.snapshot())?;
        run.outputs = (0..actors.count()).map(|_| Positions::default()).collect();
        run.workers = Vec::new();
        Ok(Self { run, actors })
    }

    /// The run as it stands.
    pub fn run(&self) -> &AzRun<G> {
        &self.run
    }

    /// One iteration: the actors play while this process trains.
    pub fn iterate(&mut self) -> Result<IterationReport> {
        self.run.iterate_with(Some(&mut self.actors))
    }

    /// Tells the actors to stop (a round under way is waited out, its
    /// games dropped) and gives the run back, for its final evaluation.
    pub fn finish(mut self) -> AzRun<G> {
        self.actors.stop();
        self.run
    }
}

impl<G: Game + Default + Send + Sync> Run for Learner<G> {
    fn task(&self) -> &str {
        self.run.task()
    }

    fn identity(&self) -> String {
        self.run.identity()
    }

    fn step(&self) -> u64 {
        Run::step(&self.run)
    }

    fn total(&self) -> u64 {
        self.run.total()
    }

    fn ends_early(&self) -> bool {
        self.run.ends_early()
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let report = self.iterate().map_err(TrainError::task)?;
        metrics.extend(report.metrics());
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        self.run.evaluate(metrics)
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        self.run.save(checkpoint)
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.run.restore(checkpoint)
    }
}
