//! Tesauro's public evaluation function ("pubeval"), the classic fixed
//! backgammon opponent: a linear score of the position after a whole
//! turn, with one weight vector for races and one for contact positions.
//! Weights and the input encoding are in `data/pubeval/` (README there).
//!
//! Point `p` of [`Position`] (the mover's view, travelling 0 to 23) is
//! pubeval's point `24 - p`, so its five inputs start at `5 * p`.
//!
//! ```
//! use minnow_envs::backgammon::{Position, pubeval::Pubeval};
//! let pubeval = Pubeval::standard();
//! let start = Position::start();
//! assert!((pubeval.score(&start, &start) - 6.84055).abs() < 1e-4);
//! ```

use super::plays::Play;
use super::{Backgammon, CHECKERS, POINTS, Position};
use crate::{Game, Turn};
use thiserror::Error;

/// Inputs of the linear score.
pub const INPUTS: usize = 122;

/// The published weights (`data/pubeval/weights.tsv`).
const WEIGHTS_TSV: &str = include_str!("../../../../data/pubeval/weights.tsv");

/// What can be wrong with pubeval's weights.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PubevalError {
    /// A malformed line of the weights file.
    #[error("pubeval weights, line {line}: {problem}")]
    Weights {
        /// The line of the file (1-based).
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

/// The two weight vectors.
#[derive(Clone, Debug, PartialEq)]
pub struct Pubeval {
    race: [f32; INPUTS],
    contact: [f32; INPUTS],
}

impl Pubeval {
    /// The published weights.
    pub fn standard() -> Self {
        Self::from_tsv(WEIGHTS_TSV).expect("the embedded pubeval weights parse (tested)")
    }

    /// Weights from a table with a header line, then `index race contact`
    /// per line, indices 0..122 in order.
    pub fn from_tsv(text: &str) -> Result<Self, PubevalError> {
        let mut w = Self { race: [0.0; INPUTS], contact: [0.0; INPUTS] };
        let mut rows = 0;
        for (i, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.trim().is_empty()) {
            let fail = |problem: String| PubevalError::Weights { line: i + 1, problem };
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != 3 {
                return Err(fail(format!("{} fields, expected 3 (index, race, contact)", fields.len())));
            }
            if fields[0].parse::<usize>().ok() != Some(rows) || rows >= INPUTS {
                return Err(fail(format!("index '{}', expected {rows} (indices 0..{INPUTS} in order)", fields[0])));
            }
            for (field, slot) in [(fields[1], &mut w.race[rows]), (fields[2], &mut w.contact[rows])] {
                *slot = field
                    .parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| fail(format!("weight '{field}', expected a finite number")))?;
            }
            rows += 1;
        }
        if rows != INPUTS {
            return Err(PubevalError::Weights {
                line: text.lines().count(),
                problem: format!("{rows} rows, expected {INPUTS}"),
            });
        }
        Ok(w)
    }

    /// The inputs of a position seen by the mover.
    pub fn encode(position: &Position, x: &mut [f32; INPUTS]) {
        x.fill(0.0);
        for (p, &n) in position.points().iter().enumerate() {
            let k = 5 * p;
            match n {
                -1 => x[k] = 1.0,
                1 => x[k + 1] = 1.0,
                n if n >= 2 => {
                    x[k + 2] = 1.0;
                    if n == 3 {
                        x[k + 3] = 1.0;
                    } else if n >= 4 {
                        x[k + 4] = (n as f32 - 3.0) / 2.0;
                    }
                }
                _ => {}
            }
        }
        x[120] = position.bar()[1] as f32 / 2.0;
        x[121] = position.off()[0] as f32 / CHECKERS as f32;
    }

    /// The score of `after`, the mover's position after a whole turn
    /// played from `before` (both in the mover's view): the race weights
    /// if `before` was a race, else the contact weights. Bearing off the
    /// last checker scores infinity.
    pub fn score(&self, before: &Position, after: &Position) -> f32 {
        if after.off()[0] == CHECKERS {
            return f32::INFINITY;
        }
        let weights = if is_race(before) { &self.race } else { &self.contact };
        let mut x = [0.0; INPUTS];
        Self::encode(after, &mut x);
        weights.iter().zip(&x).map(|(w, x)| w * x).sum()
    }

    /// The index in `plays` (the whole-turn plays of `game`, from
    /// [`super::TurnPlays::generate`] at the start of the turn) of the one
    /// scoring highest, the first on ties; `None` if there is none.
    pub fn choose(&self, game: &Backgammon, plays: &[Play]) -> Option<usize> {
        let Turn::Player(mover) = game.turn() else { return None };
        let before = game.position();
        let mut best = None;
        for (i, p) in plays.iter().enumerate() {
            // After the turn the board is seen by whoever is on roll next.
            let after = if p.after.player() == mover { *p.after.position() } else { p.after.position().flipped() };
            let s = self.score(before, &after);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((i, s));
            }
        }
        best.map(|(i, _)| i)
    }
}

