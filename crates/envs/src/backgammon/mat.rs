//! Jellyfish match files (`.mat`): the plain-text game record that GNU
//! Backgammon (`import mat FILE`), Jellyfish, Snowie and eXtreme Gammon
//! read.
//!
//! A file is the match length (0 for money play) and its games; a game is
//! the players' names with their scores before it, then one numbered line
//! per pair of turns, player 0 on the left and player 1 on the right. A
//! turn is the roll and the play one die at a time
//! ([`notation::write_steps`]), or the roll alone when it cannot be played;
//! a finished game ends with the points the winner takes, under the
//! winner's column:
//!
//! ```text
//!  0 point match
//!
//!  Game 1
//!  you : 0                        minnow : 0
//!   1) 41: 13/9 24/23             65: 24/18 18/13
//!   2) 21: 9/7 8/7                44: 8/4 8/4 6/2* 6/2
//!   ...
//!                                   Wins 1 point
//! ```
//!
//! minnow plays without the doubling cube, so a record holds no cube
//! actions and [`parse`] refuses them, as it refuses a game that ends with
//! checkers on the board (a resignation): the dice and the plays must
//! finish it. Both ways, every game is replayed under minnow's rules.
//!
//! ```
//! use minnow_envs::backgammon::mat::{self, GameRecord, MatchRecord, TurnRecord};
//! use minnow_envs::backgammon::{BackgammonConfig, Position, TurnPlays};
//! use minnow_envs::Backgammon;
//! // Player 1 opens with 3-1 and makes the 5-point.
//! let config = BackgammonConfig { scored_wins: true };
//! let game = Backgammon::from_position(config, Position::start(), 1, (3, 1)).unwrap();
//! let play = TurnPlays::new().generate(&game).iter().find(|p| {
//!     minnow_envs::backgammon::notation::write(&game, p) == "8/5 6/5"
//! }).copied();
//! let record = MatchRecord {
//!     names: ["you".into(), "minnow".into()],
//!     length: 0,
//!     games: vec![GameRecord { turns: vec![TurnRecord { player: 1, dice: (3, 1), play }] }],
//! };
//! let text = mat::write(&record).unwrap();
//! assert!(text.contains("  1)                             31: 8/5 6/5\n"));
//! assert_eq!(mat::parse(&text).unwrap(), record);
//! ```

use super::{Backgammon, BackgammonConfig, Play, Position, TurnPlays, notation, roll_index};
use crate::{Game, Turn};
use thiserror::Error;

/// A match (or a money session) as a file holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The names of players 0 and 1: no spaces or colons.
    pub names: [String; 2],
    /// Points to play to; 0 for money play.
    pub length: u16,
    /// The games, in the order played.
    pub games: Vec<GameRecord>,
}

/// One game from the starting position: its turns, the opening first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRecord {
    /// The turns in order; the players alternate.
    pub turns: Vec<TurnRecord>,
}

/// One turn: who rolled, the roll, and the play (`None` when the roll
/// cannot be played).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnRecord {
    /// The player who rolled, 0 or 1.
    pub player: usize,
    /// The dice, higher first as a file writes them (either order is
    /// written the same).
    pub dice: (u8, u8),
    /// The play, as [`TurnPlays`] lists it for the roll ([`parse`] reads
    /// plays with gammons scored, [`BackgammonConfig::scored_wins`]).
    pub play: Option<Play>,
}

/// A turn that does not follow from the ones before it.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("turn {turn}: {problem}")]
pub struct TurnError {
    /// The turn (1-based).
    pub turn: usize,
    /// What is wrong.
    pub problem: String,
}

/// What can be wrong with a record or a file.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum MatError {
    /// A game whose turns do not replay.
    #[error("game {game}, {source}")]
    Game {
        /// The game (1-based).
        game: usize,
        /// The turn and what is wrong.
        source: TurnError,
    },
    /// A line of a file that cannot be read.
    #[error("line {line} '{text}': {problem}")]
    Line {
        /// The line (1-based).
        line: usize,
        /// The line as given.
        text: String,
        /// What is wrong, and what was expected.
        problem: String,
    },
    /// A name a file cannot hold.
    #[error("player name '{name}': expected a name without spaces or colons")]
    Name {
        /// The name as given.
        name: String,
    },
}

