//! `cargo xtask train az-connect4 | az-backgammon`: AlphaZero-style
//! self-play with a progress bar (games/min, simulations/s, loss, win
//! rates), metrics.jsonl, curve.png, atomic checkpoints (network, Adam,
//! replay buffer) with exact --resume, and a final seeded evaluation with
//! 95% confidence intervals.

use crate::eval::{EVAL_SEED, PUBEVAL_GAMES, connect4_suite};
use crate::pubeval_match::backgammon_suite;
use crate::train::{FrontEnd, TrainArgs, layered};
use minnow_envs::{Backgammon, ConnectFour, Game};
use minnow_rl::alphazero::{AzAgent, AzConfig, AzRun, EvalReport};
use minnow_train::{Event, Observer};
use std::time::Instant;

pub fn train_az(task: &str, args: &TrainArgs) -> Result<(), String> {
    match task {
        "az-connect4" => train::<ConnectFour>(task, AzConfig::connect4(), args, &|agent| {
            let r = connect4_suite(agent, None, agent.config.eval.final_games, EVAL_SEED ^ 1)?;
            Ok(Suite { matches: r.matches, table: r.table(), json: serde_json::to_value(&r).unwrap_or_default() })
        }),
        "az-backgammon" => train::<Backgammon>(task, AzConfig::backgammon(), args, &|agent| {
            let r = backgammon_suite(agent, None, PUBEVAL_GAMES, EVAL_SEED ^ 1)?;
            Ok(Suite { matches: r.matches, table: r.table(), json: serde_json::to_value(&r).unwrap_or_default() })
        }),
        _ => Err(format!("train: task '{task}' is not an AlphaZero task")),
    }
}

/// The final evaluation of a task: its fixed yardsticks (see `eval.rs`).
struct Suite {
    /// The matches against random (and rollout MCTS) for the curve.
    matches: EvalReport,
    table: String,
    json: serde_json::Value,
}

