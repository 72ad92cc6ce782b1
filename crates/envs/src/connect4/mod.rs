//! Connect four on the standard 7-column, 6-row board, on bitboards.
//!
//! Action `c` (0..7) drops a stone into column `c`, counted from the left;
//! a full column is illegal. Player 0 always opens, so `reset` ignores its
//! seed. Four in a row (vertical, horizontal or diagonal) wins; a full
//! board without one is a draw.
//!
//! Bit `7 * c + r` stands for column `c`, row `r` (row 0 at the bottom);
//! bit `7 * c + 6` is a sentinel row that stays empty, so shifting a board
//! by 1 (vertical), 7 (horizontal), 6 or 8 (the diagonals) never carries a
//! line from one column into the next. Win detection is two shifts and
//! two ANDs per direction.
//!
//! Observation (168 values, four planes of 42 from the view of the player
//! to move, each indexed `7 * r + c` for row `r` (0 at the bottom) and
//! column `c`): the mover's stones, the opponent's stones, the empty cells
//! where a mover's stone would complete four, and those where an
//! opponent's would. The last two planes are the threats that decide
//! connect four (whose threat sits on an odd or an even row, and above
//! which empty cells); a small fully connected network does not find
//! four-in-a-row patterns from the stones alone, so they are given.

pub mod pons;

use crate::line_game::{Stones, after_moves, check_move, write_set_bits};
use crate::{EnvError, Game, Turn};

/// Columns of the board.
pub const COLUMNS: usize = 7;
/// Rows of the board.
pub const ROWS: usize = 6;
/// Bits per column: six rows and the empty sentinel.
const HEIGHT: usize = ROWS + 1;
/// The bottom cell of every column.
const BOTTOM: u64 = 0x0408_1020_4081;
/// The top playable cell of every column.
const TOP: u64 = BOTTOM << (ROWS - 1);
/// Every playable cell.
const BOARD: u64 = BOTTOM * ((1 << ROWS) - 1);

const fn column(c: usize) -> u64 {
    ((1 << ROWS) - 1) << (HEIGHT * c)
}

/// Whether `stones` holds four in a row in any direction.
#[inline]
pub fn has_four(stones: u64) -> bool {
    let mut four = 0;
    for shift in [1, HEIGHT, HEIGHT - 1, HEIGHT + 1] {
        let pairs = stones & stones >> shift;
        four |= pairs & pairs >> (2 * shift);
    }
    four != 0
}

/// The empty cells where one more stone of `stones` would complete four in
/// a row, whether or not the cell can be played now.
#[inline]
pub fn completing_cells(stones: u64, occupied: u64) -> u64 {
    // Vertical: three stones straight below.
    let mut cells = stones << 1 & stones << 2 & stones << 3;
    for shift in [HEIGHT, HEIGHT - 1, HEIGHT + 1] {
        // Two stones on one side, and a third beyond them or on the other side.
        let pair = stones << shift & stones << (2 * shift);
        cells |= pair & stones << (3 * shift);
        cells |= pair & stones >> shift;
        let pair = stones >> shift & stones >> (2 * shift);
        cells |= pair & stones << shift;
        cells |= pair & stones >> (3 * shift);
    }
    cells & BOARD & !occupied
}

/// A connect-four position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConnectFour {
    stones: Stones<u64>,
}

impl ConnectFour {
    /// The empty board, player 0 to move.
    pub const fn new() -> Self {
        Self { stones: Stones::new(0) }
    }

    /// Plays `columns` in order from the empty board (a test helper).
    pub fn from_moves(columns: &[usize]) -> Result<Self, EnvError> {
        after_moves(Self::new(), columns)
    }

    /// The stones of `player`, bit `7 * column + row`.
    pub fn stones(&self, player: usize) -> u64 {
        self.stones.of(player)
    }

    /// The player with four in a row, if any.
    pub fn winner(&self) -> Option<usize> {
        self.stones.winner()
    }

    /// Stones on the board.
    pub fn moves(&self) -> u32 {
        self.occupied().count_ones()
    }

    fn occupied(&self) -> u64 {
        self.stones.occupied()
    }

    fn is_over(&self) -> bool {
        self.winner().is_some() || self.occupied() == BOARD
    }

    /// Bit `c` is set when column `c` takes a stone now.
    pub fn legal_mask(&self) -> u8 {
        if self.winner().is_some() {
            return 0;
        }
        let open = !self.occupied() & TOP;
        let mut mask = 0;
        for c in 0..COLUMNS {
            mask |= ((open >> (HEIGHT * c + ROWS - 1)) as u8 & 1) << c;
        }
        mask
    }
}

impl Game for ConnectFour {
    const NAME: &'static str = "connect4";
    const ACTIONS: usize = COLUMNS;
    const MAX_LEGAL: usize = COLUMNS;
    const MAX_OUTCOMES: usize = 0;
    const OBSERVATION_SIZE: usize = 4 * ROWS * COLUMNS;

