//! A task of your own through the same door as the shipped ones: an
//! environment written here (Sutton and Barto's cliff walk: a grid whose
//! bottom row between the start and the goal is a cliff), trained by DQN
//! as a registered task, with the command line every shipped task has:
//! progress, `metrics.jsonl`, TensorBoard events, a learning curve,
//! checkpoints, `--resume`, `--config` files whose unknown keys are refused
//! by name, Ctrl-C that saves, `eval` on a saved run, and `--distributed`
//! under `mpirun` (data-parallel DQN).
//!
//! ```text
//! cargo run -p minnow-cli --example own_task -- train list
//! cargo run -p minnow-cli --example own_task -- train cliff-walk --steps 10000 --out runs/cliff
//! cargo run -p minnow-cli --example own_task -- train cliff-walk --out runs/cliff --resume
//! cargo run -p minnow-cli --example own_task -- eval cliff-walk --checkpoint runs/cliff --games 100
//! ```

use minnow_envs::{Env, EnvError, Step, check_action};
use minnow_optim::{Check, ScheduleConfig};
use minnow_rl::dqn::{DqnConfig, DqnEnv, MemoryConfig, QNetworkConfig};
use minnow_tasks::dqn::{DqnEvalConfig, DqnTask, DqnTaskConfig, DqnTaskEnv};
use minnow_train::Registry;
use serde::{Deserialize, Serialize};
use std::process::ExitCode;

/// The grid's shape: what a `--config` file's `env` section sets.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CliffConfig {
    /// Columns; the start is the bottom-left cell, the goal the
    /// bottom-right one, the cliff every cell between them.
    width: usize,
    /// Rows.
    height: usize,
    /// Episodes longer than this are cut (a time limit, not an end).
    max_steps: u32,
}

/// Where the walker is. Actions 0-3 step up, right, down and left (a wall
/// stops it); every step costs 0.01, the cliff -1, the goal +1.
#[derive(Clone, Debug)]
struct CliffWalk {
    config: CliffConfig,
    row: usize,
    column: usize,
    steps: u32,
    over: bool,
}

impl CliffWalk {
    fn on_bottom_row(&self) -> bool {
        self.row == self.config.height - 1
    }

    fn at_goal(&self) -> bool {
        self.on_bottom_row() && self.column == self.config.width - 1
    }
}

impl Env for CliffWalk {
    const NAME: &'static str = "cliff-walk";

    fn observation_size(&self) -> usize {
        self.config.width * self.config.height
    }

    fn action_count(&self) -> usize {
        4
    }

    /// Starts at the start: the walk is the same every episode, only the
    /// exploration differs.
    fn reset(&mut self, _seed: u64) {
        (self.row, self.column, self.steps, self.over) = (self.config.height - 1, 0, 0, false);
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        let (last_row, last_column) = (self.config.height - 1, self.config.width - 1);
        match action {
            0 => self.row = self.row.saturating_sub(1),
            1 => self.column = (self.column + 1).min(last_column),
            2 => self.row = (self.row + 1).min(last_row),
            _ => self.column = self.column.saturating_sub(1),
        }
        self.steps += 1;
        let fell = self.on_bottom_row() && self.column > 0 && self.column < last_column;
        let (reward, done) = if fell {
            (-1.0, true)
        } else if self.at_goal() {
            (1.0, true)
        } else {
            (-0.01, false)
        };
        let truncated = self.steps >= self.config.max_steps;
        self.over = done || truncated;
        Ok(Step { reward, done, truncated })
    }

    fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
        out[self.row * self.config.width + self.column] = 1.0;
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

impl DqnEnv for CliffWalk {
    fn succeeded(&self, last: &Step) -> Option<bool> {
        Some(last.done && self.at_goal())
    }
}

/// What makes the cliff walk a task: its name, its preset, how to build
/// it. The evaluation is the default one (the greedy policy's mean
/// return).
impl DqnTaskEnv for CliffWalk {
    type EnvConfig = CliffConfig;
    const TASK: &'static str = "cliff-walk";
    const ABOUT: &'static str = "DQN walking past a cliff to its goal (an environment of the example)";

    fn defaults() -> DqnTaskConfig<CliffConfig> {
        let dqn = DqnConfig {
            network: QNetworkConfig { hidden: vec![64], ..QNetworkConfig::default() },
            gamma: 0.95,
            n_step: 1,
            batch_size: 32,
            replay: MemoryConfig { capacity: 10_000, ..MemoryConfig::default() },
            learning_starts: 500,
            num_envs: 4,
            epsilon: ScheduleConfig::linear(1.0, 5_000, 0.05),
            env_steps: 10_000,
            eval_every: 1_000,
            checkpoint_every: 1_000,
            ..DqnConfig::default()
        };
        let env = CliffConfig { width: 6, height: 3, max_steps: 50 };
        DqnTaskConfig { dqn, env, eval: DqnEvalConfig { during: 4, last: 4, seed: 1 }, pretrain_steps: 0 }
    }

    fn build(config: &CliffConfig) -> Result<Self, EnvError> {
        Check("CliffConfig").count_in("width", "at least 2", config.width as u64, 2, u64::MAX)?;
        Check("CliffConfig").count_in("height", "at least 2", config.height as u64, 2, u64::MAX)?;
        Check("CliffConfig").at_least_one("max_steps", config.max_steps as u64)?;
        let (row, column) = (config.height - 1, 0);
        Ok(CliffWalk { config: *config, row, column, steps: 0, over: false })
    }
}

fn main() -> ExitCode {
    // The shipped tasks could join too: `minnow_tasks::registry().with(...)`.
    minnow_cli::main(Registry::new().with(DqnTask::<CliffWalk>::new()))
}