/// Gammons count: a file says what the winner takes.
const CONFIG: BackgammonConfig = BackgammonConfig { scored_wins: true };
/// Width of the left column of a move line, after `NNN) `, before the
/// space that always separates it from the right one.
const COLUMN: usize = 27;
/// Spaces before "Wins" under each column.
const WINS_INDENT: [usize; 2] = [6, 34];

/// The game after `player` rolls `dice` at `game` (`None`: the start): at
/// that player's decision, or at the opponent's roll if the roll cannot be
/// played.
fn roll(game: Option<Backgammon>, player: usize, dice: (u8, u8)) -> Result<Backgammon, String> {
    let mut game = match game {
        Some(game) => game,
        None => Backgammon::at_roll(CONFIG, Position::start(), player).map_err(|e| e.to_string())?,
    };
    match game.turn() {
        Turn::Chance if game.player() == player => {}
        Turn::Chance => return Err(format!("player {player} rolls, expected player {}", game.player())),
        _ => return Err("a roll after the game is over".into()),
    }
    let outcome =
        roll_index(dice.0, dice.1).ok_or_else(|| format!("roll {}-{}: expected two dice 1 to 6", dice.0, dice.1))?;
    game.apply_chance(outcome).expect("the game is at a roll");
    Ok(game)
}

impl GameRecord {
    /// Plays the record from the starting position: the game as it ends
    /// (over, or waiting for the next roll), or the first turn that does
    /// not follow.
    pub fn replay(&self) -> Result<Backgammon, TurnError> {
        self.replay_written().map(|(game, _)| game)
    }

    /// The replayed game and each turn as a file writes it (`41: 13/9
    /// 24/23`).
    fn replay_written(&self) -> Result<(Backgammon, Vec<String>), TurnError> {
        let mut game = None;
        let mut plays = TurnPlays::new();
        let mut written = Vec::with_capacity(self.turns.len());
        for (i, turn) in self.turns.iter().enumerate() {
            let fail = |problem: String| TurnError { turn: i + 1, problem };
            let rolled = roll(game, turn.player, turn.dice).map_err(fail)?;
            let (high, low) = (turn.dice.0.max(turn.dice.1), turn.dice.0.min(turn.dice.1));
            let (after, steps) = match (turn.play, rolled.turn()) {
                (None, Turn::Chance) => (rolled, String::new()),
                (Some(play), Turn::Player(_)) => {
                    // One play per distinct position, whatever the rules'
                    // options the record's plays were made under.
                    let legal = plays.generate(&rolled).iter().find(|p| p.after.position() == play.after.position());
                    let legal = *legal.ok_or_else(|| fail(format!("not a legal play of {high}-{low}")))?;
                    (legal.after, notation::write_steps(&rolled, &legal))
                }
                (None, _) => return Err(fail(format!("no play recorded, but {high}-{low} can be played"))),
                (Some(_), _) => return Err(fail(format!("a play recorded, but {high}-{low} cannot be played"))),
            };
            written.push(format!("{high}{low}: {steps}").trim_end().to_string());
            game = Some(after);
        }
        let game = match game {
            Some(game) => game,
            None => Backgammon::at_roll(CONFIG, Position::start(), 0).expect("the start is valid"),
        };
        Ok((game, written))
    }
}

/// The winner of a finished game and the points they take.
fn result(game: &Backgammon) -> Option<(usize, u16)> {
    Some((game.winner()?, game.points_won()? as u16))
}

fn wins_line(winner: usize, points: u16, match_won: bool) -> String {
    let plural = if points == 1 { "" } else { "s" };
    let and_match = if match_won { " and the match" } else { "" };
    format!("{}Wins {points} point{plural}{and_match}", " ".repeat(WINS_INDENT[winner]))
}

