//! The 2048 board as one `u64`: 16 cells of 4 bits, each the exponent of
//! its tile (0 empty, 1 for a 2, ..., 15 for 32768). Cell (row, col) is
//! nibble `4 * row + col`, so a row is one `u16` whose nibble 0 is the
//! leftmost cell. Moves use a 65536-entry table of row slides (the
//! classic bit-board approach); columns are rows of the transpose.

use crate::EnvError;
use std::sync::OnceLock;

/// Slide left (the moves are actions 0-3).
pub const LEFT: usize = 0;
/// Slide right.
pub const RIGHT: usize = 1;
/// Slide up.
pub const UP: usize = 2;
/// Slide down.
pub const DOWN: usize = 3;
/// The number of moves.
pub const MOVE_COUNT: usize = 4;
/// The moves' names, in action order.
pub const MOVE_NAMES: [&str; MOVE_COUNT] = ["left", "right", "up", "down"];

/// The largest exponent a cell holds. Two 32768 tiles do not merge (a
/// 65536 tile would not fit the nibble); no game gets near it.
pub const MAX_EXPONENT: u8 = 15;

/// A 2048 board (see the module docs for the layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board(u64);

/// Every row's slide both ways, packed per row as left result (bits 0..16),
/// right result (16..32) and the score of the merges (32..64; the same
/// both ways, since a run of k equal tiles merges k / 2 times from either end).
struct RowTable(Vec<u64>);

fn row_table() -> &'static RowTable {
    static TABLE: OnceLock<RowTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        RowTable(
            (0..=u16::MAX)
                .map(|row| {
                    let (left, score) = slide_row_left(row);
                    let (right, _) = slide_row_left(reverse_row(row));
                    left as u64 | (reverse_row(right) as u64) << 16 | (score as u64) << 32
                })
                .collect(),
        )
    })
}

/// Warms the move table up (the first move would build it otherwise).
pub(crate) fn prepare_tables() {
    row_table();
}

fn reverse_row(row: u16) -> u16 {
    (row >> 12) | ((row >> 4) & 0x00f0) | ((row << 4) & 0x0f00) | (row << 12)
}

/// Slides a row towards nibble 0: tiles close up, then each pair of equal
/// neighbours merges once, scanning from the destination side, so
/// [2,2,2,2] gives [4,4,0,0] and [2,2,4,0] gives [4,4,0,0], not [8,0,0,0].
/// Returns the row and the sum of the merged tiles' values.
fn slide_row_left(row: u16) -> (u16, u32) {
    let mut out = [0u8; 4];
    let mut len = 0;
    let mut score = 0u32;
    let mut mergeable = false;
    for k in 0..4 {
        let e = ((row >> (4 * k)) & 0xf) as u8;
        if e == 0 {
            continue;
        }
        if mergeable && out[len - 1] == e && e < MAX_EXPONENT {
            out[len - 1] = e + 1;
            score += 1 << (e + 1);
            mergeable = false;
        } else {
            out[len] = e;
            len += 1;
            mergeable = true;
        }
    }
    let packed = out.iter().enumerate().fold(0u16, |acc, (k, &e)| acc | (e as u16) << (4 * k));
    (packed, score)
}

impl Board {
    /// A board with no tile.
    pub const EMPTY: Board = Board(0);

    /// The board with these tile values, row by row from the top (0 for an
    /// empty cell).
    pub fn from_rows(rows: [[u32; 4]; 4]) -> Result<Board, EnvError> {
        let mut bits = 0u64;
        for (cell, &value) in rows.iter().flatten().enumerate() {
            let exponent = match value {
                0 => 0,
                v if v.is_power_of_two() && (2..=1 << MAX_EXPONENT).contains(&v) => v.trailing_zeros(),
                _ => return Err(EnvError::InvalidTile { cell, value }),
            };
            bits |= (exponent as u64) << (4 * cell);
        }
        Ok(Board(bits))
    }

    /// The tile values row by row (0 for an empty cell).
    pub fn rows(&self) -> [[u32; 4]; 4] {
        let mut rows = [[0; 4]; 4];
        for (cell, value) in rows.iter_mut().flatten().enumerate() {
            let e = self.exponent(cell);
            *value = if e == 0 { 0 } else { 1 << e };
        }
        rows
    }

