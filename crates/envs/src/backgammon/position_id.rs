//! GNU Backgammon Position IDs: the 14-character notation backgammon
//! programs exchange positions in (the starting position is
//! `4HPwATDgc/ABMA`).
//!
//! The key is a bit string: for the player *not* on roll, for each point
//! from their ace point (1) to their 24-point and then the bar, one `1`
//! per checker followed by a `0`; then the same for the player on roll
//! from their own ace point; then `0`s up to 80 bits. The side to play
//! comes second, as gnubg writes it: swapping the two reads every ID but
//! a symmetric one as the other side's position. The bits are packed
//! into 10 bytes least significant bit first, and the bytes written in
//! base64 (`A-Z a-z 0-9 + /`) without padding.
//!
//! A [`Position`] is seen by the mover, who is the player on roll: the
//! mover's point `p` is their `24 - p` point, so their ace point is our
//! point 23, while the opponent's ace point is our point 0.
//!
//! ```
//! use minnow_envs::backgammon::{Position, position_id};
//! assert_eq!(position_id::encode(&Position::start()), "4HPwATDgc/ABMA");
//! assert_eq!(position_id::decode("4HPwATDgc/ABMA").unwrap(), Position::start());
//! // After an opening 31 played 8/5 6/5, the reply to play: the opener's
//! // made 5-point is the reply's 20-point, our point 4.
//! assert_eq!(position_id::decode("sGfwATDgc/ABMA").unwrap().points()[4], -2);
//! ```

use super::base64::{self, Base64Error};
use super::{CHECKERS, POINTS, Position};
use thiserror::Error;

const KEY_BITS: usize = 80;
/// Characters of an ID.
pub const ID_LENGTH: usize = base64::id_length(KEY_BITS / 8);

/// What can be wrong with a typed or pasted Position ID.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PositionIdError {
    /// An ID of the wrong length.
    #[error("position ID '{id}': {found} characters, expected {ID_LENGTH}")]
    Length {
        /// The ID as given.
        id: String,
        /// What was found.
        found: usize,
    },
    /// A character outside the base64 alphabet.
    #[error("position ID '{id}': character {index} is '{found}', expected a base64 character (A-Z, a-z, 0-9, + or /)")]
    Character {
        /// The ID as given.
        id: String,
        /// The position in the input (0-based).
        index: usize,
        /// What was found.
        found: char,
    },
    /// A key that ends before both sides' checkers.
    #[error(
        "position ID '{id}': the key ends inside the {side}'s checkers, expected 25 points (24 and the bar) for each side"
    )]
    Truncated {
        /// The ID as given.
        id: String,
        /// The side ("player on roll" or "opponent").
        side: &'static str,
    },
    /// A side with more than 15 checkers.
    #[error("position ID '{id}': the {side} has {found} checkers on the board and the bar, expected at most 15")]
    TooManyCheckers {
        /// The ID as given.
        id: String,
        /// The side ("player on roll" or "opponent").
        side: &'static str,
        /// What was found.
        found: u32,
    },
    /// Both sides on one point.
    #[error("position ID '{id}': both sides have checkers on the same point, expected at most one side per point")]
    SharedPoint {
        /// The ID as given.
        id: String,
    },
    /// Bits set after the checkers.
    #[error("position ID '{id}': the key has bits set after both sides' checkers, expected zeros")]
    Padding {
        /// The ID as given.
        id: String,
    },
}

/// The Position ID of `position`, the mover being the player on roll.
pub fn encode(position: &Position) -> String {
    let points = position.points();
    // The opponent from their ace point (our 0) to our 23, then the player
    // on roll from their ace point (our 23) to their 24-point (our 0).
    let theirs = (0..POINTS).map(|i| (-points[i]).max(0) as u8).chain([position.bar()[1]]);
    let mine = (0..POINTS).map(|i| points[POINTS - 1 - i].max(0) as u8).chain([position.bar()[0]]);
    let bits = theirs.chain(mine).flat_map(|n| std::iter::repeat_n(true, n as usize).chain([false]));
    base64::encode(&pack_key(bits))
}

