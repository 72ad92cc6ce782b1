//! GNU Backgammon Match IDs: the 12-character notation for everything
//! about a game but the checkers (`cIkFAAAAAAAE` is a money game without
//! the Jacoby rule, the cube in the middle, player 1 to play 3-1).
//!
//! The key is 72 bits, fields least significant bit first, packed into 9
//! bytes as in a [Position ID](super::position_id) and written in the same
//! base64:
//!
//! | bits | field |
//! |---|---|
//! | 0-3 | log2 of the cube value |
//! | 4-5 | cube owner: 0 or 1, 3 centred |
//! | 6 | the player on roll (who owns the dice) |
//! | 7 | this is the Crawford game |
//! | 8-10 | game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 a double dropped |
//! | 11 | the player who must act now |
//! | 12 | a double is offered |
//! | 13-14 | resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon |
//! | 15-17, 18-20 | the dice, higher first; 0 before the roll |
//! | 21-35 | match length, 0 for money |
//! | 36-50, 51-65 | the scores of players 0 and 1 |
//! | 66 | the Jacoby rule is *not* in force |
//!
//! gnubg's players 0 and 1 are the `player` numbers of [`Backgammon`], and
//! the Position ID beside a Match ID is seen by the player on roll.
//!
//! ```
//! use minnow_envs::backgammon::match_id::{self, MatchState};
//! use minnow_envs::backgammon::{BackgammonConfig, Position};
//! use minnow_envs::Backgammon;
//! let game = Backgammon::from_position(BackgammonConfig::default(), Position::start(), 1, (3, 1)).unwrap();
//! let state = MatchState::of(&game);
//! assert_eq!(match_id::encode(&state), "cIkFAAAAAAAE");
//! assert_eq!(match_id::decode("cIkFAAAAAAAE").unwrap(), state);
//! ```

use super::Backgammon;
use super::base64::{self, Base64Error};
use thiserror::Error;

const KEY_BYTES: usize = 9;
/// Characters of an ID.
pub const ID_LENGTH: usize = base64::id_length(KEY_BYTES);
/// The largest cube: the value's log2 has four bits.
pub const MAX_CUBE: u32 = 1 << 15;
/// The largest match length or score: fifteen bits.
pub const MAX_SCORE: u16 = (1 << 15) - 1;

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameState {
    /// No game started.
    NoGame,
    /// A game in progress.
    Playing,
    /// Finished by bearing off.
    Over,
    /// Finished by an accepted resignation.
    Resigned,
    /// Finished by a dropped double.
    Dropped,
}

const GAME_STATES: [GameState; 5] =
    [GameState::NoGame, GameState::Playing, GameState::Over, GameState::Resigned, GameState::Dropped];

/// Everything a Match ID holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchState {
    /// The cube's value: a power of two, 1 to [`MAX_CUBE`].
    pub cube: u32,
    /// Who owns the cube; `None` while it is in the middle.
    pub cube_owner: Option<usize>,
    /// The player on roll, who owns the dice (0 or 1).
    pub on_roll: usize,
    /// This game is the Crawford game.
    pub crawford: bool,
    /// Where the game stands.
    pub state: GameState,
    /// The player who must act now (0 or 1): the one on roll, or the other
    /// while a double or a resignation awaits an answer.
    pub turn: usize,
    /// A double is offered.
    pub doubled: bool,
    /// The points a resignation on offer gives away (1 single, 2 gammon, 3
    /// backgammon); `None` when there is none.
    pub resigned: Option<u8>,
    /// The dice rolled, higher first; `None` before the roll.
    pub dice: Option<(u8, u8)>,
    /// Points to play to; 0 for a money game.
    pub length: u16,
    /// Points of players 0 and 1.
    pub score: [u16; 2],
    /// The Jacoby rule: gammons count only once the cube has turned.
    pub jacoby: bool,
}

