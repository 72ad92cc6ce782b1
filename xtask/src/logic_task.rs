//! `cargo xtask train logic-ca`: the logic cellular automata of
//! docs/LOGIC_CA.md (the checkerboard by default; `"variant": "game-of-life"`
//! or `"async"` in a `--config` file for the others), with a progress bar,
//! metrics, a curve, checkpoints (`--resume` continues exactly), the
//! learned circuit as text, Verilog and C, robustness checks and renders.

use crate::error::XtaskError;
use crate::train::{FrontEnd, TrainArgs};
use minnow_logic::hard::active_gates;
use minnow_logic::life::hard_life_accuracy;
use minnow_logic::population::member_of_slot;
use minnow_logic::robustness::{Disturbance, HardRollout, RobustnessConfig, checkerboard_robustness, rollout_accuracy};
use minnow_logic::{CheckerboardConfig, CheckerboardTrainer, HardProgram, Population, Prune, StepReport, Variant};
use minnow_nn::Checkpoint;
use minnow_train::{Event, Observer};
use rand::SeedableRng;
use std::path::{Path, PathBuf};
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

/// Member m's checkpoint in `out` (member 0's also holds the run's own
/// metadata).
fn member_path(out: &Path, member: usize) -> PathBuf {
    match member {
        0 => out.join("checkpoint.safetensors"),
        m => out.join(format!("checkpoint-member-{m}.safetensors")),
    }
}

fn save(population: &Population, out: &Path) -> Result<(), String> {
    for (m, member) in population.members().iter().enumerate() {
        let mut writer = member.checkpoint().map_err(|e| e.to_string())?;
        if m == 0 {
            let first = population.first_perfect().map_or("none".to_string(), |s| s.to_string());
            writer = writer.meta("first_perfect", first);
            if let Some(kept) = population.kept() {
                let ops: Vec<f32> = kept.ops.iter().map(|&op| op as f32).collect();
                writer = writer
                    .tensor("best_ops", &[ops.len()], &ops)
                    .meta("best_member", kept.member.to_string())
                    .meta("best_step", kept.step.to_string())
                    .meta("best_score", format!("{:e}", kept.score));
            }
        }
        writer.save(&member_path(out, m)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A population resumed from the checkpoints in `out`, with what it had
/// kept.
fn resume(config: &CheckerboardConfig, out: &Path) -> Result<Population, String> {
    let path = member_path(out, 0);
    if !path.exists() {
        return Err(format!("--resume: no checkpoint at {}", path.display()));
    }
    let fail = |e: &dyn std::fmt::Display| format!("--resume {}: {e}", path.display());
    let ckpt = Checkpoint::load(&path).map_err(|e| fail(&e))?;
    // Which members the slots hold depends on the restarts so far.
    let steps: usize = ckpt.require_meta("step").map_err(|e| fail(&e))?.parse().map_err(|_| fail(&"step"))?;
    let members = (0..config.population)
        .map(|slot| {
            let path = member_path(out, slot);
            if !path.exists() {
                return Err(format!("--resume: no checkpoint at {}", path.display()));
            }
            let member = member_of_slot(config, slot, steps);
            CheckerboardTrainer::resume(&Population::member_config(config, member), &path)
                .map_err(|e| format!("--resume {}: {e}", path.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut population = Population::from_members(config, members);
    population.restore_kept(&ckpt).map_err(|e| fail(&e))?;
    Ok(population)
}

/// The report of the member with the fewest hard errors.
fn best_report(reports: &[StepReport]) -> StepReport {
    *reports.iter().min_by_key(|r| r.hard_errors).expect("a population has at least one member")
}

pub fn train_logic_ca(args: &TrainArgs) -> Result<(), XtaskError> {
    let config = read_config(args)?;
    let default_out = match config.variant {
        Variant::Checkerboard => "logic-ca",
        Variant::GameOfLife => "logic-ca-game-of-life",
        Variant::Async => "logic-ca-async",
    };
    // Member 0's checkpoint is the run's; `resume` checks the others.
    let (out, _) = crate::train::run_dir(args, default_out)?;
    let mut population =
        if args.resume { resume(&config, &out)? } else { Population::new(&config).map_err(|e| e.to_string())? };
    minnow_nn::write_atomically(&out.join("config.json"), config.to_json().as_bytes()).map_err(|e| e.to_string())?;
    let total = config.train_steps;
    let done = population.steps_done();
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

    let mut front = FrontEnd::open(&out, done as u64, total as u64, "hard_accuracy")?;
    let started = Instant::now();
    let checkpoint = member_path(&out, 0);
    // The first Ctrl-C or SIGTERM finishes the step and checkpoints.
    let _driving = minnow_train::Driving::start();
    while population.steps_done() < total && !population.done() {
        let r = best_report(population.step().map_err(|e| e.to_string())?);
        let step = r.step + 1;
        front.observe(Event::Step { step: step as u64, total: total as u64, metrics: &[("loss", r.loss as f64)] });
        front.observe(Event::Eval { step: step as u64, metrics: &[("hard_accuracy", r.hard_accuracy as f64)] });
        let stop = minnow_train::stop_requested();
        if step.is_multiple_of(config.checkpoint_every) || step == total || population.done() || stop {
            front.persist();
            save(&population, &out)?;
            front.observe(Event::Checkpoint { step: step as u64, path: &checkpoint });
        }
        if stop {
            front.bar.finish_and_clear();
            return Err(minnow_train::TrainError::Stopped { step: step as u64 }.into());
        }
    }
    front.bar.finish_and_clear();
    front.plot(&out.join("curve.png"), "logic-ca")?;

    let steps = population.steps_done();
    let first_perfect = population.first_perfect();
    let (model, ops, kept) = population.into_result().map_err(|e| e.to_string())?;
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
        "wrote {}/{{metrics.jsonl, curve.png, checkpoint*.safetensors, config.json, circuit.txt, circuit.v, \
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
