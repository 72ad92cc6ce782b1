//! `cargo xtask train td-backgammon`: TD-Gammon's method. A value network
//! rates whole-turn afterstates (`td_backgammon`: 198 inputs, 5 outcome
//! probabilities), both sides of each self-play game play the play it
//! rates best, and after each game every afterstate learns towards its
//! TD(lambda) return (`minnow_rl::afterstate`). One game after another on
//! one core, so a run is the same from its seed on any machine count of
//! cores; a short 1-ply match against pubeval every `eval.every` games;
//! checkpoints with exact `--resume`; at the end the evaluation suite: the
//! network alone and a 2-ply search against pubeval, win rate and points
//! per game (`cargo xtask eval td-backgammon --checkpoint DIR` runs it on
//! any checkpoint).

use crate::error::XtaskError;
use crate::match_progress::with_bar;
use crate::pubeval_match::{PointsResult, WholeTurnPlayer, points_match};
use crate::td_backgammon::{BackgammonTurns, FEATURES, OUTPUTS, TdChooser};
use crate::train::{FrontEnd, TrainArgs, game_seed, layered};
use minnow_envs::backgammon::pubeval::Pubeval;
use minnow_optim::Check;
use minnow_rl::RlError;
use minnow_rl::afterstate::{TdLambda, TdLambdaConfig, ValueNet};
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub const TASK: &str = "td-backgammon";

/// The task's whole config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdBackgammonConfig {
    /// Seeds the network's initial weights and the training games (game
    /// `k` of seed `s` is the same in every run).
    pub seed: u64,
    /// Self-play training games.
    pub games: u64,
    /// Hidden units of the value network.
    pub hidden: usize,
    /// lambda, and the step size at the first game.
    pub td: TdLambdaConfig,
    /// The step size at the last game (linear in between).
    pub learning_rate_end: f32,
    /// Games between checkpoints.
    pub checkpoint_every: u64,
    pub eval: TdEvalConfig,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdEvalConfig {
    /// Training games between 1-ply matches against pubeval.
    pub every: u64,
    /// Games of each of those matches.
    pub games: usize,
    /// Games of each match of the final suite (network alone; 2-ply).
    pub final_games: usize,
    /// Plays the 2-ply search looks past (the best at 1-ply).
    pub candidates: usize,
    /// Threads the matches spread over.
    pub threads: usize,
    /// Safety limit on micro-actions per game.
    pub max_moves: u32,
}

impl Default for TdBackgammonConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            games: 200_000,
            hidden: 128,
            td: TdLambdaConfig { lambda: 0.7, learning_rate: 0.1 },
            learning_rate_end: 0.02,
            checkpoint_every: 10_000,
            eval: TdEvalConfig {
                every: 20_000,
                games: 1000,
                final_games: 5000,
                candidates: 8,
                threads: 2,
                max_moves: 10_000,
            },
        }
    }
}

fn bad_count(field: &'static str, expected: &'static str, found: u64) -> RlError {
    Check(TASK).count(field, expected, found).into()
}

impl TdBackgammonConfig {
    pub fn validate(&self) -> Result<(), RlError> {
        self.td.validate()?;
        if !(self.learning_rate_end.is_finite() && self.learning_rate_end > 0.0) {
            let (field, expected, found) = ("learning_rate_end", "a finite value > 0", self.learning_rate_end);
            return Err(Check(TASK).value(field, expected, found).into());
        }
        for (field, value) in [
            ("games", self.games),
            ("checkpoint_every", self.checkpoint_every),
            ("eval.every", self.eval.every),
            ("eval.games", self.eval.games as u64),
            ("eval.final_games", self.eval.final_games as u64),
            ("eval.candidates", self.eval.candidates as u64),
            ("eval.max_moves", self.eval.max_moves as u64),
        ] {
            if value == 0 {
                return Err(bad_count(field, "at least 1", 0));
            }
        }
        if !(1..=4096).contains(&self.hidden) {
            return Err(bad_count("hidden", "1..=4096 hidden units", self.hidden as u64));
        }
        if !(1..=256).contains(&self.eval.threads) {
            return Err(bad_count("eval.threads", "1..=256", self.eval.threads as u64));
        }
        Ok(())
    }