/// `record` as a `.mat` file. Every game is replayed from the start; a
/// turn that does not follow, or a name with a space or a colon, is an
/// error.
pub fn write(record: &MatchRecord) -> Result<String, MatError> {
    for name in &record.names {
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == ':') {
            return Err(MatError::Name { name: name.clone() });
        }
    }
    let mut out = format!(" {} point match\n\n", record.length);
    let mut score = [0u16; 2];
    for (g, game) in record.games.iter().enumerate() {
        let (end, turns) = game.replay_written().map_err(|source| MatError::Game { game: g + 1, source })?;
        let left = format!("{} : {}", record.names[0], score[0]);
        out += &format!(" Game {}\n {left:<31}{} : {}\n", g + 1, record.names[1], score[1]);
        // Player 1 opening leaves the first left cell empty.
        let skip = game.turns.first().map_or(0, |t| t.player);
        let mut cells = std::iter::repeat_n(String::new(), skip).chain(turns);
        let mut number = 1;
        while let Some(left) = cells.next() {
            let right = cells.next().unwrap_or_default();
            out += format!("{number:>3}) {left:<COLUMN$} {right}").trim_end();
            out.push('\n');
            number += 1;
        }
        if let Some((winner, points)) = result(&end) {
            score[winner] += points;
            let match_won = record.length > 0 && score[winner] >= record.length;
            out += &wins_line(winner, points, match_won);
            out.push('\n');
        }
        out.push('\n');
    }
    Ok(out)
}

/// A game being read: its record, the game so far, and whether its names
/// line has been read.
#[derive(Default)]
struct Reading {
    record: GameRecord,
    state: Option<Backgammon>,
    named: bool,
}

/// One turn on a line: the roll and the steps after it.
struct WrittenTurn {
    dice: (u8, u8),
    steps: String,
}

/// The record a `.mat` file holds. Every game is replayed under minnow's
/// rules as it is read; lines that cannot be read, plays that are not
/// legal, cube actions and games that end with checkers on the board are
/// errors naming the line.
pub fn parse(text: &str) -> Result<MatchRecord, MatError> {
    let mut record = MatchRecord { names: [String::new(), String::new()], length: 0, games: Vec::new() };
    let mut seen_length = false;
    let mut current: Option<Reading> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        let fail = |problem: &str| MatError::Line { line: i + 1, text: line.into(), problem: problem.into() };
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        if !seen_length {
            let length = trimmed.strip_suffix("point match").map(str::trim).and_then(|n| n.parse().ok());
            record.length = length.ok_or_else(|| fail("expected the match length first: 'N point match'"))?;
            seen_length = true;
            continue;
        }
        if let Some(number) = trimmed.strip_prefix("Game ") {
            number.trim().parse::<usize>().map_err(|_| fail("expected 'Game N'"))?;
            if let Some(done) = current.replace(Reading::default()) {
                finish(&mut record, done, None)?;
            }
            continue;
        }
        let Some(reading) = current.as_mut() else {
            return Err(fail("expected 'Game N' before the game's lines"));
        };
        if !reading.named {
            let names =
                read_names(trimmed).ok_or_else(|| fail("expected the players and scores: 'NAME : N   NAME : N'"))?;
            if record.games.is_empty() {
                record.names = names;
            }
            reading.named = true;
            continue;
        }
        if let Some(wins) = trimmed.strip_prefix("Wins ") {
            let points = wins.split_whitespace().next().and_then(|n| n.parse::<u16>().ok());
            let points = points.ok_or_else(|| fail("expected 'Wins N point(s)'"))?;
            let done = current.take().expect("a game is being read");
            finish(&mut record, done, Some((i + 1, line, points)))?;
            continue;
        }
        let Some((number, turns)) = trimmed.split_once(')') else {
            return Err(fail("expected a numbered line of turns, 'N) 41: 13/9 24/23 ...', or 'Wins N point(s)'"));
        };
        number.trim().parse::<usize>().map_err(|_| fail("expected a turn number before ')'"))?;
        // Before the first roll of a game, a blank left column means
        // player 1 opens; after it the players alternate.
        let after_number = &line[line.find(')').expect("found above") + 1..];
        let blank_left = after_number.len() - after_number.trim_start().len() > COLUMN / 2;
        for WrittenTurn { dice, steps } in read_turns(turns).map_err(|problem| fail(&problem))? {
            let player = reading.state.map_or(blank_left as usize, |g| g.player());
            let rolled = roll(reading.state, player, dice).map_err(|problem| fail(&problem))?;
            let play = match rolled.turn() {
                Turn::Player(_) => Some(notation::parse(&rolled, &steps).map_err(|e| fail(&e.to_string()))?),
                _ if steps.is_empty() => None,
                _ => return Err(fail(&format!("a play after {}{}, which cannot be played", dice.0, dice.1))),
            };
            reading.record.turns.push(TurnRecord { player, dice, play });
            reading.state = Some(play.map_or(rolled, |p| p.after));
        }
    }
    if !seen_length {
        let problem = "an empty file, expected 'N point match'".into();
        return Err(MatError::Line { line: 1, text: String::new(), problem });
    }
    if let Some(done) = current {
        finish(&mut record, done, None)?;
    }
    Ok(record)
}

