//! Pascal Pons' connect-four test positions with the exact score of every
//! legal move (`data/connect4-pons/`, README there): the loader and the
//! mistake rule.
//!
//! A move is a mistake when its exact result is worse than the best
//! move's: a won position played to a draw or a loss, a drawn one to a
//! loss. A slower win or a faster loss is not a mistake.
//!
//! ```
//! use minnow_envs::connect4::pons::PonsPosition;
//! let p = PonsPosition::parse(r#"{"moves":"44","score":1,"move_scores":[-1,0,0,1,0,0,-1]}"#).unwrap();
//! assert!(!p.is_mistake(3) && p.is_mistake(1));
//! ```

use super::{COLUMNS, ConnectFour};
use crate::{Game, Turn};
use serde::Deserialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The six sets: file stem and a short label.
pub const PONS_SETS: [(&str, &str); 6] = [
    ("Test_L1_R1", "beginning easy"),
    ("Test_L1_R2", "beginning medium"),
    ("Test_L1_R3", "beginning hard"),
    ("Test_L2_R1", "middle easy"),
    ("Test_L2_R2", "middle medium"),
    ("Test_L3_R1", "end easy"),
];

/// What can be wrong with a test-set file; every variant names the line.
#[derive(Debug, Error)]
pub enum PonsError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line that is not a test position.
    #[error(
        "line {line}: not a test position: {message} (expected {{\"moves\":..,\"score\":..,\"move_scores\":[7 entries]}})"
    )]
    Json {
        /// The line of the file (1-based).
        line: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// A move string character that is not a column.
    #[error("line {line}: moves: character {index} is '{found}', expected a column digit 1 to 7")]
    BadMove {
        /// The line of the file (1-based).
        line: usize,
        /// The character (0-based).
        index: usize,
        /// What was found.
        found: char,
    },
    /// A move the position does not allow (a full column).
    #[error("line {line}: moves: stone {index} (column {column}) cannot be played: {problem}")]
    IllegalMove {
        /// The line of the file (1-based).
        line: usize,
        /// The stone (0-based).
        index: usize,
        /// The column (0-based).
        column: usize,
        /// What is wrong.
        problem: String,
    },
    /// A position where the game is over.
    #[error("line {line}: the game is already over after the moves, expected a position with a move to make")]
    GameOver {
        /// The line of the file (1-based).
        line: usize,
    },
    /// A line without 7 move scores.
    #[error("line {line}: move_scores has {found} entries, expected {COLUMNS}")]
    ScoreCount {
        /// The line of the file (1-based).
        line: usize,
        /// What was found.
        found: usize,
    },
    /// A move score that contradicts the move's legality.
    #[error("line {line}: move_scores[{index}] is {found}, expected {expected}")]
    ScoreMismatch {
        /// The line of the file (1-based).
        line: usize,
        /// The stone (0-based).
        index: usize,
        /// What was expected.
        expected: &'static str,
        /// What was found.
        found: String,
    },
    /// A score that is not the best move score.
    #[error("line {line}: score is {score}, expected the best move score {best}")]
    BestScore {
        /// The line of the file (1-based).
        line: usize,
        /// The score the line gives.
        score: i32,
        /// The best move score.
        best: i32,
    },
    /// A file with no positions.
    #[error("{path}: holds no position")]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// One test position: the game and the exact score of each column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PonsPosition {
    /// The position after the moves.
    pub game: ConnectFour,
    /// Pons' score of playing each column for the side to move (positive
    /// wins); `None` for a full column.
    pub move_scores: [Option<i8>; COLUMNS],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    moves: String,
    score: i32,
    move_scores: Vec<Option<i32>>,
}

impl PonsPosition {
    /// Parses one line of a test set (`line` numbers the errors, from 1).
    pub fn parse_line(text: &str, line: usize) -> Result<Self, PonsError> {
        let raw: Line = serde_json::from_str(text).map_err(|e| PonsError::Json { line, message: e.to_string() })?;
        let mut game = ConnectFour::new();
        for (index, ch) in raw.moves.chars().enumerate() {
            let column = match ch.to_digit(10) {
                Some(d @ 1..=7) => d as usize,
                _ => return Err(PonsError::BadMove { line, index, found: ch }),
            };
            game.apply(column - 1).map_err(|e| PonsError::IllegalMove {
                line,
                index,
                column,
                problem: e.to_string(),
            })?;
        }
        if game.turn() == Turn::Over {
            return Err(PonsError::GameOver { line });
        }
        if raw.move_scores.len() != COLUMNS {
            return Err(PonsError::ScoreCount { line, found: raw.move_scores.len() });
        }
        let legal = game.legal_mask();
        let mut move_scores = [None; COLUMNS];
        for (c, score) in raw.move_scores.iter().enumerate() {
            let mismatch = |expected, found: String| PonsError::ScoreMismatch { line, index: c, expected, found };
            move_scores[c] = match (legal >> c & 1 == 1, *score) {
                (true, Some(s)) if (-22..=22).contains(&s) => Some(s as i8),
                (true, Some(s)) => return Err(mismatch("a score in -22..=22", s.to_string())),
                (true, None) => return Err(mismatch("a score (the column is open)", "null".into())),
                (false, None) => None,
                (false, Some(s)) => return Err(mismatch("null (the column is full)", s.to_string())),
            };
        }
        let best = move_scores.iter().flatten().copied().max().expect("an open column exists") as i32;
        if raw.score != best {
            return Err(PonsError::BestScore { line, score: raw.score, best });
        }
        Ok(Self { game, move_scores })
    }