fn train<G: Game + Default + Send + Sync>(
    task: &str,
    defaults: AzConfig,
    args: &TrainArgs,
    suite: &dyn Fn(&AzAgent) -> Result<Suite, String>,
) -> Result<(), String> {
    let mut config = layered(defaults, args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(steps) = args.steps {
        config.iterations = steps;
    }
    config.validate().map_err(|e| format!("{task} config: {e}"))?;

    let (out, checkpoint) = crate::train::run_dir(args, task)?;
    let mut run = if args.resume {
        AzRun::<G>::resume(config.clone(), &checkpoint).map_err(|e| e.to_string())?
    } else {
        AzRun::<G>::new(config.clone()).map_err(|e| e.to_string())?
    };
    let config_json = serde_json::to_string_pretty(&config).unwrap_or_default();
    std::fs::write(out.join("config.json"), config_json).map_err(|e| format!("{}: {e}", out.display()))?;

    let limit = config.time_limit_minutes * 60.0;
    println!(
        "training {task} (seed {}, {} iterations{}, {} self-play thread(s) + the learner) -> {}",
        config.seed,
        config.iterations,
        if limit > 0.0 { format!(" or {} min", config.time_limit_minutes) } else { String::new() },
        config.self_play.workers,
        out.display()
    );
    // The curve shows the harder opponent when there is one (against
    // random the rate sits at 100% early).
    let key = if config.eval.games_vs_rollout > 0 { "win_rate_vs_rollout" } else { "win_rate_vs_random" };
    let mut front = FrontEnd::open(&out, run.iteration(), config.iterations, key)?;
    let mut last_eval = String::from("not evaluated yet");
    let started = Instant::now();
    while run.iteration() < config.iterations && (limit == 0.0 || run.totals().train_seconds < limit) {
        let r = run.iterate().map_err(|e| e.to_string())?;
        let step = r.iteration;
        let loss = (r.loss.policy + r.loss.value) as f64;
        front.observe(Event::Step {
            step,
            total: config.iterations,
            metrics: &[
                ("loss", loss),
                ("policy_loss", r.loss.policy as f64),
                ("value_loss", r.loss.value as f64),
                ("games_per_min", r.games_per_minute()),
                ("simulations_per_s", r.simulations_per_second()),
                ("games", r.totals.games as f64),
                ("replay", r.replay_len as f64),
                ("train_seconds", r.totals.train_seconds),
            ],
        });
        if config.eval.every > 0 && step.is_multiple_of(config.eval.every) {
            let e = run
                .evaluate(config.eval.games_vs_random, config.eval.games_vs_rollout, EVAL_SEED)
                .map_err(|e| e.to_string())?;
            front.observe(Event::Eval { step, metrics: &eval_metrics(&e) });
            last_eval = eval_message(&e);
        }
        if step.is_multiple_of(config.checkpoint_every) {
            run.save(&checkpoint).map_err(|e| e.to_string())?;
            front.observe(Event::Checkpoint { step, path: &checkpoint });
        }
        front.bar.set_message(format!(
            "{:.0} games/min  {:.0} sims/s  loss {:.3}  {last_eval}",
            r.games_per_minute(),
            r.simulations_per_second(),
            loss
        ));
    }
    run.save(&checkpoint).map_err(|e| e.to_string())?;
    front.bar.finish_and_clear();
    let totals = *run.totals();
    println!(
        "{task}: {} iterations, {} games, {} updates; {:.1} min of self-play and training ({:.0} games/min, {:.0} simulations/s)",
        run.iteration(),
        totals.games,
        totals.updates,
        totals.train_seconds / 60.0,
        60.0 * totals.games as f64 / totals.train_seconds.max(1e-9),
        totals.simulations as f64 / totals.train_seconds.max(1e-9),
    );
    println!(
        "final evaluation: the yardsticks of `cargo xtask eval {task}` ({} simulations per move) ...",
        config.eval.simulations
    );
    let suite_started = Instant::now();
    let e = suite(&run.agent())?;
    front.observe(Event::Eval { step: run.iteration(), metrics: &eval_metrics(&e.matches) });
    front.plot(&out.join("curve.png"), task)?;
    print!("{}", e.table);
    println!(
        "  ({:.1} s; wall time of this invocation {:.1} min)",
        suite_started.elapsed().as_secs_f64(),
        started.elapsed().as_secs_f64() / 60.0
    );
    let summary = serde_json::json!({
        "task": task,
        "iterations": run.iteration(),
        "totals": {
            "games": totals.games, "moves": totals.moves, "simulations": totals.simulations,
            "updates": totals.updates, "train_seconds": totals.train_seconds,
        },
        "final_eval": e.json,
    });
    std::fs::write(out.join("summary.json"), serde_json::to_string_pretty(&summary).unwrap_or_default())
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, summary.json}}", out.display());
    Ok(())
}

fn eval_metrics(e: &EvalReport) -> Vec<(&'static str, f64)> {
    let (lo, hi) = e.vs_random.win_rate_ci();
    let mut m = vec![
        ("win_rate_vs_random", e.vs_random.win_rate()),
        ("win_rate_vs_random_lo", lo),
        ("win_rate_vs_random_hi", hi),
    ];
    if let Some(r) = e.vs_rollout {
        let (lo, hi) = r.win_rate_ci();
        m.extend([
            ("win_rate_vs_rollout", r.win_rate()),
            ("win_rate_vs_rollout_lo", lo),
            ("win_rate_vs_rollout_hi", hi),
        ]);
    }
    m
}

fn eval_message(e: &EvalReport) -> String {
    let mut s = format!("vs random {:.0}%", 100.0 * e.vs_random.win_rate());
    if let Some(r) = e.vs_rollout {
        s += &format!("  vs mcts {:.0}%", 100.0 * r.win_rate());
    }
    s
}
