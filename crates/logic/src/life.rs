//! Conway's Game of Life, the first task of the logic-CA paper: the rule,
//! the 512 3x3 boards the circuit trains on, and how well a hard circuit
//! follows the rule.
//!
//! On a 3x3 periodic board every cell's 8 neighbours are the other 8
//! cells, so the centre cells of the 512 boards see every possible 3x3
//! neighbourhood once: a circuit right on all 512 boards is the exact
//! rule on any grid.

use crate::hard::{BitGrid, HardProgram, HardScratch};
use rand::{Rng, SeedableRng};

/// Distinct 3x3 boards.
pub const BOARDS: usize = 512;

/// Board `index` as 9 cells in row-major order: cell i is bit `8 - i` of
/// the index (the reference's order).
pub fn board(index: usize) -> [f32; 9] {
    std::array::from_fn(|i| ((index >> (8 - i)) & 1) as f32)
}

/// The board after one Game of Life step on the 3x3 torus.
pub fn next_board(index: usize) -> [f32; 9] {
    let mut next = [0.0; 9];
    life_step(3, 3, &board(index), &mut next);
    next
}

/// One Game of Life step of a periodic `height x width` grid of 0/1 cells
/// (row-major): a cell is alive next if it has 3 live neighbours, or 2 and
/// is alive now.
#[track_caller]
pub fn life_step(height: usize, width: usize, cells: &[f32], next: &mut [f32]) {
    assert!(
        cells.len() == height * width && next.len() == cells.len(),
        "life_step: expected two grids of {height}x{width} cells, found {} and {}",
        cells.len(),
        next.len()
    );
    for r in 0..height {
        for c in 0..width {
            let mut n = 0;
            for dr in [height - 1, 0, 1] {
                for dc in [width - 1, 0, 1] {
                    if (dr, dc) != (0, 0) {
                        n += (cells[(r + dr) % height * width + (c + dc) % width] >= 0.5) as u32;
                    }
                }
            }
            let alive = cells[r * width + c] >= 0.5;
            next[r * width + c] = (n == 3 || (alive && n == 2)) as u8 as f32;
        }
    }
}

/// How a hard circuit does on the Game of Life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LifeAccuracy {
    /// Of the 512 3x3 boards, those whose next board is right in every cell.
    pub boards_right: usize,
    /// Share of the 512 x 9 cells right.
    pub cells: f64,
    /// Share of cells right on larger periodic random grids (one step from
    /// each of several grids and of the states they lead to).
    pub large_grids: f64,
}

/// Runs `program` (one channel, periodic) one step on each of the 512
/// boards, and on `trials` random 64x64 grids for 8 steps each (every step
/// checked against the rule).
pub fn hard_life_accuracy(program: &HardProgram, trials: usize, seed: u64) -> LifeAccuracy {
    let mut grid = BitGrid::new(3, 3, program.channels());
    let mut next = grid.clone();
    let mut scratch = HardScratch::default();
    let mut values = vec![0.0; 9 * program.channels()];
    let (mut boards_right, mut cells_right) = (0, 0);
    for index in 0..BOARDS {
        values.fill(0.0);
        values[..9].copy_from_slice(&board(index));
        grid.load(&values);
        program.step(&grid, &mut next, &mut scratch);
        let right = next.count_equal(0, &next_board(index));
        cells_right += right;
        boards_right += (right == 9) as usize;
    }
    let side = 64;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut big = BitGrid::new(side, side, program.channels());
    let mut big_next = big.clone();
    let mut state = vec![0.0; side * side * program.channels()];
    let mut expected = vec![0.0; side * side];
    let (mut right, mut total) = (0, 0);
    for _ in 0..trials {
        big.fill_random(|| rng.random());
        // Only channel 0 is the board; the others start at 0.
        big.store(&mut state);
        state[side * side..].fill(0.0);
        big.load(&state);
        for _ in 0..8 {
            big.store(&mut state);
            life_step(side, side, &state[..side * side], &mut expected);
            program.step(&big, &mut big_next, &mut scratch);
            right += big_next.count_equal(0, &expected);
            total += side * side;
            std::mem::swap(&mut big, &mut big_next);
        }
    }
    LifeAccuracy {
        boards_right,
        cells: cells_right as f64 / (BOARDS * 9) as f64,
        large_grids: if total == 0 { 1.0 } else { right as f64 / total as f64 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_and_rule() {
        assert_eq!(board(0), [0.0; 9]);
        assert_eq!(board(0b1_0000_0000), [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(board(1), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        // A vertical blinker through the centre column of a 3x3 torus: each
        // cell sees all 8 others, so the 3 live cells have 2 neighbours
        // (survive) and the 6 dead ones 3 (birth): the board fills.
        let blinker = 0b010_010_010;
        assert_eq!(next_board(blinker), [1.0; 9]);
        // A full board: every cell has 8 neighbours and dies.
        assert_eq!(next_board(511), [0.0; 9]);
        // On a larger torus the blinker turns horizontal.
        let mut g = vec![0.0; 25];
        for r in 1..4 {
            g[r * 5 + 2] = 1.0;
        }
        let mut n = vec![0.0; 25];
        life_step(5, 5, &g, &mut n);
        let live: Vec<usize> = (0..25).filter(|&i| n[i] == 1.0).collect();
        assert_eq!(live, vec![11, 12, 13]);
    }
}