    /// The 64-bit encoding (see the module docs).
    pub fn bits(&self) -> u64 {
        self.0
    }

    /// The exponent at `cell` = 4 * row + col (0 when empty).
    #[track_caller]
    pub fn exponent(&self, cell: usize) -> u8 {
        assert!(cell < 16, "2048 exponent: cell {cell} out of range 0..16");
        ((self.0 >> (4 * cell)) & 0xf) as u8
    }

    /// One bit per cell (bit `cell`) set when the cell is empty.
    pub fn empty_cells(&self) -> u16 {
        // Fold each nibble onto its low bit (set iff the cell is occupied),
        // then gather the 16 bits spaced 4 apart into one u16.
        let mut x = self.0 | (self.0 >> 1);
        x |= x >> 2;
        x &= 0x1111_1111_1111_1111;
        x = (x | (x >> 3)) & 0x0303_0303_0303_0303;
        x = (x | (x >> 6)) & 0x000f_000f_000f_000f;
        x = (x | (x >> 12)) & 0x0000_00ff_0000_00ff;
        x = (x | (x >> 24)) & 0xffff;
        !(x as u16)
    }

    /// The largest tile value on the board (0 when empty).
    pub fn max_tile(&self) -> u32 {
        let e = (0..16).map(|c| self.exponent(c)).max().unwrap_or(0);
        if e == 0 { 0 } else { 1 << e }
    }

    /// The board with the tile of exponent `exponent` placed in the empty `cell`.
    #[track_caller]
    pub fn with_tile(self, cell: usize, exponent: u8) -> Board {
        assert!(self.exponent(cell) == 0, "2048 with_tile: cell {cell} is not empty");
        assert!((1..=MAX_EXPONENT).contains(&exponent), "2048 with_tile: exponent {exponent} out of range 1..=15");
        Board(self.0 | (exponent as u64) << (4 * cell))
    }

    /// The transpose (row r, col c) <-> (row c, col r), by swapping 2x2
    /// blocks' off-diagonal cells and then the off-diagonal 2x2 blocks.
    pub fn transpose(self) -> Board {
        let x = self.0;
        let a1 = x & 0xF0F0_0F0F_F0F0_0F0F;
        let a2 = x & 0x0000_F0F0_0000_F0F0;
        let a3 = x & 0x0F0F_0000_0F0F_0000;
        let a = a1 | (a2 << 12) | (a3 >> 12);
        let b1 = a & 0xFF00_FF00_00FF_00FF;
        let b2 = a & 0x00FF_00FF_0000_0000;
        let b3 = a & 0x0000_0000_FF00_FF00;
        Board(b1 | (b2 >> 24) | (b3 << 24))
    }

    /// The board after each move (in action order) and the score each
    /// move's merges earn. A move is legal iff its board differs from `self`.
    pub fn slides(self) -> ([Board; MOVE_COUNT], [u32; MOVE_COUNT]) {
        let table = &row_table().0;
        let (left, right, row_score) = Self::slide_rows(table, self.0);
        let (up, down, col_score) = Self::slide_rows(table, self.transpose().0);
        let boards = [Board(left), Board(right), Board(up).transpose(), Board(down).transpose()];
        (boards, [row_score, row_score, col_score, col_score])
    }

    /// The board after one move and its score.
    #[track_caller]
    pub fn slide(self, m: usize) -> (Board, u32) {
        assert!(m < MOVE_COUNT, "2048 slide: move {m} out of range 0..4");
        let (boards, scores) = self.slides();
        (boards[m], scores[m])
    }