/// The key's bits packed into bytes, least significant bit first.
fn pack_key(bits: impl IntoIterator<Item = bool>) -> [u8; KEY_BITS / 8] {
    let mut key = [0u8; KEY_BITS / 8];
    for (i, one) in bits.into_iter().enumerate() {
        key[i / 8] |= (one as u8) << (i % 8);
    }
    key
}

/// The position a Position ID describes, seen by the player on roll. Wrong
/// length, characters outside base64, a key that runs out, more than 15
/// checkers a side, two sides on one point or stray bits are errors.
pub fn decode(id: &str) -> Result<Position, PositionIdError> {
    let owned = || id.to_string();
    let found = id.chars().count();
    if found != ID_LENGTH {
        return Err(PositionIdError::Length { id: owned(), found });
    }
    // 14 characters are 84 bits: the 80 of the key, then 4 zeros.
    let key: [u8; KEY_BITS / 8] = base64::decode(id).map_err(|e| match e {
        Base64Error::Character(index, found) => PositionIdError::Character { id: owned(), index, found },
        Base64Error::Padding => PositionIdError::Padding { id: owned() },
    })?;
    let bit = |i: usize| key[i / 8] >> (i % 8) & 1 == 1;
    let mut i = 0;
    // `counts[0]` is the player on roll, whose run comes second.
    let mut counts = [[0u8; POINTS + 1]; 2];
    for (side, name) in [(1, "opponent"), (0, "player on roll")] {
        let mut total = 0;
        for slot in 0..=POINTS {
            loop {
                if i >= KEY_BITS {
                    return Err(PositionIdError::Truncated { id: owned(), side: name });
                }
                i += 1;
                if !bit(i - 1) {
                    break;
                }
                total += 1;
                if total > CHECKERS as u32 {
                    return Err(PositionIdError::TooManyCheckers { id: owned(), side: name, found: total });
                }
                counts[side][slot] += 1;
            }
        }
    }
    if (i..KEY_BITS).any(bit) {
        return Err(PositionIdError::Padding { id: owned() });
    }
    let mut points = [0i8; POINTS];
    for slot in 0..POINTS {
        let (mine, theirs) = (counts[0][slot] as i8, counts[1][POINTS - 1 - slot] as i8);
        if mine > 0 && theirs > 0 {
            return Err(PositionIdError::SharedPoint { id: owned() });
        }
        points[POINTS - 1 - slot] = mine - theirs;
    }
    let bar = [counts[0][POINTS], counts[1][POINTS]];
    let on = |side: usize| counts[side].iter().map(|&n| n as u32).sum::<u32>();
    let off = [(CHECKERS as u32 - on(0)) as u8, (CHECKERS as u32 - on(1)) as u8];
    Ok(Position::new(points, bar, off).expect("15 checkers a side by construction"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::{Backgammon, ROLLS};
    use crate::{Game, Turn};
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_starting_position_is_the_documented_id() {
        assert_eq!(encode(&Position::start()), "4HPwATDgc/ABMA");
        assert_eq!(decode("4HPwATDgc/ABMA").unwrap(), Position::start());
    }

    #[test]
    fn the_documented_key_bits_of_the_start() {
        // The manual's bit string for the start, side by side: five empty
        // points, 5 on the 6-point, ... two on the 24-point, empty bar;
        // the opponent the same.
        let side = ["00000", "111110", "0", "1110", "0000", "111110", "00000", "00000", "110", "0"].concat();
        let bits: String =
            format!("{side}{side}").chars().chain(std::iter::repeat_n('0', 80 - 2 * side.len())).collect();
        let key = pack_key(bits.chars().map(|b| b == '1'));
        // Standard base64 of the 10 bytes, without the "==" padding.
        assert_eq!(key, [0xe0, 0x73, 0xf0, 0x01, 0x30, 0xe0, 0x73, 0xf0, 0x01, 0x30]);
        assert_eq!(encode(&Position::start()), "4HPwATDgc/ABMA");
    }

    #[test]
    fn a_lopsided_position_keeps_who_is_on_roll() {
        // The mover has borne off 14 and keeps one checker on its ace
        // point (our 23); the opponent has all 15 on the bar.
        let mut points = [0; POINTS];
        points[23] = 1;
        let p = Position::new(points, [0, 15], [14, 0]).unwrap();
        let id = encode(&p);
        assert_eq!(decode(&id).unwrap(), p);
        // The key: the opponent first, 24 zeros for their points, then 15
        // ones and a zero for their bar; then the player on roll, 1 0 (one
        // checker on the ace point) and 24 zeros (23 empty points and the
        // bar).
        let mut bits = vec![false; 80];
        for b in &mut bits[24..24 + 15] {
            *b = true;
        }
        bits[24 + 16] = true;
        assert_eq!(id, id_of(&bits));
        assert_ne!(encode(&p.flipped()), id);
        assert_eq!(decode(&encode(&p.flipped())).unwrap(), p.flipped());
    }

    #[test]
    fn positions_along_random_games_round_trip() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut legal = [0u16; 30];
        let mut n_checked = 0;
        for seed in 0..30 {
            let mut game = Backgammon::default();
            game.reset(seed);
            while game.turn() != Turn::Over {
                let p = *game.position();
                let id = encode(&p);
                assert_eq!(id.len(), ID_LENGTH);
                assert_eq!(decode(&id).unwrap(), p, "{id}");
                n_checked += 1;
                match game.turn() {
                    Turn::Chance => game.apply_chance(rng.random_range(0..ROLLS)).unwrap(),
                    _ => {
                        let n = game.legal_actions(&mut legal);
                        game.apply(legal[rng.random_range(0..n)] as usize).unwrap();
                    }
                }
            }
        }
        assert!(n_checked > 1000);
    }

    #[test]
    fn malformed_ids_are_clear_errors() {
        assert!(matches!(decode("4HPwATDgc/ABM"), Err(PositionIdError::Length { found: 13, .. })));
        assert!(matches!(decode("4HPwATDgc/ABMAA"), Err(PositionIdError::Length { found: 15, .. })));
        assert!(matches!(decode("4HPwATDgc/AB-A"), Err(PositionIdError::Character { index: 12, found: '-', .. })));
        assert!(matches!(decode("4HPwATDgc/ABM="), Err(PositionIdError::Character { index: 13, .. })));
        // All ones: more than 15 checkers on the opponent's ace point, the
        // key's first run.
        let e = decode("/////////////w").unwrap_err();
        assert!(matches!(e, PositionIdError::TooManyCheckers { side: "opponent", found: 16, .. }), "{e}");
        assert!(e.to_string().contains("at most 15"));
        // The last character may only set its top two bits.
        assert!(matches!(decode("4HPwATDgc/ABMB"), Err(PositionIdError::Padding { .. })));
        // All zeros: 50 empty points and bars, every checker borne off.
        let empty = decode("AAAAAAAAAAAAAA").unwrap();
        assert_eq!(empty.off(), [15, 15]);
        // The opponent's 24-point and the mover's ace point are the same
        // point (our 23): checkers of both there are an error.
        let mut key_bits = vec![false; 80];
        // The opponent: 23 empty points, one checker on their 24-point (bit
        // 23) and its separator, the empty bar; then one on the mover's ace
        // point.
        key_bits[23] = true;
        key_bits[26] = true;
        let id = id_of(&key_bits);
        assert!(matches!(decode(&id), Err(PositionIdError::SharedPoint { .. })), "{id}");
    }

    fn id_of(bits: &[bool]) -> String {
        base64::encode(&pack_key(bits.iter().copied()))
    }
}