/// Adds a game read to `record`. With its `Wins` line (line number, text,
/// points) the game must be over with the winner taking those points; a
/// game without one (a file that stops mid-game) is kept as it stands.
fn finish(record: &mut MatchRecord, game: Reading, wins: Option<(usize, &str, u16)>) -> Result<(), MatError> {
    if let Some((line, text, points)) = wins {
        let problem = match game.state.as_ref().and_then(result) {
            None => Some(
                "the game ends with checkers on the board (a resignation or a dropped double), expected the \
                 dice and plays to finish it"
                    .to_string(),
            ),
            Some((_, won)) if won != points => Some(format!("the game's last play wins {won} point(s)")),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            return Err(MatError::Line { line, text: text.into(), problem });
        }
    }
    record.games.push(game.record);
    Ok(())
}

/// `NAME : N   NAME : N` as the two names.
fn read_names(line: &str) -> Option<[String; 2]> {
    let mut parts = line.split(':');
    let (first, middle, last) = (parts.next()?, parts.next()?, parts.next()?);
    let mut middle = middle.split_whitespace();
    middle.next()?.parse::<u32>().ok()?;
    let second = middle.collect::<Vec<_>>().join(" ");
    last.trim().parse::<u32>().ok()?;
    (parts.next().is_none() && !second.is_empty()).then(|| [first.trim().to_string(), second])
}

