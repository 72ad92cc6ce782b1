//! A whole AlphaZero run: iterations of self-play overlapped with
//! training, evaluation matches, and checkpoints that resume exactly.
//!
//! Iteration `i`: every worker thread plays `games_per_iteration` games
//! with parameter snapshot θ_i while the calling thread trains
//! `steps_per_iteration` updates on the replay buffer as it stood when the
//! iteration began. At the barrier the new games enter the replay in worker
//! order and the trained parameters become snapshot θ_{i+1} (one `Arc`
//! swap). Game seeds derive from (seed, iteration, worker), so a run is
//! deterministic whatever the thread timing, and a checkpoint (parameters,
//! Adam state, replay, the learner's RNG, counters) resumes it bit for bit
//! (`driver.rs`: the run as the run driver sees it).

use super::actors::Actors;
use super::league::{EloReport, League};
use super::round::{FIRST_WORKER_STREAM, derive_seed, play_round};
use super::{
    AzAgent, AzConfig, PositionReplay, Positions, SelfPlayStats, SelfPlayWorker, TrainLoss, Trainer, Yardstick,
    network_config,
};
use crate::Result;
use crate::mcts::{MctsConfig, NetEvaluator, check_network};
use minnow_autodiff::Params;
use minnow_envs::{Game, check_game_sizes};
use minnow_nn::PolicyValueNet;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use super::eval::{
    BySeat, MatchResult, MctsPlayer, RandomPlayer, Ticking, play_match, play_match_from, reset_start, rollout_player,
};

/// Counters over the whole run (kept in checkpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    /// Self-play games finished.
    pub games: u64,
    /// Self-play moves played.
    pub moves: u64,
    /// Search simulations run in self-play.
    pub simulations: u64,
    /// Learner updates.
    pub updates: u64,
    /// Wall time of the iterations (self-play and training), without
    /// evaluation matches.
    pub train_seconds: f64,
}

/// What one iteration did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterationReport {
    /// Iterations finished so far (1 after the first).
    pub iteration: u64,
    /// What the workers played this iteration.
    pub self_play: SelfPlayStats,
    /// Mean losses over the iteration's updates (NaN if none ran).
    pub loss: TrainLoss,
    /// Learner updates this iteration.
    pub updates: usize,
    /// Wall-clock seconds of the iteration (self-play and training).
    pub seconds: f64,
    /// Positions in the replay after the iteration.
    pub replay_len: usize,
    /// The run's counters after the iteration.
    pub totals: Totals,
}

impl IterationReport {
    /// Self-play games per minute of this iteration.
    pub fn games_per_minute(&self) -> f64 {
        60.0 * self.self_play.games as f64 / self.seconds.max(1e-9)
    }

    /// Self-play search simulations per second of this iteration.
    pub fn simulations_per_second(&self) -> f64 {
        self.self_play.simulations as f64 / self.seconds.max(1e-9)
    }

