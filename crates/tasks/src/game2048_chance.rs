//! 2048 as a game of chance for expectimax: a move slides the board (its
//! afterstate, with the merges' score as reward), then a 2 or a 4 appears
//! in an empty cell, every cell alike.

use minnow_envs::Game2048Config;
use minnow_envs::game2048::{Board, MOVE_COUNT};
use minnow_rl::expectimax::{ChanceGame, Move, Outcome};

/// 2048's moves and spawns as [`ChanceGame`] sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game2048Chance {
    four_probability: f32,
}

impl Game2048Chance {
    /// The spawns of the game `config` describes (its chance of a 4).
    pub fn new(config: &Game2048Config) -> Self {
        Self { four_probability: config.four_probability as f32 }
    }
}

impl ChanceGame for Game2048Chance {
    type State = Board;
    const MAX_MOVES: usize = MOVE_COUNT;
    /// A 2 or a 4 in each of at most 16 empty cells.
    const MAX_OUTCOMES: usize = 32;

    /// The legal moves in action order (left, right, up, down), as the
    /// greedy player breaks ties.
    fn moves(&self, board: Board, out: &mut [Move<Board>]) -> usize {
        let (after, gains) = board.slides();
        let mut count = 0;
        for m in 0..MOVE_COUNT {
            if after[m] != board {
                out[count] = Move { action: m, after: after[m], reward: gains[m] as f32 };
                count += 1;
            }
        }
        count
    }

    /// A 2 with probability `(1 - p4) / empty` and a 4 with `p4 / empty`
    /// in each empty cell; an outcome of probability 0 (`p4` 0 or 1) is
    /// left out. A board with no empty cell (not an afterstate of a legal
    /// move) stays as it is.
    fn outcomes(&self, after: Board, out: &mut [Outcome<Board>]) -> usize {
        let mut empty = after.empty_cells();
        if empty == 0 {
            out[0] = Outcome { probability: 1.0, state: after };
            return 1;
        }
        let share = 1.0 / empty.count_ones() as f32;
        let mut count = 0;
        while empty != 0 {
            let cell = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            for (exponent, p) in [(1, 1.0 - self.four_probability), (2, self.four_probability)] {
                if p > 0.0 {
                    out[count] = Outcome { probability: p * share, state: after.with_tile(cell, exponent) };
                    count += 1;
                }
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spawns_probabilities_sum_to_one_and_cover_every_empty_cell() {
        let mut out = [Outcome::default(); Game2048Chance::MAX_OUTCOMES];
        let boards = [
            Board::EMPTY,
            Board::from_rows([[2, 4, 0, 0], [0, 0, 8, 0], [0; 4], [0, 0, 0, 2]]).unwrap(),
            Board::from_rows([[2, 4, 8, 16], [4, 8, 16, 32], [8, 16, 32, 64], [16, 32, 64, 0]]).unwrap(),
        ];
        for four in [0.0, 0.1, 1.0] {
            let game = Game2048Chance::new(&Game2048Config { four_probability: four, ..Game2048Config::default() });
            for board in boards {
                let n = game.outcomes(board, &mut out);
                let total: f32 = out[..n].iter().map(|o| o.probability).sum();
                assert!((total - 1.0).abs() < 1e-5, "{board:?}, p4 {four}: {total}");
                let kinds = if four == 0.1 { 2 } else { 1 };
                assert_eq!(n, kinds * board.empty_cells().count_ones() as usize);
                for o in &out[..n] {
                    assert_eq!(o.state.empty_cells().count_ones() + 1, board.empty_cells().count_ones());
                }
            }
        }
    }

    #[test]
    fn the_moves_are_the_legal_slides_in_action_order() {
        let game = Game2048Chance::new(&Game2048Config::default());
        let board = Board::from_rows([[2, 4, 0, 0], [4, 2, 0, 0], [0; 4], [0; 4]]).unwrap();
        let mut out = [Move::default(); MOVE_COUNT];
        let n = game.moves(board, &mut out);
        let actions: Vec<usize> = out[..n].iter().map(|m| m.action).collect();
        assert_eq!(actions, [minnow_envs::game2048::RIGHT, minnow_envs::game2048::DOWN]);
        assert_eq!(out[0].after, board.slide(minnow_envs::game2048::RIGHT).0);
    }
}
