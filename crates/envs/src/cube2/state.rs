//! The 2x2x2 cube at the cubie level: which corner cubie sits at each
//! corner position and how it is twisted. Conventions follow Kociemba's
//! cubie model (positions URF, UFL, ULB, UBR, DFR, DLF, then DRB and DBL
//! swapped so the fixed reference corner DBL is last). Only the faces that
//! do not hold DBL turn (U, R, F), so DBL never moves and every state is
//! already in the one orientation of the whole cube that keeps DBL fixed.

use crate::EnvError;
use rand::Rng;

/// Number of moves: quarter turns of U, R and F, each in both directions.
pub const MOVE_COUNT: usize = 6;
/// Move names in action order: a clockwise turn (seen from outside the
/// face) and its inverse are neighbours, so `inverse(m) == m ^ 1`.
pub const MOVE_NAMES: [&str; MOVE_COUNT] = ["U", "U'", "R", "R'", "F", "F'"];
/// 7! placements of the free corners times 3^6 twists (the seventh twist
/// follows from the other six).
pub const STATE_COUNT: usize = 3_674_160;
/// Stickers times colours: the one-hot observation length.
pub const OBSERVATION_SIZE: usize = 24 * 6;

pub(crate) const PERM_COUNT: usize = 5040;
pub(crate) const TWIST_COUNT: usize = 729;

/// The move that undoes `m`.
pub fn inverse(m: usize) -> usize {
    m ^ 1
}

// Corner positions and cubies.
const URF: u8 = 0;
const UFL: u8 = 1;
const ULB: u8 = 2;
const UBR: u8 = 3;
const DFR: u8 = 4;
const DLF: u8 = 5;
const DRB: u8 = 6;
const DBL: u8 = 7;

// Faces, which are also the sticker colours.
const U: u8 = 0;
const R: u8 = 1;
const F: u8 = 2;
const D: u8 = 3;
const L: u8 = 4;
const B: u8 = 5;

/// The stickers of each corner position, starting with its U or D sticker
/// and going clockwise around the corner. Sticker `4 * face + k` is the
/// k-th sticker of the face read row by row in the usual net (U seen from
/// above with B at the top, the side faces with U at the top, D seen from
/// below with F at the top).
pub(crate) const CORNER_STICKERS: [[u8; 3]; 8] = [
    [3, 4, 9],    // URF: U bottom-right, R top-left, F top-right
    [2, 8, 17],   // UFL
    [0, 16, 21],  // ULB
    [1, 20, 5],   // UBR
    [13, 11, 6],  // DFR
    [12, 19, 10], // DLF
    [15, 7, 22],  // DRB
    [14, 23, 18], // DBL
];

/// The colours of each corner cubie in the same clockwise order.
const CORNER_COLOURS: [[u8; 3]; 8] =
    [[U, R, F], [U, F, L], [U, L, B], [U, B, R], [D, F, R], [D, L, F], [D, R, B], [D, B, L]];

/// A move at the cubie level: the cubie it brings to position `i` comes
/// from position `cp[i]` and gains twist `co[i]`.
#[derive(Clone, Copy)]
struct CubieMove {
    cp: [u8; 8],
    co: [u8; 8],
}

/// `a` followed by `b`.
const fn multiply(a: &CubieMove, b: &CubieMove) -> CubieMove {
    let mut c = CubieMove { cp: [0; 8], co: [0; 8] };
    let mut i = 0;
    while i < 8 {
        let from = b.cp[i] as usize;
        c.cp[i] = a.cp[from];
        c.co[i] = (a.co[from] + b.co[i]) % 3;
        i += 1;
    }
    c
}

const fn cubed(m: &CubieMove) -> CubieMove {
    multiply(&multiply(m, m), m)
}

const TURN_U: CubieMove = CubieMove { cp: [UBR, URF, UFL, ULB, DFR, DLF, DRB, DBL], co: [0; 8] };
const TURN_R: CubieMove = CubieMove { cp: [DFR, UFL, ULB, URF, DRB, DLF, UBR, DBL], co: [2, 0, 0, 1, 1, 0, 2, 0] };
const TURN_F: CubieMove = CubieMove { cp: [UFL, DLF, ULB, UBR, URF, DFR, DRB, DBL], co: [1, 2, 0, 0, 2, 1, 0, 0] };