impl MatchState {
    /// The state of `game` as gnubg would hold it: a money game with the
    /// cube in the middle at 1 (minnow plays without one) and gammons that
    /// count, so no Jacoby rule; the player on roll, and the dice once
    /// rolled. Once the game is over, the winner is on roll.
    pub fn of(game: &Backgammon) -> Self {
        let on_roll = game.player();
        Self {
            cube: 1,
            cube_owner: None,
            on_roll,
            crawford: false,
            state: if game.winner().is_some() { GameState::Over } else { GameState::Playing },
            turn: on_roll,
            doubled: false,
            resigned: None,
            dice: game.dice().map(|(low, high)| (high, low)),
            length: 0,
            score: [0, 0],
            jacoby: false,
        }
    }
}

/// What can be wrong with a typed or pasted Match ID.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum MatchIdError {
    /// An ID of the wrong length.
    #[error("match ID '{id}': {found} characters, expected {ID_LENGTH}")]
    Length {
        /// The ID as given.
        id: String,
        /// What was found.
        found: usize,
    },
    /// A character outside the base64 alphabet.
    #[error("match ID '{id}': character {index} is '{found}', expected a base64 character (A-Z, a-z, 0-9, + or /)")]
    Character {
        /// The ID as given.
        id: String,
        /// The position in the input (0-based).
        index: usize,
        /// What was found.
        found: char,
    },
    /// A field holding a value it cannot take.
    #[error("match ID '{id}': the {field} is {found}, expected {expected}")]
    Field {
        /// The ID as given.
        id: String,
        /// The field.
        field: &'static str,
        /// The value found.
        found: u32,
        /// What it may be.
        expected: &'static str,
    },
}

/// Bits `at..at + width` of the key, least significant first.
fn bits(key: &[u8; KEY_BYTES], at: usize, width: usize) -> u32 {
    (0..width).map(|i| ((key[(at + i) / 8] >> ((at + i) % 8) & 1) as u32) << i).sum()
}

/// Sets bits `at..at + width` of the key to `value`.
fn set_bits(key: &mut [u8; KEY_BYTES], at: usize, width: usize, value: u32) {
    for i in 0..width {
        key[(at + i) / 8] |= ((value >> i & 1) as u8) << ((at + i) % 8);
    }
}

/// The Match ID of `state`.
#[track_caller]
pub fn encode(state: &MatchState) -> String {
    let MatchState {
        cube,
        cube_owner,
        on_roll,
        crawford,
        state: game,
        turn,
        doubled,
        resigned,
        dice,
        length,
        score,
        jacoby,
    } = *state;
    assert!(
        cube.is_power_of_two() && cube <= MAX_CUBE,
        "match_id encode: cube {cube}, expected a power of two up to {MAX_CUBE}"
    );
    assert!(on_roll < 2 && turn < 2, "match_id encode: on roll {on_roll}, turn {turn}, expected players 0 or 1");
    assert!(cube_owner.is_none_or(|p| p < 2), "match_id encode: cube owner {cube_owner:?}, expected 0, 1 or None");
    assert!(resigned.is_none_or(|r| (1..=3).contains(&r)), "match_id encode: resigned {resigned:?}, expected 1 to 3");
    let (high, low) = dice.map_or((0, 0), |(a, b)| (a.max(b), a.min(b)));
    assert!(dice.is_none() || (1..=6).contains(&low) && high <= 6, "match_id encode: dice {dice:?}, expected 1 to 6");
    assert!(
        length <= MAX_SCORE && score.iter().all(|&s| s <= MAX_SCORE),
        "match_id encode: length {length}, score {score:?}, expected at most {MAX_SCORE}"
    );
    let mut key = [0u8; KEY_BYTES];
    set_bits(&mut key, 0, 4, cube.trailing_zeros());
    set_bits(&mut key, 4, 2, cube_owner.map_or(3, |p| p as u32));
    set_bits(&mut key, 6, 1, on_roll as u32);
    set_bits(&mut key, 7, 1, crawford as u32);
    set_bits(&mut key, 8, 3, GAME_STATES.iter().position(|&s| s == game).expect("every state is listed") as u32);
    set_bits(&mut key, 11, 1, turn as u32);
    set_bits(&mut key, 12, 1, doubled as u32);
    set_bits(&mut key, 13, 2, resigned.unwrap_or(0) as u32);
    set_bits(&mut key, 15, 3, high as u32);
    set_bits(&mut key, 18, 3, low as u32);
    set_bits(&mut key, 21, 15, length as u32);
    set_bits(&mut key, 36, 15, score[0] as u32);
    set_bits(&mut key, 51, 15, score[1] as u32);
    set_bits(&mut key, 66, 1, !jacoby as u32);
    base64::encode(&key)
}

