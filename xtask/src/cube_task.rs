//! `cargo xtask train cube-solver`: a cost-to-go network for the 2x2x2
//! cube trained by approximate value iteration over random scrambles (no
//! oracle labels), run by the run driver: a progress bar, metrics, a
//! curve, checkpoints (`--resume` continues exactly) and an evaluation
//! against the exact BFS distances. `cargo xtask solve cube` then searches
//! with it.

use crate::cube_eval::{DIAMETER, greedy_table, greedy_text, value_errors};
use crate::cube_puzzle::Cube;
use crate::error::XtaskError;
use crate::train::{FrontEnd, TrainArgs, layered, write_json};
use minnow_rl::puzzle::{CostToGoConfig, SearchConfig, TargetRule, ValueIteration, ValueIterationConfig};
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use serde::{Deserialize, Serialize};
use std::time::Instant;

pub(crate) const TASK: &str = "cube-solver";

/// The task's whole config: training, the search the solver runs, and the
/// evaluations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CubeSolverConfig {
    pub training: ValueIterationConfig,
    pub search: SearchConfig,
    pub eval: CubeEvalConfig,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CubeEvalConfig {
    /// Training steps between evaluations, and between checkpoints.
    pub every: u64,
    pub checkpoint_every: u64,
    /// Positions per distance at each evaluation during training, and in
    /// the final one.
    pub during: usize,
    pub last: usize,
    pub seed: u64,
}

impl Default for CubeSolverConfig {
    fn default() -> Self {
        Self {
            training: ValueIterationConfig {
                net: CostToGoConfig { hidden: 512, width: 256, blocks: 2 },
                batch_size: 500,
                // Past 14 moves (the diameter) a walk's end is close to
                // uniform over the cube; the shorter walks teach the ends near
                // the goal that everything else bootstraps from.
                max_scramble: 20,
                steps: 14_000,
                lr: 1e-3,
                final_lr: 1e-4,
                target: TargetRule { check_every: 50, loss_below: 0.05, max_age: 200 },
                seed: 1,
            },
            // Batches of 4 expand about as many nodes as 1 at distance 14 and
            // far fewer than 32 near the goal (every batch expands whole).
            // Lambda 0.6 left distance 10 10.4% above optimal; 1.0 expands
            // about 3x as much at distance 14 as 0.8 (docs/notebook/cube-solver.md).
            search: SearchConfig { lambda: 0.8, batch: 4 },
            eval: CubeEvalConfig { every: 1000, checkpoint_every: 1000, during: 200, last: 1000, seed: 2024 },
        }
    }
}

impl CubeSolverConfig {
    pub fn validate(&self) -> Result<(), String> {
        self.training.validate().map_err(|e| format!("training: {e}"))?;
        self.search.validate().map_err(|e| format!("search: {e}"))?;
        let e = &self.eval;
        for (key, value) in [
            ("every", e.every),
            ("checkpoint_every", e.checkpoint_every),
            ("during", e.during as u64),
            ("last", e.last as u64),
        ] {
            if value == 0 {
                return Err(format!("eval.{key}: expected at least 1, found 0"));
            }
        }
        Ok(())
    }
}

/// Where the bar test keeps its run (`cargo xtask train cube-solver` writes there too).
#[cfg(test)]
pub(crate) fn default_out() -> std::path::PathBuf {
    crate::workspace_root().join("runs").join(TASK)
}

fn read_config(args: &TrainArgs) -> Result<CubeSolverConfig, String> {
    let mut config = layered(CubeSolverConfig::default(), args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.training.seed = seed;
    }
    if let Some(steps) = args.steps {
        config.training.steps = steps;
    }
    config.validate()?;
    Ok(config)
}

/// Value iteration as the run driver sees it: a step is one batch; an
/// evaluation scores the greedy policy and the cost-to-go against the
/// exact distances.
struct SolverRun {
    learner: ValueIteration,
    eval: CubeEvalConfig,
    log_every: u64,
}

impl SolverRun {
    fn new(config: &CubeSolverConfig) -> Result<Self, String> {
        let learner = ValueIteration::new(&config.training, OBSERVATION, MOVES).map_err(|e| e.to_string())?;
        Ok(Self { learner, eval: config.eval, log_every: (config.training.steps / 1000).max(1) })
    }

    fn cadence(&self) -> Cadence {
        Cadence { eval_every: self.eval.every, checkpoint_every: self.eval.checkpoint_every, eval_at_end: true }
    }
}

impl Run for SolverRun {
    fn task(&self) -> &str {
        TASK
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
        metrics
            .extend(evaluate_during(&self.learner, &self.eval).map_err(|e| TrainError::task(XtaskError::Message(e)))?);
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        self.learner.save_state::<Cube>(checkpoint).map_err(TrainError::task)
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.learner.restore_state::<Cube>(checkpoint).map_err(TrainError::task)
    }
}

