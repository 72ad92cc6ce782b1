//! What tic-tac-toe and connect four share: two players take turns placing
//! a stone, each player's stones a bitboard; the first to complete a line
//! wins, and a full board without one is a draw.

use crate::game::check_player_turn;
use crate::{EnvError, Game};
use std::ops::{BitOr, BitOrAssign};

const NO_WINNER: u8 = 2;

/// Both players' stones, whose turn it is and who has won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Stones<B> {
    /// The stones of player 0 and player 1.
    by_player: [B; 2],
    to_move: u8,
    /// 0 or 1 once a player has completed a line, else [`NO_WINNER`].
    winner: u8,
}

impl<B: Copy> Stones<B> {
    /// The board with no stones (`empty`), player 0 to move.
    pub const fn new(empty: B) -> Self {
        Self { by_player: [empty, empty], to_move: 0, winner: NO_WINNER }
    }
}

impl<B: Copy + Default> Default for Stones<B> {
    fn default() -> Self {
        Self::new(B::default())
    }
}

impl<B: Copy + BitOr<Output = B> + BitOrAssign> Stones<B> {
    /// The stones of `player`.
    pub fn of(&self, player: usize) -> B {
        self.by_player[player]
    }

    /// The stones of the player to move, then the opponent's.
    pub fn movers_view(&self) -> [B; 2] {
        [self.by_player[self.mover()], self.by_player[1 - self.mover()]]
    }

    /// Every cell holding a stone.
    pub fn occupied(&self) -> B {
        self.by_player[0] | self.by_player[1]
    }

    /// The player to move (whether or not the game is over).
    pub fn mover(&self) -> usize {
        self.to_move as usize
    }

    /// The player who completed a line, if any.
    pub fn winner(&self) -> Option<usize> {
        (self.winner != NO_WINNER).then_some(self.winner as usize)
    }

    /// Adds `stone` to the mover's stones, makes them the winner if
    /// `completes_line` says they now hold a line, and passes the turn.
    pub fn place(&mut self, stone: B, completes_line: impl Fn(B) -> bool) {
        let mover = self.mover();
        self.by_player[mover] |= stone;
        if completes_line(self.by_player[mover]) {
            self.winner = mover as u8;
        }
        self.to_move ^= 1;
    }

    /// The result for `player` of a finished game: +1 a win, -1 a loss, 0 a draw.
    pub fn result(&self, player: usize) -> f32 {
        match self.winner() {
            None => 0.0,
            Some(w) if w == player => 1.0,
            Some(_) => -1.0,
        }
    }
}

/// The checks of [`Game::apply`] for a game whose legal actions are the
/// set bits of `legal`.
pub(crate) fn check_move<G: Game>(game: &G, legal: u64, action: usize) -> Result<(), EnvError> {
    check_player_turn(game, action)?;
    if legal >> action & 1 == 0 {
        return Err(EnvError::IllegalMove { game: G::NAME, action });
    }
    Ok(())
}

/// [`Game::legal_actions`] for a game whose legal actions are the set
/// bits of `legal`: writes them ascending into `out`, returns how many.
#[track_caller]
pub(crate) fn write_set_bits(mut legal: u64, out: &mut [u16]) -> usize {
    let mut n = 0;
    while legal != 0 {
        out[n] = legal.trailing_zeros() as u16;
        legal &= legal - 1;
        n += 1;
    }
    n
}

/// `game` after `moves`, played in order (a test helper).
pub(crate) fn after_moves<G: Game>(mut game: G, moves: &[usize]) -> Result<G, EnvError> {
    for &action in moves {
        game.apply(action)?;
    }
    Ok(game)
}
