//! Elo ratings from game results: a record of every game between named
//! players, and the Bradley-Terry fit over it.
//!
//! Player `i` has strength `γ_i = exp(θ_i)` and scores against `j` with
//! probability `γ_i / (γ_i + γ_j)`, a draw counting half a win. The fit
//! maximises the likelihood of the record plus `prior_draws` virtual draws
//! per pair that met (BayesElo's device): without them a perfect score,
//! such as a trained network's against the random player, has no finite
//! maximum. Ratings are `θ` on the Elo scale (`400 / ln 10` per unit),
//! anchored at one player (0); intervals are 95% from the inverse of the
//! Fisher information with the anchor fixed.

use super::MatchResult;
use serde::{Deserialize, Serialize};

/// Elo points per unit of `θ = ln γ`.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The results of every game between two players, from `a`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The first player's index.
    pub a: usize,
    /// The second player's index.
    pub b: usize,
    /// Their games, from `a`'s side.
    pub result: MatchResult,
}

/// Every game of a league, one entry per pair of players.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Player names, by index.
    pub players: Vec<String>,
    /// Results by pair, each pair once.
    pub pairs: Vec<PairResult>,
}

/// A fitted rating with its 95% interval (all NaN for a player no chain
/// of games links to the anchor).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
}

impl Record {
    /// Adds a player and returns its index.
    pub fn add_player(&mut self, name: impl Into<String>) -> usize {
        self.players.push(name.into());
        self.players.len() - 1
    }

    /// The index of the player named `name`, if it is in the record.
    pub fn player(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p == name)
    }

    /// Adds `result` (from `a`'s side) to the games between `a` and `b`.
    #[track_caller]
    pub fn add(&mut self, a: usize, b: usize, result: &MatchResult) {
        assert!(a != b && a.max(b) < self.players.len(), "Record::add: players {a} and {b} of {}", self.players.len());
        let flipped = MatchResult { losses: result.wins, wins: result.losses, ..*result };
        for p in &mut self.pairs {
            if (p.a, p.b) == (a, b) {
                return p.result.add(result);
            }
            if (p.a, p.b) == (b, a) {
                return p.result.add(&flipped);
            }
        }
        self.pairs.push(PairResult { a, b, result: *result });
    }

    /// The ratings of every player, `anchor` at 0.
    pub fn fit(&self, anchor: usize, prior_draws: f64) -> Vec<Rating> {
        fit_elo(self.players.len(), &self.pairs, anchor, prior_draws)
    }
}

/// Maximum-likelihood Bradley-Terry ratings of `players` players from
/// `pairs` (with `prior_draws` virtual draws per pair that played), on the
/// Elo scale with `anchor` at 0. Fitted by Newton's method with step
/// halving: the log-likelihood is concave, so each step raises it and a
/// few dozen reach machine precision even for lopsided scores.
#[track_caller]
pub fn fit_elo(players: usize, pairs: &[PairResult], anchor: usize, prior_draws: f64) -> Vec<Rating> {
    assert!(anchor < players, "fit_elo: anchor {anchor} of {players} players");
    let mut league = Fit { players, games: vec![0.0; players * players], score: vec![0.0; players * players] };
    for p in pairs.iter().filter(|p| p.result.games > 0) {
        let r = &p.result;
        let n = r.games as f64 + prior_draws;
        let s = r.wins as f64 + 0.5 * (r.draws as f64 + prior_draws);
        league.games[p.a * players + p.b] += n;
        league.games[p.b * players + p.a] += n;
        league.score[p.a * players + p.b] += s;
        league.score[p.b * players + p.a] += n - s;
    }
    let linked = league.linked_to(anchor);
    let free: Vec<usize> = (0..players).filter(|&i| linked[i] && i != anchor).collect();
    let mut theta = vec![0.0f64; players];
    for _ in 0..200 {
        let (gradient, information) = league.derivatives(&theta, &free);
        let Some(l) = cholesky(information, free.len()) else { break };
        let step = solve(&l, &gradient);
        let before = league.log_likelihood(&theta);
        let mut t = 1.0;
        let mut next = theta.clone();
        for _ in 0..60 {
            for (x, &i) in free.iter().enumerate() {
                next[i] = theta[i] + t * step[x];
            }
            if league.log_likelihood(&next) >= before {
                break;
            }
            t *= 0.5;
        }
        let moved = free.iter().map(|&i| (next[i] - theta[i]).abs()).fold(0.0, f64::max);
        theta = next;
        if moved < 1e-12 {
            break;
        }
    }
    let (_, information) = league.derivatives(&theta, &free);
    let variances = cholesky(information, free.len()).map(|l| inverse_diagonal(&l));
    (0..players)
        .map(|i| {
            let sd = match free.iter().position(|&f| f == i) {
                Some(x) => variances.as_ref().map_or(f64::NAN, |v| v[x].sqrt()),
                None if i == anchor => 0.0,
                None => return Rating { elo: f64::NAN, lo: f64::NAN, hi: f64::NAN },
            };
            let (elo, half) = (ELO_PER_NAT * theta[i], 1.959_964 * ELO_PER_NAT * sd);
            Rating { elo, lo: elo - half, hi: elo + half }
        })
        .collect()
}

