//! Plays in the notation players and GNU Backgammon write: `24/18 13/11`.
//!
//! Points are the mover's own numbers, 24 (farthest from home) down to 1,
//! with `bar` and `off` for the rest; a move is `from/to`, a hit is
//! starred (`13/5*`), a checker that moves on is one chain (`24/13`),
//! written through a point only where it hits there (`24/20*/16`), and
//! `(n)` stands for `n` checkers moved alike (`8/5(2) 6/3(2)`).
//!
//! [`write()`] gives gnubg's canonical form, the one its hints and match
//! records show: moves by source, highest first; a checker that lands
//! where a later move starts is one chain with it (gnubg does not know
//! which checker moved, so neither does the text); a hit is starred once
//! per point. [`parse`] reads that form and any other a person types:
//! moves in any order, chains written out or not (`24/18/13`,
//! `24/18 18/13`), stars optional, `25` for the bar and `0` for off.
//!
//! ```
//! use minnow_envs::backgammon::{BackgammonConfig, Position, notation};
//! use minnow_envs::Backgammon;
//! let game = Backgammon::from_position(BackgammonConfig::default(), Position::start(), 0, (3, 1)).unwrap();
//! let play = notation::parse(&game, "6/5 8/5").unwrap();
//! assert_eq!(notation::write(&game, &play), "8/5 6/5");
//! ```

use super::{BAR_SOURCE, Backgammon, POINT_SOURCE, POINTS, Play, Position, TurnPlays};
use crate::{Game, Turn};
use thiserror::Error;

/// The mover's number for the bar, as gnubg counts (25) and accepts.
const BAR_NUMBER: u8 = 25;
/// The mover's number for off the board.
const OFF_NUMBER: u8 = 0;

/// What can be wrong with a typed play.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum NotationError {
    /// No play is due: the game is at a roll or over.
    #[error("play '{text}': nobody is to play a roll here, expected a game at a decision")]
    NoDecision {
        /// The play as given.
        text: String,
    },
    /// A move that is not `from/to`.
    #[error(
        "play '{text}': '{token}' is not a move, expected from/to with points 1-24, bar or off, e.g. 13/5, bar/22*, 24/20*/16, 6/off or 8/5(2)"
    )]
    Syntax {
        /// The play as given.
        text: String,
        /// The move that could not be read.
        token: String,
    },
    /// A checker moving away from home (or off the board and back).
    #[error(
        "play '{text}': '{token}' moves away from home, expected each point lower than the one before (bar 25 .. off 0)"
    )]
    Backwards {
        /// The play as given.
        text: String,
        /// The move.
        token: String,
    },
    /// More checkers moved from a point than the mover has there.
    #[error("play '{text}': it moves {moved} checker(s) from {point} but you have {found} there")]
    NoChecker {
        /// The play as given.
        text: String,
        /// The point as the mover numbers it, `bar` for the bar.
        point: String,
        /// Checkers moved from it.
        moved: u32,
        /// Checkers the mover has there.
        found: u32,
    },
    /// A well-formed play that no legal play of the roll matches.
    #[error("play '{text}': not a legal play of {high}-{low} here")]
    Illegal {
        /// The play as given.
        text: String,
        /// The higher die.
        high: u8,
        /// The lower die.
        low: u8,
    },
}

/// One move as gnubg records it: mover's numbers, 25 the bar, 0 off.
type Step = (u8, u8);

/// The mover's numbers of the moves `play` makes from `game`, one per die.
fn steps(play: &Play) -> impl Iterator<Item = Step> + '_ {
    play.actions().iter().map(|&action| {
        let (source, die) = (action as usize / 6, action % 6 + 1);
        let from = if source == BAR_SOURCE { BAR_NUMBER } else { (POINTS - (source - POINT_SOURCE)) as u8 };
        (from, from.saturating_sub(die))
    })
}

/// Whether the opponent has a checker on the mover's point `n` (1..=24).
fn opponent_on(position: &Position, n: u8) -> bool {
    (1..=POINTS as u8).contains(&n) && position.points()[POINTS - n as usize] < 0
}

fn point_name(n: u8) -> String {
    match n {
        OFF_NUMBER => "off".into(),
        BAR_NUMBER => "bar".into(),
        n => n.to_string(),
    }
}

