//! The rest of a turn: the unused dice and which single-die moves still
//! belong to some maximal play.
//!
//! The rules make a whole play legal only if it uses as many dice as any
//! play could, and, when only one of two different dice can be used, the
//! larger one if it can. Played one die at a time, that becomes: at the
//! start of the turn find `need`, the length of the longest play; then a
//! single-die move is legal exactly when `need - 1` more dice can still be
//! played after it. When `need` is 1 and both dice of a non-double are
//! still unused, only the larger die may move if it can. A move that bears
//! off the last checker completes any play (the game is over).

use super::position::Position;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct MovesLeft {
    /// Unused dice, counted by value (index `die - 1`).
    pub left: [u8; 6],
    /// Single-die moves still to play before the turn ends.
    pub need: u8,
    /// The legal moves by die (index `die - 1`): a mask of sources, bit `p`
    /// for point `p` and bit [`super::position::BAR`] for the bar.
    pub legal: [u32; 6],
}

impl MovesLeft {
    /// The moves of a fresh roll of `low` and `high` pips; `need` is 0 when
    /// no die can be played at all.
    pub fn start(position: &Position, low: u8, high: u8) -> Self {
        let mut left = [0; 6];
        let longest = if low == high {
            left[low as usize - 1] = 4;
            4
        } else {
            left[low as usize - 1] = 1;
            left[high as usize - 1] = 1;
            2
        };
        let mut moves = Self { left, need: 0, legal: [0; 6] };
        // Positions where the full roll cannot be played are rare, so the
        // longest length is usually the first one tried.
        for need in (1..=longest).rev() {
            moves.need = need;
            moves.refresh(position);
            if moves.any() {
                return moves;
            }
        }
        moves.need = 0;
        moves
    }

    /// Records that `die` was played, leading to `position`.
    pub fn played(&mut self, position: &Position, die: u32) {
        self.left[die as usize - 1] -= 1;
        self.need -= 1;
        self.refresh(position);
    }

    pub fn any(&self) -> bool {
        self.legal.iter().any(|&l| l != 0)
    }

    fn refresh(&mut self, position: &Position) {
        self.legal = [0; 6];
        if self.need == 0 {
            return;
        }
        let mut sources = [0; 6];
        for d in 0..6 {
            if self.left[d] > 0 {
                sources[d] = position.moves(d as u32 + 1);
            }
        }
        if self.need == 1 {
            self.legal = sources;
        } else {
            // With nobody on the bar, moving one checker forward never takes
            // a move away from another checker: it closes no point, cannot
            // undo "all home", and leaves the rearmost checker rearmost
            // unless it is that checker. So when one more die is needed and
            // some other checker can play it now, any first move is fine;
            // and with a double, when `need` checkers can move now, any
            // move is the first of a full play.
            let no_bar = position.bar()[0] == 0;
            let double = self.left.iter().filter(|&&n| n > 0).count() == 1;
            for d in 0..6 {
                let mut rest = self.left;
                if rest[d] == 0 {
                    continue;
                }
                rest[d] -= 1;
                // The sources of the dice still to come after this one.
                let others = (0..6).filter(|&e| rest[e] > 0).fold(0, |m, e| m | sources[e]);
                if no_bar && double && position.checkers_on(sources[d]) >= self.need as u32 {
                    self.legal[d] = sources[d];
                    continue;
                }
                let mut remaining = sources[d];
                while remaining != 0 {
                    let source = remaining.trailing_zeros();
                    remaining &= remaining - 1;
                    if self.need == 2 && no_bar {
                        let shared = position.points()[source as usize] >= 2;
                        if others & !(1 << source) != 0 || shared && others >> source & 1 == 1 {
                            self.legal[d] |= 1 << source;
                            continue;
                        }
                    }
                    let mut next = *position;
                    next.play(source, d as u32 + 1);
                    if next.can_play(rest, self.need as u32 - 1) {
                        self.legal[d] |= 1 << source;
                    }
                }
            }
        }
        if self.need == 1 {
            // Two different dice unused with one move to play: the roll
            // cannot be played in full, so the larger die goes if it can.
            let low = self.left.iter().position(|&n| n > 0);
            let high = self.left.iter().rposition(|&n| n > 0);
            if let (Some(low), Some(high)) = (low, high)
                && low != high
                && self.legal[high] != 0
            {
                self.legal[low] = 0;
            }
        }
    }
}