    /// The iteration's metrics: the mean losses (NaN before the first
    /// update), self-play speed, and the run's totals so far.
    pub fn metrics(&self) -> [(&'static str, f64); 8] {
        [
            ("loss", (self.loss.policy + self.loss.value) as f64),
            ("policy_loss", self.loss.policy as f64),
            ("value_loss", self.loss.value as f64),
            ("games_per_min", self.games_per_minute()),
            ("simulations_per_s", self.simulations_per_second()),
            ("games", self.totals.games as f64),
            ("replay", self.replay_len as f64),
            ("train_seconds", self.totals.train_seconds),
        ]
    }
}

/// Win rates of the current snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EvalReport {
    /// Games against the uniform-random player.
    pub vs_random: MatchResult,
    /// Games against random-rollout MCTS by seat, if any were played
    /// (their total is the win rate).
    pub vs_rollout: Option<BySeat>,
    /// Games against the task's own fixed opponent (its name), if it has
    /// one and they were played (`AzRun::set_yardstick`).
    pub vs_yardstick: Option<(&'static str, MatchResult)>,
    /// Wall-clock seconds the matches took.
    pub seconds: f64,
}

impl EvalReport {
    /// Win rates with their 95% intervals, against random first.
    pub fn metrics(&self) -> Vec<(&'static str, f64)> {
        let (lo, hi) = self.vs_random.win_rate_ci();
        let mut m = vec![
            ("win_rate_vs_random", self.vs_random.win_rate()),
            ("win_rate_vs_random_lo", lo),
            ("win_rate_vs_random_hi", hi),
        ];
        if let Some(seats) = self.vs_rollout {
            let r = seats.total();
            let (lo, hi) = r.win_rate_ci();
            m.extend([
                ("win_rate_vs_rollout", r.win_rate()),
                ("win_rate_vs_rollout_lo", lo),
                ("win_rate_vs_rollout_hi", hi),
                ("win_rate_vs_rollout_moving_first", seats.moving_first.win_rate()),
                ("win_rate_vs_rollout_moving_second", seats.moving_second.win_rate()),
            ]);
        }
        m
    }
}

/// The state of a run.
#[derive(Debug)]
pub struct AzRun<G: Game> {
    /// `az-<game>`, the task name in its checkpoints.
    pub(super) task: String,
    pub(super) config: AzConfig,
    pub(super) trainer: Trainer,
    pub(super) replay: PositionReplay,
    snapshot: Arc<Params>,
    /// The self-play workers on this process's threads (none in the
    /// learner of a distributed run: `Learner`).
    pub(super) workers: Vec<SelfPlayWorker<G>>,
    /// Each worker's (or actor's) positions of the iteration.
    pub(super) outputs: Vec<Positions>,
    pub(super) rng: Pcg64Mcg,
    pub(super) iteration: u64,
    pub(super) totals: Totals,
    /// Every rated game and the snapshots the ratings keep.
    pub(super) league: League,
    /// Where the best-rated snapshot is written (`keep_best_in`).
    pub(super) best_dir: Option<PathBuf>,
    /// The task's own fixed opponent, if it has one (`set_yardstick`).
    pub(super) yardstick: Option<Yardstick>,
}

impl<G: Game + Default + Send> AzRun<G> {
    /// A fresh run: validates the config and the game's sizes, builds the
    /// network, the optimiser, the replay buffer and the workers (which
    /// check the game's start position).
    pub fn new(config: AzConfig) -> Result<Self> {
        config.validate()?;
        check_game_sizes::<G>()?;
        let what =
            format!("an AlphaZero run of {} (network {}x{})", G::NAME, config.network.width, config.network.blocks);
        minnow_train::memory::check_fits(&what, config.memory_bytes(G::OBSERVATION_SIZE, G::ACTIONS))?;
        let mut init_rng = Pcg64Mcg::seed_from_u64(derive_seed(config.seed, u64::MAX, 0));
        let trainer = Trainer::new::<G>(&config.network, &config.training, &mut init_rng)?;
        let snapshot = Arc::new(trainer.params().clone());
        let workers = (0..config.self_play.workers)
            .map(|_| SelfPlayWorker::new(trainer.net(), snapshot.clone(), &config.mcts, &config.self_play))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            replay: PositionReplay::new(config.training.replay_capacity, G::OBSERVATION_SIZE, G::ACTIONS)?,
            outputs: (0..config.self_play.workers).map(|_| Positions::default()).collect(),
            rng: Pcg64Mcg::seed_from_u64(derive_seed(config.seed, u64::MAX, 1)),
            trainer,
            snapshot,
            workers,
            iteration: 0,
            totals: Totals::default(),
            league: League::new(config.eval.rollout_simulations),
            best_dir: None,
            yardstick: None,
            task: super::task_name::<G>(),
            config,
        })
    }

    /// The run's config.
    pub fn config(&self) -> &AzConfig {
        &self.config
    }

    /// Iterations finished.
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    /// The run's counters so far.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// The network's layers (its parameters are the learner's).
    pub fn net(&self) -> &PolicyValueNet {
        self.trainer.net()
    }

    /// The parameters self-play uses now (the learner's at the last barrier).
    pub fn snapshot(&self) -> &Arc<Params> {
        &self.snapshot
    }

    /// The self-play positions the learner samples.
    pub fn replay(&self) -> &PositionReplay {
        &self.replay
    }

    /// The rated games so far and the snapshots they keep.
    pub fn league(&self) -> &League {
        &self.league
    }

    /// Writes the best-rated snapshot to `dir/checkpoint.safetensors` each
    /// time it changes (the run-checkpoint layout with the network only,
    /// which `AzAgent::load` reads; docs/CHECKPOINT.md).
    pub fn keep_best_in(&mut self, dir: PathBuf) {
        self.best_dir = Some(dir);
    }

    /// Plays `yardstick` at every evaluation (`eval.yardstick_games`
    /// games; none when 0): its metrics first (the headline of the
    /// evaluation), then `yardstick_seconds`, the time its games took; its
    /// games join the ratings, where it is a fixed opponent.
    pub fn set_yardstick(&mut self, yardstick: Yardstick) {
        self.yardstick = Some(yardstick);
    }

    /// Rates the current snapshot, which played the fixed opponents in
    /// `fixed`, against earlier ones (`League::rate`). `None` when ratings
    /// are off (`eval.elo_pool` 0).
    pub fn rate(&mut self, fixed: &EvalReport) -> Result<Option<EloReport>>
    where
        G: Sync,
    {
        if self.config.eval.elo_pool == 0 {
            return Ok(None);
        }
        let seed = derive_seed(super::EVAL_SEED, self.iteration, 1);
        let (net, snapshot) = (self.trainer.net(), &self.snapshot);
        let report = self.league.rate::<G>(net, snapshot, self.iteration, &self.config, fixed, seed)?;
        Ok(Some(report))
    }

    /// One iteration: self-play on the worker threads, training here.
    pub fn iterate(&mut self) -> Result<IterationReport> {
        self.iterate_with(None)
    }

    /// One iteration, its games played by `actors` when given (the
    /// learner of a distributed run), else by the worker threads.
    pub(super) fn iterate_with(&mut self, mut actors: Option<&mut Actors>) -> Result<IterationReport> {
        let started = Instant::now();
        let (games, it, seed) = (self.config.self_play.games_per_iteration, self.iteration, self.config.seed);
        let players = actors.as_ref().map_or(1, |a| a.count());
        let steps = if self.replay.len() >= self.config.training.min_replay.max(1) {
            self.config.training.steps_per_iteration * players
        } else {
            0
        };
        let (replay, trainer, rng) = (&self.replay, &mut self.trainer, &mut self.rng);
        let mut train = || train_steps(trainer, replay, rng, steps);
        let (stats, trained) = match actors.as_deref_mut() {
            None => {
                let seed = |w: usize| derive_seed(seed, it, FIRST_WORKER_STREAM + w as u64);
                let (played, trained) = play_round(&mut self.workers, &mut self.outputs, games, seed, train);
                (played?, trained)
            }
            Some(actors) => {
                actors.start_round(it, &self.snapshot);
                let trained = train();
                (actors.collect(&mut self.outputs, G::OBSERVATION_SIZE, G::ACTIONS)?, trained)
            }
        };
        let sum = trained?;
        for out in &self.outputs {
            self.replay.extend(out)?;
        }
        self.publish_snapshot()?;
        self.iteration += 1;
        let seconds = started.elapsed().as_secs_f64();
        self.totals.games += stats.games;
        self.totals.moves += stats.moves;
        self.totals.simulations += stats.simulations;
        self.totals.updates += steps as u64;
        self.totals.train_seconds += seconds;
        // The actors play the next iteration while the learner evaluates
        // and checkpoints this one (not after the last).
        let last = self.iteration >= self.config.iterations || self.out_of_time();
        if let Some(actors) = actors
            && !last
        {
            actors.start_round(self.iteration, &self.snapshot);
        }
        let n = steps.max(1) as f32;
        let loss = if steps == 0 {
            TrainLoss { policy: f32::NAN, value: f32::NAN }
        } else {
            TrainLoss { policy: sum.policy / n, value: sum.value / n }
        };
        Ok(IterationReport {
            iteration: self.iteration,
            self_play: stats,
            loss,
            updates: steps,
            seconds,
            replay_len: self.replay.len(),
            totals: self.totals,
        })
    }

    /// Whether self-play and training have run the config's time limit.
    pub(super) fn out_of_time(&self) -> bool {
        let limit = self.config.time_limit_minutes * 60.0;
        limit > 0.0 && self.totals.train_seconds >= limit
    }

    /// Makes the learner's parameters the snapshot self-play and the
    /// evaluations use.
    pub(super) fn publish_snapshot(&mut self) -> Result<()> {
        self.snapshot = Arc::new(self.trainer.params().clone());
        for w in &mut self.workers {
            w.set_params(self.snapshot.clone())?;
        }
        Ok(())
    }

    /// A player for the current snapshot: `simulations` per move, no
    /// noise, the most visited move.
    pub fn player(&self, simulations: u32, seed: u64) -> Result<MctsPlayer<G, NetEvaluator<G>>> {
        net_player(self.net(), &self.snapshot, &self.config.mcts, simulations, seed)
    }

    /// Matches of the current snapshot against the uniform-random player
    /// and against MCTS with `eval.rollout_simulations` random-rollout
    /// simulations (skipped when `rollout_games` is 0), seeded by `seed`.
    pub fn play_matches(&self, random_games: usize, rollout_games: usize, seed: u64) -> Result<EvalReport>
    where
        G: Sync,
    {
        evaluate_snapshot::<G>(self.net(), &self.snapshot, &self.config, random_games, rollout_games, seed, &|| {})
    }

    /// The current snapshot as an agent (for the evaluations that need one).
    pub fn agent(&self) -> AzAgent {
        AzAgent {
            config: self.config.clone(),
            net: self.net().clone(),
            params: self.snapshot.clone(),
            iteration: self.iteration,
        }
    }
}