pub fn train_cube_solver(args: &TrainArgs) -> Result<(), XtaskError> {
    let config = read_config(args)?;
    let (out, checkpoint) = crate::train::run_dir(args, crate::cube_task::TASK)?;
    let total = config.training.steps;
    let mut run = SolverRun::new(&config)?;
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    }
    write_json(&out.join("config.json"), &config)?;

    println!("training {TASK} for {total} steps of value iteration -> {}", out.display());
    let mut front = FrontEnd::open(&out, run.step(), total, "greedy_d7_2d")?;
    let (started, cpu_started, start_step) = (Instant::now(), cpu_seconds(), run.step());
    let cadence = run.cadence();
    let timing = minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front)?;
    front.bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_started;
    front.plot(&out.join("curve.png"), TASK)?;
    let eval_seconds = timing.eval_seconds;
    let learner = &run.learner;
    println!(
        "{TASK}: {} steps in {wall:.1} s wall, {cpu:.1} s CPU (of which evaluations {eval_seconds:.1} s wall)",
        learner.steps() - start_step
    );

    let t = Instant::now();
    let mut heuristic = learner.heuristic();
    let greedy = greedy_table(&mut heuristic, 1..=DIAMETER, config.eval.last, config.eval.seed)?;
    let errors = value_errors(&mut heuristic, config.eval.last, config.eval.seed)?;
    println!(
        "one-view greedy policy, {} positions per distance ({:.1} s):\n{}",
        config.eval.last,
        t.elapsed().as_secs_f64(),
        greedy_text(&greedy)
    );
    let mut table = format!("{:>8} {:>10} {:>10}\n", "distance", "J - d", "|J - d|");
    for (d, (bias, mae)) in errors.iter().enumerate() {
        table += &format!("{:>8} {bias:>10.3} {mae:>10.3}\n", d + 1);
    }
    println!("cost-to-go against the exact distances:\n{table}");
    let summary = serde_json::json!({
        "steps": learner.steps(),
        "train_wall_seconds": wall - eval_seconds,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "resumed": args.resume,
        "greedy_d7_within_2d": greedy[6].within_2d,
        "greedy_within_2d": greedy.iter().map(|r| r.within_2d).collect::<Vec<_>>(),
        "value_mae": errors.iter().map(|e| e.1).collect::<Vec<_>>(),
    });
    write_json(&out.join("eval.json"), &summary)?;
    println!(
        "wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, eval.json}}; \
         `cargo xtask solve cube --evaluate 1000` runs the solver",
        out.display()
    );
    Ok(())
}

const OBSERVATION: usize = minnow_envs::cube2::OBSERVATION_SIZE;
const MOVES: usize = minnow_envs::cube2::MOVE_COUNT;

/// The greedy policy at distance 7 and the value error at a few distances.
fn evaluate_during(learner: &ValueIteration, eval: &CubeEvalConfig) -> Result<Vec<(&'static str, f64)>, String> {
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

/// User plus system CPU time of this process so far, from /proc (0 where
/// there is none).
pub(crate) fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    let Some((_, after_name)) = stat.rsplit_once(')') else { return 0.0 };
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime, fields 14 and 15 of the file, in clock ticks of 1/100 s.
    (ticks(11) + ticks(12)) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_nn::Checkpoint;
    use minnow_nn::testing::{ScratchDir, crafted_metadata};
    use minnow_rl::puzzle::CostToGoConfig;
    use std::sync::OnceLock;

    /// An 8-unit network, batches of 8, 6 steps, a checkpoint and an
    /// evaluation (one position per distance) every 3.
    fn tiny_config() -> CubeSolverConfig {
        let mut c = CubeSolverConfig::default();
        c.training.net = CostToGoConfig { hidden: 8, width: 8, blocks: 0 };
        (c.training.batch_size, c.training.max_scramble, c.training.steps) = (8, 4, 6);
        c.training.target.check_every = 2;
        c.eval = CubeEvalConfig { every: 3, checkpoint_every: 3, during: 1, last: 1, seed: 3 };
        c
    }

    /// A checkpoint after 3 steps, made once.
    fn saved() -> &'static Checkpoint {
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

    #[test]
    fn a_crafted_network_size_is_refused_before_solving() {
        let dir = ScratchDir::new("cube-config");
        let path = dir.join("config.safetensors");
        let mut training = tiny_config().training;
        training.net.hidden = 100_000_000;
        saved().rewrite(&["config"]).meta("config", serde_json::to_string(&training).unwrap()).save(&path).unwrap();
        let err = crate::solve::load(&path).unwrap_err();
        assert!(err.contains("checkpoint metadata 'config'") && err.contains("hidden"), "{err}");
    }
}