/// A move ready to apply to the packed state: source byte shifts and the
/// twists to add, already in place (`co[i] << 3` in byte `i`).
#[derive(Clone, Copy)]
struct PackedMove {
    shifts: [u8; 8],
    twists: u64,
}

const fn packed(m: &CubieMove) -> PackedMove {
    let mut p = PackedMove { shifts: [0; 8], twists: 0 };
    let mut i = 0;
    while i < 8 {
        p.shifts[i] = 8 * m.cp[i];
        p.twists |= (m.co[i] as u64) << (8 * i + 3);
        i += 1;
    }
    p
}

/// The moves in action order.
const MOVES: [PackedMove; MOVE_COUNT] = [
    packed(&TURN_U),
    packed(&cubed(&TURN_U)),
    packed(&TURN_R),
    packed(&cubed(&TURN_R)),
    packed(&TURN_F),
    packed(&cubed(&TURN_F)),
];

/// For each position and each corner byte (cubie | twist << 3), the three
/// one-hot offsets `6 * sticker + colour` it lights.
const ONE_HOT: [[[u8; 3]; 24]; 8] = {
    let mut table = [[[0u8; 3]; 24]; 8];
    let mut position = 0;
    while position < 8 {
        let mut cubie = 0;
        while cubie < 8 {
            let mut twist = 0;
            while twist < 3 {
                let mut k = 0;
                while k < 3 {
                    let sticker = CORNER_STICKERS[position][(k + twist) % 3];
                    table[position][cubie | twist << 3][k] = 6 * sticker + CORNER_COLOURS[cubie][k];
                    k += 1;
                }
                twist += 1;
            }
            cubie += 1;
        }
        position += 1;
    }
    table
};

/// A position of the cube: byte `i` describes corner position `i` as
/// `cubie | twist << 3`, where the twist is 0 when the cubie's U/D sticker
/// faces U or D and 1 or 2 when it is turned clockwise once or twice.
/// Eight bytes, `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CubeState(u64);

impl Default for CubeState {
    fn default() -> Self {
        Self::SOLVED
    }
}

impl CubeState {
    /// The solved cube.
    pub const SOLVED: CubeState = CubeState(0x0706_0504_0302_0100);

    /// Whether every face shows one colour.
    pub fn is_solved(&self) -> bool {
        *self == Self::SOLVED
    }

    /// The state after move `m` (0..6, see [`MOVE_NAMES`]).
    #[inline]
    #[track_caller]
    pub fn apply(&self, m: usize) -> CubeState {
        assert!(m < MOVE_COUNT, "cube2 apply: move {m} out of range 0..{MOVE_COUNT}");
        let mv = &MOVES[m];
        let mut out = 0u64;
        for i in 0..8 {
            out |= ((self.0 >> mv.shifts[i]) & 0xff) << (8 * i);
        }
        // Add the twists bytewise (at most 2 + 2, so each byte stays below
        // 40), then take them mod 3: a byte of 24 or more has its top bit
        // set after adding 104, and loses 24.
        out += mv.twists;
        let wrapped = ((out + 0x6868_6868_6868_6868) >> 7) & 0x0101_0101_0101_0101;
        CubeState(out - wrapped * 24)
    }

    fn cubie(&self, position: usize) -> u8 {
        (self.0 >> (8 * position)) as u8 & 7
    }

    fn twist(&self, position: usize) -> u8 {
        (self.0 >> (8 * position + 3)) as u8 & 3
    }

    /// A random walk of `depth` moves from solved that never undoes its
    /// previous move. It may still end closer than `depth` (U U U is U').
    pub fn scrambled(depth: usize, rng: &mut impl Rng) -> CubeState {
        let mut state = Self::SOLVED;
        let mut previous = None;
        for _ in 0..depth {
            let m = match previous {
                None => rng.random_range(0..MOVE_COUNT),
                Some(p) => {
                    // Draw among the five moves other than the inverse.
                    let r = rng.random_range(0..MOVE_COUNT - 1);
                    if r >= inverse(p) { r + 1 } else { r }
                }
            };
            state = state.apply(m);
            previous = Some(m);
        }
        state
    }

    /// The state's index in `0..STATE_COUNT`: the rank of the permutation
    /// of the seven free corners times 729, plus the first six twists in
    /// base 3. The solved state is 0.
    pub fn index(&self) -> u32 {
        self.perm_index() * TWIST_COUNT as u32 + self.twist_index()
    }