    fn reset(&mut self, _seed: u64) {
        *self = Self::new();
    }

    fn turn(&self) -> Turn {
        if self.is_over() { Turn::Over } else { Turn::Player(self.stones.mover()) }
    }

    #[track_caller]
    fn legal_actions(&self, out: &mut [u16]) -> usize {
        write_set_bits(self.legal_mask().into(), out)
    }

    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        check_move(self, self.legal_mask().into(), action)?;
        let occupied = self.occupied();
        // Adding the column's bottom bit carries through its filled cells
        // into the lowest empty one.
        let stone = (occupied + (1 << (HEIGHT * action))) & column(action) & !occupied;
        self.stones.place(stone, has_four);
        Ok(())
    }

    fn outcome(&self, player: usize) -> Option<f32> {
        self.is_over().then(|| self.stones.result(player))
    }

    #[track_caller]
    fn observe(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::OBSERVATION_SIZE, "connect4 observe: buffer length");
        let [me, them] = self.stones.movers_view();
        let occupied = self.occupied();
        let planes = [me, them, completing_cells(me, occupied), completing_cells(them, occupied)];
        for (plane, bits) in out.chunks_exact_mut(ROWS * COLUMNS).zip(planes) {
            for r in 0..ROWS {
                for c in 0..COLUMNS {
                    plane[COLUMNS * r + c] = (bits >> (HEIGHT * c + r) & 1) as f32;
                }
            }
        }
    }

    /// Left-right: the rules do not tell the columns apart.
    const MIRRORED: bool = true;

    #[track_caller]
    fn mirror(obs: &mut [f32], policy: &mut [f32]) {
        assert!(
            obs.len() == Self::OBSERVATION_SIZE && policy.len() == Self::ACTIONS,
            "connect4 mirror: buffer lengths"
        );
        obs.chunks_exact_mut(COLUMNS).for_each(|row| row.reverse());
        policy.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Four in a row by scanning the grid cell by cell.
    fn naive_four(stones: u64) -> bool {
        let at =
            |r: i32, c: i32| (0..ROWS as i32).contains(&r) && (0..7).contains(&c) && stones >> (7 * c + r) & 1 == 1;
        for r in 0..ROWS as i32 {
            for c in 0..COLUMNS as i32 {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..4).all(|k| at(r + dr * k, c + dc * k)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    #[test]
    fn mirror_maps_a_position_onto_the_one_played_in_mirrored_columns() {
        let moves = [3, 0, 1, 1, 6, 5, 2, 2];
        let game = ConnectFour::from_moves(&moves).unwrap();
        let mirrored = ConnectFour::from_moves(&moves.map(|c| COLUMNS - 1 - c)).unwrap();
        let mut obs = [0.0; ConnectFour::OBSERVATION_SIZE];
        let mut expected = obs;
        game.observe(&mut obs);
        mirrored.observe(&mut expected);
        let mut policy = [0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.25];
        ConnectFour::mirror(&mut obs, &mut policy);
        assert_eq!(obs, expected);
        assert_eq!(policy, [0.25, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5]);
    }

    #[test]
    fn every_direction_wins() {
        // Vertical in column 3.
        let game = ConnectFour::from_moves(&[3, 4, 3, 4, 3, 4, 3]).unwrap();
        assert_eq!(game.winner(), Some(0));
        // Horizontal along the bottom, columns 3..=6.
        let game = ConnectFour::from_moves(&[3, 3, 4, 4, 5, 5, 6]).unwrap();
        assert_eq!(game.winner(), Some(0));
        // Rising diagonal (0,0) (1,1) (2,2) (3,3) for player 0.
        let game = ConnectFour::from_moves(&[0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3]).unwrap();
        assert_eq!(game.winner(), Some(0));
        // Falling diagonal (6,0) (5,1) (4,2) (3,3) for player 0.
        let game = ConnectFour::from_moves(&[6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3]).unwrap();
        assert_eq!(game.winner(), Some(0));
        assert_eq!((game.outcome(0), game.outcome(1)), (Some(1.0), Some(-1.0)));
        assert_eq!(game.turn(), Turn::Over);
    }

    #[test]
    fn lines_do_not_wrap_between_columns() {
        // Column 0 rows 3..6 and column 1 rows 0..1: four consecutive bits
        // across the sentinel, not a line.
        let stones = 0b111000 | 0b1 << 7;
        assert!(!has_four(stones) && !naive_four(stones));
        // The top three of column 0 and the bottom of column 1 likewise.
        assert!(!has_four(0b111000 | 1 << 7 | 1 << 8));
    }

    #[test]
    fn bitboard_wins_match_a_naive_scan_over_random_games() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut actions = [0u16; 7];
        let (mut draws, mut wins) = (0, 0);
        for _ in 0..3000 {
            let mut game = ConnectFour::new();
            while let Turn::Player(p) = game.turn() {
                let n = game.legal_actions(&mut actions);
                game.apply(actions[rng.random_range(0..n)] as usize).unwrap();
                assert_eq!(has_four(game.stones(p)), naive_four(game.stones(p)));
                assert!(!naive_four(game.stones(1 - p)));
                assert_eq!(game.stones(0) & game.stones(1), 0);
                assert_eq!(game.moves(), (game.stones(0) | game.stones(1)).count_ones());
            }
            match game.winner() {
                Some(_) => wins += 1,
                None => draws += 1,
            }
        }
        assert!(wins > 2500 && draws < 500, "{wins} wins, {draws} draws");
    }

    #[test]
    fn a_full_board_without_four_is_a_draw() {
        let moves = [
            4, 3, 6, 0, 1, 4, 5, 5, 1, 1, 5, 0, 1, 6, 0, 1, 5, 5, 1, 0, 4, 6, 3, 2, 6, 6, 0, 4, 6, 5, 2, 0, 4, 2, 4, 2,
            2, 2, 3, 3, 3, 3,
        ];
        let mut game = ConnectFour::from_moves(&moves[..41]).unwrap();
        assert_eq!(game.legal_mask(), 1 << 3);
        assert_eq!(game.outcome(0), None);
        game.apply(3).unwrap();
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!((game.outcome(0), game.outcome(1)), (Some(0.0), Some(0.0)));
        assert_eq!(game.legal_actions(&mut [0; 7]), 0);
    }

    #[test]
    fn bad_calls_are_errors_and_leave_the_state_alone() {
        let mut game = ConnectFour::from_moves(&[2, 2, 2, 2, 2, 2]).unwrap();
        let before = game;
        assert_eq!(game.legal_mask(), 0b1111011);
        assert_eq!(game.apply(2), Err(EnvError::IllegalMove { game: "connect4", action: 2 }));
        assert!(matches!(game.apply(7), Err(EnvError::ActionOutOfRange { action: 7, .. })));
        assert!(matches!(game.apply_chance(0), Err(EnvError::WrongTurn { expected: "a chance node", .. })));
        assert_eq!(game, before);
        let mut won = ConnectFour::from_moves(&[3, 4, 3, 4, 3, 4, 3]).unwrap();
        let before = won;
        assert!(matches!(won.apply(0), Err(EnvError::WrongTurn { found: "the game over", .. })));
        assert_eq!(won, before);
    }

    #[test]
    fn observations_are_from_the_movers_view() {
        // Player 0 in column 0, player 1 on top of it; player 0 to move.
        let game = ConnectFour::from_moves(&[0, 0]).unwrap();
        let mut out = [0.0; 168];
        game.observe(&mut out);
        assert_eq!((out[0], out[42 + 7]), (1.0, 1.0));
        assert_eq!(out.iter().sum::<f32>(), 2.0);
        let game = ConnectFour::from_moves(&[6]).unwrap();
        game.observe(&mut out);
        assert_eq!((out[6], out[42 + 6]), (0.0, 1.0));
        // Player 0 to move with three along the bottom (columns 1-3): four
        // at column 0 or 4, row 0; player 1 has three up column 6: four at
        // its row 3.
        let game = ConnectFour::from_moves(&[1, 6, 2, 6, 3, 6]).unwrap();
        game.observe(&mut out);
        let ones = |plane: &[f32]| (0..plane.len()).filter(|&i| plane[i] == 1.0).collect::<Vec<_>>();
        assert_eq!(ones(&out[84..126]), [0, 4], "the mover's completing cells");
        assert_eq!(ones(&out[126..]), [7 * 3 + 6], "the opponent's completing cells");
    }

    /// The empty cells where a stone completes four, by trying each one.
    fn naive_completing(stones: u64, occupied: u64) -> u64 {
        let mut cells = 0;
        for c in 0..COLUMNS {
            for r in 0..ROWS {
                let bit = 1 << (HEIGHT * c + r);
                if occupied & bit == 0 && naive_four(stones | bit) {
                    cells |= bit;
                }
            }
        }
        cells
    }

    #[test]
    fn completing_cells_match_trying_every_empty_cell_over_random_games() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut actions = [0u16; 7];
        let mut threats = 0;
        for _ in 0..1000 {
            let mut game = ConnectFour::new();
            while let Turn::Player(_) = game.turn() {
                let n = game.legal_actions(&mut actions);
                game.apply(actions[rng.random_range(0..n)] as usize).unwrap();
                // (Once a player has four, every empty cell "completes" one.)
                for p in (0..2).filter(|&p| !has_four(game.stones(p))) {
                    let cells = completing_cells(game.stones(p), game.occupied());
                    assert_eq!(cells, naive_completing(game.stones(p), game.occupied()));
                    threats += cells.count_ones();
                }
            }
        }
        assert!(threats > 10_000, "{threats} threats seen: the test would not catch a missing direction");
    }
}