    /// [`PonsPosition::parse_line`] for a single line.
    pub fn parse(text: &str) -> Result<Self, PonsError> {
        Self::parse_line(text, 1)
    }

    /// The exact score of the position for the side to move.
    pub fn score(&self) -> i8 {
        self.move_scores.iter().flatten().copied().max().expect("a position has an open column")
    }

    /// Whether playing `column` (0..7) is a mistake; a full or out-of-range
    /// column counts as one.
    pub fn is_mistake(&self, column: usize) -> bool {
        match self.move_scores.get(column).copied().flatten() {
            Some(s) => s.signum() < self.score().signum(),
            None => true,
        }
    }

    /// How many of the open columns are mistakes, and how many are open.
    pub fn mistake_count(&self) -> (usize, usize) {
        let open = (0..COLUMNS).filter(|&c| self.move_scores[c].is_some());
        (open.clone().filter(|&c| self.is_mistake(c)).count(), open.count())
    }
}

/// Reads a test set, one position per non-empty line.
pub fn read_set(reader: impl BufRead) -> Result<Vec<PonsPosition>, PonsError> {
    let mut positions = Vec::new();
    for (i, text) in reader.lines().enumerate() {
        let text = text.map_err(|e| PonsError::Json { line: i + 1, message: e.to_string() })?;
        if text.trim().is_empty() {
            continue;
        }
        positions.push(PonsPosition::parse_line(&text, i + 1)?);
    }
    Ok(positions)
}

/// Loads a gzipped test set (`Test_L1_R1.jsonl.gz`); an empty one is an error.
pub fn load_set(path: &Path) -> Result<Vec<PonsPosition>, PonsError> {
    let file = std::fs::File::open(path).map_err(|source| PonsError::Io { path: path.into(), source })?;
    let positions = read_set(std::io::BufReader::new(flate2::read::GzDecoder::new(file))).map_err(|e| match e {
        PonsError::Json { line, message } => {
            PonsError::Json { line, message: format!("{}: {message}", path.display()) }
        }
        e => e,
    })?;
    if positions.is_empty() {
        return Err(PonsError::Empty { path: path.into() });
    }
    Ok(positions)
}

/// Mistakes of a player over a set: `choose` picks a column for each game.
pub fn count_mistakes<E>(
    positions: &[PonsPosition],
    mut choose: impl FnMut(&ConnectFour) -> Result<usize, E>,
) -> Result<usize, E> {
    let mut mistakes = 0;
    for p in positions {
        mistakes += p.is_mistake(choose(&p.game)?) as usize;
    }
    Ok(mistakes)
}

