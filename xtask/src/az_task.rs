//! `cargo xtask train az-connect4 | az-backgammon`: an AlphaZero run (the
//! library's `AzRun`, trained by the run driver) with a progress bar
//! (games/min, simulations/s, loss, win rates), metrics, a learning curve,
//! checkpoints with exact `--resume`, and a final seeded evaluation on the
//! task's yardsticks (`eval.rs`) with 95% confidence intervals. In
//! az-backgammon every evaluation also plays the network alone against
//! pubeval (`eval.yardstick_games`), the learning curve's headline. Every
//! evaluation rates the snapshot (Elo against earlier snapshots and the
//! fixed opponents, random at 0): the curve goes to `elo.png` and the
//! summary, the best-rated snapshot to `best/checkpoint.safetensors`.
//! Under `mpirun -np K ... --distributed` rank 0 is the learner (replay,
//! training, checkpoints, evaluation, everything written) and ranks 1..K
//! are self-play actors (`minnow_rl::alphazero::play_for_learner`).

use crate::error::XtaskError;
use crate::eval::{EVAL_SEED, PUBEVAL_GAMES, connect4_suite};
use crate::pubeval_match::{NETWORK_VS_PUBEVAL, PUBEVAL, backgammon_suite, network_metrics, pubeval_yardstick};
use crate::train::{FrontEnd, TrainArgs, layered};
use minnow_dist::Collective;
use minnow_envs::{Backgammon, ConnectFour, Game};
use minnow_rl::RlError;
use minnow_rl::alphazero::{AzAgent, AzConfig, AzRun, Learner, Yardstick, play_for_learner};
use minnow_train::{Cadence, Event, Observer};
use std::rc::Rc;
use std::time::Instant;

/// Trains AlphaZero task `task`; in `world`, when given, as a learner
/// (rank 0) and actors (every other rank).
pub fn train_az(task: &str, args: &TrainArgs, world: Option<&Rc<dyn Collective>>) -> Result<(), XtaskError> {
    match task {
        "az-connect4" => {
            train::<ConnectFour>(task, minnow_tasks::alphazero_presets::connect4(), args, world, None, &|agent| {
                let r = connect4_suite(agent, None, agent.config.eval.final_games, EVAL_SEED ^ 1)?;
                Ok(Suite {
                    metrics: r.matches.metrics(),
                    table: r.table(),
                    json: serde_json::to_value(&r).unwrap_or_default(),
                })
            })
        }
        "az-backgammon" => {
            let yardstick = Some(pubeval_yardstick());
            train::<Backgammon>(task, minnow_tasks::alphazero_presets::backgammon(), args, world, yardstick, &|agent| {
                let r = backgammon_suite(agent, None, PUBEVAL_GAMES, EVAL_SEED ^ 1)?;
                let mut metrics = network_metrics(&r.network_vs_pubeval);
                metrics.extend(r.matches.metrics());
                Ok(Suite { metrics, table: r.table(), json: serde_json::to_value(&r).unwrap_or_default() })
            })
        }
        _ => Err(format!("train: task '{task}' is not an AlphaZero task").into()),
    }
}

/// The final evaluation of a task: its fixed yardsticks (see `eval.rs`).
struct Suite {
    /// The curve's last point: the metrics of an evaluation during the run.
    metrics: Vec<(&'static str, f64)>,
    table: String,
    json: serde_json::Value,
}

fn train<G: Game + Default + Send + Sync>(
    task: &str,
    defaults: AzConfig,
    args: &TrainArgs,
    world: Option<&Rc<dyn Collective>>,
    yardstick: Option<Yardstick>,
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
    crate::eval::check_final_games(&config).map_err(|e| format!("{task} config: {e}"))?;
    if let Some(world) = world {
        if world.size() < 2 {
            return Err(RlError::TooFewRanks { ranks: world.size() }.to_string().into());
        }
        crate::train::agree_on_config(world.as_ref(), task, args, &config)?;
        if world.rank() > 0 {
            play_for_learner::<G>(&config, world.as_ref()).map_err(|e| e.to_string())?;
            return Ok(());
        }
    }

    let (out, checkpoint) = crate::train::run_dir(args, task)?;
    let mut run = AzRun::<G>::new(config.clone()).map_err(|e| e.to_string())?;
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    }
    run.keep_best_in(out.join("best"));
    // The curve shows the task's own yardstick when it plays one, else
    // the harder generic opponent (against random the rate sits at 100%
    // early).
    let key = match &yardstick {
        Some(y) if config.eval.yardstick_games > 0 => y.headline(),
        _ if config.eval.games_vs_rollout > 0 => "win_rate_vs_rollout",
        _ => "win_rate_vs_random",
    };
    if let Some(yardstick) = yardstick {
        run.set_yardstick(yardstick);
    }
    crate::train::write_json(&out.join("config.json"), &config)?;

