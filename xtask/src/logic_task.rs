//! `cargo xtask train logic-ca`: the logic cellular automata of
//! docs/LOGIC_CA.md (the checkerboard by default; `"variant": "game-of-life"`
//! or `"async"` in a `--config` file for the others), with a progress bar,
//! metrics, a curve, checkpoints (`--resume` continues exactly), the
//! learned circuit as text, Verilog and C, robustness checks and renders.
//! The run itself is `minnow_logic::LogicCaRun` on the one run driver;
//! this file is its config and presentation.

use crate::error::XtaskError;
use crate::train::{FrontEnd, TrainArgs};
use minnow_logic::hard::active_gates;
use minnow_logic::life::hard_life_accuracy;
use minnow_logic::robustness::{Disturbance, HardRollout, RobustnessConfig, checkerboard_robustness, rollout_accuracy};
use minnow_logic::{CheckerboardConfig, HardProgram, LogicCaRun, Prune, Variant};
use minnow_train::{Cadence, Run};
use rand::SeedableRng;
use std::path::Path;
use std::time::Instant;

pub(crate) fn read_config(args: &TrainArgs) -> Result<CheckerboardConfig, String> {
    let mut config = match &args.config {
        None => CheckerboardConfig::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("--config {}: {e}", path.display()))?;
            CheckerboardConfig::from_json(&text).map_err(|e| format!("--config {}: {e}", path.display()))?
        }
    };
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(steps) = args.steps {
        config.train_steps = steps as usize;
    }
    config.validate().map_err(|e| e.to_string())?;
    let (ca, batch) = (&config.ca, config.batch);
    let what = format!("logic-ca ({}x{} grid, batch {batch}, {} members)", ca.height, ca.width, config.population);
    minnow_train::memory::check_fits(&what, config.memory_bytes()).map_err(|e| e.to_string())?;
    Ok(config)
}

pub fn train_logic_ca(args: &TrainArgs) -> Result<(), XtaskError> {
    let config = read_config(args)?;
    let default_out = match config.variant {
        Variant::Checkerboard => "logic-ca",
        Variant::GameOfLife => "logic-ca-game-of-life",
        Variant::Async => "logic-ca-async",
    };
    let (out, checkpoint) = crate::train::run_dir(args, default_out)?;
    let mut run = LogicCaRun::new(&config)?;
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    }
    minnow_nn::write_atomically(&out.join("config.json"), config.to_json().as_bytes())?;
    let total = config.train_steps as u64;
    let done = run.step();
    println!(
        "training logic-ca ({:?}, seed {}, {} member{}, up to {} steps{}) -> {}",
        config.variant,
        config.seed,
        config.population,
        if config.population == 1 { "" } else { "s" },
        total,
        if done > 0 { format!(", resumed at step {done}") } else { String::new() },
        out.display()
    );

    let mut front = FrontEnd::open(&out, done, total, "hard_accuracy")?;
    let started = Instant::now();
    // Every step reports the hard accuracy of its best batch (free: the
    // hard circuit runs on every batch); the run ends early once the kept
    // circuit holds.
    let cadence = Cadence { eval_every: 1, checkpoint_every: config.checkpoint_every as u64, eval_at_end: false };
    let driven = minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front);
    front.bar.finish_and_clear();
    driven?;
    front.plot(&out.join("curve.png"), "logic-ca")?;

    let population = run.into_population();
    let steps = population.steps_done();
    let first_perfect = population.first_perfect();
    let (model, ops, kept) = population.into_result()?;
    let kept_text = match &kept {
        Some(k) => format!(
            "the circuit of member {} (seed {}) at step {}, held-out score {:.2}%",
            k.member,
            k.seed,
            k.step,
            100.0 * k.score
        ),
        None => "member 0's final circuit (no step reached 100%)".to_string(),
    };
    let pruned = HardProgram::new(model.circuit(), &ops, config.ca.boundary, Prune::Channel0);
    let write = |name: &str, text: String| {
        minnow_nn::write_atomically(&out.join(name), text.as_bytes()).map_err(|e| e.to_string())
    };
    write("circuit.txt", pruned.to_text())?;
    write("circuit.v", pruned.to_verilog("logic_ca_cell"))?;
    write("circuit.c", pruned.to_c("logic_ca"))?;
    println!(
        "logic-ca: {steps} steps per member in {:.1} s this session; hard accuracy first 100% at {}; kept {kept_text}: \
         {} active gates, {} after pruning",
        started.elapsed().as_secs_f64(),
        first_perfect.map_or("never".to_string(), |s| format!("step {s}")),
        active_gates(model.circuit(), &ops),
        pruned.gate_count()
    );
    report_checks(&config, &pruned, &out)?;
    println!(
        "wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, circuit.txt, circuit.v, \
         circuit.c, rollout.gif, frames/}}",
        out.display()
    );
    Ok(())
}

/// Prints how the kept circuit does beyond its training conditions and
/// renders a rollout.
fn report_checks(config: &CheckerboardConfig, program: &HardProgram, out: &Path) -> Result<(), String> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(config.seed);
    match config.variant {
        Variant::GameOfLife => {
            let life = hard_life_accuracy(program, 20, 99);
            println!(
                "Game of Life: {}/512 boards right ({:.2}% of cells); {:.3}% of cells right over 8 steps of 20 \
                 random 64x64 grids",
                life.boards_right,
                100.0 * life.cells,
                100.0 * life.large_grids
            );
            let frames = rollout(program, 64, 64, 60, Disturbance::None, &mut rng);
            crate::logic_render::write_rollout(&out.join("frames"), &out.join("rollout.gif"), &frames, 6)?;
        }
        Variant::Checkerboard | Variant::Async => {
            let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
            let fire = Disturbance::Async { fire_rate: config.fire_rate };
            let trained_as = if config.variant == Variant::Async { fire } else { Disturbance::None };
            println!(
                "on fresh {h}x{w} grids after {n} steps as trained: {:.2}% of channel-0 cells right",
                100.0 * rollout_accuracy(program, h, w, n, 200, 99, trained_as)
            );
            let checks = RobustnessConfig::default();
            let r = checkerboard_robustness(program, &checks);
            println!(
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
                    println!(
                        "asynchronous updates on {side}x{side} grids for {steps} steps: {:.2}%",
                        100.0 * rollout_accuracy(program, side, side, steps, checks.trials, 98, fire)
                    );
                }
            }
            let frames = rollout(program, h, w, n, trained_as, &mut rng);
            crate::logic_render::write_rollout(&out.join("frames"), &out.join("rollout.gif"), &frames, 16)?;
            let damage = Disturbance::Damage { side: checks.damage_side, steps: checks.damage_steps };
            let frames = rollout(program, checks.side, checks.side, checks.steps, damage, &mut rng);
            crate::logic_render::write_gif(&out.join("damage.gif"), &frames, 6, 10)?;
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
