//! Runs a hard checkerboard circuit (the shipped one, or `--circuit FILE`
//! as the checkerboard example writes it): its accuracy on fresh grids
//! and its speed on a 512x512 grid, one thread.
//!
//! cargo run --release -p minnow-logic --example hard_circuit [-- --circuit FILE]

use minnow_logic::robustness::{Disturbance, rollout_accuracy};
use minnow_logic::{BitGrid, HardProgram, HardScratch};
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let program = match args.as_slice() {
        [flag, path] if flag == "--circuit" => HardProgram::from_text(&std::fs::read_to_string(path)?)?,
        [] => minnow_logic::trained::checkerboard(),
        _ => return Err("usage: hard_circuit [--circuit FILE]".into()),
    };
    println!("{} gates, {} taps", program.gate_count(), program.taps().len());
    for (h, w, steps, trials) in [(16, 16, 20, 200), (64, 64, 80, 20)] {
        let acc = rollout_accuracy(&program, h, w, steps, trials, 1, Disturbance::None);
        println!("{h}x{w}, {steps} steps, {trials} random grids: channel-0 accuracy {:.4}%", 100.0 * acc);
    }
    let side = 512;
    let mut grid = BitGrid::new(side, side, program.channels());
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    grid.fill_random(|| rng.random());
    let mut next = grid.clone();
    let mut scratch = HardScratch::default();
    let mut best = f64::INFINITY;
    for _ in 0..20 {
        let start = Instant::now();
        let steps = 200;
        for _ in 0..steps {
            program.step(&grid, &mut next, &mut scratch);
            std::mem::swap(&mut grid, &mut next);
        }
        best = best.min(start.elapsed().as_secs_f64() / steps as f64);
    }
    println!(
        "{side}x{side}: {:.1} us per step, {:.2} G cell updates/s (best of 20 runs of 200 steps)",
        best * 1e6,
        (side * side) as f64 / best / 1e9
    );
    Ok(())
}
