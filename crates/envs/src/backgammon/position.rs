//! The checkers, always seen from the player on roll, with point masks
//! (kept up to date move by move, mirrored when the turn passes) that make
//! move generation a handful of bit operations.

use crate::EnvError;

/// Checkers per player.
pub const CHECKERS: u8 = 15;
/// Points on the board.
pub const POINTS: usize = 24;
/// Source bit of the bar in a move mask (points use bits 0..24).
pub(super) const BAR: u32 = 24;
const ALL_POINTS: u32 = (1 << POINTS) - 1;
/// The mover's home board: points 18..24.
const HOME: u32 = 0b111111 << 18;

/// A backgammon position from the view of the player on roll (the mover).
///
/// Points are numbered 0..24 in the mover's direction of travel: the
/// mover's checkers run from point 0 (the opponent's home board, where they
/// enter from the bar) to point 23 and bear off past it, so the mover's
/// home board is 18..24 and a checker on point `p` is `24 - p` pips from
/// home (point 23 is the mover's "1-point", point 0 the "24-point"). This
/// is pgx's board orientation.
///
/// `points[p] > 0` counts the mover's checkers on `p`, `points[p] < 0` the
/// opponent's. `bar` and `off` are `[mover, opponent]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    points: [i8; POINTS],
    bar: [u8; 2],
    off: [u8; 2],
    /// Bit `p`: the mover has a checker on `p`.
    mine: u32,
    /// Bit `p`: the mover has two or more checkers on `p`.
    mine_made: u32,
    /// Bit `p`: the opponent has a checker on `p`.
    theirs: u32,
    /// Bit `p`: the opponent holds `p` with two or more checkers.
    blocked: u32,
}

/// A 24-point mask seen from the other side (point `p` becomes `23 - p`).
#[inline]
fn mirror(mask: u32) -> u32 {
    mask.reverse_bits() >> (32 - POINTS)
}

impl Position {
    /// The starting position (symmetric, so the same for either player):
    /// two checkers on the 24-point, five on the 13-point, three on the
    /// 8-point, five on the 6-point.
    pub fn start() -> Self {
        let mut points = [0; POINTS];
        for (p, n) in [(0, 2), (11, 5), (16, 3), (18, 5)] {
            points[p] = n;
            points[23 - p] = -n;
        }
        Self::from_parts_unchecked(points, [0, 0], [0, 0])
    }

    /// A position from its parts: an error unless each player has exactly
    /// 15 checkers on the points, the bar and off the board.
    pub fn new(points: [i8; POINTS], bar: [u8; 2], off: [u8; 2]) -> Result<Self, EnvError> {
        for player in 0..2 {
            let sign = if player == 0 { 1 } else { -1 };
            let on_points: i32 = points.iter().map(|&n| (n as i32 * sign).max(0)).sum();
            let found = on_points + bar[player] as i32 + off[player] as i32;
            if found != CHECKERS as i32 {
                return Err(EnvError::CheckerCount { game: "backgammon", player, found: found as u32 });
            }
        }
        Ok(Self::from_parts_unchecked(points, bar, off))
    }

    fn from_parts_unchecked(points: [i8; POINTS], bar: [u8; 2], off: [u8; 2]) -> Self {
        let mut position = Self { points, bar, off, mine: 0, mine_made: 0, theirs: 0, blocked: 0 };
        position.refresh_masks();
        position
    }

    fn refresh_masks(&mut self) {
        (self.mine, self.mine_made, self.theirs, self.blocked) = (0, 0, 0, 0);
        for (p, &n) in self.points.iter().enumerate() {
            self.mine |= ((n > 0) as u32) << p;
            self.mine_made |= ((n >= 2) as u32) << p;
            self.theirs |= ((n < 0) as u32) << p;
            self.blocked |= ((n <= -2) as u32) << p;
        }
    }

    /// Whether the incrementally kept masks match the points.
    #[cfg(test)]
    pub(super) fn masks_match_points(&self) -> bool {
        let mut fresh = *self;
        fresh.refresh_masks();
        fresh == *self
    }

    /// Checkers on each point: positive the mover's, negative the opponent's.
    pub fn points(&self) -> &[i8; POINTS] {
        &self.points
    }

    /// Checkers on the bar, `[mover, opponent]`.
    pub fn bar(&self) -> [u8; 2] {
        self.bar
    }

    /// Checkers borne off, `[mover, opponent]`.
    pub fn off(&self) -> [u8; 2] {
        self.off
    }

    /// Checkers of `[mover, opponent]` on the points, the bar and off: 15
    /// each in every legal position.
    pub fn checkers(&self) -> [u32; 2] {
        let (mut mine, mut theirs) = (0i32, 0i32);
        for &n in &self.points {
            mine += (n as i32).max(0);
            theirs -= (n as i32).min(0);
        }
        [mine as u32 + self.bar[0] as u32 + self.off[0] as u32, theirs as u32 + self.bar[1] as u32 + self.off[1] as u32]
    }

