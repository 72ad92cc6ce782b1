//! `train logic-ca --sweep-seeds A..B`: one run per seed
//! (nothing written to disk), one table row each: when 100% was first
//! reached, the kept circuit's size and its checks; then the tally. Under
//! `mpirun -np K` the seeds are spread over the ranks (seed i of the range
//! on rank i mod K) and rank 0 prints every row in seed order; a row does
//! not depend on the rank that ran it (only its times do). `--until-first`
//! stops after the first seed (under MPI: the first round of K seeds) that
//! meets the target.

use minnow_dist::Collective;
use minnow_logic::hard::active_gates;
use minnow_logic::life::hard_life_accuracy;
use minnow_logic::robustness::{Disturbance, RobustnessConfig, checkerboard_robustness, rollout_accuracy};
use minnow_logic::{CheckerboardConfig, Prune, Variant, train_checkerboard};
use minnow_train::{Sweep, TaskError, cpu_seconds};
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::time::Instant;

/// One seed's result: the table row's cells and whether it met each bar.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct SeedRow {
    /// Every cell but the times, ` | `-separated.
    pub(super) cells: String,
    pub(super) wall_seconds: f64,
    pub(super) cpu_seconds: f64,
    /// Reached 100% on the training grids.
    pub(super) perfect: bool,
    /// Also held beyond them: the target of `--until-first`.
    pub(super) holds: bool,
}

pub(super) fn sweep(config: &CheckerboardConfig, sweep: &Sweep, world: &dyn Collective) -> Result<(), TaskError> {
    let settings = serde_json::json!({ "config": config, "sweep": sweep });
    minnow_dist::agree(world, &settings.to_string(), minnow_train::describe_difference)?;
    let seeds = &sweep.seeds;
    let (size, root) = (world.size(), world.rank() == 0);
    if root {
        print_header(config, seeds, size, sweep.until_first);
    }
    let holds: &dyn Fn(&SeedRow) -> bool = &|row| row.holds;
    let rows = minnow_dist::spread(
        world,
        seeds,
        |&seed| seed_row(&CheckerboardConfig { seed, ..config.clone() }),
        sweep.until_first.then_some(holds),
        |round| {
            for (seed, row) in round {
                minnow_train::outln!("| {seed} | {} | {:.1} | {:.1} |", row.cells, row.wall_seconds, row.cpu_seconds);
            }
        },
    )?;
    if root {
        let runs = rows.len();
        let perfect = rows.iter().filter(|(_, r)| r.perfect).count();
        let robust = rows.iter().filter(|(_, r)| r.holds).count();
        let holds = match config.variant {
            Variant::Checkerboard => "100% and >= 99% on 64x64 and under damage",
            Variant::Async => "100% and >= 99% on fresh grids with asynchronous updates",
            Variant::GameOfLife => "the exact rule (512/512 boards, every cell of 20 64x64 grids)",
        };
        minnow_train::outln!(
            "sweep: {perfect}/{runs} seeds reached 100% within {} steps; {robust}/{runs}: {holds}",
            config.train_steps
        );
    }
    Ok(())
}

fn print_header(config: &CheckerboardConfig, seeds: &[u64], ranks: usize, until_first: bool) {
    minnow_train::outln!(
        "sweep: logic-ca {:?}, seeds {}..{}, {} member{}, up to {} steps, stop at held-out score {}{}{}",
        config.variant,
        seeds[0],
        seeds[seeds.len() - 1],
        config.population,
        if config.population == 1 { "" } else { "s" },
        config.train_steps,
        config.stop_score,
        if ranks > 1 { format!(", spread over {ranks} ranks") } else { String::new() },
        if until_first { ", until the first seed that holds" } else { "" },
    );
    if config.variant == Variant::GameOfLife {
        minnow_train::outln!(
            "| seed | first 100% | kept (member, step) | active gates | pruned | boards right | 64x64 cells | wall s | CPU s |"
        );
        minnow_train::outln!("|---|---|---|---|---|---|---|---|---|");
    } else {
        minnow_train::outln!(
            "| seed | first 100% | kept (member, step) | active gates | pruned | {h}x{w} | 64x64 | damage | async | wall s | CPU s |",
            h = config.ca.height,
            w = config.ca.width
        );
        minnow_train::outln!("|---|---|---|---|---|---|---|---|---|---|---|");
    }
}

/// Trains one seed and checks what it kept.
fn seed_row(config: &CheckerboardConfig) -> Result<SeedRow, minnow_logic::LogicError> {
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let trained = train_checkerboard(config, |_| ControlFlow::Continue(()))?;
    let (wall_seconds, cpu_seconds) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let pruned = trained.hard_program(Prune::Channel0);
    let first = match trained.first_perfect {
        Some(s) => format!("step {s}"),
        None => {
            let best = trained.history.iter().map(|r| r.hard_accuracy).fold(0.0, f32::max);
            format!("never (best {:.2}%)", 100.0 * best)
        }
    };
    let kept = trained.kept.as_ref().map_or("-".to_string(), |k| format!("{}, {}", k.member, k.step));
    let gates = active_gates(trained.model.circuit(), &trained.ops);
    let perfect = trained.first_perfect.is_some();
    let (checks, holds) = if config.variant == Variant::GameOfLife {
        let life = hard_life_accuracy(&pruned, 20, 99);
        let exact = life.boards_right == minnow_logic::life::BOARDS && life.large_grids == 1.0;
        (format!("{}/512 | {:.3}%", life.boards_right, 100.0 * life.large_grids), exact)
    } else {
        let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
        let fire = Disturbance::Async { fire_rate: config.fire_rate };
        let trained_as = if config.variant == Variant::Async { fire } else { Disturbance::None };
        let fresh = rollout_accuracy(&pruned, h, w, n, 200, 99, trained_as);
        let r = checkerboard_robustness(&pruned, &RobustnessConfig::default());
        let holds = match config.variant {
            Variant::Async => fresh >= 0.99,
            _ => r.large >= 0.99 && r.damaged >= 0.99,
        };
        let cells = format!(
            "{:.2}% | {:.2}% | {:.2}% | {:.2}%",
            100.0 * fresh,
            100.0 * r.large,
            100.0 * r.damaged,
            100.0 * r.asynchronous
        );
        (cells, perfect && holds)
    };
    Ok(SeedRow {
        cells: format!("{first} | {kept} | {gates} | {} | {checks}", pruned.gate_count()),
        wall_seconds,
        cpu_seconds,
        perfect,
        holds,
    })
}
