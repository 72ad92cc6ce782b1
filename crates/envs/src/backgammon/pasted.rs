//! A position pasted from GNU Backgammon: a Position ID alone
//! (`4HPwATDgc/ABMA`), with a roll (`4HPwATDgc/ABMA 31`, or `3-1`), or
//! gnubg's full ID `POSITION:MATCH`, whose Match ID says who is on roll
//! and with what dice (the cube and the score play no part: minnow has no
//! cube). The Position ID is the player on roll's view, as gnubg writes
//! it ([`position_id`]).
//!
//! ```
//! use minnow_envs::backgammon::{Position, pasted};
//! let p = pasted::parse("4HPwATDgc/ABMA 31").unwrap();
//! assert_eq!((p.position, p.on_roll, p.dice), (Position::start(), None, Some((3, 1))));
//! let p = pasted::parse("4HPwATDgc/ABMA:cIkFAAAAAAAE").unwrap();
//! assert_eq!((p.on_roll, p.dice), (Some(1), Some((3, 1))));
//! assert!(pasted::parse("4HPwATDgc/ABMA 71").is_err());
//! ```

use super::match_id::{self, MatchIdError};
use super::position_id::{self, PositionIdError};
use super::{Backgammon, BackgammonConfig, Position};
use crate::EnvError;
use thiserror::Error;

/// What a pasted ID says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pasted {
    /// The checkers, seen by the player on roll.
    pub position: Position,
    /// The player on roll, when a Match ID says (0 or 1).
    pub on_roll: Option<usize>,
    /// The roll to play, when given, as written (either order).
    pub dice: Option<(u8, u8)>,
}

impl Pasted {
    /// The game with `player` (the Match ID's, if it named one) on roll:
    /// playing the roll, or waiting for it when none was given.
    pub fn game(&self, config: BackgammonConfig, player: usize) -> Result<Backgammon, EnvError> {
        let player = self.on_roll.unwrap_or(player);
        match self.dice {
            Some(dice) => Backgammon::from_position(config, self.position, player, dice),
            None => Backgammon::at_roll(config, self.position, player),
        }
    }
}

/// What can be wrong with pasted text.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PastedError {
    /// Nothing, or more than an ID and a roll.
    #[error(
        "'{text}': expected a Position ID, optionally with a roll or a Match ID, e.g. '4HPwATDgc/ABMA', \
         '4HPwATDgc/ABMA 31' or '4HPwATDgc/ABMA:cIkFAAAAAAAE'"
    )]
    Shape {
        /// The text as given.
        text: String,
    },
    /// The Position ID does not decode.
    #[error(transparent)]
    Position(#[from] PositionIdError),
    /// The Match ID does not decode.
    #[error(transparent)]
    Match(#[from] MatchIdError),
    /// A roll that is not two dice.
    #[error("roll '{roll}': expected two dice 1-6, e.g. 31 or 3-1")]
    Roll {
        /// The roll as given.
        roll: String,
    },
}

/// Reads pasted text: an ID, then optionally a roll or a Match ID,
/// separated by a space or a colon.
pub fn parse(text: &str) -> Result<Pasted, PastedError> {
    let mut parts = text.split([' ', ':']).filter(|p| !p.is_empty());
    let (Some(id), roll, None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(PastedError::Shape { text: text.to_string() });
    };
    let position = position_id::decode(id)?;
    let Some(roll) = roll else { return Ok(Pasted { position, on_roll: None, dice: None }) };
    if roll.chars().count() == match_id::ID_LENGTH {
        let state = match_id::decode(roll)?;
        return Ok(Pasted { position, on_roll: Some(state.on_roll), dice: state.dice });
    }
    let digits: Vec<u8> = roll.chars().filter(|&c| c != '-').map(|c| c.to_digit(10).unwrap_or(0) as u8).collect();
    match digits[..] {
        [a, b] if (1..=6).contains(&a) && (1..=6).contains(&b) => {
            Ok(Pasted { position, on_roll: None, dice: Some((a, b)) })
        }
        _ => Err(PastedError::Roll { roll: roll.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, Turn};

    #[test]
    fn an_id_alone_waits_for_the_roll_of_the_player_asked_for() {
        let p = parse("4HPwATDgc/ABMA").unwrap();
        assert_eq!(p, Pasted { position: Position::start(), on_roll: None, dice: None });
        let game = p.game(BackgammonConfig::default(), 1).unwrap();
        assert_eq!((game.turn(), game.player()), (Turn::Chance, 1));
        let game = parse("4HPwATDgc/ABMA 3-1").unwrap().game(BackgammonConfig::default(), 0).unwrap();
        assert_eq!((game.turn(), game.dice()), (Turn::Player(0), Some((1, 3))));
    }

    #[test]
    fn a_match_id_names_the_player_on_roll_whatever_was_asked() {
        let p = parse("4HPwATDgc/ABMA:cIkFAAAAAAAE").unwrap();
        assert_eq!(p.game(BackgammonConfig::default(), 0).unwrap().turn(), Turn::Player(1));
        let p = parse("4HPwATDgc/ABMA:cAkAAAAAAAAA").unwrap();
        assert_eq!(p.dice, None);
    }

    #[test]
    fn bad_text_is_a_clear_error() {
        assert!(parse("").unwrap_err().to_string().contains("expected a Position ID"));
        assert!(parse("a b c").unwrap_err().to_string().contains("expected a Position ID"));
        assert!(parse("4HPwATDgc/AB!A").unwrap_err().to_string().contains("character"));
        assert!(parse("4HPwATDgc/ABMA 3").unwrap_err().to_string().contains("two dice"));
        assert!(parse("4HPwATDgc/ABMA:cIkFAAAAAA!E").unwrap_err().to_string().contains("character 10"));
    }
}
