//! DQN on an environment you write: a corridor of cells with a trap at
//! the left end (reward -1) and a goal at the right end (+1); every other
//! step costs 0.01. The agent sees its cell (one-hot) and steps left or
//! right. Implementing `Env` (every action is legal by default, and
//! `check_action` refuses a step out of range or after the end) and
//! `DqnEnv` (here only to say what counts as a success) is all the library
//! needs; then the greedy policy's return from every start cell is printed
//! beside the best possible.
//!
//! `cargo run -p minnow-rl --example dqn_corridor`

use minnow_envs::{Env, EnvError, Step, check_action};
use minnow_optim::ScheduleConfig;
use minnow_rl::RlError;
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{DqnConfig, DqnEnv, DqnRun, MemoryConfig, QNetworkConfig};

const CELLS: usize = 10;
/// Action 0 steps left, action 1 right.
const LEFT: usize = 0;
const STEP_COST: f32 = 0.01;
/// Episodes longer than this are cut (a time limit, not an end).
const MAX_STEPS: u32 = 50;

#[derive(Clone, Debug)]
struct Corridor {
    cell: usize,
    steps: u32,
    over: bool,
}

impl Env for Corridor {
    const NAME: &'static str = "corridor";

    fn observation_size(&self) -> usize {
        CELLS
    }

    fn action_count(&self) -> usize {
        2
    }

    /// Starts in a cell between the ends, chosen by the seed.
    fn reset(&mut self, seed: u64) {
        *self = Corridor { cell: 1 + (seed % (CELLS as u64 - 2)) as usize, steps: 0, over: false };
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        self.cell = if action == LEFT { self.cell - 1 } else { self.cell + 1 };
        self.steps += 1;
        let (reward, done) = match self.cell {
            0 => (-1.0, true),
            c if c == CELLS - 1 => (1.0, true),
            _ => (-STEP_COST, false),
        };
        let truncated = self.steps >= MAX_STEPS;
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
        Some(last.done && self.cell == CELLS - 1)
    }
}

fn main() -> Result<(), RlError> {
    let config = DqnConfig {
        network: QNetworkConfig { hidden: vec![32], ..QNetworkConfig::default() },
        gamma: 0.95,
        n_step: 1,
        batch_size: 32,
        replay: MemoryConfig { capacity: 5_000, ..MemoryConfig::default() },
        learning_starts: 200,
        num_envs: 4,
        epsilon: ScheduleConfig::linear(1.0, 2_000, 0.05),
        env_steps: 4_000,
        ..DqnConfig::default()
    };
    let start = Corridor { cell: 1, steps: 0, over: false };
    let mut run = DqnRun::new(&config, start)?;
    while !run.is_done() {
        run.step()?;
        if run.env_steps() % 1_000 == 0 {
            let recent = run.recent();
            let goal = recent.success_rate().map_or(String::new(), |r| format!(", goal reached {:.0}%", 100.0 * r));
            println!(
                "{:5} steps: last {} episodes: mean return {:+.2}{goal}",
                run.env_steps(),
                recent.returns.len(),
                recent.mean_return(),
            );
        }
    }

    // The greedy policy from every start cell, against walking straight right.
    let mut envs: Vec<Corridor> = (1..CELLS - 1).map(|cell| Corridor { cell, steps: 0, over: false }).collect();
    let outcomes = play_greedy(run.learner_mut(), &mut envs, MAX_STEPS as usize)?;
    for (cell, outcome) in (1..CELLS - 1).zip(&outcomes) {
        let best = 1.0 - STEP_COST * (CELLS - 2 - cell) as f32;
        println!("from cell {cell}: greedy return {:+.2} in {} steps (best {best:+.2})", outcome.ret, outcome.steps);
    }
    Ok(())
}
