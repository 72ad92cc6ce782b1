//! Seeded backgammon matches scored in points: who opens alternates, and
//! gammons and backgammons count (no doubling cube).

use crate::rate::Rate;
use minnow_envs::{Backgammon, Game};
use minnow_rl::Result;
use minnow_rl::alphazero::{Player, play_from, spread_games};
use serde::Serialize;

/// A match's results from the first player's side, with gammons and
/// backgammons counted (no doubling cube).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PointsResult {
    /// Games played.
    pub games: u64,
    /// Games the first player won.
    pub wins: u64,
    /// Games stopped at the move limit (counted as 0 points).
    pub unfinished: u64,
    /// Of the wins, gammons.
    pub gammons_won: u64,
    /// Of the wins, backgammons.
    pub backgammons_won: u64,
    /// Of the losses, gammons.
    pub gammons_lost: u64,
    /// Of the losses, backgammons.
    pub backgammons_lost: u64,
    /// Points won less points lost.
    pub points: f64,
    /// The sum of each game's points squared (for the interval).
    pub points_squared: f64,
}

impl PointsResult {
    /// The first player's share of wins.
    pub fn win_rate(&self) -> Rate {
        Rate::new(self.wins, self.games)
    }

    /// The first player's mean points a game.
    pub fn points_per_game(&self) -> f64 {
        self.points / self.games.max(1) as f64
    }

    /// The half-width of the 95% normal interval of the points per game.
    pub fn points_half_width(&self) -> f64 {
        let n = self.games.max(2) as f64;
        let mean = self.points / n;
        let variance = (self.points_squared / n - mean * mean).max(0.0) * n / (n - 1.0);
        1.959_964 * (variance / n).sqrt()
    }

    fn record(&mut self, points: f32) {
        self.games += 1;
        self.points += points as f64;
        self.points_squared += (points * points) as f64;
        match points as i32 {
            0 => self.unfinished += 1,
            p if p > 0 => {
                self.wins += 1;
                self.gammons_won += (p == 2) as u64;
                self.backgammons_won += (p == 3) as u64;
            }
            p => {
                self.gammons_lost += (p == -2) as u64;
                self.backgammons_lost += (p == -3) as u64;
            }
        }
    }

    fn add(&mut self, o: &Self) {
        self.games += o.games;
        self.wins += o.wins;
        self.unfinished += o.unfinished;
        self.gammons_won += o.gammons_won;
        self.backgammons_won += o.backgammons_won;
        self.gammons_lost += o.gammons_lost;
        self.backgammons_lost += o.backgammons_lost;
        self.points += o.points;
        self.points_squared += o.points_squared;
    }
}

impl std::fmt::Display for PointsResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} wins, {:+.3} ± {:.3} points/game ({} games; gammons {} won / {} lost, backgammons {} / {})",
            self.win_rate(),
            self.points_per_game(),
            self.points_half_width(),
            self.games,
            self.gammons_won,
            self.gammons_lost,
            self.backgammons_won,
            self.backgammons_lost
        )
    }
}

/// `games` games between a player built by `first` and one built by
/// `second` (each from a thread index and a seed), the first player taking
/// player 0 in even games and player 1 in odd ones; game `i` starts from
/// `Backgammon::reset(seed + i)`, whose fair coin picks the opener, so
/// each side opens half the games in expectation.
/// Games are spread over `threads` threads in fixed shares (each thread's
/// players seeded from its index): the result depends only on the seed and
/// the thread count. `tick` is called after each game (a progress bar's
/// count; `&|| {}` for none).
pub fn points_match<A, B>(
    first: &(dyn Fn(u64) -> Result<A> + Sync),
    second: &(dyn Fn(u64) -> Result<B> + Sync),
    games: usize,
    seed: u64,
    threads: usize,
    max_moves: u32,
    tick: &(dyn Fn() + Sync),
) -> Result<PointsResult>
where
    A: Player<Backgammon>,
    B: Player<Backgammon>,
{
    let play = |a: &mut A, b: &mut B, i: usize, game_seed: u64, r: &mut PointsResult| -> Result<()> {
        let mut start = Backgammon::default();
        start.reset(game_seed);
        let (end, first_is) = if i.is_multiple_of(2) {
            (play_from::<Backgammon>([a, b], start, game_seed, max_moves)?, 0)
        } else {
            (play_from::<Backgammon>([b, a], start, game_seed, max_moves)?, 1)
        };
        let points = match (end.winner(), end.points_won()) {
            (Some(w), Some(p)) if w == first_is => p,
            (Some(_), Some(p)) => -p,
            _ => 0.0,
        };
        r.record(points);
        tick();
        Ok(())
    };
    spread_games(first, second, games, seed, threads, &play, PointsResult::add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::pubeval_player;
    use minnow_rl::alphazero::RandomPlayer;

    #[test]
    fn pubeval_beats_random_and_the_points_add_up() {
        let random = |s: u64| Ok(RandomPlayer::new::<Backgammon>(s));
        let r = points_match(&pubeval_player, &random, 40, 3, 2, 3000, &|| {}).unwrap();
        assert_eq!((r.games, r.unfinished), (40, 0));
        assert!(r.wins >= 38, "{r}");
        let losses = r.games - r.wins;
        let singles_won = r.wins - r.gammons_won - r.backgammons_won;
        let singles_lost = losses - r.gammons_lost - r.backgammons_lost;
        let points = singles_won + 2 * r.gammons_won + 3 * r.backgammons_won;
        let lost = singles_lost + 2 * r.gammons_lost + 3 * r.backgammons_lost;
        assert_eq!(r.points, points as f64 - lost as f64);
        // The same seed and threads play the same games, with a progress
        // count or without, which ticks once a game.
        let ticks = std::sync::atomic::AtomicU64::new(0);
        let tick = || {
            ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let counted = points_match(&pubeval_player, &random, 40, 3, 2, 3000, &tick).unwrap();
        assert_eq!(counted, r);
        assert_eq!(ticks.into_inner(), 40);
    }
}
