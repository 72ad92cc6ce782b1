//! Exact optimal distances (quarter-turn metric, moves U R F) of all
//! 3,674,160 cube states, by one breadth-first search from solved.
//!
//! Distances are stored one nibble per state (1.8 MB). The search runs on
//! coordinates: a move acts on the permutation rank and on the twist index
//! separately, so two small tables (5040 x 6 and 729 x 6) give every
//! neighbour's index without touching a cube state.

use super::state::{CubeState, MOVE_COUNT, PERM_COUNT, STATE_COUNT, TWIST_COUNT};
use crate::EnvError;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The nibble of a state the search has not reached.
const UNREACHED: u8 = 15;

/// The distance table and the optimal-move oracle built from it.
pub struct CubeDistances {
    /// Two states per byte: state `2k` in the low nibble, `2k + 1` in the high.
    packed: Vec<u8>,
    perm_moves: Vec<[u16; MOVE_COUNT]>,
    twist_moves: Vec<[u16; MOVE_COUNT]>,
    /// States at each distance `0..=diameter`.
    histogram: Vec<u64>,
    /// For each permutation rank (a block of 729 consecutive indices), the
    /// states of the block at each distance: sampling at a distance walks
    /// these instead of the whole table.
    block_counts: Vec<[u16; UNREACHED as usize]>,
    build_time: Duration,
}

impl std::fmt::Debug for CubeDistances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CubeDistances")
            .field("histogram", &self.histogram)
            .field("build_time", &self.build_time)
            .finish_non_exhaustive()
    }
}

static TABLE: OnceLock<CubeDistances> = OnceLock::new();

impl CubeDistances {
    /// The table, built on first use (tens of milliseconds in release) and
    /// shared by every later call.
    pub fn get() -> &'static CubeDistances {
        TABLE.get_or_init(CubeDistances::build)
    }

    /// Runs the breadth-first search; [`CubeDistances::get`] caches this.
    pub fn build() -> CubeDistances {
        let start = Instant::now();
        let (perm_moves, twist_moves) = coordinate_moves();
        let mut packed = vec![0xffu8; STATE_COUNT / 2];
        set(&mut packed, 0, 0);
        let mut histogram = vec![1u64];
        let mut reached = 1usize;
        let mut depth = 0u8;
        while reached < STATE_COUNT {
            assert!(depth + 1 < UNREACHED, "cube2 distances: search deeper than a nibble holds");
            // Expand the frontier forwards while it is small; once it holds
            // more states than are left, let each unreached state look for
            // a neighbour on the frontier instead (it stops at the first).
            let found = if histogram[depth as usize] as usize <= STATE_COUNT - reached {
                expand_forward(&mut packed, &perm_moves, &twist_moves, depth)
            } else {
                expand_backward(&mut packed, &perm_moves, &twist_moves, depth)
            };
            assert!(found > 0, "cube2 distances: {} states unreachable", STATE_COUNT - reached);
            reached += found;
            histogram.push(found as u64);
            depth += 1;
        }
        let mut block_counts = vec![[0u16; UNREACHED as usize]; PERM_COUNT];
        for (p, counts) in block_counts.iter_mut().enumerate() {
            for i in p * TWIST_COUNT..(p + 1) * TWIST_COUNT {
                counts[get(&packed, i) as usize] += 1;
            }
        }
        CubeDistances { packed, perm_moves, twist_moves, histogram, block_counts, build_time: start.elapsed() }
    }

    /// How long [`CubeDistances::build`] took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// The number of states at each distance `0..=diameter()`.
    pub fn histogram(&self) -> &[u64] {
        &self.histogram
    }

    /// The largest optimal distance: God's number in this metric.
    pub fn diameter(&self) -> usize {
        self.histogram.len() - 1
    }

    /// The optimal number of moves to solve `state`.
    pub fn distance(&self, state: &CubeState) -> usize {
        get(&self.packed, state.index() as usize) as usize
    }

    /// Bit `m` is set when move `m` brings `state` one move closer to
    /// solved; 0 for the solved state. Never 0 otherwise.
    pub fn optimal_moves(&self, state: &CubeState) -> u64 {
        let (p, t) = (state.perm_index() as usize, state.twist_index() as usize);
        let here = get(&self.packed, p * TWIST_COUNT + t);
        let mut mask = 0;
        for m in 0..MOVE_COUNT {
            let next = self.perm_moves[p][m] as usize * TWIST_COUNT + self.twist_moves[t][m] as usize;
            if get(&self.packed, next) + 1 == here {
                mask |= 1 << m;
            }
        }
        mask
    }

    /// A state drawn uniformly among those exactly `distance` moves from
    /// solved (for evaluation sets by true distance).
    pub fn sample_at_distance(&self, distance: usize, rng: &mut impl Rng) -> Result<CubeState, EnvError> {
        if distance > self.diameter() {
            return Err(EnvError::DistanceOutOfRange { distance, diameter: self.diameter() });
        }
        let mut k = rng.random_range(0..self.histogram[distance]) as usize;
        for (p, counts) in self.block_counts.iter().enumerate() {
            let in_block = counts[distance] as usize;
            if k >= in_block {
                k -= in_block;
                continue;
            }
            for i in p * TWIST_COUNT..(p + 1) * TWIST_COUNT {
                if get(&self.packed, i) as usize == distance {
                    if k == 0 {
                        return CubeState::from_index(i as u32);
                    }
                    k -= 1;
                }
            }
        }
        unreachable!("cube2 sample_at_distance: block counts disagree with the histogram")
    }

    /// `count` states drawn with [`CubeDistances::sample_at_distance`]
    /// from a generator seeded by `seed` and `distance` together: the fixed
    /// evaluation set for one distance, the same in every run with the seed.
    pub fn evaluation_set(&self, distance: usize, count: usize, seed: u64) -> Result<Vec<CubeState>, EnvError> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (distance as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        (0..count).map(|_| self.sample_at_distance(distance, &mut rng)).collect()
    }
}

