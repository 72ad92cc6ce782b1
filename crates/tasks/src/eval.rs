//! The task evaluations: greedy solving of cube positions by true
//! distance, and greedy play of seeded 2048 games. Both play every
//! position of a set at once, one batched forward pass per move, through
//! [`play_greedy`], and touch none of the learner's training state.

use crate::{CubeDqn, Game2048Dqn};
use minnow_envs::{Cube2, Cube2Config, CubeDistances, Env, Game2048};
use minnow_rl::dqn::DqnLearner;
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::{Result, splitmix};
use serde::Serialize;

/// Greedy solving of cube positions at one true (optimal) distance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CubeDistanceResult {
    /// The positions' true (optimal) distance.
    pub distance: usize,
    /// How many positions were played.
    pub positions: usize,
    /// Share solved within `distance` moves (that is, optimally).
    pub solved_within_d: f64,
    /// Share solved within `2 * distance` moves.
    pub solved_within_2d: f64,
    /// Mean moves beyond optimal over the positions solved within 2d.
    pub mean_excess: f64,
}

/// Solve rates at each true distance in `distances`, over the fixed seeded
/// set of `per_distance` positions per distance drawn from the BFS table
/// ([`CubeDistances::evaluation_set`]), with a move budget of 2d.
pub fn evaluate_cube(
    learner: &mut DqnLearner,
    distances: impl IntoIterator<Item = usize>,
    per_distance: usize,
    seed: u64,
) -> Result<Vec<CubeDistanceResult>> {
    let table = CubeDistances::get();
    let mut results = Vec::new();
    for d in distances {
        let states = table.evaluation_set(d, per_distance, seed)?;
        let prototype = Cube2::new(Cube2Config { max_steps: 2 * d.max(1), ..Cube2Config::default() })?;
        let mut envs: Vec<CubeDqn> = states
            .iter()
            .map(|&s| {
                let mut env = prototype.clone();
                env.reset_to(s);
                CubeDqn(env)
            })
            .collect();
        let outcomes = play_greedy(learner, &mut envs, 2 * d)?;
        let solved: Vec<u32> = outcomes.iter().filter(|o| o.success == Some(true)).map(|o| o.steps).collect();
        let share = |k: usize| k as f64 / per_distance.max(1) as f64;
        results.push(CubeDistanceResult {
            distance: d,
            positions: per_distance,
            solved_within_d: share(solved.iter().filter(|&&s| s as usize <= d).count()),
            solved_within_2d: share(solved.len()),
            mean_excess: if solved.is_empty() {
                f64::NAN
            } else {
                solved.iter().map(|&s| s as f64 - d as f64).sum::<f64>() / solved.len() as f64
            },
        });
    }
    Ok(results)
}

/// Greedy play of seeded 2048 games to the end.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Game2048Result {
    /// How many games were played.
    pub games: usize,
    /// The mean final score.
    pub mean_score: f64,
    /// The middle score (the mean of the two middle ones for an even count).
    pub median_score: f64,
    /// The mean number of moves per game.
    pub mean_moves: f64,
    /// `(tile, share of games whose largest tile is exactly it)`, ascending.
    pub max_tiles: Vec<(u32, f64)>,
    /// Share of games reaching at least 512, 1024 and 2048.
    pub reached_512: f64,
    /// See `reached_512`.
    pub reached_1024: f64,
    /// See `reached_512`.
    pub reached_2048: f64,
}

impl std::fmt::Display for Game2048Result {
    /// Two lines: the means and shares, then the largest-tile distribution.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games: mean score {:.0}, median {:.0}, mean moves {:.1}; reached 512 {:.1}%, 1024 {:.1}%, 2048 {:.1}%\nlargest tile:",
            self.games,
            self.mean_score,
            self.median_score,
            self.mean_moves,
            100.0 * self.reached_512,
            100.0 * self.reached_1024,
            100.0 * self.reached_2048
        )?;
        for (tile, share) in &self.max_tiles {
            write!(f, " {tile}: {:.1}%", 100.0 * share)?;
        }
        Ok(())
    }
}

impl Game2048Result {
    /// The scalar results, named for a metrics file.
    pub fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("mean_score", self.mean_score),
            ("median_score", self.median_score),
            ("mean_moves", self.mean_moves),
            ("reached_512", self.reached_512),
            ("reached_1024", self.reached_1024),
            ("reached_2048", self.reached_2048),
        ]
    }

    /// The share of games whose largest tile is `tile` or more.
    pub fn reached(&self, tile: u32) -> f64 {
        // A fold from +0.0: `sum` of nothing is -0.0, printed as "-0.0%".
        self.max_tiles.iter().filter(|(t, _)| *t >= tile).fold(0.0, |sum, (_, share)| sum + share)
    }

    /// The summary of finished games.
    pub fn of_games(envs: &[Game2048]) -> Self {
        let n = envs.len().max(1) as f64;
        let share = |f: &dyn Fn(&Game2048) -> bool| envs.iter().filter(|e| f(e)).count() as f64 / n;
        let mut tiles: Vec<u32> = envs.iter().map(|e| e.board().max_tile()).collect();
        tiles.sort_unstable();
        let mut max_tiles: Vec<(u32, f64)> = Vec::new();
        for t in tiles {
            match max_tiles.last_mut() {
                Some((tile, count)) if *tile == t => *count += 1.0,
                _ => max_tiles.push((t, 1.0)),
            }
        }
        max_tiles.iter_mut().for_each(|(_, c)| *c /= n);
        let mut scores: Vec<u64> = envs.iter().map(|e| e.score()).collect();
        scores.sort_unstable();
        let median_score = match scores.len() {
            0 => 0.0,
            len => (scores[(len - 1) / 2] + scores[len / 2]) as f64 / 2.0,
        };
        Game2048Result {
            games: envs.len(),
            mean_score: scores.iter().sum::<u64>() as f64 / n,
            median_score,
            mean_moves: envs.iter().map(|e| e.moves() as f64).sum::<f64>() / n,
            max_tiles,
            reached_512: share(&|e| e.board().max_tile() >= 512),
            reached_1024: share(&|e| e.board().max_tile() >= 1024),
            reached_2048: share(&|e| e.board().max_tile() >= 2048),
        }
    }
}

/// Fresh games `0..games` of an evaluation seeded `seed` (the same games
/// for every player).
pub fn games_2048(prototype: &Game2048, games: usize, seed: u64) -> Vec<Game2048> {
    (0..games)
        .map(|k| {
            let mut env = prototype.clone();
            env.reset(splitmix(seed ^ splitmix(k as u64)));
            env
        })
        .collect()
}

/// Plays `games` games (seeds derived from `seed`) greedily to the end.
pub fn evaluate_2048(
    learner: &mut DqnLearner,
    prototype: &Game2048,
    games: usize,
    seed: u64,
) -> Result<Game2048Result> {
    let mut envs: Vec<Game2048Dqn> = games_2048(prototype, games, seed).into_iter().map(Game2048Dqn).collect();
    play_greedy(learner, &mut envs, usize::MAX)?;
    let games: Vec<Game2048> = envs.into_iter().map(|env| env.0).collect();
    Ok(Game2048Result::of_games(&games))
}