    /// The state with index `index` (the inverse of [`CubeState::index`]).
    pub fn from_index(index: u32) -> Result<CubeState, EnvError> {
        if index as usize >= STATE_COUNT {
            return Err(EnvError::StateIndexOutOfRange { index: index as u64, count: STATE_COUNT as u64 });
        }
        let mut state = Self::SOLVED;
        state.set_perm(index / TWIST_COUNT as u32);
        state.set_twist(index % TWIST_COUNT as u32);
        Ok(state)
    }

    /// Lehmer code of the cubies at positions 0..7 (position 7 always holds DBL).
    pub(crate) fn perm_index(&self) -> u32 {
        let mut index = 0u32;
        for i in 0..7 {
            let smaller_after = (i + 1..7).filter(|&j| self.cubie(j) < self.cubie(i)).count() as u32;
            index = index * (7 - i as u32) + smaller_after;
        }
        index
    }

    pub(crate) fn twist_index(&self) -> u32 {
        (0..6).rev().fold(0u32, |acc, i| acc * 3 + self.twist(i) as u32)
    }

    /// Sets the cubies from a permutation rank, keeping the twists.
    pub(crate) fn set_perm(&mut self, mut index: u32) {
        let mut digits = [0u32; 7];
        for i in (0..7).rev() {
            digits[i] = index % (7 - i as u32);
            index /= 7 - i as u32;
        }
        let mut unused: u8 = 0x7f;
        let mut cubies = [DBL; 8];
        for i in 0..7 {
            // The digits[i]-th smallest cubie not yet placed.
            let mut rest = unused;
            for _ in 0..digits[i] {
                rest &= rest - 1;
            }
            cubies[i] = rest.trailing_zeros() as u8;
            unused &= !(1 << cubies[i]);
        }
        self.0 = (self.0 & 0x1818_1818_1818_1818) | u64::from_le_bytes(cubies);
    }

    /// Sets the twists from a twist index, keeping the cubies.
    pub(crate) fn set_twist(&mut self, mut index: u32) {
        let mut twists = [0u8; 8];
        let mut sum = 0;
        for t in twists.iter_mut().take(6) {
            *t = (index % 3) as u8;
            sum += *t;
            index /= 3;
        }
        twists[6] = (3 - sum % 3) % 3;
        self.0 = (self.0 & 0x0707_0707_0707_0707) | u64::from_le_bytes(twists) << 3;
    }

    /// The colour (face index U R F D L B = 0..6) of each of the 24
    /// stickers, numbered as in [`CubeState::write_one_hot`].
    pub fn stickers(&self) -> [u8; 24] {
        let mut out = [0u8; 24];
        for position in 0..8 {
            let (cubie, twist) = (self.cubie(position) as usize, self.twist(position) as usize);
            for k in 0..3 {
                out[CORNER_STICKERS[position][(k + twist) % 3] as usize] = CORNER_COLOURS[cubie][k];
            }
        }
        out
    }

    /// The one-hot sticker encoding, `out[6 * sticker + colour] = 1`:
    /// sticker `4 * face + k` is the k-th sticker of face U R F D L B read
    /// row by row in the usual net. `out` holds [`OBSERVATION_SIZE`] values.
    #[track_caller]
    pub fn write_one_hot(&self, out: &mut [f32]) {
        assert_eq!(out.len(), OBSERVATION_SIZE, "cube2 observe: buffer length");
        let out: &mut [f32; OBSERVATION_SIZE] = out.try_into().expect("length checked above");
        out.fill(0.0);
        for position in 0..8 {
            let byte = (self.0 >> (8 * position)) as usize & 0x1f;
            for &offset in &ONE_HOT[position][byte] {
                out[offset as usize] = 1.0;
            }
        }
    }

