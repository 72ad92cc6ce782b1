//! A task of your own through the same door as the shipped ones: an
//! environment written here (a corridor with a trap at the left end and a
//! goal at the right), trained by DQN as a registered task, with the
//! command line every shipped task has: progress, `metrics.jsonl`,
//! TensorBoard events, a learning curve, checkpoints, `--resume`,
//! `--config` files whose unknown keys are refused by name, Ctrl-C that
//! saves, and `--distributed` under `mpirun` (data-parallel DQN).
//!
//! ```text
//! cargo run -p minnow-cli --example own_task -- train list
//! cargo run -p minnow-cli --example own_task -- train corridor --steps 2000 --out runs/corridor
//! cargo run -p minnow-cli --example own_task -- train corridor --steps 4000 --out runs/corridor --resume
//! ```

use minnow_envs::{Env, EnvError, Step, check_action};
use minnow_optim::{Check, ScheduleConfig};
use minnow_rl::dqn::{DqnConfig, DqnEnv, MemoryConfig, QNetworkConfig};
use minnow_tasks::dqn::{DqnEvalConfig, DqnTask, DqnTaskConfig, DqnTaskEnv};
use minnow_train::Registry;
use serde::{Deserialize, Serialize};
use std::process::ExitCode;

/// The corridor's shape: what a `--config` file's `env` section sets.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorridorConfig {
    /// Cells, the two ends included.
    cells: usize,
    /// Episodes longer than this are cut (a time limit, not an end).
    max_steps: u32,
}

/// Where the agent is. Action 0 steps left, action 1 right; every step
/// costs 0.01, the trap -1, the goal +1.
#[derive(Clone, Debug)]
struct Corridor {
    config: CorridorConfig,
    cell: usize,
    steps: u32,
    over: bool,
}

impl Env for Corridor {
    const NAME: &'static str = "corridor";

    fn observation_size(&self) -> usize {
        self.config.cells
    }

    fn action_count(&self) -> usize {
        2
    }

    /// Starts in a cell between the ends, chosen by the seed.
    fn reset(&mut self, seed: u64) {
        let inner = self.config.cells as u64 - 2;
        (self.cell, self.steps, self.over) = (1 + (seed % inner) as usize, 0, false);
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        self.cell = if action == 0 { self.cell - 1 } else { self.cell + 1 };
        self.steps += 1;
        let (reward, done) = match self.cell {
            0 => (-1.0, true),
            c if c == self.config.cells - 1 => (1.0, true),
            _ => (-0.01, false),
        };
        let truncated = self.steps >= self.config.max_steps;
        self.over = done || truncated;
        Ok(Step { reward, done, truncated })
    }

    fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
        out[self.cell] = 1.0;
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

impl DqnEnv for Corridor {
    fn succeeded(&self, last: &Step) -> Option<bool> {
        Some(last.done && self.cell == self.config.cells - 1)
    }
}

/// What makes the corridor a task: its name, its preset, how to build it.
/// The evaluation is the default one (the greedy policy's mean return).
impl DqnTaskEnv for Corridor {
    type EnvConfig = CorridorConfig;
    const TASK: &'static str = "corridor";
    const ABOUT: &'static str = "DQN walking a corridor to its goal past a trap (an environment of the example)";

    fn defaults() -> DqnTaskConfig<CorridorConfig> {
        let dqn = DqnConfig {
            network: QNetworkConfig { hidden: vec![32], ..QNetworkConfig::default() },
            gamma: 0.95,
            n_step: 1,
            batch_size: 32,
            replay: MemoryConfig { capacity: 5_000, ..MemoryConfig::default() },
            learning_starts: 200,
            num_envs: 4,
            epsilon: ScheduleConfig::linear(1.0, 2_000, 0.05),
            env_steps: 4_000,
            eval_every: 1_000,
            checkpoint_every: 1_000,
            ..DqnConfig::default()
        };
        let env = CorridorConfig { cells: 10, max_steps: 50 };
        DqnTaskConfig { dqn, env, eval: DqnEvalConfig { during: 8, last: 8, seed: 1 }, pretrain_steps: 0 }
    }

    fn build(config: &CorridorConfig) -> Result<Self, EnvError> {
        Check("CorridorConfig").count_in("cells", "at least 3", config.cells as u64, 3, u64::MAX)?;
        Check("CorridorConfig").at_least_one("max_steps", config.max_steps as u64)?;
        Ok(Corridor { config: *config, cell: 1, steps: 0, over: false })
    }
}

fn main() -> ExitCode {
    // The shipped tasks could join too: `minnow_tasks::registry().with(...)`.
    minnow_cli::main(Registry::new().with(DqnTask::<Corridor>::new()))
}
