//! `cargo xtask train az-connect4 | az-backgammon`: an AlphaZero run (the
//! library's `AzRun`, trained by the run driver) with a progress bar
//! (games/min, simulations/s, loss, win rates), metrics, a learning curve,
//! checkpoints with exact `--resume`, and a final seeded evaluation on the
//! task's yardsticks (`eval.rs`) with 95% confidence intervals.

use crate::error::XtaskError;
use crate::eval::{EVAL_SEED, PUBEVAL_GAMES, connect4_suite};
use crate::pubeval_match::backgammon_suite;
use crate::train::{FrontEnd, TrainArgs, layered};
use minnow_envs::{Backgammon, ConnectFour, Game};
use minnow_rl::alphazero::{AzAgent, AzConfig, AzRun, EvalReport};
use minnow_train::{Cadence, Event, Observer};
use std::time::Instant;

pub fn train_az(task: &str, args: &TrainArgs) -> Result<(), XtaskError> {
    match task {
        "az-connect4" => train::<ConnectFour>(task, AzConfig::connect4(), args, &|agent| {
            let r = connect4_suite(agent, None, agent.config.eval.final_games, EVAL_SEED ^ 1)?;
            Ok(Suite { matches: r.matches, table: r.table(), json: serde_json::to_value(&r).unwrap_or_default() })
        }),
        "az-backgammon" => train::<Backgammon>(task, AzConfig::backgammon(), args, &|agent| {
            let r = backgammon_suite(agent, None, PUBEVAL_GAMES, EVAL_SEED ^ 1)?;
            Ok(Suite { matches: r.matches, table: r.table(), json: serde_json::to_value(&r).unwrap_or_default() })
        }),
        _ => Err(format!("train: task '{task}' is not an AlphaZero task").into()),
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
) -> Result<(), XtaskError> {
    let mut config = layered(defaults, args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(steps) = args.steps {
        config.iterations = steps;
    }
    config.validate().map_err(|e| format!("{task} config: {e}"))?;

    let (out, checkpoint) = crate::train::run_dir(args, task)?;
    let mut run = AzRun::<G>::new(config.clone()).map_err(|e| e.to_string())?;
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    }
    crate::train::write_json(&out.join("config.json"), &config)?;

    let limit = config.time_limit_minutes;
    println!(
        "training {task} (seed {}, {} iterations{}, {} self-play thread(s) + the learner) -> {}",
        config.seed,
        config.iterations,
        if limit > 0.0 { format!(" or {limit} min") } else { String::new() },
        config.self_play.workers,
        out.display()
    );
    // The curve shows the harder opponent when there is one (against
    // random the rate sits at 100% early).
    let key = if config.eval.games_vs_rollout > 0 { "win_rate_vs_rollout" } else { "win_rate_vs_random" };
    let mut front = Progress {
        front: FrontEnd::open(&out, run.iteration(), config.iterations, key)?,
        speed: String::new(),
        last_eval: String::from("not evaluated yet"),
    };
    let started = Instant::now();
    // An evaluation every `eval.every` iterations (0: only the final one).
    let eval_every = if config.eval.every == 0 { u64::MAX } else { config.eval.every };
    let cadence = Cadence { eval_every, checkpoint_every: config.checkpoint_every, eval_at_end: false };
    minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front)?;
    let mut front = front.front;
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
    front.observe(Event::Eval { step: run.iteration(), metrics: &e.matches.metrics() });
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
    crate::train::write_json(&out.join("summary.json"), &summary)?;
    println!("wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, summary.json}}", out.display());
    Ok(())
}

/// The front end, with a progress line of self-play speed, loss and the
/// last evaluation's win rates.
struct Progress {
    front: FrontEnd,
    speed: String,
    last_eval: String,
}

impl Observer for Progress {
    fn observe(&mut self, event: Event<'_>) {
        self.front.observe(event);
        let metric = |metrics: &[(&str, f64)], key: &str| metrics.iter().find(|(k, _)| *k == key).map(|m| m.1);
        match event {
            Event::Step { metrics, .. } => {
                let value = |key| metric(metrics, key).unwrap_or(f64::NAN);
                self.speed = format!(
                    "{:.0} games/min  {:.0} sims/s  loss {:.3}",
                    value("games_per_min"),
                    value("simulations_per_s"),
                    value("loss")
                );
            }
            Event::Eval { metrics, .. } => {
                let random = metric(metrics, "win_rate_vs_random").unwrap_or(f64::NAN);
                self.last_eval = format!("vs random {:.0}%", 100.0 * random);
                if let Some(rate) = metric(metrics, "win_rate_vs_rollout") {
                    self.last_eval += &format!("  vs mcts {:.0}%", 100.0 * rate);
                }
            }
            Event::Checkpoint { .. } => {}
        }
        self.front.bar.set_message(format!("{}  {}", self.speed, self.last_eval));
    }

    fn persist(&mut self) {
        self.front.persist();
    }
}