    fn slide_rows(table: &[u64], bits: u64) -> (u64, u64, u32) {
        let (mut left, mut right, mut score) = (0u64, 0u64, 0u32);
        for r in 0..4 {
            let entry = table[((bits >> (16 * r)) & 0xffff) as usize];
            left |= (entry & 0xffff) << (16 * r);
            right |= ((entry >> 16) & 0xffff) << (16 * r);
            score += (entry >> 32) as u32;
        }
        (left, right, score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slide_rows_of(rows: [[u32; 4]; 4], m: usize) -> ([[u32; 4]; 4], u32) {
        let (b, s) = Board::from_rows(rows).unwrap().slide(m);
        (b.rows(), s)
    }

    fn row_left(row: [u32; 4]) -> ([u32; 4], u32) {
        let (rows, score) = slide_rows_of([row, [0; 4], [0; 4], [0; 4]], LEFT);
        (rows[0], score)
    }

    #[test]
    fn hand_worked_rows_merge_once_per_tile() {
        assert_eq!(row_left([2, 2, 2, 2]), ([4, 4, 0, 0], 8));
        assert_eq!(row_left([2, 2, 4, 0]), ([4, 4, 0, 0], 4));
        assert_eq!(row_left([4, 4, 8, 8]), ([8, 16, 0, 0], 24));
        assert_eq!(row_left([8, 8, 8, 0]), ([16, 8, 0, 0], 16));
        assert_eq!(row_left([4, 0, 0, 4]), ([8, 0, 0, 0], 8));
        assert_eq!(row_left([0, 0, 0, 2]), ([2, 0, 0, 0], 0));
        assert_eq!(row_left([2, 4, 8, 16]), ([2, 4, 8, 16], 0));
        assert_eq!(row_left([0, 2, 0, 2]), ([4, 0, 0, 0], 4));
        assert_eq!(row_left([2, 2, 0, 4]), ([4, 4, 0, 0], 4));
        assert_eq!(row_left([32768, 32768, 2, 2]), ([32768, 32768, 4, 0], 4), "32768s do not merge");
    }

    #[test]
    fn hand_worked_board_in_all_four_directions() {
        let board = [[2, 0, 2, 4], [2, 2, 0, 4], [0, 4, 4, 0], [8, 8, 8, 8]];
        assert_eq!(slide_rows_of(board, LEFT), ([[4, 4, 0, 0], [4, 4, 0, 0], [8, 0, 0, 0], [16, 16, 0, 0]], 48));
        assert_eq!(slide_rows_of(board, RIGHT), ([[0, 0, 4, 4], [0, 0, 4, 4], [0, 0, 0, 8], [0, 0, 16, 16]], 48));
        assert_eq!(slide_rows_of(board, UP), ([[4, 2, 2, 8], [8, 4, 4, 8], [0, 8, 8, 0], [0, 0, 0, 0]], 12));
        assert_eq!(slide_rows_of(board, DOWN), ([[0, 0, 0, 0], [0, 2, 2, 0], [4, 4, 4, 8], [8, 8, 8, 8]], 12));
    }

    #[test]
    fn table_matches_the_reference_slide_in_every_row() {
        let table = &row_table().0;
        for row in 0..=u16::MAX {
            let (left, score) = slide_row_left(row);
            let entry = table[row as usize];
            assert_eq!(entry & 0xffff, left as u64);
            assert_eq!((entry >> 32) as u32, score);
            // Right is left in the mirror, with the same score.
            let (mirrored, mirrored_score) = slide_row_left(reverse_row(row));
            assert_eq!(((entry >> 16) & 0xffff) as u16, reverse_row(mirrored));
            assert_eq!(mirrored_score, score, "row {row:#06x}");
        }
    }

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let mut bits = 0x0123_4567_89ab_cdefu64;
        for _ in 0..100 {
            let b = Board(bits);
            let t = b.transpose();
            for r in 0..4 {
                for c in 0..4 {
                    assert_eq!(t.exponent(4 * c + r), b.exponent(4 * r + c));
                }
            }
            assert_eq!(t.transpose(), b);
            bits = bits.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        }
    }

    #[test]
    fn empty_cells_and_max_tile() {
        let b = Board::from_rows([[0, 2, 0, 0], [4, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2048]]).unwrap();
        assert_eq!(b.empty_cells(), !((1 << 1) | (1 << 4) | (1 << 15)));
        assert_eq!(b.max_tile(), 2048);
        assert_eq!(Board::EMPTY.empty_cells(), u16::MAX);
        assert_eq!(b.with_tile(0, 1).exponent(0), 1);
    }

    #[test]
    fn bad_tiles_are_rejected() {
        assert_eq!(
            Board::from_rows([[0, 3, 0, 0], [0; 4], [0; 4], [0; 4]]),
            Err(EnvError::InvalidTile { cell: 1, value: 3 })
        );
        assert!(Board::from_rows([[0; 4], [0; 4], [0; 4], [0, 0, 0, 1]]).is_err(), "1 is not a tile");
        assert!(Board::from_rows([[65536, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).is_err());
    }
}