    let limit = config.time_limit_minutes;
    let threads = config.self_play.workers;
    let players = match world {
        Some(world) => format!("the learner + {} actor rank(s) of {threads} self-play thread(s)", world.size() - 1),
        None => format!("{threads} self-play thread(s) + the learner"),
    };
    println!(
        "training {task} (seed {}, {} iterations{}, {players}) -> {}",
        config.seed,
        config.iterations,
        if limit > 0.0 { format!(" or {limit} min") } else { String::new() },
        out.display()
    );
    let mut front = Progress {
        front: FrontEnd::open(&out, run.iteration(), config.iterations, key)?,
        speed: String::new(),
        last_eval: String::from("not evaluated yet"),
        elo_seconds: 0.0,
        yardstick_seconds: 0.0,
    };
    let started = Instant::now();
    // An evaluation every `eval.every` iterations (0: only the final one).
    let eval_every = if config.eval.every == 0 { u64::MAX } else { config.eval.every };
    let cadence = Cadence { eval_every, checkpoint_every: config.checkpoint_every, eval_at_end: false };
    let timing = match world {
        None => minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front)?,
        Some(world) => {
            let mut learner = Learner::new(run, world.clone()).map_err(|e| e.to_string())?;
            let driven = minnow_train::drive(&mut learner, cadence, Some(&checkpoint), &mut front);
            // The actors are done whatever the driver returned (a stop included).
            run = learner.finish();
            driven?
        }
    };
    let (elo_seconds, yardstick_seconds) = (front.elo_seconds, front.yardstick_seconds);
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
    print!(
        "evaluations during this invocation: {:.1} s, of which {elo_seconds:.1} s rating against earlier snapshots",
        timing.eval_seconds
    );
    if yardstick_seconds > 0.0 {
        print!(" and {yardstick_seconds:.1} s on the task's yardstick");
    }
    println!();
    let elo = elo_summary(&run, &out, task)?;
    println!(
        "final evaluation: the yardsticks of `cargo xtask eval {task}` ({} simulations per move) ...",
        config.eval.simulations
    );
    let suite_started = Instant::now();
    let e = suite(&run.agent())?;
    front.observe(Event::Eval { step: run.iteration(), metrics: &e.metrics });
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
        "elo": elo,
    });
    crate::train::write_json(&out.join("summary.json"), &summary)?;
    let extra = if run.league().best().is_some() { ", elo.png, best/" } else { "" };
    println!(
        "wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, summary.json{extra}}}",
        out.display()
    );
    Ok(())
}

/// Prints the ratings (every snapshot's in the last fit, random at 0),
/// plots them to `elo.png` and returns them for the summary; nothing when
/// no evaluation rated a snapshot.
fn elo_summary<G: Game + Default + Send + Sync>(
    run: &AzRun<G>,
    out: &std::path::Path,
    task: &str,
) -> Result<serde_json::Value, XtaskError> {
    let league = run.league();
    let Some((best_iteration, _, best)) = league.best() else { return Ok(serde_json::Value::Null) };
    let curve = league.curve();
    let points: Vec<(f64, f64)> = curve.iter().map(|(it, r)| (*it as f64, r.elo)).collect();
    let title = "Elo of each snapshot (random = 0)";
    minnow_cli::learning_curves(&out.join("elo.png"), task, &[minnow_cli::Series { title, points: &points }])?;
    let rollout = league.rollout_rating().filter(|r| r.elo.is_finite());
    let pubeval = league.rating_of(PUBEVAL).filter(|r| r.elo.is_finite());
    let (last_iteration, last) = *curve.last().expect("a best snapshot was rated");
    print!("Elo (random = 0");
    if let Some(r) = rollout {
        print!(", {} {:.0}", league.record().players[1], r.elo);
    }
    if let Some(r) = pubeval {
        print!(", pubeval {:.0}", r.elo);
    }
    println!(
        "): iteration {last_iteration} {:.0} [{:.0}-{:.0}]; best iteration {best_iteration} {:.0} [{:.0}-{:.0}] (in best/)",
        last.elo, last.lo, last.hi, best.elo, best.lo, best.hi
    );
    let curve: Vec<_> = curve.iter().map(|(it, r)| serde_json::json!({"iteration": it, "rating": r})).collect();
    Ok(serde_json::json!({
        "random": 0.0,
        "rollout": rollout,
        "pubeval": pubeval,
        "best": {"iteration": best_iteration, "rating": best},
        "curve": curve,
    }))
}

/// The front end, with a progress line of self-play speed, loss and the
/// last evaluation's win rates.
struct Progress {
    front: FrontEnd,
    speed: String,
    last_eval: String,
    /// Time the evaluations spent on games against earlier snapshots.
    elo_seconds: f64,
    /// Time they spent on the task's own yardstick.
    yardstick_seconds: f64,
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
                if let Some(rate) = metric(metrics, NETWORK_VS_PUBEVAL) {
                    self.last_eval += &format!("  network vs pubeval {:.0}%", 100.0 * rate);
                }
                if let Some(rate) = metric(metrics, "win_rate_vs_rollout") {
                    self.last_eval += &format!("  vs mcts {:.0}%", 100.0 * rate);
                }
                if let Some(elo) = metric(metrics, "elo") {
                    self.last_eval += &format!("  elo {elo:.0}");
                }
                self.elo_seconds += metric(metrics, "elo_seconds").unwrap_or(0.0);
                self.yardstick_seconds += metric(metrics, "yardstick_seconds").unwrap_or(0.0);
            }
            Event::Checkpoint { .. } => {}
        }
        self.front.bar.set_message(format!("{}  {}", self.speed, self.last_eval));
    }

    fn persist(&mut self) {
        self.front.persist();
    }
}
