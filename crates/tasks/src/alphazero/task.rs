//! `az-connect4`, `az-backgammon`: an AlphaZero run (`minnow_rl`'s
//! `AzRun`) with exact resume and a final seeded evaluation on the game's
//! yardsticks with 95% intervals. In az-backgammon every evaluation also
//! plays the network alone against pubeval (`eval.yardstick_games`), the
//! learning curve's headline. Every evaluation rates the snapshot (Elo
//! against earlier snapshots and the fixed opponents, random at 0): the
//! ratings go to `elo.png` and `summary.json`, the best-rated snapshot to
//! `best/checkpoint.safetensors`. Distributed, rank 0 is the learner
//! (replay, training, checkpoints, evaluation, everything written) and
//! every other rank a self-play actor.

use crate::alphazero::{
    EVAL_SEED, NETWORK_VS_PUBEVAL, PUBEVAL_GAMES, backgammon_suite, check_final_games, connect4_suite, elo_summary,
    network_metrics, pubeval_yardstick,
};
use minnow_envs::{Backgammon, ConnectFour, Game};
use minnow_rl::RlError;
use minnow_rl::alphazero::{AzAgent, AzConfig, AzRun, Learner, Yardstick, play_for_learner};
use minnow_train::{Cadence, Evaluate, Evaluation, Event, Observer, Progress, Session, Task, TaskError, View};
use std::time::Instant;

/// An AlphaZero task: its name, its line, its preset and its game.
#[derive(Clone, Copy, Debug)]
pub struct AlphaZero {
    name: &'static str,
    about: &'static str,
    preset: fn() -> AzConfig,
    game: AzGame,
}

#[derive(Clone, Copy, Debug)]
enum AzGame {
    ConnectFour,
    Backgammon,
}

impl AlphaZero {
    /// Connect four, judged on Pascal Pons' test positions.
    pub const CONNECT4: AlphaZero = AlphaZero {
        name: "az-connect4",
        about: "AlphaZero-style self-play, connect four",
        preset: crate::alphazero_presets::connect4,
        game: AzGame::ConnectFour,
    };
    /// Backgammon, judged against pubeval.
    pub const BACKGAMMON: AlphaZero = AlphaZero {
        name: "az-backgammon",
        about: "AlphaZero-style self-play, backgammon",
        preset: crate::alphazero_presets::backgammon,
        game: AzGame::Backgammon,
    };
}

/// A final evaluation: the game's fixed yardsticks.
struct Suite {
    /// The curve's last point: the metrics of an evaluation during the run.
    metrics: Vec<(&'static str, f64)>,
    table: String,
    json: serde_json::Value,
}

impl Task for AlphaZero {
    type Config = AzConfig;

    fn name(&self) -> &str {
        self.name
    }

    fn about(&self) -> &str {
        self.about
    }

    fn defaults(&self) -> AzConfig {
        (self.preset)()
    }

    fn set_seed(&self, config: &mut AzConfig, seed: u64) {
        config.seed = seed;
    }

    fn set_steps(&self, config: &mut AzConfig, iterations: u64) {
        config.iterations = iterations;
    }

    fn check(&self, config: &AzConfig) -> Result<(), TaskError> {
        config.validate()?;
        check_final_games(config)?;
        // Refused before the run directory is made (the run checks again).
        let (obs, actions) = match self.game {
            AzGame::ConnectFour => (ConnectFour::OBSERVATION_SIZE, ConnectFour::ACTIONS),
            AzGame::Backgammon => (Backgammon::OBSERVATION_SIZE, Backgammon::ACTIONS),
        };
        let what = format!("{} (network {}x{})", self.name, config.network.width, config.network.blocks);
        Ok(minnow_train::memory::check_fits(&what, config.memory_bytes(obs, actions))?)
    }

    fn distributed(&self) -> Option<&str> {
        Some("a learner and self-play actors")
    }

    fn check_ranks(&self, ranks: usize) -> Result<(), TaskError> {
        if ranks < 2 {
            return Err(RlError::TooFewRanks { ranks }.into());
        }
        Ok(())
    }

    fn train(&self, config: &AzConfig, session: &mut dyn Session) -> Result<(), TaskError> {
        match self.game {
            AzGame::ConnectFour => train::<ConnectFour>(self, config, session, None),
            AzGame::Backgammon => train::<Backgammon>(self, config, session, Some(pubeval_yardstick())),
        }
    }

    /// The final suite on a saved agent, `overrides` laid over the config
    /// it was trained with (`{"eval": {"simulations": 800}}`,
    /// `{"mcts": {"inference": "bf16"}}`).
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        let path = request.checkpoint;
        let mut agent = match self.game {
            AzGame::ConnectFour => AzAgent::load::<ConnectFour>(path)?,
            AzGame::Backgammon => AzAgent::load::<Backgammon>(path)?,
        };
        agent.config = minnow_train::config::layered(agent.config, request.overrides)?;
        self.check(&agent.config).map_err(|e| format!("{}: config {e}", path.display()))?;
        let suite = self.suite(&agent, request.games, request.progress)?;
        let title = format!("{}: {} agent after {} iterations\n", path.display(), self.name, agent.iteration);
        Ok(Evaluation { figures: suite.metrics, table: title + &suite.table })
    }
}

