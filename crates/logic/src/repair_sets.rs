//! The grids a member's repairs score circuits on: random grids with their
//! target (or every Game of Life board), and damaged grids of the
//! robustness check's size.

use crate::config::{CheckerboardConfig, Variant};
use crate::hard::BitGrid;
use crate::life;
use crate::pattern::checkerboard;
use crate::repair::RepairSet;
use crate::robustness::{RobustnessConfig, damage_rect};
use rand::{Rng, SeedableRng};

/// Mixed into the seed for the repair set's generator.
pub const REPAIR_STREAM: u64 = 0x5e7a_1e9a_17ed_0b17;

/// The grids a member's repairs score circuits on, drawn from the run's
/// seed: `repair.grids` random grids with their checkerboard (and fire
/// masks for the asynchronous variant), or every Game of Life board.
pub fn repair_set(config: &CheckerboardConfig) -> RepairSet {
    let (h, w, channels, steps) = (config.ca.height, config.ca.width, config.ca.channels, config.ca_steps);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(config.seed ^ REPAIR_STREAM);
    let grid = |values: &[f32], channels| {
        let mut g = BitGrid::new(h, w, channels);
        g.load(values);
        g
    };
    let (mut starts, mut targets, mut fires) = (Vec::new(), Vec::new(), Vec::new());
    match config.variant {
        Variant::GameOfLife => {
            let mut start = vec![0.0; channels * h * w];
            for board in 0..life::BOARDS {
                start[..9].copy_from_slice(&life::board(board));
                starts.push(grid(&start, channels));
                targets.push(grid(&life::next_board(board), 1));
            }
        }
        Variant::Checkerboard | Variant::Async => {
            let target = grid(&checkerboard(h, w), 1);
            for _ in 0..config.repair.grids {
                let mut start = BitGrid::new(h, w, channels);
                start.fill_random(|| rng.random());
                starts.push(start);
                targets.push(target.clone());
                if config.variant == Variant::Async {
                    for _ in 0..steps {
                        let mut fire = BitGrid::new(h, w, 1);
                        for r in 0..h {
                            for c in 0..w {
                                fire.set(0, r, c, rng.random::<f32>() < config.fire_rate);
                            }
                        }
                        fires.push(fire);
                    }
                }
            }
        }
    }
    RepairSet::new(starts, targets, fires, steps)
}

/// The second set of a member's repairs: `repair.damaged_grids` random
/// grids of the damage check's size ([`RobustnessConfig`]'s default), run
/// for its steps with its centre square zeroed for its first steps, each
/// with the checkerboard as target; drawn from the member's seed on a
/// stream of their own ([`DAMAGED_STREAM`](crate::DAMAGED_STREAM)).
pub fn damaged_repair_set(config: &CheckerboardConfig) -> RepairSet {
    let check = RobustnessConfig::default();
    let (side, channels) = (check.side, config.ca.channels);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(config.seed ^ REPAIR_STREAM ^ DAMAGED_STREAM);
    let mut target = BitGrid::new(side, side, 1);
    target.load(&checkerboard(side, side));
    let starts: Vec<BitGrid> = (0..config.repair.damaged_grids)
        .map(|_| {
            let mut start = BitGrid::new(side, side, channels);
            start.fill_random(|| rng.random());
            start
        })
        .collect();
    let mut mask = BitGrid::new(side, side, 1);
    let (rows, cols) = damage_rect(side, side, check.damage_side);
    for r in rows {
        for c in cols.clone() {
            mask.set(0, r, c, true);
        }
    }
    let targets = vec![target; starts.len()];
    RepairSet::new(starts, targets, Vec::new(), check.steps).damaged(mask, check.damage_steps)
}

/// Mixed into the repair seed for the damaged grids' generator.
pub const DAMAGED_STREAM: u64 = 0x0da3_a6ed_6121_d5e7;