    /// The same position seen by the opponent.
    pub fn flipped(&self) -> Self {
        let mut points = self.points;
        points.reverse();
        for n in &mut points {
            *n = -*n;
        }
        Self {
            points,
            bar: [self.bar[1], self.bar[0]],
            off: [self.off[1], self.off[0]],
            mine: mirror(self.theirs),
            mine_made: mirror(self.blocked),
            theirs: mirror(self.mine),
            blocked: mirror(self.mine_made),
        }
    }

    /// The mover's sources that can play a die of `die` pips (1..=6), as a
    /// mask: bit `p` for point `p`, bit [`BAR`] for the bar.
    ///
    /// A checker on the bar must enter first (onto point `die - 1`), and
    /// then nothing else moves. A checker moves to any point not held by
    /// two or more opposing checkers. Once all the mover's checkers are in
    /// the home board, a checker bears off with the exact die, or with a
    /// larger die from the rearmost occupied point.
    #[inline]
    pub(super) fn moves(&self, die: u32) -> u32 {
        debug_assert!((1..=6).contains(&die), "backgammon moves: die {die}");
        if self.bar[0] > 0 {
            return ((self.blocked >> (die - 1) & 1) ^ 1) << BAR;
        }
        // Bit p of `open >> die` says whether p + die is open; points past
        // 23 shift out.
        let open = !self.blocked & ALL_POINTS;
        let mut sources = self.mine & open >> die;
        if self.mine & !HOME == 0 && self.mine != 0 {
            sources |= self.mine & 1 << (POINTS as u32 - die);
            let rear = self.mine.trailing_zeros();
            if POINTS as u32 - rear < die {
                sources |= 1 << rear;
            }
        }
        sources
    }

    /// Plays `die` from `source` (a point or [`BAR`]); the move must be one
    /// that [`Position::moves`] lists. A lone opposing checker on the
    /// target goes to the bar.
    #[inline]
    pub(super) fn play(&mut self, source: u32, die: u32) {
        let to = if source == BAR {
            self.bar[0] -= 1;
            die - 1
        } else {
            let from = &mut self.points[source as usize];
            *from -= 1;
            if *from < 2 {
                self.mine_made &= !(1 << source);
                if *from == 0 {
                    self.mine &= !(1 << source);
                }
            }
            source + die
        };
        if to >= POINTS as u32 {
            self.off[0] += 1;
            return;
        }
        let target = &mut self.points[to as usize];
        if *target < 0 {
            debug_assert_eq!(*target, -1, "backgammon play: a move onto a held point");
            *target = 0;
            self.bar[1] += 1;
            self.theirs &= !(1 << to);
        }
        *target += 1;
        self.mine |= 1 << to;
        if *target >= 2 {
            self.mine_made |= 1 << to;
        }
    }

    /// Checkers on the mover's `sources` (points only).
    #[inline]
    pub(super) fn checkers_on(&self, mut sources: u32) -> u32 {
        let mut n = 0;
        while sources != 0 {
            n += self.points[sources.trailing_zeros() as usize] as u32;
            sources &= sources - 1;
        }
        n
    }

    /// Whether some order of `k` of the dice in `left` (counts per die
    /// value, index `die - 1`) can be played from here. Bearing off the
    /// last checker ends the game, and counts as playing the rest.
    pub(super) fn can_play(&self, left: [u8; 6], k: u32) -> bool {
        if k == 0 || self.mover_is_home() {
            return true;
        }
        if self.bar[0] == 0 && k > 1 {
            // All left dice alike (a double): with nobody on the bar, a
            // move never takes another checker's move away (see
            // `MovesLeft::refresh`), so k checkers that can move now can
            // move one after another.
            let first = left.iter().position(|&n| n > 0);
            if let Some(d) = first
                && left[d] as u32 >= k
                && self.checkers_on(self.moves(d as u32 + 1)) >= k
            {
                return true;
            }
        }
        for d in 0..6 {
            if left[d] == 0 {
                continue;
            }
            let mut sources = self.moves(d as u32 + 1);
            if k == 1 {
                if sources != 0 {
                    return true;
                }
                continue;
            }
            let mut rest = left;
            rest[d] -= 1;
            while sources != 0 {
                let mut next = *self;
                next.play(sources.trailing_zeros(), d as u32 + 1);
                if next.can_play(rest, k - 1) {
                    return true;
                }
                sources &= sources - 1;
            }
        }
        false
    }

    /// The mover has borne off every checker.
    pub(super) fn mover_is_home(&self) -> bool {
        self.off[0] == CHECKERS
    }

    /// The stake when the mover has just borne off the last checker:
    /// 1 for a single game, 2 for a gammon (the opponent has borne off
    /// none), 3 for a backgammon (a gammon with an opposing checker on the
    /// bar or in the mover's home board).
    pub(super) fn win_value(&self) -> f32 {
        if self.off[1] > 0 {
            1.0
        } else if self.bar[1] > 0 || self.points[18..].iter().any(|&n| n < 0) {
            3.0
        } else {
            2.0
        }
    }
}