/// `play`, made at `game`, in gnubg's canonical notation.
pub fn write(game: &Backgammon, play: &Play) -> String {
    let before = game.position();
    let mut moves: Vec<Step> = steps(play).collect();
    moves.sort_unstable_by(|a, b| b.cmp(a));
    // Each chain: the points it is written through, source first. A move
    // starting where an earlier chain ends carries it on; the point in
    // between is kept only where the chain hits there.
    let mut chains: Vec<Vec<u8>> = Vec::with_capacity(moves.len());
    for (from, to) in moves {
        match chains.iter_mut().find(|c| *c.last().expect("a chain has a source") == from) {
            Some(chain) if opponent_on(before, from) => chain.push(to),
            Some(chain) => *chain.last_mut().expect("a chain has a source") = to,
            None => chains.push(vec![from, to]),
        }
    }
    let mut counted: Vec<(Vec<u8>, usize)> = Vec::with_capacity(chains.len());
    for chain in chains {
        match counted.iter_mut().find(|(c, _)| *c == chain) {
            Some((_, n)) => *n += 1,
            None => counted.push((chain, 1)),
        }
    }
    let mut starred = 0u32;
    let mut text = String::new();
    for (chain, n) in &counted {
        if !text.is_empty() {
            text.push(' ');
        }
        text += &point_name(chain[0]);
        let last = chain.len() - 1;
        for (i, &point) in chain.iter().enumerate().skip(1) {
            text.push('/');
            text += &point_name(point);
            // A point in between is written only for its hit; a chain's
            // end is starred unless an earlier chain starred that point.
            if i < last || (opponent_on(before, point) && starred >> point & 1 == 0) {
                text.push('*');
                starred |= 1 << point;
            }
        }
        if *n > 1 {
            text += &format!("({n})");
        }
    }
    text
}

/// `play`, made at `game`, one die at a time in the order made, as
/// Jellyfish match files write plays (and gnubg exports them): points as
/// numbers, `25` the bar and `0` off, a hit starred where it happens
/// (`25/22* 13/9`). [`parse`] reads it back.
pub fn write_steps(game: &Backgammon, play: &Play) -> String {
    let mut game = *game;
    let mut text = String::new();
    for ((from, to), &action) in steps(play).zip(play.actions()) {
        if !text.is_empty() {
            text.push(' ');
        }
        let hit = if opponent_on(game.position(), to) { "*" } else { "" };
        text += &format!("{from}/{to}{hit}");
        game.apply(action as usize).expect("write_steps: the play is legal at the game");
    }
    text
}

/// The legal play at `game` that `text` describes; see the module docs
/// for what is read.
pub fn parse(game: &Backgammon, text: &str) -> Result<Play, NotationError> {
    let owned = || text.to_string();
    let (Turn::Player(_), Some((low, high))) = (game.turn(), game.dice()) else {
        return Err(NotationError::NoDecision { text: owned() });
    };
    let mut chains: Vec<(Vec<u8>, u8)> = Vec::new();
    for token in text.split_whitespace() {
        let chain = read_chain(token).ok_or_else(|| NotationError::Syntax { text: owned(), token: token.into() })?;
        if chain.0.windows(2).any(|w| w[1] >= w[0]) {
            return Err(NotationError::Backwards { text: owned(), token: token.into() });
        }
        chains.push(chain);
    }
    if chains.is_empty() {
        return Err(NotationError::Syntax { text: owned(), token: String::new() });
    }
    let result = written_result(game.position(), &chains).map_err(|(point, moved, found)| {
        NotationError::NoChecker { text: owned(), point: point_name(point), moved, found }
    })?;
    let mut plays = TurnPlays::new();
    let plays = plays.generate(game);
    let mover_view = |p: &Play| {
        if p.after.turn() == Turn::Over { *p.after.position() } else { p.after.position().flipped() }
    };
    if let Some(play) = plays.iter().find(|p| Some(mover_view(p)) == result.exact) {
        return Ok(*play);
    }
    // A chain written without a point it must hit on the way (`24/16` for
    // 4-4 through a blot on 20): the mover's checkers decide, if only one
    // play leaves them so.
    let mine = |p: &Position| (p.points().map(|n| n.max(0)), p.bar()[0], p.off()[0]);
    let mut same_checkers = plays.iter().filter(|p| mine(&mover_view(p)) == result.mine);
    match (same_checkers.next(), same_checkers.next()) {
        (Some(play), None) => Ok(*play),
        _ => Err(NotationError::Illegal { text: owned(), high, low }),
    }
}

/// One written move: its points (stars dropped) and how many checkers
/// make it, or `None` if it is not `from/to[/..][(n)]`.
fn read_chain(token: &str) -> Option<(Vec<u8>, u8)> {
    let token = token.to_ascii_lowercase();
    let (path, times) = match token.strip_suffix(')') {
        Some(rest) => {
            let (path, n) = rest.split_once('(')?;
            (path.to_string(), n.parse::<u8>().ok().filter(|n| (1..=4).contains(n))?)
        }
        None => (token, 1),
    };
    let points = path
        .split('/')
        .map(|p| match p.trim_end_matches('*') {
            "bar" => Some(BAR_NUMBER),
            "off" => Some(OFF_NUMBER),
            n => n.parse::<u8>().ok().filter(|&n| n <= BAR_NUMBER),
        })
        .collect::<Option<Vec<u8>>>()?;
    (points.len() >= 2).then_some((points, times))
}

