//! Trains the checkerboard logic CA of docs/LOGIC_CA.md and reports when the
//! hard circuit reaches 100%, the time per step, and the pruned circuit
//! (with its accuracy on fresh grids, and on 64x64 grids over 80 steps).
//!
//! cargo run --release -p minnow-logic --example checkerboard -- \
//!     [--steps N] [--seed S] [--threads T] [--lanes L] [--store] [--circuit FILE]
//!     [--size N] [--ca-steps N]

use minnow_logic::hard::active_gates;
use minnow_logic::robustness::{Disturbance, rollout_accuracy};
use minnow_logic::{CheckerboardConfig, HardProgram, PatternTrainer, Prune, Rollout, selection_score};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = CheckerboardConfig::default();
    let mut circuit_out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--steps" => config.train_steps = value()?.parse()?,
            "--seed" => config.seed = value()?.parse()?,
            "--threads" => config.threads = value()?.parse()?,
            "--lanes" => config.lanes = value()?.parse()?,
            "--store" => config.rollout = Rollout::Store,
            "--size" => {
                let n = value()?.parse()?;
                (config.ca.height, config.ca.width) = (n, n);
            }
            "--ca-steps" => config.ca_steps = value()?.parse()?,
            "--circuit" => circuit_out = Some(value()?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    println!(
        "checkerboard: seed {}, {} steps, {} threads, {} lanes per tile, {:?}",
        config.seed, config.train_steps, config.threads, config.lanes, config.rollout
    );
    let start = Instant::now();
    let mut trainer = PatternTrainer::new(&config)?;
    let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
    let boundary = config.ca.boundary;
    let mut step_times = Vec::with_capacity(config.train_steps);
    let mut first_perfect = None;
    let mut perfect_steps = 0;
    // The circuit to keep, by the library's policy: among steps whose batch
    // came out 100% right, the best on held-out grids (later updates may
    // move away from a good circuit, so the final one is only the
    // fallback). One member here: the whole run is one seed's.
    let mut best: Option<(f64, usize, Vec<u8>)> = None;
    let mut program = HardProgram::default();
    for _ in 0..config.train_steps {
        let t = Instant::now();
        let r = trainer.step()?;
        step_times.push(t.elapsed().as_secs_f64());
        if r.hard_errors == 0 {
            perfect_steps += 1;
            first_perfect.get_or_insert(r.step);
            program.rebuild(trainer.model().circuit(), trainer.last_ops(), boundary, Prune::Channel0);
            let fresh = selection_score(&config, &program);
            if best.as_ref().is_none_or(|b| fresh > b.0) {
                best = Some((fresh, r.step, trainer.last_ops().to_vec()));
            }
        }
        if r.step % 25 == 0 || r.hard_errors == 0 && r.step % 5 == 0 {
            println!(
                "step {:4}  soft loss {:8.3}  hard accuracy {:6.2}%  ({} wrong)  {:.1} ms/step",
                r.step,
                r.loss,
                100.0 * r.hard_accuracy,
                r.hard_errors,
                1e3 * step_times.last().copied().unwrap_or(0.0)
            );
        }
    }
    let total = start.elapsed().as_secs_f64();
    // The first step includes warm-up (arena growth, thread start).
    let mut sorted = step_times[1..].to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "total {total:.1} s for {} steps: median {:.1} ms/step, mean {:.1} ms/step",
        step_times.len(),
        1e3 * median,
        1e3 * total / step_times.len() as f64
    );
    match first_perfect {
        Some(s) => println!("hard accuracy first reached 100% at step {s} ({perfect_steps} steps at 100% in all)"),
        None => println!("hard accuracy never reached 100%"),
    }

    let model = trainer.model();
    let mut ops = vec![0u8; model.circuit().params];
    model.hard_ops(&mut ops);
    let (which, ops) = match best {
        Some((_, step, ops)) => (format!("step {step}'s"), ops),
        None => ("final".to_string(), ops),
    };
    let pruned = HardProgram::new(model.circuit(), &ops, boundary, Prune::Channel0);
    println!(
        "{which} circuit: active gates {} (not counting pass-throughs), {} after pruning, {} taps",
        active_gates(model.circuit(), &ops),
        pruned.gate_count(),
        pruned.taps().len()
    );
    println!(
        "hard accuracy on 200 fresh {h}x{w} grids after {n} steps: {:.4}%; on 20 64x64 grids after 80 steps: {:.4}%",
        100.0 * rollout_accuracy(&pruned, h, w, n, 200, 99, Disturbance::None),
        100.0 * rollout_accuracy(&pruned, 64, 64, 80, 20, 99, Disturbance::None)
    );
    println!("{}", pruned.to_text());
    if let Some(path) = circuit_out {
        std::fs::write(&path, pruned.to_text())?;
        println!("wrote {path}");
    }
    Ok(())
}
