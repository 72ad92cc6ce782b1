//! Rating a run's snapshots as it trains, and keeping the best one.
//!
//! At each evaluation the current snapshot plays short seeded matches
//! against the best-rated snapshot and the most recent earlier ones (a
//! bounded pool), each game opened by a few random moves and played from
//! both sides. These games and the snapshot's matches against the fixed
//! opponents (the random player, random-rollout MCTS, the task's own
//! yardstick if it has one) join one record of every game of the run, and
//! Bradley-Terry ratings are fitted over all of it, the random player at 0
//! (`ratings.rs`). The best-rated snapshot held (pool, best so far,
//! current) becomes the run's best. The matches use their own seeds and
//! read the snapshot only: training is unchanged.

use super::eval::{MatchResult, play_match_from, random_opening};
use super::ratings::{Rating, Record};
use super::{AzConfig, EvalReport, net_player};
use crate::Result;
use minnow_autodiff::Params;
use minnow_envs::Game;
use minnow_nn::PolicyValueNet;
use minnow_train::{RunCheckpoint, RunCheckpointWriter, TrainError};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Instant;

/// Virtual draws per pair of players in the fit: a perfect score (every
/// game against the random player) still has a finite rating.
const PRIOR_DRAWS: f64 = 1.0;
/// The fixed opponents' places in the record.
const RANDOM: usize = 0;
const ROLLOUT: usize = 1;
/// The checkpoint's key and tensor prefix.
const KEY: &str = "league";

/// A snapshot the league holds.
#[derive(Clone, Debug)]
struct Member {
    player: usize,
    iteration: u64,
    params: Arc<Params>,
}

/// A rated snapshot: the iteration it was taken at, its place in the record.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// The iteration the snapshot was taken after.
    pub iteration: u64,
    /// Its player index in the league's [`Record`](super::ratings::Record).
    pub player: usize,
}

/// The ratings of one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloReport {
    /// The iteration evaluated.
    pub iteration: u64,
    /// The current snapshot's rating.
    pub rating: Rating,
    /// The best snapshot held, after this evaluation.
    pub best_iteration: u64,
    /// The best snapshot's rating.
    pub best: Rating,
    /// Whether the best snapshot changed.
    pub new_best: bool,
    /// The current snapshot's games against earlier ones.
    pub vs_snapshots: MatchResult,
    /// Wall-clock seconds the rating games took.
    pub seconds: f64,
}

impl EloReport {
    /// The current rating with its interval, the best's, and the time the
    /// games against earlier snapshots and the fit took.
    pub fn metrics(&self) -> [(&'static str, f64); 6] {
        [
            ("elo", self.rating.elo),
            ("elo_lo", self.rating.lo),
            ("elo_hi", self.rating.hi),
            ("best_elo", self.best.elo),
            ("best_iteration", self.best_iteration as f64),
            ("elo_seconds", self.seconds),
        ]
    }
}

/// The record of a run's rated games and the snapshots it holds.
#[derive(Clone, Debug)]
pub struct League {
    record: Record,
    rated: Vec<Rated>,
    pool: Vec<Member>,
    best: Option<Member>,
    ratings: Vec<Rating>,
}

/// What a checkpoint keeps besides the held snapshots' parameters.
#[derive(Serialize, Deserialize)]
struct Saved {
    record: Record,
    rated: Vec<Rated>,
    pool: Vec<usize>,
    best: Option<usize>,
}

impl League {
    /// An empty league whose rollout opponent plays `rollout_simulations`.
    pub fn new(rollout_simulations: u32) -> Self {
        let mut record = Record::default();
        record.add_player("random");
        record.add_player(format!("rollout MCTS {rollout_simulations}"));
        Self { record, rated: Vec::new(), pool: Vec::new(), best: None, ratings: Vec::new() }
    }