/// Games and points of every ordered pair (`[a * players + b]`: `a`'s
/// points against `b`), virtual draws included.
struct Fit {
    players: usize,
    games: Vec<f64>,
    score: Vec<f64>,
}

impl Fit {
    /// Which players a chain of games links to `anchor`.
    fn linked_to(&self, anchor: usize) -> Vec<bool> {
        let n = self.players;
        let mut linked = vec![false; n];
        let mut stack = vec![anchor];
        linked[anchor] = true;
        while let Some(i) = stack.pop() {
            for j in 0..n {
                if !linked[j] && self.games[i * n + j] > 0.0 {
                    linked[j] = true;
                    stack.push(j);
                }
            }
        }
        linked
    }

    /// The probability that `i` scores against `j`.
    fn p(theta: &[f64], i: usize, j: usize) -> f64 {
        1.0 / (1.0 + (theta[j] - theta[i]).exp())
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let n = self.players;
        let mut sum = 0.0;
        for i in 0..n {
            for j in (0..n).filter(|&j| self.games[i * n + j] > 0.0) {
                sum += self.score[i * n + j] * Self::p(theta, i, j).ln();
            }
        }
        sum
    }

    /// The gradient of the log-likelihood over the `free` players and the
    /// Fisher information (minus its Hessian), row-major.
    fn derivatives(&self, theta: &[f64], free: &[usize]) -> (Vec<f64>, Vec<f64>) {
        let (n, m) = (self.players, free.len());
        let mut place = vec![usize::MAX; n];
        for (x, &i) in free.iter().enumerate() {
            place[i] = x;
        }
        let (mut gradient, mut information) = (vec![0.0; m], vec![0.0; m * m]);
        for (x, &i) in free.iter().enumerate() {
            for j in (0..n).filter(|&j| self.games[i * n + j] > 0.0) {
                let (games, p) = (self.games[i * n + j], Self::p(theta, i, j));
                gradient[x] += self.score[i * n + j] - games * p;
                information[x * m + x] += games * p * (1.0 - p);
                if place[j] != usize::MAX {
                    information[x * m + place[j]] -= games * p * (1.0 - p);
                }
            }
        }
        (gradient, information)
    }
}

/// The lower-triangular `L` with `L L^T = a` (`m` by `m`, row-major), or
/// `None` if `a` is not positive definite.
fn cholesky(mut a: Vec<f64>, m: usize) -> Option<Vec<f64>> {
    for c in 0..m {
        let d = a[c * m + c] - (0..c).map(|k| a[c * m + k] * a[c * m + k]).sum::<f64>();
        if d <= 0.0 || !d.is_finite() {
            return None;
        }
        a[c * m + c] = d.sqrt();
        for r in c + 1..m {
            let s = a[r * m + c] - (0..c).map(|k| a[r * m + k] * a[c * m + k]).sum::<f64>();
            a[r * m + c] = s / a[c * m + c];
        }
        for r in 0..c {
            a[r * m + c] = 0.0;
        }
    }
    Some(a)
}

