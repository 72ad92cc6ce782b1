//! `logic-ca`: the logic cellular automata of `docs/LOGIC_CA.md` (the
//! checkerboard by default; `"variant": "game-of-life"` or `"async"` in a
//! config for the others). The run is `minnow_logic::LogicCaRun`; this
//! task adds the learned circuit as text, Verilog and C, the checks beyond
//! the training conditions, the renders, and a seed sweep.

mod checks;
pub mod render;
mod sweep;

use minnow_dist::Collective;
use minnow_logic::hard::active_gates;
use minnow_logic::{CheckerboardConfig, HardProgram, LogicCaRun, Prune, Variant};
use minnow_train::{Cadence, Run, Session, Sweep, Task, TaskError, View};
use std::time::Instant;

/// The logic-CA task.
#[derive(Clone, Copy, Debug, Default)]
pub struct LogicCa;

impl Task for LogicCa {
    type Config = CheckerboardConfig;

    fn name(&self) -> &str {
        "logic-ca"
    }

    fn about(&self) -> &str {
        "soft logic-gate cellular automaton learning the checkerboard (docs/LOGIC_CA.md)"
    }

    fn defaults(&self) -> CheckerboardConfig {
        CheckerboardConfig::default()
    }

    fn config(&self, overrides: &serde_json::Value) -> Result<CheckerboardConfig, serde_json::Error> {
        CheckerboardConfig::layered(overrides)
    }

    fn set_seed(&self, config: &mut CheckerboardConfig, seed: u64) {
        config.seed = seed;
    }

    fn set_steps(&self, config: &mut CheckerboardConfig, steps: u64) {
        config.train_steps = steps as usize;
    }

    fn check(&self, config: &CheckerboardConfig) -> Result<(), TaskError> {
        config.validate()?;
        let (ca, batch) = (&config.ca, config.batch);
        let what = format!("logic-ca ({}x{} grid, batch {batch}, {} members)", ca.height, ca.width, config.population);
        Ok(minnow_train::memory::check_fits(&what, config.memory_bytes())?)
    }

    fn run_name(&self, config: &CheckerboardConfig) -> String {
        match config.variant {
            Variant::Checkerboard => "logic-ca",
            Variant::GameOfLife => "logic-ca-game-of-life",
            Variant::Async => "logic-ca-async",
        }
        .to_string()
    }

    fn train(&self, config: &CheckerboardConfig, session: &mut dyn Session) -> Result<(), TaskError> {
        let mut run = LogicCaRun::new(config)?;
        session.resume(&mut run)?;
        let out = session.out().expect("logic-ca trains as one process, which writes").to_path_buf();
        let (total, done) = (config.train_steps as u64, run.step());
        minnow_train::outln!(
            "training logic-ca ({:?}, seed {}, {} member{}, up to {} steps{}) -> {}",
            config.variant,
            config.seed,
            config.population,
            if config.population == 1 { "" } else { "s" },
            total,
            if done > 0 { format!(", resumed at step {done}") } else { String::new() },
            out.display()
        );
        let started = Instant::now();
        // Every step reports the hard accuracy of its best batch (free: the
        // hard circuit runs on every batch); the run ends early once the kept
        // circuit holds.
        let cadence = Cadence { eval_every: 1, checkpoint_every: config.checkpoint_every as u64, eval_at_end: false };
        session.drive(&mut run, cadence, View { headline: "hard_accuracy", show: &[], observer: &mut () })?;

        let population = run.into_population();
        let steps = population.steps_done();
        let first_perfect = population.first_perfect();
        let (model, ops, kept) = population.into_result()?;
        let kept_text = match &kept {
            Some(k) => format!(
                "the circuit of member {} (seed {}) at step {}, held-out score {:.2}%",
                k.member,
                k.seed,
                k.step,
                100.0 * k.score
            ),
            None => "member 0's final circuit (no step reached 100%)".to_string(),
        };
        let pruned = HardProgram::new(model.circuit(), &ops, config.ca.boundary, Prune::Channel0);
        session.write("circuit.txt", pruned.to_text().as_bytes())?;
        session.write("circuit.v", pruned.to_verilog("logic_ca_cell").as_bytes())?;
        session.write("circuit.c", pruned.to_c("logic_ca").as_bytes())?;
        minnow_train::outln!(
            "logic-ca: {steps} steps per member in {:.1} s this session; hard accuracy first 100% at {}; kept \
             {kept_text}: {} active gates, {} after pruning",
            started.elapsed().as_secs_f64(),
            first_perfect.map_or("never".to_string(), |s| format!("step {s}")),
            active_gates(model.circuit(), &ops),
            pruned.gate_count()
        );
        checks::report(config, &pruned, &out)?;
        Ok(())
    }

    fn sweep(&self, config: &CheckerboardConfig, sweep: &Sweep, world: &dyn Collective) -> Result<(), TaskError> {
        sweep::sweep(config, sweep, world)
    }
}