/// The exact expected mistakes of a uniformly random player on a set.
pub fn random_mistakes(positions: &[PonsPosition]) -> f64 {
    positions
        .iter()
        .map(|p| {
            let (bad, open) = p.mistake_count();
            bad as f64 / open as f64
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn data(stem: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/connect4-pons").join(format!("{stem}.jsonl.gz"))
    }

    fn best(p: &PonsPosition) -> usize {
        (0..COLUMNS).max_by_key(|&c| p.move_scores[c].unwrap_or(i8::MIN)).unwrap()
    }

    fn worst(p: &PonsPosition) -> usize {
        (0..COLUMNS).min_by_key(|&c| p.move_scores[c].unwrap_or(i8::MAX)).unwrap()
    }

    #[test]
    fn every_set_loads_with_its_documented_size() {
        for (stem, _) in PONS_SETS {
            let set = load_set(&data(stem)).unwrap();
            assert_eq!(set.len(), if stem == "Test_L1_R3" { 300 } else { 1000 }, "{stem}");
        }
    }

    #[test]
    fn a_perfect_player_makes_no_mistake_and_the_worst_one_the_expected_count() {
        for (stem, _) in PONS_SETS {
            let set = load_set(&data(stem)).unwrap();
            let mut i = 0;
            let perfect = count_mistakes::<()>(&set, |_| {
                i += 1;
                Ok(best(&set[i - 1]))
            });
            assert_eq!(perfect, Ok(0), "{stem}");
            // The worst move is a mistake exactly where some move is: in
            // every position not already lost, whose moves do not all share
            // the best result's sign.
            let expected =
                set.iter().filter(|p| p.move_scores.iter().flatten().any(|s| s.signum() < p.score().signum())).count();
            i = 0;
            let worst_mistakes = count_mistakes::<()>(&set, |_| {
                i += 1;
                Ok(worst(&set[i - 1]))
            });
            assert_eq!(worst_mistakes, Ok(expected), "{stem}");
            assert!(expected > set.len() / 10, "{stem}: {expected} positions with a mistake to make");
        }
    }

    #[test]
    fn a_random_players_rate_matches_the_exact_expectation() {
        let set = load_set(&data("Test_L2_R2")).unwrap();
        let small = &set[..50];
        let expected = random_mistakes(small) / small.len() as f64;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut legal = [0u16; COLUMNS];
        let (rounds, mut mistakes) = (400, 0);
        for _ in 0..rounds {
            mistakes += count_mistakes::<()>(small, |g| {
                let n = g.legal_actions(&mut legal);
                Ok(legal[rng.random_range(0..n)] as usize)
            })
            .unwrap();
        }
        let trials = (rounds * small.len()) as f64;
        let rate = mistakes as f64 / trials;
        let sigma = (expected * (1.0 - expected) / trials).sqrt();
        assert!(expected > 0.1, "{expected}");
        assert!((rate - expected).abs() < 4.0 * sigma, "rate {rate}, expected {expected} (sigma {sigma})");
    }

    #[test]
    fn the_mistake_rule_follows_the_result_sign() {
        let won = PonsPosition::parse(r#"{"moves":"","score":1,"move_scores":[-2,-1,0,1,0,-1,-2]}"#).unwrap();
        assert_eq!(won.score(), 1);
        assert_eq!((0..7).filter(|&c| won.is_mistake(c)).count(), 6);
        let drawn = PonsPosition::parse(r#"{"moves":"1","score":0,"move_scores":[0,-3,0,-1,0,0,-5]}"#).unwrap();
        assert_eq!(drawn.mistake_count(), (3, 7));
        let lost = PonsPosition::parse(r#"{"moves":"12","score":-2,"move_scores":[-3,-2,-9,-4,-3,-3,-8]}"#).unwrap();
        assert_eq!(lost.mistake_count(), (0, 7));
        // A slower win is not a mistake; a full or unknown column is.
        let fast = PonsPosition::parse(r#"{"moves":"111111","score":9,"move_scores":[null,3,9,1,0,1,1]}"#).unwrap();
        assert!(!fast.is_mistake(1) && fast.is_mistake(4) && fast.is_mistake(0) && fast.is_mistake(9));
    }

    #[test]
    fn malformed_lines_are_clear_errors() {
        let parse = PonsPosition::parse;
        assert!(matches!(parse("not json"), Err(PonsError::Json { line: 1, .. })));
        assert!(matches!(
            parse(r#"{"moves":"4","score":0,"move_scores":[0,0,0,0,0,0,0],"x":1}"#),
            Err(PonsError::Json { .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"48","score":0,"move_scores":[0,0,0,0,0,0,0]}"#),
            Err(PonsError::BadMove { index: 1, found: '8', .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"40","score":0,"move_scores":[0,0,0,0,0,0,0]}"#),
            Err(PonsError::BadMove { index: 1, found: '0', .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"4444444","score":0,"move_scores":[0,0,0,0,0,0,0]}"#),
            Err(PonsError::IllegalMove { index: 6, column: 4, .. })
        ));
        // Player 0 has four in a row: a stone after that is illegal, and
        // the position itself has no move to make.
        assert!(matches!(
            parse(r#"{"moves":"15151515","score":0,"move_scores":[0,0,0,0,0,0,0]}"#),
            Err(PonsError::IllegalMove { index: 7, .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"1515151","score":0,"move_scores":[0,0,0,0,0,0,0]}"#),
            Err(PonsError::GameOver { .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"4","score":0,"move_scores":[0,0,0,0,0,0]}"#),
            Err(PonsError::ScoreCount { found: 6, .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"4","score":0,"move_scores":[0,0,0,null,0,0,0]}"#),
            Err(PonsError::ScoreMismatch { index: 3, .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"111111","score":0,"move_scores":[0,0,0,0,0,0,0]}"#),
            Err(PonsError::ScoreMismatch { index: 0, .. })
        ));
        assert!(matches!(
            parse(r#"{"moves":"4","score":2,"move_scores":[0,0,1,0,0,0,0]}"#),
            Err(PonsError::BestScore { score: 2, best: 1, .. })
        ));
        let lines = "\n{\"moves\":\"4\",\"score\":0,\"move_scores\":[0,0,0,0,0,0,0]}\n{\"moves\":\"9\"}\n";
        let e = read_set(lines.as_bytes()).unwrap_err();
        assert!(matches!(e, PonsError::Json { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("line 3"), "{e}");
    }
}