/// The position written chains leave, seen by the mover.
struct Written {
    /// With a hit on every written point that held a lone opposing
    /// checker; `None` if a chain stops on a point the opponent holds.
    exact: Option<Position>,
    /// The mover's checkers alone: points, bar, off.
    mine: ([i8; POINTS], u8, u8),
}

/// What `chains` leave from `before`; an error names a source without
/// enough checkers: (point, moved, found).
fn written_result(before: &Position, chains: &[(Vec<u8>, u8)]) -> Result<Written, (u8, u32, u32)> {
    // Indexed by the mover's numbers: 0 off, 1..=24 points, 25 the bar.
    let mut mine = [0i32; 26];
    let mut theirs = [0i32; 26];
    for n in 1..=POINTS {
        let c = before.points()[POINTS - n] as i32;
        (mine[n], theirs[n]) = (c.max(0), (-c).max(0));
    }
    mine[BAR_NUMBER as usize] = before.bar()[0] as i32;
    mine[OFF_NUMBER as usize] = before.off()[0] as i32;
    let mut moved = [0u32; 26];
    let mut hits = 0u8;
    let mut blocked = false;
    for (points, times) in chains {
        let (from, to) = (points[0] as usize, *points.last().expect("two points or more") as usize);
        moved[from] += *times as u32;
        mine[from] -= *times as i32;
        mine[to] += *times as i32;
        for &stop in points[1..].iter().filter(|&&stop| stop != OFF_NUMBER) {
            match theirs[stop as usize] {
                0 => {}
                1 => {
                    theirs[stop as usize] = 0;
                    hits += 1;
                }
                _ => blocked = true,
            }
        }
    }
    if let Some(n) = (0..26).find(|&n| mine[n] < 0) {
        return Err((n as u8, moved[n], (mine[n] + moved[n] as i32) as u32));
    }
    let mut points = [0i8; POINTS];
    for n in 1..=POINTS {
        points[POINTS - n] = mine[n] as i8 - theirs[n] as i8;
    }
    let bar = [mine[BAR_NUMBER as usize] as u8, before.bar()[1] + hits];
    let off = [mine[OFF_NUMBER as usize] as u8, before.off()[1]];
    let shared = (1..=POINTS).any(|n| mine[n] > 0 && theirs[n] > 0);
    let exact = if blocked || shared { None } else { Position::new(points, bar, off).ok() };
    Ok(Written { exact, mine: (points.map(|n| n.max(0)), bar[0], off[0]) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::BackgammonConfig;

    fn at(position: Position, dice: (u8, u8)) -> Backgammon {
        Backgammon::from_position(BackgammonConfig::default(), position, 0, dice).unwrap()
    }

    fn all_written(game: &Backgammon) -> Vec<String> {
        TurnPlays::new().generate(game).iter().map(|p| write(game, p)).collect()
    }

    #[test]
    fn opening_plays_are_written_as_gnubg_writes_them() {
        let names = all_written(&at(Position::start(), (3, 1)));
        for expected in ["8/5 6/5", "24/23 24/21", "24/20", "13/10 6/5"] {
            assert!(names.contains(&expected.to_string()), "{expected}: {names:?}");
        }
        let names = all_written(&at(Position::start(), (5, 5)));
        assert!(names.contains(&"13/3(2)".to_string()), "{names:?}");
        assert!(names.contains(&"13/3 8/3(2)".to_string()), "{names:?}");
        assert!(names.contains(&"13/8(4)".to_string()), "{names:?}");
    }

    #[test]
    fn every_play_reads_back_from_its_own_text() {
        for dice in [(3, 1), (6, 6), (5, 2), (1, 1)] {
            let game = at(Position::start(), dice);
            for play in TurnPlays::new().generate(&game) {
                let text = write(&game, play);
                assert_eq!(parse(&game, &text).unwrap().after, play.after, "{text}");
            }
        }
    }

    #[test]
    fn hits_bar_and_off_are_written_and_read() {
        // Ours: one on the bar, 14 on our 6-point; theirs: a blot on our
        // 22-point, 14 on our 19-point.
        let mut points = [0; POINTS];
        (points[18], points[2], points[5]) = (14, -1, -14);
        let game = at(Position::new(points, [1, 0], [0, 0]).unwrap(), (3, 1));
        let names = all_written(&game);
        assert!(names.contains(&"bar/22*/21".to_string()), "{names:?}");
        assert!(names.contains(&"bar/22* 6/5".to_string()), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("6/")), "the bar checker enters first: {names:?}");
        // Entering on the 24-point and moving on hits nothing: gnubg
        // writes it `bar/21`; through the blot it is written out.
        assert_eq!(write(&game, &parse(&game, "25/21").unwrap()), "bar/21");
        assert_eq!(write(&game, &parse(&game, "bar/22/21").unwrap()), "bar/22*/21");
        // Bearing off: ours on our 2- and 1-points.
        let mut points = [0; POINTS];
        (points[22], points[23], points[0]) = (1, 1, -15);
        let game = at(Position::new(points, [0, 0], [13, 0]).unwrap(), (6, 5));
        assert_eq!(all_written(&game), ["2/off 1/off"]);
        assert_eq!(parse(&game, "1/0 2/0").unwrap().after.turn(), Turn::Over);
    }

    #[test]
    fn a_hit_on_the_way_may_go_unwritten_when_it_cannot_be_avoided() {
        // The start, but one of their checkers from their 6-point (our
        // 19-point) is a blot on our 20-point.
        let mut points = *Position::start().points();
        (points[4], points[5]) = (-1, -4);
        let game = at(Position::new(points, [0, 0], [0, 0]).unwrap(), (4, 4));
        let through = parse(&game, "24/16 13/5").unwrap();
        assert_eq!(write(&game, &through), "24/20*/16 13/5");
        assert_eq!(through.after, parse(&game, "13/9/5 24/20/16").unwrap().after);
        // With 6-2 there is a way round: unwritten, nothing is hit.
        let game = at(Position::new(points, [0, 0], [0, 0]).unwrap(), (6, 2));
        assert_eq!(write(&game, &parse(&game, "24/16").unwrap()), "24/16");
    }

    #[test]
    fn steps_are_written_one_die_at_a_time_and_read_back() {
        let mut points = [0; POINTS];
        (points[18], points[2], points[5]) = (14, -1, -14);
        let game = at(Position::new(points, [1, 0], [0, 0]).unwrap(), (3, 1));
        let play = parse(&game, "bar/22*/21").unwrap();
        let steps = write_steps(&game, &play);
        assert_eq!(steps, "25/22* 22/21");
        assert_eq!(parse(&game, &steps).unwrap().after, play.after);
        for play in TurnPlays::new().generate(&game) {
            assert_eq!(parse(&game, &write_steps(&game, play)).unwrap().after, play.after);
        }
    }

    #[test]
    fn typed_variants_reach_the_same_play() {
        let game = at(Position::start(), (5, 5));
        let canonical = parse(&game, "13/3(2)").unwrap();
        for typed in ["13/8/3 13/8/3", "13/8 13/8 8/3 8/3", "8/3 13/8(2) 8/3", "13/3 13/3"] {
            assert_eq!(parse(&game, typed).unwrap().after, canonical.after, "{typed}");
        }
        let game = at(Position::start(), (3, 1));
        assert_eq!(parse(&game, "6/5* 8/5").unwrap().after, parse(&game, "8/5 6/5").unwrap().after);
        assert_eq!(parse(&game, "24/23/20").unwrap().after, parse(&game, "24/20").unwrap().after);
    }

    #[test]
    fn bad_plays_are_clear_errors() {
        let game = at(Position::start(), (3, 1));
        let err = |text: &str| parse(&game, text).unwrap_err();
        assert!(matches!(err("hello"), NotationError::Syntax { token, .. } if token == "hello"));
        assert!(matches!(err(""), NotationError::Syntax { .. }));
        assert!(matches!(err("8/5(9)"), NotationError::Syntax { .. }));
        assert!(matches!(err("13/27"), NotationError::Syntax { .. }));
        assert!(matches!(err("5/8"), NotationError::Backwards { .. }));
        assert!(matches!(err("off/3"), NotationError::Backwards { .. }));
        let e = err("7/4 6/5");
        assert!(matches!(e, NotationError::NoChecker { ref point, moved: 1, found: 0, .. } if point == "7"), "{e}");
        let e = err("24/1");
        assert!(matches!(e, NotationError::Illegal { high: 3, low: 1, .. }), "{e}");
        assert!(e.to_string().contains("not a legal play of 3-1"));
        let at_roll = Backgammon::at_roll(BackgammonConfig::default(), Position::start(), 0).unwrap();
        assert!(matches!(parse(&at_roll, "8/5 6/5"), Err(NotationError::NoDecision { .. })));
    }
}