fn get(packed: &[u8], i: usize) -> u8 {
    (packed[i / 2] >> (4 * (i % 2))) & 0xf
}

fn set(packed: &mut [u8], i: usize, value: u8) {
    let shift = 4 * (i % 2);
    packed[i / 2] = (packed[i / 2] & !(0xf << shift)) | (value << shift);
}

/// Where each move sends each permutation rank and each twist index: a
/// move's effect on the permutation does not depend on the twists and vice
/// versa.
fn coordinate_moves() -> (Vec<[u16; MOVE_COUNT]>, Vec<[u16; MOVE_COUNT]>) {
    let mut perm_moves = vec![[0u16; MOVE_COUNT]; PERM_COUNT];
    for (p, row) in perm_moves.iter_mut().enumerate() {
        let mut s = CubeState::SOLVED;
        s.set_perm(p as u32);
        for (m, next) in row.iter_mut().enumerate() {
            *next = s.apply(m).perm_index() as u16;
        }
    }
    let mut twist_moves = vec![[0u16; MOVE_COUNT]; TWIST_COUNT];
    for (t, row) in twist_moves.iter_mut().enumerate() {
        let mut s = CubeState::SOLVED;
        s.set_twist(t as u32);
        for (m, next) in row.iter_mut().enumerate() {
            *next = s.apply(m).twist_index() as u16;
        }
    }
    (perm_moves, twist_moves)
}

/// Marks every unreached neighbour of a state at `depth` with `depth + 1`.
fn expand_forward(packed: &mut [u8], perm_moves: &[[u16; 6]], twist_moves: &[[u16; 6]], depth: u8) -> usize {
    let mut found = 0;
    for p in 0..PERM_COUNT {
        let pm = &perm_moves[p];
        for t in 0..TWIST_COUNT {
            if get(packed, p * TWIST_COUNT + t) != depth {
                continue;
            }
            let tm = &twist_moves[t];
            for m in 0..MOVE_COUNT {
                let next = pm[m] as usize * TWIST_COUNT + tm[m] as usize;
                if get(packed, next) == UNREACHED {
                    set(packed, next, depth + 1);
                    found += 1;
                }
            }
        }
    }
    found
}

