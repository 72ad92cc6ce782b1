//! How well a trained checkerboard rule holds up outside its training
//! conditions (the checks of the logic-CA paper and its notebook): a grid
//! 4x larger for 4x the steps, damage (a zeroed square, kept zero for the
//! first half of the run), and asynchronous updates. Each check runs the
//! hard circuit bit-parallel on many seeded random grids and reports the
//! share of channel-0 cells equal to the checkerboard at the end.

use crate::hard::{BitGrid, HardProgram, HardScratch};
use crate::pattern::checkerboard;
use rand::{Rng, SeedableRng};

/// The settings of the three checks. `Default` is the paper's: 64x64 for
/// 80 steps; a 20x20 centre square zeroed after each of the first 40
/// steps; fire rate 0.6.
#[derive(Clone, Debug, PartialEq)]
pub struct RobustnessConfig {
    /// Side of the square grids checked, in cells (default 64).
    pub side: usize,
    /// CA steps of the large and damaged checks (default 80).
    pub steps: usize,
    /// Side of the zeroed centre square.
    pub damage_side: usize,
    /// Steps after which the square is zeroed again (the first ones).
    pub damage_steps: usize,
    /// Probability in [0, 1] that a cell updates at a step of the
    /// asynchronous check (default 0.6).
    pub fire_rate: f32,
    /// Steps of the asynchronous check (each cell fires about
    /// `fire_rate * async_steps` times).
    pub async_steps: usize,
    /// Random grids per check.
    pub trials: usize,
    /// Seed of the random grids (the checks use it, +1 and +2).
    pub seed: u64,
}

impl Default for RobustnessConfig {
    fn default() -> Self {
        Self {
            side: 64,
            steps: 80,
            damage_side: 20,
            damage_steps: 40,
            fire_rate: 0.6,
            async_steps: 80,
            trials: 100,
            seed: 0x5eed_0b0a,
        }
    }
}

/// Channel-0 accuracy of each check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Robustness {
    /// The larger grid for more steps.
    pub large: f64,
    /// The larger grid with the centre square damaged.
    pub damaged: f64,
    /// The larger grid with asynchronous updates.
    pub asynchronous: f64,
}

/// Runs the three checks of `config` on `program`.
pub fn checkerboard_robustness(program: &HardProgram, config: &RobustnessConfig) -> Robustness {
    let RobustnessConfig { side, steps, trials, seed, .. } = *config;
    Robustness {
        large: rollout_accuracy(program, side, side, steps, trials, seed, Disturbance::None),
        damaged: rollout_accuracy(
            program,
            side,
            side,
            steps,
            trials,
            seed + 1,
            Disturbance::Damage { side: config.damage_side, steps: config.damage_steps },
        ),
        asynchronous: rollout_accuracy(
            program,
            side,
            side,
            config.async_steps,
            trials,
            seed + 2,
            Disturbance::Async { fire_rate: config.fire_rate },
        ),
    }
}

/// What happens to a grid during a rollout besides the rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Disturbance {
    /// The rule alone, every cell every step.
    None,
    /// A `side x side` square at the centre (rows and columns `n/2 -
    /// side/2 .. n/2 + side/2`) is zeroed in every channel after each of
    /// the first `steps` steps.
    Damage {
        /// Side of the zeroed square, in cells.
        side: usize,
        /// Steps after which it is zeroed (the first ones).
        steps: usize,
    },
    /// Each cell takes its new state with probability `fire_rate` per
    /// step and keeps its old one otherwise.
    Async {
        /// Probability in [0, 1] that a cell updates at a step.
        fire_rate: f32,
    },
}

/// The rows and columns of [`Disturbance::Damage`]'s `side x side` centre
/// square on a `height x width` grid.
pub fn damage_rect(height: usize, width: usize, side: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let centre = |n: usize| (n / 2).saturating_sub(side / 2)..n / 2 + side.div_ceil(2);
    (centre(height), centre(width))
}

/// Share of channel-0 cells equal to the checkerboard after `steps` steps
/// of `program` from `trials` random `height x width` grids (seeded),
/// with a disturbance.
pub fn rollout_accuracy(
    program: &HardProgram,
    height: usize,
    width: usize,
    steps: usize,
    trials: usize,
    seed: u64,
    disturbance: Disturbance,
) -> f64 {
    let target = checkerboard(height, width);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut correct = 0;
    let mut frames = HardRollout::new(program, height, width);
    for _ in 0..trials {
        frames.start(&mut rng);
        for t in 0..steps {
            frames.step(program, t, disturbance, &mut rng);
        }
        correct += frames.grid().count_equal(0, &target);
    }
    correct as f64 / (trials * height * width).max(1) as f64
}

/// A hard rollout with disturbances, one step at a time (for the checks
/// and for renders).
#[derive(Clone, Debug)]
pub struct HardRollout {
    grid: BitGrid,
    next: BitGrid,
    fire: BitGrid,
    scratch: HardScratch,
}

impl HardRollout {
    /// Buffers for `program` on a `height x width` grid (all zero).
    pub fn new(program: &HardProgram, height: usize, width: usize) -> Self {
        let grid = BitGrid::new(height, width, program.channels());
        Self { next: grid.clone(), grid, fire: BitGrid::new(height, width, 1), scratch: HardScratch::default() }
    }

    /// Fills every channel with random bits.
    pub fn start(&mut self, rng: &mut impl Rng) {
        self.grid.fill_random(|| rng.random());
    }

    /// The current grid.
    pub fn grid(&self) -> &BitGrid {
        &self.grid
    }

    /// Step `t` (0-based) of the rule, then the disturbance.
    pub fn step(&mut self, program: &HardProgram, t: usize, disturbance: Disturbance, rng: &mut impl Rng) {
        program.step(&self.grid, &mut self.next, &mut self.scratch);
        match disturbance {
            Disturbance::None => {}
            Disturbance::Damage { side, steps } => {
                if t < steps {
                    let (rows, cols) = damage_rect(self.next.height(), self.next.width(), side);
                    self.next.clear_rect(rows, cols);
                }
            }
            Disturbance::Async { fire_rate } => {
                for r in 0..self.fire.height() {
                    for c in 0..self.fire.width() {
                        self.fire.set(0, r, c, rng.random::<f32>() < fire_rate);
                    }
                }
                self.next.keep_unfired(&self.grid, &self.fire);
            }
        }
        std::mem::swap(&mut self.grid, &mut self.next);
    }
}
