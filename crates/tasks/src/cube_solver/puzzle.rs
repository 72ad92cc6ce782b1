//! The 2x2x2 cube as a [`Puzzle`] for the generic search and value
//! iteration, and scrambles typed in the usual notation.

use minnow_envs::CubeState;
use minnow_envs::cube2::{MOVE_COUNT, MOVE_NAMES, OBSERVATION_SIZE, STATE_COUNT};
use minnow_rl::puzzle::Puzzle;

/// The cube with its DBL corner fixed: moves U U' R R' F F'.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cube;

impl Puzzle for Cube {
    const NAME: &'static str = "cube2";
    type State = CubeState;

    fn moves(&self) -> usize {
        MOVE_COUNT
    }

    fn apply(&self, state: CubeState, action: usize) -> CubeState {
        state.apply(action)
    }

    fn inverse(&self, action: usize) -> usize {
        minnow_envs::cube2::inverse(action)
    }

    fn goal(&self) -> CubeState {
        CubeState::SOLVED
    }

    fn is_goal(&self, state: CubeState) -> bool {
        state.is_solved()
    }

    fn state_count(&self) -> usize {
        STATE_COUNT
    }

    fn index(&self, state: CubeState) -> usize {
        state.index() as usize
    }

    fn observation_size(&self) -> usize {
        OBSERVATION_SIZE
    }

    fn observe(&self, state: CubeState, out: &mut [f32]) {
        state.write_one_hot(out);
    }
}

/// A scramble that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScrambleError {
    /// A token that is not one of the cube's moves.
    #[error(
        "scramble: move {position} '{token}' is not a move; expected one of U U' U2 R R' R2 F F' F2 \
         (the DBL corner stays fixed, so D, L and B are not turned)"
    )]
    BadMove {
        /// The token's place in the scramble, from 1.
        position: usize,
        /// The token.
        token: String,
    },
}

/// The moves of a scramble such as `"R U F' U2"`, separated by spaces (or
/// commas); a `2` turns twice. An empty scramble is the solved cube.
pub fn parse_scramble(text: &str) -> Result<Vec<usize>, ScrambleError> {
    let mut moves = Vec::new();
    for (k, token) in text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()).enumerate() {
        let bad = || ScrambleError::BadMove { position: k + 1, token: token.to_string() };
        let (face, suffix) = token.split_at(token.char_indices().nth(1).map_or(token.len(), |(i, _)| i));
        let base = ["U", "R", "F"].iter().position(|&f| f == face).ok_or_else(bad)? * 2;
        match suffix {
            "" => moves.push(base),
            "'" | "’" => moves.push(base + 1),
            "2" => moves.extend([base, base]),
            _ => return Err(bad()),
        }
    }
    Ok(moves)
}

/// Moves in the usual notation.
pub fn format_moves(moves: &[usize]) -> String {
    moves.iter().map(|&m| MOVE_NAMES[m]).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrambles_parse_in_the_usual_notation() {
        assert_eq!(parse_scramble("R U F' U2").unwrap(), vec![2, 0, 5, 0, 0]);
        assert_eq!(parse_scramble("").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_scramble("U,R'").unwrap(), vec![0, 3]);
        assert_eq!(format_moves(&parse_scramble("R U' F").unwrap()), "R U' F");
    }

    #[test]
    fn bad_scramble_tokens_are_named() {
        for (text, position, token) in [
            ("R U D", 3, "D"),
            ("R2 X'", 2, "X'"),
            ("U3", 1, "U3"),
            ("R r'", 2, "r'"),
            ("UR", 1, "UR"),
            ("é", 1, "é"),
            ("'", 1, "'"),
        ] {
            let err = parse_scramble(text).unwrap_err();
            assert_eq!(err, ScrambleError::BadMove { position, token: token.to_string() }, "{text}");
            assert!(err.to_string().contains(&format!("move {position} '{token}'")), "{err}");
        }
    }
}