    /// The step size for game `k`: linear from `td.learning_rate` to
    /// `learning_rate_end`.
    fn learning_rate(&self, k: u64) -> f32 {
        let f = k as f32 / self.games.max(1) as f32;
        self.td.learning_rate + (self.learning_rate_end - self.td.learning_rate) * f.min(1.0)
    }

    fn new_net(&self) -> ValueNet {
        ValueNet::new(FEATURES, self.hidden, OUTPUTS, &mut rand_pcg::Pcg64Mcg::seed_from_u64(self.seed))
    }
}

/// Training statistics since the last metrics line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Window {
    games: u64,
    decisions: u64,
    squared_error: f64,
    /// Games ending in a gammon or backgammon.
    gammons: u64,
}

impl Window {
    /// Far more decisions than a game of backgammon takes (about 60), so
    /// that a count past it can only be a crafted one.
    const DECISIONS_PER_GAME: u64 = 1 << 20;

    /// Checks a window read from a checkpoint at `step` games: no more
    /// games than the run has played, no more gammons than games or
    /// decisions than they can hold, a finite error.
    fn check(&self, step: u64) -> Result<(), TrainError> {
        let most_decisions = self.games.checked_mul(Self::DECISIONS_PER_GAME).unwrap_or(0);
        let problem = if self.games > step {
            format!("{} games in the window, more than the run's {step}", self.games)
        } else if self.gammons > self.games || self.decisions > most_decisions {
            format!("{} gammons and {} decisions in {} games", self.gammons, self.decisions, self.games)
        } else if !(self.squared_error.is_finite() && self.squared_error >= 0.0) {
            format!("squared_error {} is not a finite value >= 0", self.squared_error)
        } else {
            return Ok(());
        };
        Err(TrainError::BadState { key: "window".into(), detail: problem })
    }
}

pub const WEIGHTS: &str = "td.params";

/// A checkpoint's network and what it was trained with.
pub struct Saved {
    pub net: ValueNet,
    pub config: TdBackgammonConfig,
    pub games: u64,
}

/// Reads the network of a run checkpoint of this task (for evaluation).
pub fn load(path: &Path) -> Result<Saved, XtaskError> {
    let checkpoint = RunCheckpoint::read(path, TASK)?;
    let config: TdBackgammonConfig = checkpoint.json("config")?;
    config.validate().map_err(|e| format!("{}: checkpoint config: {e}", path.display()))?;
    let mut net = config.new_net();
    net.restore(checkpoint.raw(), WEIGHTS).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Saved { net, config, games: checkpoint.step()? })
}

/// A TD(lambda) self-play run as the run driver sees it: one step is one game.
struct TdRun {
    config: TdBackgammonConfig,
    net: ValueNet,
    learner: TdLambda<BackgammonTurns>,
    turns: BackgammonTurns,
    games: u64,
    window: Window,
    log_every: u64,
    decisions_trained: u64,
}

impl TdRun {
    fn new(config: TdBackgammonConfig) -> Self {
        let net = config.new_net();
        Self {
            learner: TdLambda::new(&net),
            net,
            turns: BackgammonTurns::default(),
            games: 0,
            window: Window::default(),
            log_every: (config.games / 1000).max(1),
            decisions_trained: 0,
            config,
        }
    }

    fn cadence(&self) -> Cadence {
        let config = &self.config;
        Cadence { eval_every: config.eval.every, checkpoint_every: config.checkpoint_every, eval_at_end: true }
    }
}

impl Run for TdRun {
    fn task(&self) -> &str {
        TASK
    }

    /// Everything but the game budget, the checkpoint cadence and the
    /// evaluations.
    fn identity(&self) -> String {
        minnow_train::config_identity(&self.config, &["games", "checkpoint_every", "eval"])
    }

    fn step(&self) -> u64 {
        self.games
    }

