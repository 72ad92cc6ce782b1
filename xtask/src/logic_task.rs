//! `cargo xtask train logic-ca`: the checkerboard logic CA of LOGIC_CA.md,
//! with a progress bar, metrics, a curve and the learned circuit in --out.

use crate::train::{FrontEnd, TrainArgs};
use minnow_logic::{CheckerboardConfig, CheckerboardTrainer, HardProgram, Prune, hard_checkerboard_accuracy};
use minnow_train::{Event, Observer};
use std::time::Instant;

pub fn train_logic_ca(args: &TrainArgs) -> Result<(), String> {
    if args.resume || args.config.is_some() {
        return Err("logic-ca: --resume and --config are not supported for this task yet (issue 7)".into());
    }
    let mut config = CheckerboardConfig::default();
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(steps) = args.steps {
        config.train_steps = steps as usize;
    }
    let out = args.out.clone().unwrap_or_else(|| crate::workspace_root().join("runs").join("logic-ca"));
    std::fs::create_dir_all(&out).map_err(|e| format!("--out {}: {e}", out.display()))?;
    println!("training logic-ca (seed {}, {} steps) -> {}", config.seed, config.train_steps, out.display());

    let mut trainer = CheckerboardTrainer::new(&config).map_err(|e| e.to_string())?;
    let mut front = FrontEnd::open(&out, 0, config.train_steps as u64, "hard_accuracy")?;
    let (h, w, n, boundary) = (config.ca.height, config.ca.width, config.ca_steps, config.ca.boundary);
    let started = Instant::now();
    // Keep, among steps whose batch came out 100% right, the circuit most
    // accurate on fresh grids; otherwise the final one.
    let mut best: Option<(f64, usize, Vec<u8>)> = None;
    let mut first_perfect = None;
    let mut program = HardProgram::default();
    for _ in 0..config.train_steps {
        let r = trainer.step().map_err(|e| e.to_string())?;
        let step = r.step as u64 + 1;
        front.observe(Event::Step { step, total: config.train_steps as u64, metrics: &[("loss", r.loss as f64)] });
        front.observe(Event::Eval { step, metrics: &[("hard_accuracy", r.hard_accuracy as f64)] });
        if r.hard_errors == 0 {
            first_perfect.get_or_insert(r.step);
            program.rebuild(trainer.model().circuit(), trainer.last_ops(), boundary, Prune::Channel0);
            let fresh = hard_checkerboard_accuracy(&program, h, w, n, 50, 1234);
            if best.as_ref().is_none_or(|b| fresh > b.0) {
                best = Some((fresh, r.step, trainer.last_ops().to_vec()));
            }
        }
    }
    front.bar.finish_and_clear();
    front.plot(&out.join("curve.png"), "logic-ca")?;
    let model = trainer.model();
    let ops = match best {
        Some((_, _, ops)) => ops,
        None => {
            let mut ops = vec![0u8; model.circuit().params];
            model.hard_ops(&mut ops);
            ops
        }
    };
    let pruned = HardProgram::new(model.circuit(), &ops, boundary, Prune::Channel0);
    std::fs::write(out.join("circuit.txt"), pruned.to_text()).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "logic-ca: {} steps in {:.1} s; hard accuracy first 100% at {}; pruned circuit {} gates",
        config.train_steps,
        started.elapsed().as_secs_f64(),
        first_perfect.map_or("never".to_string(), |s| format!("step {s}")),
        pruned.gate_count()
    );
    println!(
        "the circuit on fresh grids: {:.2}% ({h}x{w}, {n} steps), {:.2}% (64x64, 80 steps)",
        100.0 * hard_checkerboard_accuracy(&pruned, h, w, n, 200, 99),
        100.0 * hard_checkerboard_accuracy(&pruned, 64, 64, 80, 20, 99)
    );
    println!("wrote {}/{{metrics.jsonl, curve.png, circuit.txt}}", out.display());
    Ok(())
}