    /// Rates `current` (the snapshot after `iteration` iterations, which
    /// played the fixed opponents in `fixed`): plays it against the pool
    /// and the best snapshot (`config.eval`: `elo_games` games each,
    /// `elo_opening_moves` random opening moves, MCTS at `simulations`),
    /// refits every rating, updates the best and adds `current` to the pool.
    pub fn rate<G: Game + Default + Sync>(
        &mut self,
        net: &PolicyValueNet,
        current: &Arc<Params>,
        iteration: u64,
        config: &AzConfig,
        fixed: &EvalReport,
        seed: u64,
    ) -> Result<EloReport> {
        let started = Instant::now();
        let e = &config.eval;
        let me = self.record.add_player(format!("iteration {iteration}"));
        self.record.add(me, RANDOM, &fixed.vs_random);
        if let Some(r) = &fixed.vs_rollout {
            self.record.add(me, ROLLOUT, &r.total());
        }
        if let Some((opponent, r)) = &fixed.vs_yardstick {
            let player = self.fixed_player(opponent);
            self.record.add(me, player, r);
        }
        let mut opponents = self.pool.clone();
        if let Some(best) = &self.best
            && !opponents.iter().any(|m| m.player == best.player)
        {
            opponents.push(best.clone());
        }
        let mut vs_snapshots = MatchResult::default();
        for member in &opponents {
            let seed = seed ^ (member.player as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let first = |s: u64| net_player::<G>(net, current, &config.mcts, e.simulations, s);
            let second = |s: u64| net_player::<G>(net, &member.params, &config.mcts, e.simulations, s);
            // Games 2k and 2k + 1 share an opening, one from each side.
            let start = |i: usize, _: u64| random_opening::<G>(e.elo_opening_moves, seed.wrapping_add(i as u64 / 2));
            let max_moves = config.self_play.max_moves;
            let r = play_match_from(&first, &second, e.elo_games, seed, e.threads, max_moves, &start)?.total();
            self.record.add(me, member.player, &r);
            vs_snapshots.add(&r);
        }
        self.ratings = self.record.fit(RANDOM, PRIOR_DRAWS);
        let current = Member { player: me, iteration, params: current.clone() };
        let held = self.pool.iter().chain(&self.best).chain([&current]);
        let best = held.max_by(|a, b| self.elo(a.player).total_cmp(&self.elo(b.player))).expect("current").clone();
        let new_best = self.best.as_ref().is_none_or(|b| b.player != best.player);
        let report = EloReport {
            iteration,
            rating: self.ratings[me],
            best_iteration: best.iteration,
            best: self.ratings[best.player],
            new_best,
            vs_snapshots,
            seconds: started.elapsed().as_secs_f64(),
        };
        self.best = Some(best);
        self.rated.push(Rated { iteration, player: me });
        self.pool.push(current);
        let excess = self.pool.len().saturating_sub(e.elo_pool);
        self.pool.drain(..excess);
        Ok(report)
    }

    /// A player's rating in the last fit; one no game links to the
    /// random player ranks below every rated one.
    fn elo(&self, player: usize) -> f64 {
        let elo = self.ratings[player].elo;
        if elo.is_nan() { f64::NEG_INFINITY } else { elo }
    }

    /// The best snapshot held: its iteration, parameters and rating.
    pub fn best(&self) -> Option<(u64, &Arc<Params>, Rating)> {
        self.best.as_ref().map(|b| (b.iteration, &b.params, self.ratings[b.player]))
    }

    /// Every rated snapshot's rating in the last fit (over all games so
    /// far, so earlier snapshots are rated with what came after), in order.
    pub fn curve(&self) -> Vec<(u64, Rating)> {
        self.rated.iter().map(|r| (r.iteration, self.ratings[r.player])).collect()
    }

    /// The rollout opponent's rating in the last fit (NaN before it played).
    pub fn rollout_rating(&self) -> Option<Rating> {
        self.ratings.get(ROLLOUT).copied()
    }

    /// A task's fixed opponent's rating in the last fit, if it played.
    pub fn rating_of(&self, opponent: &str) -> Option<Rating> {
        self.record.player(opponent).and_then(|i| self.ratings.get(i).copied())
    }

    /// The record's player for a task's fixed opponent, added on its
    /// first games.
    fn fixed_player(&mut self, opponent: &str) -> usize {
        self.record.player(opponent).unwrap_or_else(|| self.record.add_player(opponent))
    }

    /// The record of every game rated so far.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// Writes the record as JSON under `league` and each held snapshot's
    /// parameters as `league.<player>.<parameter name>`.
    pub fn save(&self, checkpoint: &mut RunCheckpointWriter) {
        for m in self.held() {
            checkpoint.params(&format!("{KEY}.{}", m.player), &m.params);
        }
        let saved = Saved {
            record: self.record.clone(),
            rated: self.rated.clone(),
            pool: self.pool.iter().map(|m| m.player).collect(),
            best: self.best.as_ref().map(|b| b.player),
        };
        checkpoint.json(KEY, &saved);
    }

    /// The inverse of [`League::save`]; `like` gives the snapshots' names
    /// and shapes. A checkpoint without a league (written before ratings
    /// existed) leaves it empty.
    pub fn restore(&mut self, checkpoint: &RunCheckpoint, like: &Params) -> Result<(), TrainError> {
        if checkpoint.raw().meta(KEY).is_none() {
            return Ok(());
        }
        let saved: Saved = checkpoint.json(KEY)?;
        let bad = |detail: String| TrainError::BadState { key: KEY.into(), detail };
        let players = saved.record.players.len();
        if players <= ROLLOUT {
            return Err(bad(format!("{players} players, expected at least the two fixed opponents")));
        }
        if let Some(p) = saved.record.pairs.iter().find(|p| p.a.max(p.b) >= players || p.a == p.b) {
            return Err(bad(format!("a result between players {} and {} of {players}", p.a, p.b)));
        }
        if let Some(r) = saved.rated.iter().find(|r| r.player >= players) {
            return Err(bad(format!("rated snapshot {} of {players} players", r.player)));
        }
        let member = |player: usize| -> Result<Member, TrainError> {
            let Some(rated) = saved.rated.iter().find(|r| r.player == player) else {
                return Err(bad(format!("held snapshot {player} is not a rated player")));
            };
            let mut params = like.clone();
            checkpoint.restore_params(&format!("{KEY}.{player}"), &mut params)?;
            Ok(Member { player, iteration: rated.iteration, params: Arc::new(params) })
        };
        let pool = saved.pool.iter().map(|&p| member(p)).collect::<Result<Vec<_>, _>>()?;
        let best = saved.best.map(member).transpose()?;
        self.ratings = saved.record.fit(RANDOM, PRIOR_DRAWS);
        (self.record, self.rated, self.pool, self.best) = (saved.record, saved.rated, pool, best);
        Ok(())
    }

    /// The snapshots held, each once.
    fn held(&self) -> impl Iterator<Item = &Member> {
        let best = self.best.as_ref().filter(|b| !self.pool.iter().any(|m| m.player == b.player));
        self.pool.iter().chain(best)
    }
}