    /// The state a [`CubeState::write_one_hot`] observation shows (a model
    /// of the cube can then step from replayed observations). An error
    /// unless `obs` is exactly the encoding of a reachable state.
    pub fn from_one_hot(obs: &[f32]) -> Result<CubeState, EnvError> {
        let bad = |problem| Err(EnvError::InvalidPosition { game: "cube2", problem });
        if obs.len() != OBSERVATION_SIZE {
            return bad("the one-hot observation must hold 144 values");
        }
        let lit = |offsets: &[u8; 3]| offsets.iter().all(|&o| obs[o as usize] == 1.0);
        let mut bytes = [0u8; 8];
        let (mut cubies, mut twists) = (0u8, 0u32);
        for (position, byte) in bytes.iter_mut().enumerate() {
            let Some(b) = (0..24).find(|&b| b >> 3 < 3 && lit(&ONE_HOT[position][b])) else {
                return bad("a corner's stickers match no cubie");
            };
            *byte = b as u8;
            cubies |= 1 << (b & 7);
            twists += (b >> 3) as u32;
        }
        if cubies != 0xff || twists % 3 != 0 || bytes[7] != DBL {
            return bad("the corners are not a reachable arrangement");
        }
        let state = CubeState(u64::from_le_bytes(bytes));
        let mut check = [0.0; OBSERVATION_SIZE];
        state.write_one_hot(&mut check);
        if check.as_slice() != obs {
            return bad("the observation is not a one-hot sticker encoding");
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    /// The moves as sticker permutations, worked out from the geometry
    /// independently of the cubie tables: `(from, to)` pairs, the sticker
    /// at `from` moves to `to`. Faces U R F D L B start at 0 4 8 12 16 20.
    fn sticker_cycle(face_turn: usize) -> Vec<(usize, usize)> {
        let face_ring = |f: usize| vec![(f, f + 1), (f + 1, f + 3), (f + 3, f + 2), (f + 2, f)];
        let (u, r, f, d, l, b) = (0, 4, 8, 12, 16, 20);
        let mut pairs = match face_turn {
            // U: the top rows of F, L, B, R cycle F -> L -> B -> R -> F.
            0 => face_ring(u),
            1 => face_ring(r),
            _ => face_ring(f),
        };
        pairs.extend(match face_turn {
            0 => vec![(f, l), (f + 1, l + 1), (l, b), (l + 1, b + 1), (b, r), (b + 1, r + 1), (r, f), (r + 1, f + 1)],
            // R: F's right column goes up, over the back (reversed), under and back to F.
            1 => vec![
                (f + 1, u + 1),
                (f + 3, u + 3),
                (u + 1, b + 2),
                (u + 3, b),
                (b, d + 3),
                (b + 2, d + 1),
                (d + 1, f + 1),
                (d + 3, f + 3),
            ],
            // F: U's bottom row goes to R's left column, then D's top row, then L's right column.
            _ => vec![
                (u + 2, r),
                (u + 3, r + 2),
                (r, d + 1),
                (r + 2, d),
                (d, l + 1),
                (d + 1, l + 3),
                (l + 1, u + 3),
                (l + 3, u + 2),
            ],
        });
        pairs
    }

    fn turn_stickers(stickers: &[u8; 24], m: usize) -> [u8; 24] {
        let mut s = *stickers;
        // A counter-clockwise turn is three clockwise ones.
        for _ in 0..if m.is_multiple_of(2) { 1 } else { 3 } {
            let before = s;
            for (from, to) in sticker_cycle(m / 2) {
                s[to] = before[from];
            }
        }
        s
    }

    #[test]
    fn solved_stickers_show_one_colour_per_face() {
        let s = CubeState::SOLVED.stickers();
        for (i, &c) in s.iter().enumerate() {
            assert_eq!(c as usize, i / 4, "sticker {i}");
        }
    }

    #[test]
    fn cubie_moves_agree_with_sticker_permutations() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut state = CubeState::SOLVED;
        let mut stickers = state.stickers();
        for step in 0..500 {
            let m = rng.random_range(0..MOVE_COUNT);
            state = state.apply(m);
            stickers = turn_stickers(&stickers, m);
            assert_eq!(state.stickers(), stickers, "after step {step} ({})", MOVE_NAMES[m]);
        }
    }

    #[test]
    fn each_move_is_undone_by_its_inverse() {
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        for _ in 0..50 {
            let s = CubeState::scrambled(20, &mut rng);
            for m in 0..MOVE_COUNT {
                assert_eq!(s.apply(m).apply(inverse(m)), s, "{} then its inverse", MOVE_NAMES[m]);
                assert_eq!(s.apply(inverse(m)).apply(m), s);
            }
        }
    }

    #[test]
    fn each_face_turn_has_order_four() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let s = CubeState::scrambled(30, &mut rng);
        for m in 0..MOVE_COUNT {
            let mut t = s;
            for k in 1..=4 {
                t = t.apply(m);
                assert_eq!(t == s, k == 4, "{} applied {k} times", MOVE_NAMES[m]);
            }
            assert_eq!(s.apply(m).apply(m), s.apply(inverse(m)).apply(inverse(m)), "a half turn either way");
        }
    }

