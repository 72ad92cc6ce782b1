//! The square's eight symmetries (rotations and reflections) acting on
//! 2048 boards. A turned or mirrored board plays exactly like the
//! original, with the moves renamed.

use super::{Board, MOVE_COUNT};
use std::sync::OnceLock;

/// How many symmetries there are ([`BoardSymmetry::all`]; the first is the identity).
pub const BOARD_SYMMETRY_COUNT: usize = 8;

/// One symmetry: where each cell goes and what each move becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSymmetry {
    cells: [u8; 16],
    moves: [u8; MOVE_COUNT],
}

/// Moves as (row, column) steps, in action order: left, right, up, down.
const STEPS: [[i8; 2]; MOVE_COUNT] = [[0, -1], [0, 1], [-1, 0], [1, 0]];

impl BoardSymmetry {
    /// All eight, the identity first.
    pub fn all() -> &'static [BoardSymmetry; BOARD_SYMMETRY_COUNT] {
        static ALL: OnceLock<[BoardSymmetry; BOARD_SYMMETRY_COUNT]> = OnceLock::new();
        ALL.get_or_init(|| {
            std::array::from_fn(|k| {
                // On centred coordinates (odd values -3..=3): maybe swap the
                // axes, then maybe negate each.
                let map = |v: [i8; 2]| {
                    let v = if k & 4 != 0 { [v[1], v[0]] } else { v };
                    [if k & 1 != 0 { -v[0] } else { v[0] }, if k & 2 != 0 { -v[1] } else { v[1] }]
                };
                let cells = std::array::from_fn(|cell| {
                    let [r, c] = map([2 * (cell / 4) as i8 - 3, 2 * (cell % 4) as i8 - 3]);
                    ((r + 3) / 2 * 4 + (c + 3) / 2) as u8
                });
                let moves = std::array::from_fn(|m| {
                    STEPS.iter().position(|&s| s == map(STEPS[m])).expect("steps to steps") as u8
                });
                BoardSymmetry { cells, moves }
            })
        })
    }

    /// The board seen through this symmetry.
    pub fn apply(&self, board: Board) -> Board {
        (0..16).fold(Board::EMPTY, |seen, cell| match board.exponent(cell) {
            0 => seen,
            e => seen.with_tile(self.cells[cell] as usize, e),
        })
    }

    /// Where this symmetry moves `cell` (= 4 * row + col).
    #[track_caller]
    pub fn map_cell(&self, cell: usize) -> usize {
        self.cells[cell] as usize
    }

    /// The move that does on the seen board what `m` does on the original.
    pub fn map_move(&self, m: usize) -> usize {
        self.moves[m] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Env, Game2048, Game2048Config};

    #[test]
    fn symmetries_commute_with_moves() {
        let mut game = Game2048::new(Game2048Config::default()).unwrap();
        let mut seen = Vec::new();
        for seed in 0..40 {
            game.reset(seed);
            for step in 0..30u64 {
                if game.is_over() {
                    break;
                }
                let board = game.board();
                for symmetry in BoardSymmetry::all() {
                    for m in 0..MOVE_COUNT {
                        let (after, score) = board.slide(m);
                        let (view_after, view_score) = symmetry.apply(board).slide(symmetry.map_move(m));
                        assert_eq!((symmetry.apply(after), score), (view_after, view_score));
                    }
                }
                seen.push(board);
                let mut legal = game.legal_mask();
                for _ in 0..(seed + step) % legal.count_ones() as u64 {
                    legal &= legal - 1;
                }
                game.step(legal.trailing_zeros() as usize).unwrap();
            }
        }
        let board = Board::from_rows([[2, 4, 8, 16], [0, 0, 0, 32], [0; 4], [0, 0, 0, 2]]).unwrap();
        let views: Vec<Board> = BoardSymmetry::all().iter().map(|s| s.apply(board)).collect();
        assert_eq!(views[0], board);
        for (symmetry, view) in BoardSymmetry::all().iter().zip(&views) {
            for cell in 0..16 {
                assert_eq!(view.exponent(symmetry.map_cell(cell)), board.exponent(cell));
            }
        }
        for (k, v) in views.iter().enumerate() {
            assert!(views[..k].iter().all(|w| w != v), "view {k} repeats");
        }
        assert!(seen.len() > 1000, "{} boards", seen.len());
    }
}
