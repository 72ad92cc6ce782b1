//! A small puzzle for tests and examples: sort a permutation of `n` items
//! by swapping neighbours. Move `i` swaps positions `i` and `i + 1` (its
//! own inverse); the distance to sorted is the number of inversions, at
//! most `n (n - 1) / 2`.

use super::Puzzle;
use crate::{Check, Result};

/// Items at positions `0..n`, four bits each.
pub type Arrangement = u32;

/// A test puzzle: sort `n` items by swapping neighbours; its exact distance is
/// known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdjacentSwaps {
    n: usize,
}

impl AdjacentSwaps {
    /// `n` items, 2..=8.
    pub fn new(n: usize) -> Result<Self> {
        Check("AdjacentSwaps").count_in("n", "2..=8 items", n as u64, 2, 8)?;
        Ok(Self { n })
    }

    /// The item at `position` in `state`.
    pub fn item(&self, state: Arrangement, position: usize) -> usize {
        (state >> (4 * position) & 0xf) as usize
    }

    /// The number of inversions: the exact distance to the goal.
    pub fn distance(&self, state: Arrangement) -> usize {
        let mut inversions = 0;
        for i in 0..self.n {
            for j in i + 1..self.n {
                inversions += (self.item(state, i) > self.item(state, j)) as usize;
            }
        }
        inversions
    }

    /// Every arrangement, in index order.
    pub fn all_states(&self) -> Vec<Arrangement> {
        let mut states = vec![0; self.state_count()];
        let mut items: Vec<usize> = (0..self.n).collect();
        permutations(&mut items, 0, &mut |p| {
            let s = p.iter().enumerate().fold(0, |s, (i, &x)| s | (x as u32) << (4 * i));
            states[self.index(s)] = s;
        });
        states
    }
}

fn permutations(items: &mut [usize], k: usize, visit: &mut impl FnMut(&[usize])) {
    if k == items.len() {
        return visit(items);
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, visit);
        items.swap(k, i);
    }
}

impl Puzzle for AdjacentSwaps {
    const NAME: &'static str = "adjacent-swaps";
    type State = Arrangement;

    fn moves(&self) -> usize {
        self.n - 1
    }

    fn apply(&self, state: Arrangement, action: usize) -> Arrangement {
        let (a, b) = (self.item(state, action) as u32, self.item(state, action + 1) as u32);
        let cleared = state & !(0xff << (4 * action));
        cleared | b << (4 * action) | a << (4 * (action + 1))
    }

    fn inverse(&self, action: usize) -> usize {
        action
    }

    fn goal(&self) -> Arrangement {
        (0..self.n).fold(0, |s, i| s | (i as u32) << (4 * i))
    }

    fn is_goal(&self, state: Arrangement) -> bool {
        state == self.goal()
    }

    fn state_count(&self) -> usize {
        (1..=self.n).product()
    }

    /// The Lehmer code of the arrangement.
    fn index(&self, state: Arrangement) -> usize {
        let mut index = 0;
        for i in 0..self.n {
            let smaller_after = (i + 1..self.n).filter(|&j| self.item(state, j) < self.item(state, i)).count();
            index = index * (self.n - i) + smaller_after;
        }
        index
    }

    fn observation_size(&self) -> usize {
        self.n * self.n
    }

    /// One-hot item at each position.
    fn observe(&self, state: Arrangement, out: &mut [f32]) {
        out[..self.n * self.n].fill(0.0);
        for i in 0..self.n {
            out[i * self.n + self.item(state, i)] = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_a_bijection_and_moves_undo_themselves() {
        let p = AdjacentSwaps::new(5).unwrap();
        let states = p.all_states();
        assert_eq!(states.len(), 120);
        let mut seen = [false; 120];
        for &s in &states {
            assert!(!std::mem::replace(&mut seen[p.index(s)], true));
            for a in 0..p.moves() {
                assert_eq!(p.apply(p.apply(s, a), p.inverse(a)), s);
                assert_eq!(p.distance(p.apply(s, a)).abs_diff(p.distance(s)), 1);
            }
        }
        assert_eq!(p.index(p.goal()), 0);
        assert!(AdjacentSwaps::new(9).is_err());
    }
}