/// Marks every unreached state with a neighbour at `depth` with `depth + 1`
/// (moves come in inverse pairs, so "neighbour of" is symmetric).
fn expand_backward(packed: &mut [u8], perm_moves: &[[u16; 6]], twist_moves: &[[u16; 6]], depth: u8) -> usize {
    let mut found = 0;
    for p in 0..PERM_COUNT {
        let pm = &perm_moves[p];
        for t in 0..TWIST_COUNT {
            let i = p * TWIST_COUNT + t;
            if get(packed, i) != UNREACHED {
                continue;
            }
            let tm = &twist_moves[t];
            if (0..MOVE_COUNT).any(|m| get(packed, pm[m] as usize * TWIST_COUNT + tm[m] as usize) == depth) {
                set(packed, i, depth + 1);
                found += 1;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube2::state::inverse;

    /// States at each distance in the quarter-turn metric (U R F and
    /// inverses), the known table for the 2x2x2 cube.
    const KNOWN: [u64; 15] =
        [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276];

    #[test]
    fn search_covers_all_states_with_diameter_fourteen() {
        let table = CubeDistances::get();
        eprintln!("cube2 distance table built in {:?}: {:?}", table.build_time(), table.histogram());
        assert_eq!(table.histogram().iter().sum::<u64>(), STATE_COUNT as u64);
        assert_eq!(table.diameter(), 14);
        assert_eq!(table.histogram(), KNOWN);
    }

    #[test]
    fn distances_are_consistent_with_neighbours() {
        let table = CubeDistances::get();
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        for _ in 0..2000 {
            let s = CubeState::from_index(rng.random_range(0..STATE_COUNT as u32)).unwrap();
            let d = table.distance(&s);
            let mut closer = 0;
            for m in 0..MOVE_COUNT {
                let n = table.distance(&s.apply(m));
                assert!(n.abs_diff(d) == 1, "a quarter turn changes the distance by exactly one (parity)");
                closer |= ((n + 1 == d) as u64) << m;
            }
            assert_eq!(closer, table.optimal_moves(&s));
            assert_eq!(closer == 0, d == 0);
        }
    }

    #[test]
    fn following_the_oracle_solves_in_exactly_the_distance() {
        let table = CubeDistances::get();
        let mut rng = Pcg64Mcg::seed_from_u64(10);
        for d in 0..=table.diameter() {
            for _ in 0..20 {
                let mut s = table.sample_at_distance(d, &mut rng).unwrap();
                assert_eq!(table.distance(&s), d);
                for _ in 0..d {
                    let mask = table.optimal_moves(&s);
                    s = s.apply(mask.trailing_zeros() as usize);
                }
                assert!(s.is_solved());
            }
        }
    }

    #[test]
    fn scrambles_of_depth_d_lie_within_distance_d() {
        let table = CubeDistances::get();
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        for depth in 0..=20 {
            for _ in 0..200 {
                let s = CubeState::scrambled(depth, &mut rng);
                let d = table.distance(&s);
                assert!(d <= depth && d % 2 == depth % 2, "depth {depth} scramble at distance {d}");
            }
        }
        // Short scrambles without immediate inverses are all optimal.
        for _ in 0..200 {
            assert_eq!(table.distance(&CubeState::scrambled(2, &mut rng)), 2);
        }
    }

    #[test]
    fn sampling_at_a_distance_is_seeded_and_covers_small_shells() {
        let table = CubeDistances::get();
        let draw = |seed| {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            (0..50).map(|_| table.sample_at_distance(7, &mut rng).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        // All six distance-1 states are the six single moves.
        let mut rng = Pcg64Mcg::seed_from_u64(12);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            seen.insert(table.sample_at_distance(1, &mut rng).unwrap());
        }
        let singles: std::collections::HashSet<_> = (0..MOVE_COUNT).map(|m| CubeState::SOLVED.apply(m)).collect();
        assert_eq!(seen, singles);
        // The 276 antipodes are all reachable by sampling and undo each other's moves.
        let s = table.sample_at_distance(14, &mut rng).unwrap();
        assert_eq!(table.optimal_moves(&s).count_ones() as usize, MOVE_COUNT, "every move helps at an antipode");
        assert_eq!(s.apply(0).apply(inverse(0)), s);
        let set = table.evaluation_set(9, 100, 42).unwrap();
        assert_eq!(set, table.evaluation_set(9, 100, 42).unwrap());
        assert_ne!(set, table.evaluation_set(9, 100, 43).unwrap());
        assert!(set.iter().all(|s| table.distance(s) == 9));
        assert_eq!(
            table.sample_at_distance(15, &mut rng),
            Err(EnvError::DistanceOutOfRange { distance: 15, diameter: 14 })
        );
    }
}
