//! A logic-gate cellular automaton learns to grow a pattern you draw:
//! from random grids, after a few synchronous steps of one learned rule,
//! channel 0 of every cell should show the drawing (`#` on, `.` off).
//! A `PatternTrainer` does the training, with the drawing as its target
//! grid; the rule it keeps is a circuit of two-input gates.
//!
//! `cargo run -p minnow-logic --example drawn_pattern [-- SEED]`

use minnow_logic::{
    BitGrid, CheckerboardConfig, HardProgram, HardScratch, LogicCaConfig, PatternTrainer, Prune, RepairConfig,
};
use rand::{Rng, SeedableRng};

/// Draw your own: rows of equal width, at least 3 x 3. Cells see their 3x3
/// neighbourhood and a zero border, so the pattern must be something a
/// local rule can grow within `CA_STEPS` steps.
const DRAWING: &str = "
########
#......#
#.####.#
#.#..#.#
#.#..#.#
#.####.#
#......#
########
";

const CA_STEPS: usize = 6;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(1);
    let rows: Vec<&str> = DRAWING.lines().filter(|l| !l.trim().is_empty()).collect();
    let width = rows.first().ok_or("the drawing is empty")?.len();
    let height = rows.len();
    if let Some(r) = rows.iter().position(|r| r.len() != width) {
        return Err(format!("drawing row {} has {} cells, the first has {width}", r + 1, rows[r].len()).into());
    }
    let target: Vec<f32> = rows.iter().flat_map(|r| r.chars().map(|c| (c == '#') as u8 as f32)).collect();

    // A CA much smaller than the checkerboard's: 4 channels, 8 kernels.
    let ca = LogicCaConfig {
        height,
        width,
        channels: 4,
        kernels: 8,
        update: vec![128, 64, 32, 16, 8, 4],
        ..LogicCaConfig::default()
    };
    let config = CheckerboardConfig {
        ca,
        ca_steps: CA_STEPS,
        batch: 4,
        train_steps: 600,
        threads: 1,
        seed,
        // The repairs score circuits against the checkerboard: off.
        repair: RepairConfig { every: 0, ..RepairConfig::default() },
        ..CheckerboardConfig::default()
    };
    let mut trainer = PatternTrainer::new(&config)?;
    trainer.set_target(&target)?;
    let mut perfect = false;
    for _ in 0..config.train_steps {
        let report = trainer.step()?;
        perfect = report.hard_errors == 0;
        if report.step % 50 == 0 || perfect {
            let right = 100.0 * report.hard_accuracy;
            println!("step {:3}: soft loss {:7.3}, hard circuit {right:5.1}% right", report.step, report.loss);
        }
        // The batch came out exactly right: keep this circuit.
        if perfect {
            break;
        }
    }

    // The circuit behind the last report (taken before that step's update).
    let program = trainer.hard_program(Prune::Channel0);
    let which = if perfect {
        "the first circuit to get a whole batch right"
    } else {
        "the last circuit (no batch came out right)"
    };
    println!("kept {which}: {} gates", program.gate_count());
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed + 1);
    let trials = 100;
    let exact =
        (0..trials).filter(|_| grow(&program, &config.ca, &mut rng).count_equal(0, &target) == target.len()).count();
    println!("it grows the drawing exactly from {exact} of {trials} fresh random grids");
    let grown = grow(&program, &config.ca, &mut rng);
    println!("grown      drawn");
    for (r, row) in rows.iter().enumerate() {
        let cells: String = (0..width).map(|c| if grown.get(0, r, c) { '#' } else { '.' }).collect();
        println!("{cells}   {row}");
    }
    Ok(())
}

/// The grid after `CA_STEPS` steps of `program` from a random one.
fn grow(program: &HardProgram, ca: &LogicCaConfig, rng: &mut impl Rng) -> BitGrid {
    let mut grid = BitGrid::new(ca.height, ca.width, ca.channels);
    grid.fill_random(|| rng.random());
    let (mut next, mut scratch) = (grid.clone(), HardScratch::default());
    for _ in 0..CA_STEPS {
        program.step(&grid, &mut next, &mut scratch);
        std::mem::swap(&mut grid, &mut next);
    }
    grid
}
