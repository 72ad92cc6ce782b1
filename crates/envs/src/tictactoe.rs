//! Tic-tac-toe, with an exact minimax solver so that tests elsewhere can
//! check that an agent never loses.
//!
//! Cells are numbered row by row, `0 1 2 / 3 4 5 / 6 7 8`; action `c`
//! marks cell `c`. Player 0 (X) always opens, so `reset` ignores its seed.
//!
//! Observation (18 values, from the view of the player to move):
//! `out[c] = 1` where the mover has a mark, `out[9 + c] = 1` where the
//! opponent has one (the layout of pgx's `3x3x2` planes, flattened cell-major
//! per plane).

use crate::line_game::{Stones, after_moves, check_move, write_set_bits};
use crate::{EnvError, Game, Turn};
use std::sync::OnceLock;

/// The eight lines of three, as cell masks.
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];
const FULL: u16 = 0o777;

/// A tic-tac-toe position: two 9-bit masks and the player to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TicTacToe {
    /// Cells marked by player 0 (X) and player 1 (O), whose turn it is
    /// and who has won.
    marks: Stones<u16>,
}

impl TicTacToe {
    /// The empty board, X to move.
    pub const fn new() -> Self {
        Self { marks: Stones::new(0) }
    }

    /// Plays `cells` in order from the empty board (a test helper).
    pub fn from_moves(cells: &[usize]) -> Result<Self, EnvError> {
        after_moves(Self::new(), cells)
    }

    /// The cells `player` has marked, bit `c` for cell `c`.
    pub fn marks(&self, player: usize) -> u16 {
        self.marks.of(player)
    }

    /// The player who completed a line, if any.
    pub fn winner(&self) -> Option<usize> {
        self.marks.winner()
    }

    fn is_over(&self) -> bool {
        self.winner().is_some() || self.marks.occupied() == FULL
    }

    /// Bit `c` is set when cell `c` may be marked now.
    pub fn legal_mask(&self) -> u16 {
        if self.is_over() { 0 } else { !self.marks.occupied() & FULL }
    }

    /// The base-3 index of the board (digit `c` is 0 empty, 1 X, 2 O).
    fn index(&self) -> usize {
        let [x, o] = [self.marks(0), self.marks(1)];
        let mut index = 0;
        for c in (0..9).rev() {
            index = 3 * index + (x >> c & 1) as usize + 2 * (o >> c & 1) as usize;
        }
        index
    }
}

fn has_line(marks: u16) -> bool {
    let mut any = false;
    for line in LINES {
        any |= marks & line == line;
    }
    any
}

impl Game for TicTacToe {
    const NAME: &'static str = "tictactoe";
    const ACTIONS: usize = 9;
    const MAX_LEGAL: usize = 9;
    const MAX_OUTCOMES: usize = 0;
    const OBSERVATION_SIZE: usize = 18;

    fn reset(&mut self, _seed: u64) {
        *self = Self::new();
    }

    fn turn(&self) -> Turn {
        if self.is_over() { Turn::Over } else { Turn::Player(self.marks.mover()) }
    }

    #[track_caller]
    fn legal_actions(&self, out: &mut [u16]) -> usize {
        write_set_bits(self.legal_mask().into(), out)
    }

    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        check_move(self, self.legal_mask().into(), action)?;
        self.marks.place(1 << action, has_line);
        Ok(())
    }

    fn outcome(&self, player: usize) -> Option<f32> {
        self.is_over().then(|| self.marks.result(player))
    }

    #[track_caller]
    fn observe(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::OBSERVATION_SIZE, "tictactoe observe: buffer length");
        let [me, them] = self.marks.movers_view();
        for c in 0..9 {
            out[c] = (me >> c & 1) as f32;
            out[9 + c] = (them >> c & 1) as f32;
        }
    }
}

/// Game-theoretic values of every reachable position, by base-3 index,
/// from the view of the player to move: +1 win, 0 draw, -1 loss.
/// `i8::MIN` marks positions no game reaches.
fn values() -> &'static [i8] {
    static VALUES: OnceLock<Vec<i8>> = OnceLock::new();
    VALUES.get_or_init(|| {
        let mut table = vec![i8::MIN; 19_683];
        solve(&TicTacToe::new(), &mut table);
        table
    })
}

fn solve(game: &TicTacToe, table: &mut [i8]) -> i8 {
    let index = game.index();
    if table[index] != i8::MIN {
        return table[index];
    }
    let value = if game.winner().is_some() {
        // The previous mover completed a line.
        -1
    } else {
        let mut legal = game.legal_mask();
        let mut best = if legal == 0 { 0 } else { -1 };
        while legal != 0 {
            let mut next = *game;
            next.apply(legal.trailing_zeros() as usize).expect("a legal cell");
            best = best.max(-solve(&next, table));
            legal &= legal - 1;
        }
        best
    };
    table[index] = value;
    value
}

/// The value of `game` under perfect play by both sides, from the view of
/// the player to move: +1 a forced win, 0 a draw, -1 a forced loss. At a
/// finished game it is the result for the player who would move next
/// (-1 if the other player just won, 0 for a draw). The first call solves
/// the whole game (5478 positions, well under a millisecond in release).
pub fn minimax_value(game: &TicTacToe) -> i8 {
    let value = values()[game.index()];
    debug_assert!(value != i8::MIN, "tictactoe minimax_value: position reached by no game");
    value
}