/// No contact: every checker of the mover has passed every opposing
/// checker (a checker on the bar has passed nothing).
pub fn is_race(position: &Position) -> bool {
    let points = position.points();
    let mover_rear =
        if position.bar()[0] > 0 { -1 } else { points.iter().position(|&n| n > 0).map_or(POINTS as i32, |p| p as i32) };
    let their_rear = if position.bar()[1] > 0 {
        POINTS as i32
    } else {
        points.iter().rposition(|&n| n < 0).map_or(-1, |p| p as i32)
    };
    mover_rear > their_rear
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::{BackgammonConfig, ROLLS, TurnPlays};
    use rand::{Rng, SeedableRng};

    fn position(mine: &[(usize, i8)], theirs: &[(usize, i8)], bar: [u8; 2], off: [u8; 2]) -> Position {
        let mut points = [0; POINTS];
        for &(p, n) in mine {
            points[p] += n;
        }
        for &(p, n) in theirs {
            points[p] -= n;
        }
        Position::new(points, bar, off).unwrap()
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn the_embedded_weights_parse() {
        let w = Pubeval::standard();
        assert_eq!((w.race[0], w.contact[0]), (0.0, 0.25696));
        assert_eq!((w.race[121], w.contact[120]), (3.42040, 5.62596));
    }

    #[test]
    fn the_starting_position_by_hand() {
        // Contact. Mover: 2 on point 0 (x[2]), 5 on 11 (x[57], x[59] =
        // (5 - 3) / 2), 3 on 16 (x[82], x[83]), 5 on 18 (x[92], x[94]);
        // no opposing blot, nobody on the bar or off.
        let start = Position::start();
        assert!(!is_race(&start));
        let expected = -1.66135 + 1.78389 + 0.36797 + 1.83120 + 0.58722 + 3.35809 + 0.57353;
        assert!(close(Pubeval::standard().score(&start, &start), expected));
    }

    #[test]
    fn a_bear_off_by_hand() {
        // A race: the mover has 3 on its 1-point (our 23), 2 on its
        // 2-point (22) and 10 off; the opponent 5 on its 1-point (our 0).
        let p = position(&[(23, 3), (22, 2)], &[(0, 5)], [0, 0], [10, 10]);
        assert!(is_race(&p));
        let expected = -7.26713 + -3.40177 + -3.66465 + 3.42040 * 10.0 / 15.0;
        assert!(close(Pubeval::standard().score(&p, &p), expected));
        // All 15 off beats anything.
        let done = position(&[], &[(0, 5)], [0, 0], [15, 10]);
        assert_eq!(Pubeval::standard().score(&p, &done), f32::INFINITY);
    }

    #[test]
    fn checkers_on_the_bar_by_hand() {
        // The start with the mover's back checkers split (one on the bar,
        // one on point 0), the opponent's two back checkers on the bar and
        // a blot on point 4. The mover's bar checker is not an input.
        let p = position(&[(0, 1), (11, 5), (16, 3), (18, 5)], &[(4, 1), (5, 4), (7, 3), (12, 5)], [1, 2], [0, 0]);
        assert!(!is_race(&p));
        let expected =
            -1.50197 + -0.66937 + 1.78389 + 0.36797 + 1.83120 + 0.58722 + 3.35809 + 0.57353 + 5.62596 * 2.0 / 2.0;
        assert!(close(Pubeval::standard().score(&p, &p), expected));
    }

    #[test]
    fn races_need_every_checker_past_every_other() {
        assert!(!is_race(&position(&[(10, 15)], &[(11, 15)], [0, 0], [0, 0])));
        assert!(is_race(&position(&[(12, 15)], &[(11, 15)], [0, 0], [0, 0])));
        assert!(!is_race(&position(&[(12, 14)], &[(11, 15)], [1, 0], [0, 0])));
        assert!(!is_race(&position(&[(12, 15)], &[(11, 14)], [0, 1], [0, 0])));
    }

    #[test]
    fn swapping_sides_and_mirroring_gives_the_same_score() {
        // Along random games: a position seen by player 1 is the board
        // mirrored with the colours swapped; built by hand from player 0's
        // board, it scores what the game's own view scores, and pubeval's
        // choice for player 1 is the mirror of its choice for player 0
        // given the mirrored board.
        let pubeval = Pubeval::standard();
        let mut plays = TurnPlays::new();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
        let mut compared = 0;
        for seed in 0..20 {
            let mut game = Backgammon::default();
            game.reset(seed);
            while game.turn() != Turn::Over {
                if game.turn() == Turn::Chance {
                    game.apply_chance(rng.random_range(0..ROLLS)).unwrap();
                    continue;
                }
                let seen = *game.position();
                let mut points = *seen.points();
                points.reverse();
                points.iter_mut().for_each(|n| *n = -*n);
                let (bar, off) = (seen.bar(), seen.off());
                let mirrored = Position::new(points, [bar[1], bar[0]], [off[1], off[0]]).unwrap();
                assert_eq!(mirrored.flipped(), seen);
                assert!(close(pubeval.score(&mirrored.flipped(), &mirrored.flipped()), pubeval.score(&seen, &seen)));
                let dice = game.dice().unwrap();
                let other = game.player() ^ 1;
                let twin = Backgammon::from_position(BackgammonConfig::default(), seen, other, dice).unwrap();
                let mine = plays.generate(&game).to_vec();
                let theirs = plays.generate(&twin).to_vec();
                let (a, b) = (pubeval.choose(&game, &mine).unwrap(), pubeval.choose(&twin, &theirs).unwrap());
                assert_eq!(mine[a].actions(), theirs[b].actions());
                compared += 1;
                game = mine[a].after;
            }
        }
        assert!(compared > 500, "{compared}");
    }

    #[test]
    fn malformed_weight_tables_are_errors() {
        assert!(Pubeval::from_tsv("index\trace\tcontact\n0\t1\n").unwrap_err().to_string().contains("line 2"));
        assert!(Pubeval::from_tsv("h\n1\t0\t0\n").unwrap_err().to_string().contains("expected 0"));
        assert!(Pubeval::from_tsv("h\n0\tx\t0\n").unwrap_err().to_string().contains("finite"));
        assert!(Pubeval::from_tsv("h\n0\t0\t0\n").unwrap_err().to_string().contains("1 rows, expected 122"));
    }
}
