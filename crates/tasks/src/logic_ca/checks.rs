//! How a kept circuit does beyond its training conditions (fresh grids,
//! larger ones, damage, asynchronous updates, the Game of Life's boards),
//! printed, and its rollouts rendered.

use minnow_logic::life::hard_life_accuracy;
use minnow_logic::robustness::{Disturbance, HardRollout, RobustnessConfig, checkerboard_robustness, rollout_accuracy};
use minnow_logic::{CheckerboardConfig, HardProgram, Variant};
use rand::SeedableRng;
use std::path::Path;

/// Prints how the kept circuit does beyond its training conditions and
/// renders a rollout.
pub(super) fn report(config: &CheckerboardConfig, program: &HardProgram, out: &Path) -> std::io::Result<()> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(config.seed);
    match config.variant {
        Variant::GameOfLife => {
            let life = hard_life_accuracy(program, 20, 99);
            minnow_train::outln!(
                "Game of Life: {}/512 boards right ({:.2}% of cells); {:.3}% of cells right over 8 steps of 20 \
                 random 64x64 grids",
                life.boards_right,
                100.0 * life.cells,
                100.0 * life.large_grids
            );
            let frames = rollout(program, 64, 64, 60, Disturbance::None, &mut rng);
            super::render::write_rollout(&out.join("frames"), &out.join("rollout.gif"), &frames, 6)?;
        }
        Variant::Checkerboard | Variant::Async => {
            let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
            let fire = Disturbance::Async { fire_rate: config.fire_rate };
            let trained_as = if config.variant == Variant::Async { fire } else { Disturbance::None };
            minnow_train::outln!(
                "on fresh {h}x{w} grids after {n} steps as trained: {:.2}% of channel-0 cells right",
                100.0 * rollout_accuracy(program, h, w, n, 200, 99, trained_as)
            );
            let checks = RobustnessConfig::default();
            let r = checkerboard_robustness(program, &checks);
            minnow_train::outln!(
                "robustness ({} random {s}x{s} grids each): {:.2}% after {} steps, {:.2}% with a {d}x{d} centre \
                 square zeroed for the first {} steps, {:.2}% with asynchronous updates (fire rate {}, {} steps)",
                checks.trials,
                100.0 * r.large,
                checks.steps,
                100.0 * r.damaged,
                checks.damage_steps,
                100.0 * r.asynchronous,
                checks.fire_rate,
                checks.async_steps,
                s = checks.side,
                d = checks.damage_side,
            );
            if config.variant == Variant::Async {
                // The paper's check of an asynchronously trained rule: 4x
                // the side for 4x the steps, asynchronous throughout; and
                // 2 cells more, since a rule that takes the pattern's phase
                // from the far edges draws it inverted when the side
                // differs from the training side modulo 4.
                let steps = 4 * n;
                for side in [4 * h.max(w), 4 * h.max(w) + 2] {
                    minnow_train::outln!(
                        "asynchronous updates on {side}x{side} grids for {steps} steps: {:.2}%",
                        100.0 * rollout_accuracy(program, side, side, steps, checks.trials, 98, fire)
                    );
                }
            }
            let frames = rollout(program, h, w, n, trained_as, &mut rng);
            super::render::write_rollout(&out.join("frames"), &out.join("rollout.gif"), &frames, 16)?;
            let damage = Disturbance::Damage { side: checks.damage_side, steps: checks.damage_steps };
            let frames = rollout(program, checks.side, checks.side, checks.steps, damage, &mut rng);
            super::render::write_gif(&out.join("damage.gif"), &frames, 6, 10)?;
        }
    }
    Ok(())
}

/// Channel 0 from a random start through `steps` steps, start included.
fn rollout(
    program: &HardProgram,
    height: usize,
    width: usize,
    steps: usize,
    disturbance: Disturbance,
    rng: &mut rand_pcg::Pcg64,
) -> Vec<minnow_logic::BitGrid> {
    let mut r = HardRollout::new(program, height, width);
    r.start(rng);
    let mut frames = vec![r.grid().clone()];
    for t in 0..steps {
        r.step(program, t, disturbance, rng);
        frames.push(r.grid().clone());
    }
    frames
}