impl AlphaZero {
    /// The game's fixed yardsticks for `agent`: `games` a match against
    /// the yardstick when given (connect four: against random and
    /// rollout MCTS; backgammon: against pubeval), else the config's.
    fn suite(&self, agent: &AzAgent, games: Option<usize>, progress: &dyn Progress) -> Result<Suite, TaskError> {
        Ok(match self.game {
            AzGame::ConnectFour => {
                let games = games.unwrap_or(agent.config.eval.final_games);
                let r = connect4_suite(agent, games, EVAL_SEED ^ 1, progress)?;
                Suite { metrics: r.matches.metrics(), table: r.table(), json: serde_json::to_value(&r)? }
            }
            AzGame::Backgammon => {
                let r = backgammon_suite(agent, games.unwrap_or(PUBEVAL_GAMES), EVAL_SEED ^ 1, progress)?;
                let mut metrics = network_metrics(&r.network_vs_pubeval);
                metrics.extend(r.matches.metrics());
                Suite { metrics, table: r.table(), json: serde_json::to_value(&r)? }
            }
        })
    }
}

fn train<G: Game + Default + Send + Sync>(
    az: &AlphaZero,
    config: &AzConfig,
    session: &mut dyn Session,
    yardstick: Option<Yardstick>,
) -> Result<(), TaskError> {
    let task = az.name;
    let world = session.world().clone();
    if world.rank() > 0 {
        play_for_learner::<G>(config, world.as_ref())?;
        return Ok(());
    }
    let mut run = AzRun::<G>::new(config.clone())?;
    session.resume(&mut run)?;
    if let Some(out) = session.out() {
        run.keep_best_in(out.join("best"));
    }
    // The curve shows the task's own yardstick when it plays one, else
    // the harder generic opponent (against random the rate sits at 100%
    // early).
    let headline = match &yardstick {
        Some(y) if config.eval.yardstick_games > 0 => y.headline(),
        _ if config.eval.games_vs_rollout > 0 => "win_rate_vs_rollout",
        _ => "win_rate_vs_random",
    };
    let mut show = vec!["games_per_min", "simulations_per_s", "loss", "win_rate_vs_random"];
    if yardstick.is_some() {
        show.push(NETWORK_VS_PUBEVAL);
    }
    if config.eval.games_vs_rollout > 0 {
        show.push("win_rate_vs_rollout");
    }
    show.push("elo");
    if let Some(yardstick) = yardstick {
        run.set_yardstick(yardstick);
    }

    let limit = config.time_limit_minutes;
    let threads = config.self_play.workers;
    let players = match world.size() {
        1 => format!("{threads} self-play thread(s) + the learner"),
        ranks => format!("the learner + {} actor rank(s) of {threads} self-play thread(s)", ranks - 1),
    };
    if let Some(out) = session.out() {
        minnow_train::outln!(
            "training {task} (seed {}, {} iterations{}, {players}) -> {}",
            config.seed,
            config.iterations,
            if limit > 0.0 { format!(" or {limit} min") } else { String::new() },
            out.display()
        );
    }
    let started = Instant::now();
    // An evaluation every `eval.every` iterations (0: only the final one).
    let eval_every = if config.eval.every == 0 { u64::MAX } else { config.eval.every };
    let cadence = Cadence { eval_every, checkpoint_every: config.checkpoint_every, eval_at_end: false };
    let mut tallies = EvalTallies::default();
    let view = View { headline, show: &show, observer: &mut tallies };
    let timing = if world.size() == 1 {
        session.drive(&mut run, cadence, view)?
    } else {
        let mut learner = Learner::new(run, world.clone())?;
        let driven = session.drive(&mut learner, cadence, view);
        // The actors are done whatever the driver returned (a stop included).
        run = learner.finish();
        driven?
    };
    let totals = *run.totals();
    minnow_train::outln!(
        "{task}: {} iterations, {} games, {} updates; {:.1} min of self-play and training ({:.0} games/min, {:.0} simulations/s)",
        run.iteration(),
        totals.games,
        totals.updates,
        totals.train_seconds / 60.0,
        60.0 * totals.games as f64 / totals.train_seconds.max(1e-9),
        totals.simulations as f64 / totals.train_seconds.max(1e-9),
    );
    minnow_train::out!(
        "evaluations during this invocation: {:.1} s, of which {:.1} s rating against earlier snapshots",
        timing.eval_seconds,
        tallies.elo_seconds
    );
    if tallies.yardstick_seconds > 0.0 {
        minnow_train::out!(" and {:.1} s on the task's yardstick", tallies.yardstick_seconds);
    }
    minnow_train::outln!();
    let elo = elo_summary(&run, task, session)?;
    minnow_train::outln!(
        "final evaluation: the yardsticks of `cargo xtask eval {task}` ({} simulations per move) ...",
        config.eval.simulations
    );
    let suite_started = Instant::now();
    let e = az.suite(&run.agent(), None, session.progress())?;
    session.record(run.iteration(), &e.metrics)?;
    minnow_train::out!("{}", e.table);
    minnow_train::outln!(
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
    minnow_train::write_json(session, "summary.json", &summary)?;
    Ok(())
}

/// Where the evaluations of a drive spent their time.
#[derive(Debug, Default)]
struct EvalTallies {
    /// On games against earlier snapshots.
    elo_seconds: f64,
    /// On the task's own yardstick.
    yardstick_seconds: f64,
}

impl Observer for EvalTallies {
    fn observe(&mut self, event: Event<'_>) -> minnow_train::Result<()> {
        if let Event::Eval { metrics, .. } = event {
            let metric = |key: &str| metrics.iter().find(|(k, _)| *k == key).map_or(0.0, |m| m.1);
            self.elo_seconds += metric("elo_seconds");
            self.yardstick_seconds += metric("yardstick_seconds");
        }
        Ok(())
    }
}