/// `x` with `L L^T x = b`.
fn solve(l: &[f64], b: &[f64]) -> Vec<f64> {
    let m = b.len();
    let mut y = vec![0.0; m];
    for r in 0..m {
        y[r] = (b[r] - (0..r).map(|k| l[r * m + k] * y[k]).sum::<f64>()) / l[r * m + r];
    }
    for r in (0..m).rev() {
        y[r] = (y[r] - (r + 1..m).map(|k| l[k * m + r] * y[k]).sum::<f64>()) / l[r * m + r];
    }
    y
}

/// The diagonal of `(L L^T)^-1`: `|L^-1 e_i|^2` for each `i`.
fn inverse_diagonal(l: &[f64]) -> Vec<f64> {
    let m = (l.len() as f64).sqrt() as usize;
    let mut y = vec![0.0; m];
    (0..m)
        .map(|i| {
            y.fill(0.0);
            for r in i..m {
                let e = if r == i { 1.0 } else { 0.0 };
                y[r] = (e - (i..r).map(|k| l[r * m + k] * y[k]).sum::<f64>()) / l[r * m + r];
            }
            y.iter().map(|v| v * v).sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn expected(a: f64, b: f64) -> f64 {
        1.0 / (1.0 + 10f64.powf((b - a) / 400.0))
    }

    /// Every pair meets `games` times; wins drawn (or, with no rng, set to
    /// the expected count), no draws.
    fn league(truth: &[f64], games: u64, rng: Option<&mut Pcg64Mcg>) -> Record {
        let mut record = Record::default();
        for i in 0..truth.len() {
            record.add_player(format!("p{i}"));
        }
        let mut rng = rng;
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let p = expected(truth[a], truth[b]);
                let wins = match rng.as_deref_mut() {
                    Some(rng) => (0..games).filter(|_| rng.random::<f64>() < p).count() as u64,
                    None => (p * games as f64).round() as u64,
                };
                record.add(a, b, &MatchResult { games, wins, draws: 0, losses: games - wins });
            }
        }
        record
    }

    #[test]
    fn recovers_known_ratings_from_their_expected_results() {
        let truth = [0.0, 250.0, 600.0, -150.0, 1100.0];
        let fitted = league(&truth, 1_000_000, None).fit(0, 0.0);
        for (t, f) in truth.iter().zip(&fitted) {
            assert!((t - f.elo).abs() < 0.05, "true {t}, fitted {f:?}");
        }
        assert_eq!(fitted[0], Rating { elo: 0.0, lo: 0.0, hi: 0.0 });
    }

    #[test]
    fn sampled_results_land_within_their_intervals() {
        let truth = [0.0, 100.0, 300.0, 350.0, 700.0, -200.0];
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let mut covered = 0;
        let mut total = 0;
        for _ in 0..40 {
            let fitted = league(&truth, 200, Some(&mut rng)).fit(0, 1.0);
            for (t, f) in truth.iter().zip(&fitted).skip(1) {
                assert!(f.lo < f.elo && f.elo < f.hi && f.hi - f.lo < 200.0, "{f:?}");
                covered += usize::from(f.lo <= *t && *t <= f.hi);
                total += 1;
            }
        }
        // 95% intervals: about 190 of 200 cover the truth.
        assert!((180..=200).contains(&covered), "{covered} of {total} intervals hold the true rating");
    }

    #[test]
    fn a_perfect_score_stays_finite_and_unlinked_players_are_nan() {
        let mut record = Record::default();
        let (random, strong, alone) =
            (record.add_player("random"), record.add_player("strong"), record.add_player("x"));
        record.add(strong, random, &MatchResult { games: 50, wins: 50, draws: 0, losses: 0 });
        let fitted = record.fit(random, 1.0);
        // 50.5 of 51 points: ln(101) nats.
        assert!((fitted[strong].elo - ELO_PER_NAT * 101f64.ln()).abs() < 1e-6, "{:?}", fitted[strong]);
        assert!(fitted[alone].elo.is_nan() && fitted[alone].hi.is_nan());
        // The same pair from the other side merges into one entry.
        record.add(random, strong, &MatchResult { games: 2, wins: 0, draws: 2, losses: 0 });
        assert_eq!(record.pairs.len(), 1);
        assert_eq!(record.pairs[0].result, MatchResult { games: 52, wins: 50, draws: 2, losses: 0 });
    }
}
