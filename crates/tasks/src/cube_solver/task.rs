//! `train cube-solver`: value iteration driven to its step count, then the
//! final suite against the exact distances (the greedy policy and the
//! cost-to-go's error at every distance) into `eval.json`.

use super::{CubeSolverConfig, DIAMETER, SolverRun, greedy_table, greedy_text, load, value_errors, value_errors_text};
use minnow_envs::cube2::{MOVE_COUNT, OBSERVATION_SIZE};
use minnow_rl::puzzle::LearnedHeuristic;
use minnow_train::{Evaluate, Evaluation, Run, Session, Task, TaskError, View, cpu_seconds};
use std::time::Instant;

/// The task's name.
pub(super) const NAME: &str = "cube-solver";

/// `cube-solver`: the 2x2x2 cube's cost-to-go for `solve cube`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CubeSolver;

impl Task for CubeSolver {
    type Config = CubeSolverConfig;

    fn name(&self) -> &str {
        NAME
    }

    fn about(&self) -> &str {
        "2x2x2 cube cost-to-go by value iteration, for `cargo xtask solve cube`"
    }

    fn defaults(&self) -> CubeSolverConfig {
        CubeSolverConfig::default()
    }

    fn set_seed(&self, config: &mut CubeSolverConfig, seed: u64) {
        config.training.seed = seed;
    }

    fn set_steps(&self, config: &mut CubeSolverConfig, steps: u64) {
        config.training.steps = steps;
    }

    fn check(&self, config: &CubeSolverConfig) -> Result<(), TaskError> {
        config.validate()?;
        // Refused before the run directory is made (the learner checks again).
        let net = &config.training.net;
        let what = format!("{NAME} (hidden {}, width {}x{})", net.hidden, net.width, net.blocks);
        let bytes = config.training.memory_bytes(OBSERVATION_SIZE, MOVE_COUNT);
        Ok(minnow_train::memory::check_fits(&what, bytes)?)
    }

    fn train(&self, config: &CubeSolverConfig, session: &mut dyn Session) -> Result<(), TaskError> {
        let total = config.training.steps;
        let mut run = SolverRun::new(config)?;
        session.resume(&mut run)?;
        if let Some(out) = session.out() {
            minnow_train::outln!("training {NAME} for {total} steps of value iteration -> {}", out.display());
        }
        let (started, cpu_started, start_step) = (Instant::now(), cpu_seconds(), run.step());
        let cadence = run.cadence();
        let view = View { headline: "greedy_d7_2d", show: &[], observer: &mut () };
        let timing = session.drive(&mut run, cadence, view)?;
        let wall = started.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_started;
        let eval_seconds = timing.eval_seconds;
        let learner = run.learner();
        minnow_train::outln!(
            "{NAME}: {} steps in {wall:.1} s wall, {cpu:.1} s CPU (of which evaluations {eval_seconds:.1} s wall)",
            learner.steps() - start_step
        );

        let mut heuristic = learner.heuristic();
        let (e, details) = final_suite(&mut heuristic, config.eval.last, config.eval.seed)?;
        minnow_train::out!("{}", e.table);
        let mut summary = serde_json::json!({
            "steps": learner.steps(),
            "train_wall_seconds": wall - eval_seconds,
            "wall_seconds": wall,
            "cpu_seconds": cpu,
            "resumed": session.resuming(),
        });
        summary.as_object_mut().expect("an object").extend(details);
        minnow_train::write_json(session, "eval.json", &summary)?;
        if let Some(out) = session.out() {
            minnow_train::outln!(
                "`cargo xtask solve cube --evaluate 1000 --checkpoint {}` runs the solver",
                out.display()
            );
        }
        Ok(())
    }

    /// The final suite on a saved cost-to-go; `overrides` set its `eval`
    /// section (`{"eval": {"seed": 7}}`).
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        let mut heuristic = load(request.checkpoint)?;
        let eval = minnow_train::config::layered(self.defaults(), request.overrides)?.eval;
        Ok(final_suite(&mut heuristic, request.games.unwrap_or(eval.last), eval.seed)?.0)
    }
}