    fn total(&self) -> u64 {
        self.config.games
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let config = &self.config;
        let td = TdLambdaConfig { learning_rate: config.learning_rate(self.games), ..config.td };
        let seed = game_seed(config.seed, self.games);
        let stats = self.learner.train_game(&mut self.turns, &mut self.net, seed, &td);
        self.decisions_trained += stats.decisions;
        self.games += 1;
        let window = &mut self.window;
        window.games += 1;
        window.decisions += stats.decisions;
        window.squared_error += stats.squared_error;
        window.gammons += (stats.result_equity >= 2.0) as u64;
        if self.games.is_multiple_of(self.log_every) || self.games == config.games {
            let n = window.games as f64;
            metrics.extend([
                ("loss", window.squared_error / window.decisions.max(1) as f64),
                ("decisions_per_game", window.decisions as f64 / n),
                ("gammon_rate", window.gammons as f64 / n),
            ]);
            *window = Window::default();
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let eval = &self.config.eval;
        let r = vs_pubeval(&Arc::new(self.net.clone()), 1, eval.games, EVAL_SEED, eval, &|| {})
            .map_err(|e| TrainError::Task(e.into()))?;
        metrics.extend([("win_rate_vs_pubeval", r.win_rate().rate), ("points_per_game", r.points_per_game())]);
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        let params = self.net.params();
        checkpoint.tensor(WEIGHTS, &[params.len()], params).json("config", &self.config).json("window", &self.window);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.net.restore(checkpoint.raw(), WEIGHTS).map_err(TrainError::task)?;
        let (window, games): (Window, u64) = (checkpoint.json("window")?, checkpoint.step()?);
        window.check(games)?;
        (self.window, self.games) = (window, games);
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TdReport {
    pub games: usize,
    pub candidates: usize,
    pub network_vs_pubeval: PointsResult,
    pub search_vs_pubeval: PointsResult,
    pub network_seconds: f64,
    pub search_seconds: f64,
}

impl TdReport {
    pub fn table(&self) -> String {
        format!(
            "against pubeval, {} games each, alternating who opens (no cube):\n  network alone (1-ply): {}  ({:.0} s)\n  2-ply, best {} plays:   {}  ({:.0} s)\n",
            self.games,
            self.network_vs_pubeval,
            self.network_seconds,
            self.candidates,
            self.search_vs_pubeval,
            self.search_seconds
        )
    }
}

/// `games` games against pubeval for a player choosing with `net` and
/// `keep` (1: the network alone), calling `tick` after each game.
pub fn vs_pubeval(
    net: &Arc<ValueNet>,
    keep: usize,
    games: usize,
    seed: u64,
    eval: &TdEvalConfig,
    tick: &(dyn Fn() + Sync),
) -> Result<PointsResult, String> {
    let pubeval = |_: u64| Ok(WholeTurnPlayer::new(Pubeval::standard()));
    let ours = |_: u64| Ok(WholeTurnPlayer::new(TdChooser::new(net.clone(), keep)));
    points_match(&ours, &pubeval, games, seed, eval.threads, eval.max_moves, tick).map_err(|e| e.to_string())
}

/// The network alone and the 2-ply search against pubeval.
pub fn td_suite(net: &ValueNet, games: usize, eval: &TdEvalConfig, seed: u64) -> Result<TdReport, String> {
    let net = Arc::new(net.clone());
    let t = Instant::now();
    let network_vs_pubeval =
        with_bar("network (1-ply) vs pubeval", games as u64, |tick| vs_pubeval(&net, 1, games, seed, eval, tick))?;
    let network_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let search_vs_pubeval =
        with_bar("2-ply vs pubeval", games as u64, |tick| vs_pubeval(&net, eval.candidates, games, seed, eval, tick))?;
    Ok(TdReport {
        games,
        candidates: eval.candidates,
        network_vs_pubeval,
        search_vs_pubeval,
        network_seconds,
        search_seconds: t.elapsed().as_secs_f64(),
    })
}

/// Seed of the matches against pubeval during and after training.
pub(crate) const EVAL_SEED: u64 = 20_261_124;

pub fn train_td_backgammon(args: &TrainArgs) -> Result<(), XtaskError> {
    let mut config = layered(TdBackgammonConfig::default(), args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(games) = args.steps {
        config.games = games;
    }
    config.validate().map_err(|e| e.to_string())?;

    let (out, checkpoint) = crate::train::run_dir(args, TASK)?;
    let mut run = TdRun::new(config.clone());
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    }
    crate::train::write_json(&out.join("config.json"), &config)?;

    let total = config.games;
    println!(
        "training {TASK} for {total} games: {FEATURES}-{}-{OUTPUTS} network ({} parameters), lambda {}, step size {} -> {} -> {}",
        config.hidden,
        run.net.params().len(),
        config.td.lambda,
        config.td.learning_rate,
        config.learning_rate_end,
        out.display()
    );
    let mut front = FrontEnd::open(&out, run.games, total, "win_rate_vs_pubeval")?;
    let (started, start_games) = (Instant::now(), run.games);
    let cadence = run.cadence();
    let timing = minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front)?;
    front.bar.finish_and_clear();
    front.plot(&out.join("curve.png"), TASK)?;
    let (games, train_seconds) = (run.games - start_games, timing.train_seconds);
    println!(
        "{TASK}: {games} games, {} decisions in {train_seconds:.1} s of training ({:.0} games/s; {:.1} s in all)",
        run.decisions_trained,
        games as f64 / train_seconds.max(1e-9),
        started.elapsed().as_secs_f64()
    );
    let report = td_suite(&run.net, config.eval.final_games, &config.eval, EVAL_SEED ^ 1)?;
    print!("{}", report.table());
    crate::train::write_json(&out.join("eval.json"), &report)?;
    println!("wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, eval.json}}", out.display());
    Ok(())
}

/// `cargo xtask eval td-backgammon`: the suite on a saved network.
pub fn eval_checkpoint(path: &Path, games: Option<usize>, candidates: Option<u32>) -> Result<(), XtaskError> {
    let saved = load(path)?;
    let mut eval = saved.config.eval;
    if let Some(c) = candidates {
        eval.candidates = c as usize;
    }
    println!("{}: {TASK} network after {} games", path.display(), saved.games);
    let report = td_suite(&saved.net, games.unwrap_or(eval.final_games), &eval, EVAL_SEED ^ 1)?;
    print!("{}", report.table());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_nn::CheckpointWriter;

    #[test]
    fn bad_configs_are_errors_naming_the_key() {
        let err = |edit: fn(&mut TdBackgammonConfig)| {
            let mut c = TdBackgammonConfig::default();
            edit(&mut c);
            c.validate().unwrap_err().to_string()
        };
        assert_eq!(err(|c| c.td.lambda = 1.5), "td_lambda.lambda: expected a value in [0, 1], found 1.5");
        assert!(err(|c| c.td.learning_rate = 0.0).starts_with("td_lambda.learning_rate"));
        assert!(err(|c| c.learning_rate_end = f32::NAN).starts_with("td-backgammon.learning_rate_end"));
        assert!(err(|c| c.games = 0).starts_with("td-backgammon.games"));
        assert!(err(|c| c.hidden = 0).starts_with("td-backgammon.hidden"));
        assert!(err(|c| c.eval.candidates = 0).starts_with("td-backgammon.eval.candidates"));
        assert!(err(|c| c.eval.threads = 0).starts_with("td-backgammon.eval.threads"));
        let unknown = serde_json::from_str::<TdBackgammonConfig>(r#"{"lamda": 0.1}"#).unwrap_err().to_string();
        assert!(unknown.contains("lamda"), "{unknown}");
    }

    fn train(net: &mut ValueNet, config: &TdBackgammonConfig, games: std::ops::Range<u64>) {
        let mut turns = BackgammonTurns::default();
        let mut learner = TdLambda::new(net);
        for k in games {
            let td = TdLambdaConfig { learning_rate: config.learning_rate(k), ..config.td };
            learner.train_game(&mut turns, net, game_seed(config.seed, k), &td);
        }
    }

    /// A 4-hidden-unit network, 4 games, a checkpoint and a 2-game match
    /// against pubeval every 2.
    fn tiny_config() -> TdBackgammonConfig {
        let eval = TdEvalConfig { every: 2, games: 2, threads: 1, ..TdBackgammonConfig::default().eval };
        TdBackgammonConfig { hidden: 4, games: 4, checkpoint_every: 2, eval, ..TdBackgammonConfig::default() }
    }

    /// A checkpoint after 2 games, made once.
    fn saved() -> &'static minnow_nn::Checkpoint {
        static SAVED: std::sync::OnceLock<minnow_nn::Checkpoint> = std::sync::OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(TdRun::new(tiny_config()), 2))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the window, the step, the config, the task
        /// and identity tags) is refused or trains on; never a panic.
        #[test]
        fn crafted_td_metadata_resumes_or_is_refused((key, value) in minnow_nn::testing::crafted_metadata(saved())) {
            let run = TdRun::new(tiny_config());
            let cadence = run.cadence();
            minnow_train::testing::resume_crafted(saved(), &key, value, run, cadence);
        }
    }

    #[test]
    fn a_window_the_run_cannot_hold_is_refused_naming_it() {
        let dir = minnow_nn::testing::ScratchDir::new("td-window");
        let path = dir.join("window.safetensors");
        let refused = |window: Window| {
            saved().rewrite(&["window"]).meta("window", serde_json::to_string(&window).unwrap()).save(&path).unwrap();
            minnow_train::resume(&mut TdRun::new(tiny_config()), &path).unwrap_err().to_string()
        };
        let err = refused(Window { games: u64::MAX, ..Window::default() });
        assert!(err.contains("metadata 'window'") && err.contains("more than the run's 2"), "{err}");
        assert!(refused(Window { games: 1, gammons: 2, ..Window::default() }).contains("2 gammons"));
        assert!(refused(Window { games: 1, decisions: u64::MAX, ..Window::default() }).contains("in 1 games"));
        assert!(refused(Window { squared_error: -0.5, ..Window::default() }).contains("squared_error -0.5"));
    }

    #[test]
    fn a_resumed_run_matches_an_uninterrupted_one_and_other_checkpoints_are_refused() {
        let config = TdBackgammonConfig { hidden: 12, games: 10, ..TdBackgammonConfig::default() };
        let dir = std::env::temp_dir().join(format!("minnow-td-resume-{}", std::process::id()));
        let path = dir.join("checkpoint.safetensors");
        let mut straight = config.new_net();
        train(&mut straight, &config, 0..10);
        // Stopped after 6 of its 10 games (the step size decays over all 10).
        let mut first = TdRun::new(config.clone());
        let mut metrics = Metrics::new();
        while first.step() < 6 {
            first.train_step(&mut metrics).unwrap();
        }
        minnow_train::save(&first, &path).unwrap();
        let saved = load(&path).unwrap();
        assert_eq!((saved.games, saved.net.params()), (6, first.net.params()));
        let mut resumed = TdRun::new(config.clone());
        minnow_train::resume(&mut resumed, &path).unwrap();
        let mut net = resumed.net.clone();
        train(&mut net, &config, 6..10);
        assert_eq!(net.params(), straight.params(), "resume is exact");
        assert_ne!(first.net.params(), straight.params());

        let refused = |config: TdBackgammonConfig| minnow_train::resume(&mut TdRun::new(config), &path).unwrap_err();
        let err = refused(TdBackgammonConfig { hidden: 13, ..config.clone() }).to_string();
        assert!(err.contains("hidden = 12, this run is hidden = 13"), "{err}");
        // The seed, lambda and step sizes shape the run too; games may change.
        let err = refused(TdBackgammonConfig { seed: 99, ..config.clone() }).to_string();
        assert!(err.contains("seed = 1, this run is seed = 99"), "{err}");
        let td = TdLambdaConfig { lambda: 0.5, ..config.td };
        assert!(refused(TdBackgammonConfig { td, ..config.clone() }).to_string().contains("td.lambda = 0.7"));
        minnow_train::resume(&mut TdRun::new(TdBackgammonConfig { games: 20, ..config }), &path).unwrap();
        CheckpointWriter::new().tensor("x", &[1], &[0.0]).meta("task", "ntuple-2048").save(&path).unwrap();
        let err = load(&path).err().unwrap().to_string();
        assert!(err.contains("expected a run checkpoint of format 'minnow-run/1', found no format tag"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
