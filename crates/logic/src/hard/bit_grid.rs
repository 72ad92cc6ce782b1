//! [`BitGrid`]: a grid's cells as channel-major bit planes, 64 cells per word.

/// The bit planes of a grid: `[channels, height, words_per_row]` words.
///
/// A grid may be tiled ([`BitGrid::tiled`]): blocks of
/// `block_height x block_width` cells that a CA step treats as separate
/// grids, each with the zero boundary of its own, so that several small
/// grids share the words of one tile of the bit-parallel step instead of
/// each filling a tile mostly with padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitGrid {
    pub(super) height: usize,
    pub(super) width: usize,
    pub(super) channels: usize,
    pub(super) words_per_row: usize,
    pub(super) block_height: usize,
    pub(super) block_width: usize,
    pub(super) bits: Vec<u64>,
}

impl BitGrid {
    /// An all-zero grid.
    pub fn new(height: usize, width: usize, channels: usize) -> Self {
        Self::tiled(height, width, 1, 1, channels)
    }

    /// An all-zero grid of `down x across` blocks of
    /// `block_height x block_width` cells, each a grid of its own to a CA
    /// step (zero boundary only).
    pub fn tiled(block_height: usize, block_width: usize, down: usize, across: usize, channels: usize) -> Self {
        let (height, width) = (block_height * down, block_width * across);
        let words_per_row = width.div_ceil(64);
        Self {
            height,
            width,
            channels,
            words_per_row,
            block_height,
            block_width,
            bits: vec![0; channels * height * words_per_row],
        }
    }

    /// Blocks per row of blocks and rows of blocks.
    fn blocks_across_down(&self) -> (usize, usize) {
        (self.width / self.block_width, self.height / self.block_height)
    }

    /// How many blocks the grid holds (1 unless [`tiled`](Self::tiled)).
    pub fn blocks(&self) -> usize {
        let (across, down) = self.blocks_across_down();
        across * down
    }

    /// Whether the grid holds more than one block.
    pub fn is_tiled(&self) -> bool {
        self.blocks() > 1
    }

    /// Copies `grid` (one block's size and this grid's channels) into block
    /// `block` (row-major over the blocks).
    #[track_caller]
    pub fn put_block(&mut self, block: usize, grid: &BitGrid) {
        assert!(
            block < self.blocks()
                && (grid.height, grid.width, grid.channels) == (self.block_height, self.block_width, self.channels),
            "BitGrid::put_block: expected a block below {} and a {}x{}x{} grid, found block {block} and {}x{}x{}",
            self.blocks(),
            self.block_height,
            self.block_width,
            self.channels,
            grid.height,
            grid.width,
            grid.channels
        );
        let (across, _) = self.blocks_across_down();
        let (r0, c0) = (block / across * self.block_height, block % across * self.block_width);
        for c in 0..self.channels {
            for r in 0..grid.height {
                for col in 0..grid.width {
                    self.set(c, r0 + r, c0 + col, grid.get(c, r, col));
                }
            }
        }
    }

    /// Sets every cell of block `block` in every channel to `value`.
    pub fn fill_block(&mut self, block: usize, value: bool) {
        let (across, _) = self.blocks_across_down();
        let (r0, c0) = (block / across * self.block_height, block % across * self.block_width);
        for c in 0..self.channels {
            for r in r0..r0 + self.block_height {
                for col in c0..c0 + self.block_width {
                    self.set(c, r, col, value);
                }
            }
        }
    }