/// The turns on one line: each a roll (`41:`) and the steps after it.
fn read_turns(text: &str) -> Result<Vec<WrittenTurn>, String> {
    let mut turns: Vec<WrittenTurn> = Vec::new();
    for token in text.split_whitespace() {
        let dice = token.strip_suffix(':').filter(|d| d.len() == 2).map(|d| d.as_bytes());
        match (dice, turns.last_mut()) {
            (Some(&[a, b]), _) if (b'1'..=b'6').contains(&a) && (b'1'..=b'6').contains(&b) => {
                turns.push(WrittenTurn { dice: (a - b'0', b - b'0'), steps: String::new() });
            }
            _ if ["Doubles", "Takes", "Drops", "Beavers", "Raccoons"].contains(&token) => {
                return Err(format!("'{token}': a cube action, which minnow's records do not hold (no doubling cube)"));
            }
            (_, Some(turn)) => {
                if !turn.steps.is_empty() {
                    turn.steps.push(' ');
                }
                turn.steps.push_str(token);
            }
            (_, None) => return Err(format!("'{token}' before any roll, expected a roll such as 41:")),
        }
    }
    if turns.len() > 2 {
        return Err(format!("{} turns on one line, expected two at most", turns.len()));
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Player 1 opens with 3-1 as 8/5 6/5; player 0 answers 6-4 as 24/14.
    fn two_turns() -> GameRecord {
        let mut plays = TurnPlays::new();
        let opening = roll(None, 1, (3, 1)).unwrap();
        let first = *plays.generate(&opening).iter().find(|p| notation::write(&opening, p) == "8/5 6/5").unwrap();
        let reply = roll(Some(first.after), 0, (6, 4)).unwrap();
        let second = *plays.generate(&reply).iter().find(|p| notation::write(&reply, p) == "24/14").unwrap();
        GameRecord {
            turns: vec![
                TurnRecord { player: 1, dice: (3, 1), play: Some(first) },
                TurnRecord { player: 0, dice: (6, 4), play: Some(second) },
            ],
        }
    }

    fn record(games: Vec<GameRecord>) -> MatchRecord {
        MatchRecord { names: ["you".into(), "minnow".into()], length: 0, games }
    }

    #[test]
    fn an_unfinished_game_is_written_and_read_back() {
        let record = record(vec![two_turns()]);
        let text = write(&record).unwrap();
        let expected = " 0 point match\n\n Game 1\n you : 0                        minnow : 0\n  \
                        1)                             31: 8/5 6/5\n  2) 64: 24/18 18/14\n\n";
        assert_eq!(text, expected);
        assert_eq!(parse(&text).unwrap(), record);
        // Windows line ends, comments and other spacing read the same.
        let loose = text.replace('\n', "\r\n").replace(" 0 point match", "; exported\n0 point match");
        assert_eq!(parse(&loose).unwrap(), record);
    }

    #[test]
    fn records_that_do_not_replay_are_errors_naming_the_turn() {
        let mut game = two_turns();
        game.turns[1].player = 1;
        let e = write(&record(vec![game])).unwrap_err();
        assert!(matches!(e, MatError::Game { game: 1, source: TurnError { turn: 2, .. } }), "{e}");
        assert!(e.to_string().contains("player 1 rolls, expected player 0"), "{e}");
        let mut game = two_turns();
        game.turns[1].dice = (5, 5);
        let e = write(&record(vec![game])).unwrap_err();
        assert!(e.to_string().contains("not a legal play of 5-5"), "{e}");
        let mut game = two_turns();
        game.turns[1].play = None;
        assert!(write(&record(vec![game])).unwrap_err().to_string().contains("no play recorded"));
        let mut game = two_turns();
        game.turns[0].dice = (7, 1);
        assert!(write(&record(vec![game])).unwrap_err().to_string().contains("expected two dice 1 to 6"));
        let mut named = record(vec![]);
        named.names[0] = "a b".into();
        assert_eq!(write(&named), Err(MatError::Name { name: "a b".into() }));
    }

    #[test]
    fn files_minnow_cannot_hold_are_errors_naming_the_line() {
        let head = " 0 point match\n\n Game 1\n you : 0                        minnow : 0\n";
        let line_of = |text: &str| match parse(text).unwrap_err() {
            MatError::Line { line, problem, .. } => (line, problem),
            e => panic!("{e}"),
        };
        assert!(line_of("").1.contains("expected 'N point match'"));
        assert!(line_of(" Game 1\n").1.contains("expected the match length first"));
        let (line, problem) = line_of(&format!("{head}  1) 31: 8/5 6/5 Doubles => 2\n"));
        assert_eq!(line, 5);
        assert!(problem.contains("a cube action"), "{problem}");
        let (_, problem) = line_of(&format!("{head}  1) 31: 8/5 6/4\n"));
        assert!(problem.contains("not a legal play of 3-1"), "{problem}");
        let (_, problem) = line_of(&format!("{head}  1) 31: 8/5 6/5\n      Wins 1 point\n"));
        assert!(problem.contains("checkers on the board"), "{problem}");
        let (_, problem) = line_of(&format!("{head}  1) 31: 8/5 6/5 64: 24/14 52: 13/8 13/11\n"));
        assert!(problem.contains("expected two at most"), "{problem}");
        let (_, problem) = line_of(&format!("{head}  1) 8/5 6/5\n"));
        assert!(problem.contains("before any roll"), "{problem}");
        let (_, problem) = line_of(" 0 point match\n 1) 31: 8/5 6/5\n");
        assert!(problem.contains("expected 'Game N'"), "{problem}");
        let (_, problem) = line_of(" 0 point match\n Game 1\n you 0 minnow 0\n");
        assert!(problem.contains("expected the players and scores"), "{problem}");
    }

    #[test]
    fn the_winner_line_stands_under_the_winners_column() {
        assert_eq!(wins_line(0, 2, false), "      Wins 2 points");
        assert_eq!(wins_line(1, 1, true), format!("{}Wins 1 point and the match", " ".repeat(34)));
    }
}