/// The state a Match ID describes. Wrong length, characters outside
/// base64, and fields gnubg never writes (a cube owner of 2, a game state
/// past 4, a die of 7 or only one die, a score past the match length, the
/// Crawford game in a money game, bits set past bit 66) are errors.
pub fn decode(id: &str) -> Result<MatchState, MatchIdError> {
    let owned = || id.to_string();
    let found = id.chars().count();
    if found != ID_LENGTH {
        return Err(MatchIdError::Length { id: owned(), found });
    }
    let key: [u8; KEY_BYTES] = base64::decode(id).map_err(|e| match e {
        Base64Error::Character(index, found) => MatchIdError::Character { id: owned(), index, found },
        Base64Error::Padding => unreachable!("12 characters hold the 72 bits exactly"),
    })?;
    let field = |field: &'static str, found: u32, expected: &'static str| MatchIdError::Field {
        id: owned(),
        field,
        found,
        expected,
    };
    let cube_owner = match bits(&key, 4, 2) {
        3 => None,
        p @ (0 | 1) => Some(p as usize),
        p => return Err(field("cube owner", p, "0, 1 or 3 (centred)")),
    };
    let game_state = bits(&key, 8, 3);
    let state = *GAME_STATES
        .get(game_state as usize)
        .ok_or_else(|| field("game state", game_state, "0 to 4 (no game, playing, over, resigned, dropped)"))?;
    let (high, low) = (bits(&key, 15, 3), bits(&key, 18, 3));
    let dice = match (high, low) {
        (0, 0) => None,
        (1..=6, 1..=6) => Some((high as u8, low as u8)),
        _ => return Err(field("dice", 10 * high + low, "two dice 1 to 6, or 0 0 before the roll")),
    };
    let length = bits(&key, 21, 15) as u16;
    let score = [bits(&key, 36, 15) as u16, bits(&key, 51, 15) as u16];
    if length > 0
        && let Some(&s) = score.iter().find(|&&s| s > length)
    {
        return Err(field("score", s as u32, "at most the match length"));
    }
    let crawford = bits(&key, 7, 1) == 1;
    if crawford && length == 0 {
        return Err(field("Crawford flag", 1, "0 in a money game"));
    }
    if bits(&key, 67, 5) != 0 {
        return Err(field("padding after bit 66", bits(&key, 67, 5), "0"));
    }
    Ok(MatchState {
        cube: 1 << bits(&key, 0, 4),
        cube_owner,
        on_roll: bits(&key, 6, 1) as usize,
        crawford,
        state,
        turn: bits(&key, 11, 1) as usize,
        doubled: bits(&key, 12, 1) == 1,
        resigned: match bits(&key, 13, 2) {
            0 => None,
            r => Some(r as u8),
        },
        dice,
        length,
        score,
        jacoby: bits(&key, 66, 1) == 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use crate::backgammon::{BackgammonConfig, Position};

    #[test]
    fn a_match_id_reads_field_by_field() {
        // gnubg reads `QYkqASAAIAAA` as a 9-point match at 2-4, the cube
        // at 2 owned by player 0, player 1 on roll with 5-2; bit 66 is
        // clear, so the Jacoby rule reads as on (gnubg writes it off in a
        // match, `..IAAE`, but reads either).
        let state = MatchState {
            cube: 2,
            cube_owner: Some(0),
            on_roll: 1,
            crawford: false,
            state: GameState::Playing,
            turn: 1,
            doubled: false,
            resigned: None,
            dice: Some((5, 2)),
            length: 9,
            score: [2, 4],
            jacoby: true,
        };
        let id = encode(&state);
        assert_eq!(id, "QYkqASAAIAAA");
        assert_eq!(decode(&id).unwrap(), state);
    }

    fn start(player: usize, dice: (u8, u8)) -> Backgammon {
        Backgammon::from_position(BackgammonConfig::default(), Position::start(), player, dice).unwrap()
    }

    #[test]
    fn dice_are_written_higher_first() {
        let mut state = MatchState::of(&start(0, (3, 1)));
        assert_eq!(state.dice, Some((3, 1)));
        state.dice = Some((1, 3));
        let back = decode(&encode(&state)).unwrap();
        assert_eq!(back.dice, Some((3, 1)));
        assert_eq!(encode(&back), encode(&state));
    }

    #[test]
    fn a_minnow_game_is_a_money_game_in_progress_or_over() {
        let game = start(1, (6, 5));
        let state = MatchState::of(&game);
        assert_eq!((state.on_roll, state.turn, state.state, state.length), (1, 1, GameState::Playing, 0));
        let at_roll = Backgammon::at_roll(BackgammonConfig::default(), Position::start(), 0).unwrap();
        assert_eq!(MatchState::of(&at_roll).dice, None);
        // The mover bears off the last checker with 2-1.
        let mut points = [0; crate::backgammon::POINTS];
        (points[23], points[0]) = (1, -15);
        let position = Position::new(points, [0, 0], [14, 0]).unwrap();
        let mut game = Backgammon::from_position(BackgammonConfig::default(), position, 1, (2, 1)).unwrap();
        game.apply(crate::backgammon::point_action(23, 2)).unwrap();
        let over = MatchState::of(&game);
        assert_eq!((over.state, over.on_roll, over.dice), (GameState::Over, 1, None));
        assert_eq!(decode(&encode(&over)).unwrap(), over);
    }

    #[test]
    fn every_field_round_trips_at_its_extremes() {
        let mut state = MatchState::of(&start(1, (1, 1)));
        state.cube = MAX_CUBE;
        state.cube_owner = Some(0);
        state.turn = 0;
        state.doubled = true;
        state.resigned = Some(3);
        state.state = GameState::Dropped;
        state.length = MAX_SCORE;
        state.score = [MAX_SCORE - 1, MAX_SCORE];
        state.crawford = true;
        state.jacoby = true;
        assert_eq!(decode(&encode(&state)).unwrap(), state);
    }

    #[test]
    fn malformed_ids_are_clear_errors() {
        assert!(matches!(decode("cIkAAAAAAAA"), Err(MatchIdError::Length { found: 11, .. })));
        assert!(matches!(decode("cIkAAAAAAA!A"), Err(MatchIdError::Character { index: 10, found: '!', .. })));
        let mut key = [0u8; KEY_BYTES];
        set_bits(&mut key, 4, 2, 2);
        let e = decode(&base64::encode(&key)).unwrap_err();
        assert!(matches!(e, MatchIdError::Field { field: "cube owner", found: 2, .. }), "{e}");
        let with = |at, width, value| {
            let mut key = [0u8; KEY_BYTES];
            set_bits(&mut key, 4, 2, 3);
            set_bits(&mut key, at, width, value);
            decode(&base64::encode(&key)).unwrap_err()
        };
        assert!(matches!(with(8, 3, 5), MatchIdError::Field { field: "game state", found: 5, .. }));
        assert!(matches!(with(15, 3, 7), MatchIdError::Field { field: "dice", .. }));
        assert!(matches!(with(15, 3, 4), MatchIdError::Field { field: "dice", found: 40, .. }));
        assert!(matches!(with(7, 1, 1), MatchIdError::Field { field: "Crawford flag", .. }));
        assert!(matches!(with(70, 1, 1), MatchIdError::Field { field: "padding after bit 66", .. }));
        let mut key = [0u8; KEY_BYTES];
        set_bits(&mut key, 4, 2, 3);
        set_bits(&mut key, 21, 15, 5);
        set_bits(&mut key, 51, 15, 6);
        let e = decode(&base64::encode(&key)).unwrap_err();
        assert!(matches!(e, MatchIdError::Field { field: "score", found: 6, .. }), "{e}");
        assert!(e.to_string().contains("expected at most the match length"));
    }
}