/// The greedy policy and the cost-to-go's error at every distance,
/// `count` positions each from `seed`: the evaluation, and the same
/// figures by distance for `eval.json`.
fn final_suite(
    heuristic: &mut LearnedHeuristic,
    count: usize,
    seed: u64,
) -> Result<(Evaluation, serde_json::Map<String, serde_json::Value>), TaskError> {
    let t = Instant::now();
    let greedy = greedy_table(heuristic, 1..=DIAMETER, count, seed)?;
    let errors = value_errors(heuristic, count, seed)?;
    let table = format!(
        "one-view greedy policy, {count} positions per distance ({:.1} s):\n{}\ncost-to-go against the exact distances:\n{}\n",
        t.elapsed().as_secs_f64(),
        greedy_text(&greedy),
        value_errors_text(&errors)
    );
    let figures = vec![("greedy_d7_within_2d", greedy[6].within_2d)];
    let details = serde_json::Map::from_iter([
        ("greedy_d7_within_2d".to_string(), serde_json::json!(greedy[6].within_2d)),
        ("greedy_within_2d".to_string(), serde_json::json!(greedy.iter().map(|r| r.within_2d).collect::<Vec<_>>())),
        ("value_mae".to_string(), serde_json::json!(errors.iter().map(|e| e.1).collect::<Vec<_>>())),
    ]);
    Ok((Evaluation { figures, table }, details))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube_solver::{median, solver_table, solver_text};
    use std::path::PathBuf;

    /// The bars of the default run, on the checkpoint `cargo xtask train
    /// cube-solver` leaves in runs/cube-solver. Release only:
    /// `cargo test --release -p minnow-tasks -- --ignored cube_solver_meets_its_bars`.
    #[test]
    #[ignore]
    fn cube_solver_meets_its_bars() {
        let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../runs").join(NAME);
        let checkpoint = out.join("checkpoint.safetensors");
        assert!(checkpoint.exists(), "no run in {}: train one first with `cargo xtask train {NAME}`", out.display());
        let config = CubeSolverConfig::default();
        let saved: CubeSolverConfig =
            serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
        assert_eq!(saved.training, config.training, "runs/cube-solver was not trained with the default config");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("eval.json")).unwrap()).unwrap();
        let minutes = summary["train_wall_seconds"].as_f64().unwrap() / 60.0;

        let mut unmet = Vec::new();
        if minutes >= 30.0 {
            unmet.push(format!("training took {minutes:.1} minutes"));
        }
        let mut heuristic = load(&checkpoint).unwrap();
        let (count, seed) = (1000, config.eval.seed);
        let greedy = greedy_table(&mut heuristic, [7].into_iter(), count, seed).unwrap();
        minnow_train::outln!("{}", greedy_text(&greedy));
        if greedy[0].within_2d < 0.95 {
            unmet.push(format!("greedy at distance 7: {:.1}% within 2d", 100.0 * greedy[0].within_2d));
        }
        let rows = solver_table(&mut heuristic, config.search, 1..=DIAMETER, count, seed).unwrap();
        minnow_train::outln!("{}", solver_text(&rows, config.search));
        for r in &rows {
            if r.solved < count {
                unmet.push(format!("distance {}: {} of {count} solved", r.distance, r.solved));
            }
            if r.mean_length > 1.1 * r.mean_optimal {
                unmet.push(format!("distance {}: length {:.2} vs {:.2}", r.distance, r.mean_length, r.mean_optimal));
            }
            if r.mean_expanded > 5000.0 {
                unmet.push(format!("distance {}: {:.0} nodes expanded", r.distance, r.mean_expanded));
            }
        }
        let mut times: Vec<f64> = rows.iter().flat_map(|r| r.times_ms.iter().copied()).collect();
        let ms = median(&mut times);
        if ms >= 100.0 {
            unmet.push(format!("median {ms:.1} ms per cube"));
        }
        assert!(unmet.is_empty(), "bars not met: {unmet:#?}");
    }
}