    #[test]
    fn the_reference_corner_never_moves() {
        let mut rng = Pcg64Mcg::seed_from_u64(6);
        let s = CubeState::scrambled(100, &mut rng);
        assert_eq!((s.cubie(7), s.twist(7)), (DBL, 0));
        let stickers = s.stickers();
        assert_eq!([stickers[14], stickers[23], stickers[18]], [D, B, L]);
    }

    #[test]
    fn index_round_trips() {
        for index in (0..STATE_COUNT as u32).step_by(997).chain([STATE_COUNT as u32 - 1]) {
            let s = CubeState::from_index(index).unwrap();
            assert_eq!(s.index(), index);
            assert_eq!((0..8).map(|i| s.twist(i) as u32).sum::<u32>() % 3, 0, "twists sum to 0 mod 3");
        }
        assert_eq!(CubeState::SOLVED.index(), 0);
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for _ in 0..200 {
            let s = CubeState::scrambled(25, &mut rng);
            assert_eq!(CubeState::from_index(s.index()).unwrap(), s);
        }
        assert_eq!(
            CubeState::from_index(STATE_COUNT as u32),
            Err(EnvError::StateIndexOutOfRange { index: STATE_COUNT as u64, count: STATE_COUNT as u64 })
        );
    }

    #[test]
    fn scrambles_never_undo_the_previous_move() {
        // Replay the generator's draws: each move must differ from the
        // inverse of the one before, and every move must occur.
        let mut seen = [0usize; MOVE_COUNT];
        for seed in 0..200 {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut replay = Pcg64Mcg::seed_from_u64(seed);
            let scrambled = CubeState::scrambled(12, &mut rng);
            let mut state = CubeState::SOLVED;
            let mut previous: Option<usize> = None;
            for _ in 0..12 {
                let m = match previous {
                    None => replay.random_range(0..MOVE_COUNT),
                    Some(p) => {
                        let r = replay.random_range(0..MOVE_COUNT - 1);
                        if r >= inverse(p) { r + 1 } else { r }
                    }
                };
                assert_ne!(Some(inverse(m)), previous);
                seen[m] += 1;
                state = state.apply(m);
                previous = Some(m);
            }
            assert_eq!(state, scrambled);
        }
        assert!(seen.iter().all(|&n| n > 300), "{seen:?}");
    }

    #[test]
    fn one_hot_decodes_back_to_its_state_and_garbage_is_refused() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let mut obs = [0.0; OBSERVATION_SIZE];
        for depth in 0..20 {
            let state = CubeState::scrambled(depth, &mut rng);
            state.write_one_hot(&mut obs);
            assert_eq!(CubeState::from_one_hot(&obs), Ok(state));
        }
        let valid = obs;
        assert!(CubeState::from_one_hot(&valid[..143]).is_err());
        assert!(CubeState::from_one_hot(&[0.0; OBSERVATION_SIZE]).is_err());
        for i in [0, 17, 143] {
            let mut flipped = valid;
            flipped[i] = 1.0 - flipped[i];
            assert!(CubeState::from_one_hot(&flipped).is_err(), "entry {i} flipped");
        }
        // One corner twisted in place: every corner shows a cubie, but no
        // sequence of moves reaches it (the twists no longer sum to 0 mod 3).
        let twisted = CubeState(CubeState::SOLVED.0 + (1 << 3));
        twisted.write_one_hot(&mut obs);
        assert!(CubeState::from_one_hot(&obs).is_err());
    }

    #[test]
    fn one_hot_marks_one_colour_per_sticker() {
        let mut rng = Pcg64Mcg::seed_from_u64(8);
        let s = CubeState::scrambled(10, &mut rng);
        let mut out = [0.5f32; OBSERVATION_SIZE];
        s.write_one_hot(&mut out);
        let stickers = s.stickers();
        for k in 0..24 {
            let row = &out[6 * k..6 * k + 6];
            assert_eq!(row.iter().sum::<f32>(), 1.0);
            assert_eq!(row[stickers[k] as usize], 1.0);
        }
        let mut colour_counts = [0; 6];
        stickers.iter().for_each(|&c| colour_counts[c as usize] += 1);
        assert_eq!(colour_counts, [4; 6]);
    }
}
