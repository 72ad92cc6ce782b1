//! Value iteration as the run driver sees it: a step is one batch; an
//! evaluation scores the greedy policy and the cost-to-go against the
//! exact distances.

use super::{Cube, CubeEvalConfig, CubeSolverConfig, Result, greedy_table, value_errors};
use minnow_envs::cube2::{MOVE_COUNT, OBSERVATION_SIZE};
use minnow_rl::puzzle::ValueIteration;
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};

/// The learner, its evaluations' config, and how often a step's losses
/// are logged.
#[derive(Debug)]
pub struct SolverRun {
    learner: ValueIteration,
    eval: CubeEvalConfig,
    log_every: u64,
}

impl SolverRun {
    /// A fresh learner on the cube.
    pub fn new(config: &CubeSolverConfig) -> Result<Self> {
        let learner = ValueIteration::new(&config.training, OBSERVATION_SIZE, MOVE_COUNT)?;
        Ok(Self { learner, eval: config.eval, log_every: (config.training.steps / 1000).max(1) })
    }

    /// Evaluations and checkpoints as the config says, and one at the end.
    pub fn cadence(&self) -> Cadence {
        Cadence { eval_every: self.eval.every, checkpoint_every: self.eval.checkpoint_every, eval_at_end: true }
    }

    /// The learner (its cost-to-go is the solver's heuristic).
    pub fn learner(&self) -> &ValueIteration {
        &self.learner
    }
}

impl Run for SolverRun {
    fn task(&self) -> &str {
        super::task::NAME
    }

    fn identity(&self) -> String {
        self.learner.config().identity()
    }

    fn step(&self) -> u64 {
        self.learner.steps()
    }

    fn total(&self) -> u64 {
        self.learner.config().steps
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let stats = self.learner.step(&Cube).map_err(TrainError::task)?;
        if self.learner.steps().is_multiple_of(self.log_every) {
            metrics.extend([
                ("loss", stats.loss as f64),
                ("mean_target", stats.mean_target as f64),
                ("target_updates", stats.target_updates as f64),
            ]);
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        metrics.extend(evaluate_during(&self.learner, &self.eval).map_err(TrainError::task)?);
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        self.learner.save_state::<Cube>(checkpoint).map_err(TrainError::task)
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.learner.restore_state::<Cube>(checkpoint).map_err(TrainError::task)
    }
}

/// The greedy policy at distance 7 and the value error at a few distances.
fn evaluate_during(learner: &ValueIteration, eval: &CubeEvalConfig) -> Result<Vec<(&'static str, f64)>> {
    let mut heuristic = learner.heuristic();
    let greedy = greedy_table(&mut heuristic, [7].into_iter(), eval.during, eval.seed)?;
    let errors = value_errors(&mut heuristic, eval.during, eval.seed)?;
    Ok(vec![
        ("greedy_d7_2d", greedy[0].within_2d),
        ("value_mae_d4", errors[3].1),
        ("value_mae_d7", errors[6].1),
        ("value_mae_d10", errors[9].1),
        ("value_mae_d12", errors[11].1),
        ("value_mae_d14", errors[13].1),
    ])
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use minnow_nn::Checkpoint;
    use minnow_nn::testing::{ScratchDir, crafted_metadata};
    use minnow_rl::puzzle::CostToGoConfig;
    use std::sync::OnceLock;

    /// An 8-unit network, batches of 8, 6 steps, a checkpoint and an
    /// evaluation (one position per distance) every 3.
    pub(in crate::cube_solver) fn tiny_config() -> CubeSolverConfig {
        let mut c = CubeSolverConfig::default();
        c.training.net = CostToGoConfig { hidden: 8, width: 8, blocks: 0 };
        (c.training.batch_size, c.training.max_scramble, c.training.steps) = (8, 4, 6);
        c.training.target.check_every = 2;
        c.eval = CubeEvalConfig { every: 3, checkpoint_every: 3, during: 1, last: 1, seed: 3 };
        c
    }

    /// A checkpoint after 3 steps, made once.
    pub(in crate::cube_solver) fn saved() -> &'static Checkpoint {
        static SAVED: OnceLock<Checkpoint> = OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(SolverRun::new(&tiny_config()).unwrap(), 3))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the step, the counters, Adam's step count, the
        /// walks' generator, the last loss, the puzzle, the config) is
        /// refused or trains on; never a panic.
        #[test]
        fn crafted_cube_solver_metadata_resumes_or_is_refused((key, value) in crafted_metadata(saved())) {
            let run = SolverRun::new(&tiny_config()).unwrap();
            let cadence = run.cadence();
            minnow_train::testing::resume_crafted(saved(), &key, value, run, cadence);
        }
    }

    #[test]
    fn counters_past_the_step_are_refused_naming_them() {
        let dir = ScratchDir::new("cube-counters");
        let path = dir.join("counters.safetensors");
        let refused = |key: &str, value: &str| {
            saved().rewrite(&[key]).meta(key, value).save(&path).unwrap();
            let mut run = SolverRun::new(&tiny_config()).unwrap();
            minnow_train::resume(&mut run, &path).unwrap_err().to_string()
        };
        let err = refused("counter.last_target_update", "4");
        assert!(err.contains("'counter.last_target_update' is 4, expected at most the step, 3"), "{err}");
        assert!(refused("counter.target_updates", "9").contains("'counter.target_updates' is 9"));
        let err = refused("counter.optimizer.step_count", "2");
        assert!(err.contains("'counter.optimizer.step_count' is 2, expected equal to the step, 3"), "{err}");
    }
}