/// The cells (bit `c` for cell `c`) whose move keeps the minimax value of
/// the player to move: an agent that always plays one of them never loses
/// a game it could draw, and wins every game it can force. Empty once the
/// game is over.
pub fn best_moves(game: &TicTacToe) -> u16 {
    let target = minimax_value(game);
    let mut legal = game.legal_mask();
    let mut best = 0;
    while legal != 0 {
        let c = legal.trailing_zeros() as usize;
        let mut next = *game;
        next.apply(c).expect("a legal cell");
        if -minimax_value(&next) == target {
            best |= 1 << c;
        }
        legal &= legal - 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_board_is_a_draw_and_every_opening_keeps_it() {
        let empty = TicTacToe::new();
        assert_eq!(minimax_value(&empty), 0);
        // Every first move draws with perfect play.
        assert_eq!(best_moves(&empty), FULL);
        // Reachable positions: 5478, the known count.
        assert_eq!(values().iter().filter(|&&v| v != i8::MIN).count(), 5478);
    }

    #[test]
    fn an_edge_reply_to_a_corner_loses() {
        // X corner 0, O edge 1: X forces a win.
        let game = TicTacToe::from_moves(&[0, 1]).unwrap();
        assert_eq!(minimax_value(&game), 1);
        // Only the centre answers a corner opening without losing.
        let game = TicTacToe::from_moves(&[0]).unwrap();
        assert_eq!(best_moves(&game), 1 << 4);
    }

    #[test]
    fn an_immediate_win_is_found_and_a_threat_must_be_blocked() {
        // X: 0 1, O: 4 8, X to move: 2 wins at once.
        let game = TicTacToe::from_moves(&[0, 4, 1, 8]).unwrap();
        assert_eq!(minimax_value(&game), 1);
        assert_ne!(best_moves(&game) & 1 << 2, 0);
        // X: 0 1, O: 4, O to move must block at 2 (and then draws).
        let game = TicTacToe::from_moves(&[0, 4, 1]).unwrap();
        assert_eq!(best_moves(&game), 1 << 2);
        assert_eq!(minimax_value(&game), 0);
    }

    #[test]
    fn bad_calls_are_errors_and_leave_the_state_alone() {
        let mut game = TicTacToe::from_moves(&[4]).unwrap();
        let before = game;
        assert_eq!(game.apply(4), Err(EnvError::IllegalMove { game: "tictactoe", action: 4 }));
        assert!(matches!(game.apply(9), Err(EnvError::ActionOutOfRange { action: 9, .. })));
        assert!(matches!(game.apply_chance(0), Err(EnvError::WrongTurn { expected: "a chance node", .. })));
        assert_eq!(game, before);
        // X wins on the top row; the game is over for both players.
        let mut won = TicTacToe::from_moves(&[0, 3, 1, 4, 2]).unwrap();
        assert_eq!(won.turn(), Turn::Over);
        assert_eq!((won.outcome(0), won.outcome(1)), (Some(1.0), Some(-1.0)));
        let before = won;
        assert!(matches!(won.apply(5), Err(EnvError::WrongTurn { found: "the game over", .. })));
        assert_eq!(won, before);
        assert_eq!(won.legal_actions(&mut [0; 9]), 0);
        assert_eq!(minimax_value(&won), -1);
    }

    #[test]
    fn a_full_board_without_a_line_is_a_draw() {
        // X O X / X O O / O X X
        let game = TicTacToe::from_moves(&[0, 1, 2, 4, 3, 5, 7, 6, 8]).unwrap();
        assert_eq!(game.winner(), None);
        assert_eq!(game.turn(), Turn::Over);
        assert_eq!((game.outcome(0), game.outcome(1)), (Some(0.0), Some(0.0)));
        assert_eq!(TicTacToe::new().outcome(0), None);
    }

    #[test]
    fn observations_are_from_the_movers_view() {
        let game = TicTacToe::from_moves(&[0, 8]).unwrap();
        let mut out = [0.0; 18];
        game.observe(&mut out);
        // X to move: X's mark at 0 is "mine", O's at 8 is "theirs".
        assert_eq!((out[0], out[9 + 8]), (1.0, 1.0));
        assert_eq!(out.iter().sum::<f32>(), 2.0);
        let game = TicTacToe::from_moves(&[0]).unwrap();
        game.observe(&mut out);
        assert_eq!((out[0], out[9]), (0.0, 1.0));
    }

    #[test]
    fn the_solver_never_loses_to_random_play() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut out = [0u16; 9];
        let mut wins = 0;
        for game_index in 0..2000 {
            let solver = game_index % 2;
            let mut game = TicTacToe::new();
            while let Turn::Player(p) = game.turn() {
                let action = if p == solver {
                    let best = best_moves(&game);
                    assert_ne!(best, 0);
                    best.trailing_zeros() as usize
                } else {
                    let n = game.legal_actions(&mut out);
                    out[rng.random_range(0..n)] as usize
                };
                game.apply(action).unwrap();
            }
            let result = game.outcome(solver).unwrap();
            assert!(result >= 0.0, "the solver lost game {game_index}");
            wins += (result > 0.0) as u32;
        }
        // Random play blunders often; the solver must punish it.
        assert!(wins > 1500, "{wins} wins in 2000");
    }
}