    /// Rows of cells.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Columns of cells.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Bit planes: one per channel of a cell's state.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// `u64` words per row of a plane: `width / 64` rounded up.
    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }

    /// The words of one channel.
    pub fn plane(&self, channel: usize) -> &[u64] {
        let n = self.height * self.words_per_row;
        &self.bits[channel * n..(channel + 1) * n]
    }

    /// The bit of `channel` at (`row`, `col`).
    pub fn get(&self, channel: usize, row: usize, col: usize) -> bool {
        let w = self.bits[(channel * self.height + row) * self.words_per_row + col / 64];
        (w >> (col % 64)) & 1 == 1
    }

    /// Sets the bit of `channel` at (`row`, `col`).
    pub fn set(&mut self, channel: usize, row: usize, col: usize, value: bool) {
        let w = &mut self.bits[(channel * self.height + row) * self.words_per_row + col / 64];
        let bit = 1u64 << (col % 64);
        if value {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    /// Copies `other` (of the same size) in place, allocating nothing.
    #[track_caller]
    pub fn copy_from(&mut self, other: &BitGrid) {
        assert!(
            (self.height, self.width, self.channels) == (other.height, other.width, other.channels),
            "BitGrid::copy_from: expected a {}x{}x{} grid, found {}x{}x{}",
            self.height,
            self.width,
            self.channels,
            other.height,
            other.width,
            other.channels
        );
        self.bits.copy_from_slice(&other.bits);
        (self.block_height, self.block_width) = (other.block_height, other.block_width);
    }

    /// Sets the grid from `[channels, height * width]` values (>= 0.5 is 1).
    #[track_caller]
    pub fn load(&mut self, values: &[f32]) {
        let cells = self.height * self.width;
        assert_eq!(values.len(), self.channels * cells, "BitGrid::load: expected [{}, {cells}] values", self.channels);
        self.bits.fill(0);
        for c in 0..self.channels {
            for r in 0..self.height {
                for col in 0..self.width {
                    if values[c * cells + r * self.width + col] >= 0.5 {
                        self.set(c, r, col, true);
                    }
                }
            }
        }
    }

    /// Writes the grid as `[channels, height * width]` 0/1 values.
    #[track_caller]
    pub fn store(&self, values: &mut [f32]) {
        let cells = self.height * self.width;
        assert_eq!(values.len(), self.channels * cells, "BitGrid::store: expected [{}, {cells}] values", self.channels);
        for c in 0..self.channels {
            for r in 0..self.height {
                for col in 0..self.width {
                    values[c * cells + r * self.width + col] = self.get(c, r, col) as u8 as f32;
                }
            }
        }
    }

    /// Cells of `channel` equal to `target` (`[height * width]`, >= 0.5 is 1).
    pub fn count_equal(&self, channel: usize, target: &[f32]) -> usize {
        let mut n = 0;
        for r in 0..self.height {
            for col in 0..self.width {
                n += (self.get(channel, r, col) == (target[r * self.width + col] >= 0.5)) as usize;
            }
        }
        n
    }

    /// Asynchronous update: where `fire` (one channel, same size) is 0,
    /// every channel of `self` takes its bit from `old` instead.
    #[track_caller]
    pub fn keep_unfired(&mut self, old: &BitGrid, fire: &BitGrid) {
        assert!(
            (old.height, old.width, old.channels) == (self.height, self.width, self.channels)
                && (fire.height, fire.width, fire.channels) == (self.height, self.width, 1),
            "BitGrid::keep_unfired: expected old {}x{}x{} and fire {}x{}x1, found {}x{}x{} and {}x{}x{}",
            self.height,
            self.width,
            self.channels,
            self.height,
            self.width,
            old.height,
            old.width,
            old.channels,
            fire.height,
            fire.width,
            fire.channels
        );
        let plane = self.height * self.words_per_row;
        for (new, old) in self.bits.chunks_exact_mut(plane).zip(old.bits.chunks_exact(plane)) {
            for ((n, &o), &f) in new.iter_mut().zip(old).zip(&fire.bits) {
                *n = (*n & f) | (o & !f);
            }
        }
    }

    /// Zeroes every channel of the cells set in `mask` (one channel, the
    /// same size): damage as word operations, for repeated use.
    #[track_caller]
    pub fn clear_where(&mut self, mask: &BitGrid) {
        assert!(
            (mask.height, mask.width, mask.channels) == (self.height, self.width, 1),
            "BitGrid::clear_where: expected a {}x{}x1 mask, found {}x{}x{}",
            self.height,
            self.width,
            mask.height,
            mask.width,
            mask.channels
        );
        let plane = self.height * self.words_per_row;
        for words in self.bits.chunks_exact_mut(plane) {
            for (w, &m) in words.iter_mut().zip(&mask.bits) {
                *w &= !m;
            }
        }
    }

    /// Zeroes every channel of the cells in rows `rows` and columns `cols`
    /// (clipped to the grid): damage, for robustness checks.
    pub fn clear_rect(&mut self, rows: std::ops::Range<usize>, cols: std::ops::Range<usize>) {
        for c in 0..self.channels {
            for r in rows.start.min(self.height)..rows.end.min(self.height) {
                for col in cols.start.min(self.width)..cols.end.min(self.width) {
                    self.set(c, r, col, false);
                }
            }
        }
    }

    /// Every bit from `next_u64`, padding bits kept 0.
    pub fn fill_random(&mut self, mut next_u64: impl FnMut() -> u64) {
        for r in 0..self.channels * self.height {
            for q in 0..self.words_per_row {
                self.bits[r * self.words_per_row + q] = next_u64() & self.word_mask(q);
            }
        }
    }

    /// The bits of word q of a row that lie inside the grid.
    pub(super) fn word_mask(&self, q: usize) -> u64 {
        let used = self.width - 64 * q;
        if used >= 64 { !0 } else { (1u64 << used) - 1 }
    }
}