/// `steps` updates on `replay`, their losses summed.
fn train_steps(trainer: &mut Trainer, replay: &PositionReplay, rng: &mut Pcg64Mcg, steps: usize) -> Result<TrainLoss> {
    let mut sum = TrainLoss::default();
    for _ in 0..steps {
        let l = trainer.step(replay, rng)?;
        sum.policy += l.policy;
        sum.value += l.value;
    }
    Ok(sum)
}

/// "connect4 168-128x4-7": game, inputs, width, blocks, actions.
pub(super) fn network_label<G: Game>(config: &AzConfig) -> String {
    let n = network_config::<G>(&config.network);
    format!("{} {}-{}x{}-{}", G::NAME, n.inputs, n.width, n.blocks, n.policy)
}

/// Matches of a network (MCTS at `config.eval.simulations`, no noise)
/// against the uniform-random player and against random-rollout MCTS
/// (skipped when `rollout_games` is 0), seeded by `seed`; `tick` is
/// called as each game starts (a progress count; `&|| {}` for none).
pub fn evaluate_snapshot<G: Game + Default + Sync>(
    net: &PolicyValueNet,
    params: &Arc<Params>,
    config: &AzConfig,
    random_games: usize,
    rollout_games: usize,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<EvalReport> {
    let started = Instant::now();
    let (e, mcts, max_moves) = (&config.eval, &config.mcts, config.self_play.max_moves);
    let me = |s: u64| Ok(Ticking { player: net_player::<G>(net, params, mcts, e.simulations, s)?, tick });
    let random = |s: u64| Ok(RandomPlayer::new::<G>(s));
    let vs_random = play_match(&me, &random, random_games, seed, e.threads, max_moves)?;
    let vs_rollout = if rollout_games > 0 {
        let start = G::default();
        let rollout = |s: u64| rollout_player(e.rollout_simulations, &start, s);
        Some(play_match_from(&me, &rollout, rollout_games, seed ^ 0x5a5a, e.threads, max_moves, &reset_start)?)
    } else {
        None
    };
    Ok(EvalReport { vs_random, vs_rollout, vs_yardstick: None, seconds: started.elapsed().as_secs_f64() })
}

/// A network player over a snapshot, its forward at `mcts.inference`'s
/// precision.
pub fn net_player<G: Game + Default>(
    net: &PolicyValueNet,
    params: &Arc<Params>,
    mcts: &MctsConfig,
    simulations: u32,
    seed: u64,
) -> Result<MctsPlayer<G, NetEvaluator<G>>> {
    check_network::<G>(net, params)?;
    let config = MctsConfig { simulations, dirichlet_fraction: 0.0, ..*mcts };
    MctsPlayer::new(&config, NetEvaluator::with_inference(net, params.clone(), mcts.inference)?, &G::default(), seed)
}
