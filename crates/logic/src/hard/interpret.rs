//! The bit-parallel interpreter: one CA step of a [`HardProgram`] over a
//! [`BitGrid`], a tile of 64 words at a time.

use super::{BitGrid, HardProgram, Output};
use crate::gates::op_word;

impl HardProgram {
    /// One synchronous step: `dst` = the circuit applied to `src`. Dead
    /// channels of `dst` are zeroed.
    #[track_caller]
    pub fn step(&self, src: &BitGrid, dst: &mut BitGrid, scratch: &mut HardScratch) {
        crate::simd::hard_step(self, src, dst, scratch);
    }

    #[inline(always)]
    pub(crate) fn step_body(&self, src: &BitGrid, dst: &mut BitGrid, scratch: &mut HardScratch) {
        assert!(
            src.channels == self.channels
                && (dst.height, dst.width, dst.channels) == (src.height, src.width, src.channels),
            "HardProgram::step: expected two grids of {} channels and one size, found {}x{}x{} and {}x{}x{}",
            self.channels,
            src.height,
            src.width,
            src.channels,
            dst.height,
            dst.width,
            dst.channels
        );
        let tiled = src.is_tiled();
        assert!(!(tiled && self.periodic), "HardProgram::step: a tiled grid needs the zero boundary");
        let wpr = src.words_per_row;
        let plane_len = src.height * wpr;
        scratch.fit(self.taps.len() + self.instrs.len());
        if tiled {
            scratch.fit_blocks(src);
        }
        let last_mask = src.word_mask(wpr - 1);
        let step = TILE % wpr;
        // Column word of each lane, and so which lanes start or end a row.
        let mut col: [usize; TILE] = std::array::from_fn(|j| j % wpr);
        let HardScratch { slots, blocks, .. } = scratch;
        let slots = &mut slots[..self.taps.len() + self.instrs.len()];
        for (t, i0) in (0..plane_len).step_by(TILE).enumerate() {
            let lanes = Lanes {
                i0,
                n: TILE.min(plane_len - i0),
                col,
                not_first: std::array::from_fn(|j| if col[j] == 0 { 0 } else { !0 }),
                not_last: std::array::from_fn(|j| if col[j] == wpr - 1 { 0 } else { !0 }),
                blocks: if tiled { Some(&blocks[t]) } else { None },
            };
            for (slot, &(c, d)) in slots.iter_mut().zip(&self.taps) {
                tap(&mut slot.0, src, c as usize, d, self.periodic, &lanes);
            }
            for (k, ins) in self.instrs.iter().enumerate() {
                let (done, rest) = slots.split_at_mut(self.taps.len() + k);
                gate(ins.op, &mut rest[0].0, &done[ins.a as usize].0, &done[ins.b as usize].0);
            }
            // Padding bits of a row's last word stay 0.
            let keep: Tile = std::array::from_fn(|j| if col[j] == wpr - 1 { last_mask } else { !0 });
            for (c, out) in self.outputs.iter().enumerate() {
                let words = &mut dst.bits[c * plane_len + i0..][..lanes.n];
                match *out {
                    Output::Dead | Output::Const(false) => words.fill(0),
                    Output::Const(true) => words.copy_from_slice(&keep[..lanes.n]),
                    Output::Slot { slot, negated } => {
                        let flip = if negated { !0 } else { 0 };
                        for ((w, &v), &k) in words.iter_mut().zip(&slots[slot as usize].0).zip(&keep) {
                            *w = (v ^ flip) & k;
                        }
                    }
                }
            }
            for c in &mut col {
                *c += step;
                if *c >= wpr {
                    *c -= wpr;
                }
            }
        }
    }
}

/// Words computed together, 8 AVX-512 registers: the slots of a trained
/// circuit (about 50) then take half of L1, and each op's dispatch is paid
/// once per 4096 cells. On `logic_ca/hard` (28-gate circuit, one run):
/// 8 words 229 us (scalar code, a dispatch per register), 32 words 54 us,
/// 64 words 47 us, 128 words 63 us (slots spill L1).
pub(crate) const TILE: usize = 64;

type Tile = [u64; TILE];

/// A slot's tile on whole cache lines, so no load or store splits one.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct AlignedTile(Tile);

/// The words `i0..i0 + n` of a plane that a tile computes (row-major, so
/// a tile may span rows), with masks of the lanes that start or end a row,
/// and of a tiled grid's block edges.
struct Lanes<'a> {
    i0: usize,
    n: usize,
    col: [usize; TILE],
    not_first: Tile,
    not_last: Tile,
    blocks: Option<&'a BlockMasks>,
}

/// The bits of a tile's lanes that may read across a block's edge: 0 in
/// a lane at a block's top (bottom) row, and the columns that start (end)
/// a block cleared.
#[derive(Clone, Debug)]
struct BlockMasks {
    not_top: Tile,
    not_bottom: Tile,
    not_left: Tile,
    not_right: Tile,
}

impl BlockMasks {
    fn new(grid: &BitGrid, i0: usize, col: &[usize; TILE]) -> Self {
        let (wpr, bh, bw) = (grid.words_per_row, grid.block_height, grid.block_width);
        let row_is = |j: usize, edge: usize| (i0 + j) / wpr % bh == edge;
        // The bits of word q whose column is `edge` within its block.
        let cols = |q: usize, edge: usize| {
            let (lo, hi) = (64 * q, (64 * q + 64).min(grid.width));
            let mut bits = 0u64;
            let mut c = lo - lo % bw + edge;
            while c < hi {
                if c >= lo {
                    bits |= 1 << (c - lo);
                }
                c += bw;
            }
            !bits
        };
        Self {
            not_top: std::array::from_fn(|j| if row_is(j, 0) { 0 } else { !0 }),
            not_bottom: std::array::from_fn(|j| if row_is(j, bh - 1) { 0 } else { !0 }),
            not_left: std::array::from_fn(|j| cols(col[j], 0)),
            not_right: std::array::from_fn(|j| cols(col[j], bw - 1)),
        }
    }
}

/// Tap `d` (row-major 3x3) of channel `c` on a tile: each bit is the bit
/// at (row + dr, col + dc). With the zero boundary a tile reads a run of
/// TILE + 2 words (straight from the plane, or a copy with zeros past its
/// ends at the top and bottom rows) and shifts it; with the periodic
/// boundary it goes lane by lane, wrapping.
#[inline(always)]
fn tap(out: &mut Tile, grid: &BitGrid, c: usize, d: u8, periodic: bool, lanes: &Lanes) {
    let (wpr, plane) = (grid.words_per_row, grid.plane(c));
    let (dr, dc) = (d as isize / 3 - 1, d as isize % 3 - 1);
    if periodic {
        return tap_periodic(out, grid, plane, dr, dc, lanes);
    }
    // Words s - 1 ..= s + TILE: the lanes' source words and one either side.
    let s = lanes.i0 as isize + dr * wpr as isize;
    let mut window: [u64; TILE + 2];
    let run: &[u64] = if s >= 1 && s as usize + TILE < plane.len() {
        &plane[s as usize - 1..][..TILE + 2]
    } else {
        // Zeros, then the words of the plane that exist.
        window = [0; TILE + 2];
        let (from, to) = ((s - 1).max(0), (s - 1 + TILE as isize + 2).min(plane.len() as isize));
        if from < to {
            let at = (from - (s - 1)) as usize;
            window[at..at + (to - from) as usize].copy_from_slice(&plane[from as usize..to as usize]);
        }
        &window
    };
    let (before, here, after) = (&run[..TILE], &run[1..TILE + 1], &run[2..]);
    shift(out, before, here, after, dc, lanes);
    if let Some(blocks) = &lanes.blocks {
        let rows = match dr {
            -1 => Some(&blocks.not_top),
            1 => Some(&blocks.not_bottom),
            _ => None,
        };
        let cols = match dc {
            -1 => Some(&blocks.not_left),
            1 => Some(&blocks.not_right),
            _ => None,
        };
        for mask in rows.into_iter().chain(cols) {
            for (o, &m) in out.iter_mut().zip(mask) {
                *o &= m;
            }
        }
    }
}

/// A tap's column shift of a run of words: `here` as is, or every bit
/// taken from the column before (after) it.
#[inline(always)]
fn shift(out: &mut Tile, before: &[u64], here: &[u64], after: &[u64], dc: isize, lanes: &Lanes) {
    match dc {
        0 => out.copy_from_slice(here),
        // Reads column col - 1: bits move up by one, with the carry from
        // the word before in the row.
        -1 => {
            for (((o, &v), &prev), &m) in out.iter_mut().zip(here).zip(before).zip(&lanes.not_first) {
                *o = (v << 1) | (prev >> 63 & m);
            }
        }
        // Reads column col + 1: bits move down by one.
        _ => {
            for (((o, &v), &next), &m) in out.iter_mut().zip(here).zip(after).zip(&lanes.not_last) {
                *o = (v >> 1) | (next << 63 & m);
            }
        }
    }
}

/// [`tap`] with the periodic boundary, lane by lane.
#[cold]
fn tap_periodic(out: &mut Tile, grid: &BitGrid, plane: &[u64], dr: isize, dc: isize, lanes: &Lanes) {
    let (wpr, h, top_bit) = (grid.words_per_row, grid.height as isize, (grid.width - 1) % 64);
    out.fill(0);
    for (j, o) in out.iter_mut().enumerate().take(lanes.n) {
        let r = (((lanes.i0 + j) / wpr) as isize + dr).rem_euclid(h) as usize;
        let row = &plane[r * wpr..][..wpr];
        let k = lanes.col[j];
        *o = match dc {
            0 => row[k],
            -1 => (row[k] << 1) | if k == 0 { row[wpr - 1] >> top_bit & 1 } else { row[k - 1] >> 63 },
            _ => (row[k] >> 1) | if k + 1 == wpr { (row[0] & 1) << top_bit } else { row[k + 1] << 63 },
        };
    }
}

/// `out = op(a, b)` on a tile: one vector instruction per register.
#[inline(always)]
fn gate(op: u8, out: &mut Tile, a: &Tile, b: &Tile) {
    macro_rules! ops {
        ($($k:literal)*) => {
            match op {
                $($k => for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = op_word($k, x, y);
                },)*
                _ => unreachable!("ops are 4-bit"),
            }
        };
    }
    ops!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// Scratch of [`HardProgram::step`]: one tile per slot; grows when a
/// program needs more slots than any before (never, if made by
/// [`HardScratch::with_slots`]).
#[derive(Clone, Debug, Default)]
pub struct HardScratch {
    slots: Vec<AlignedTile>,
    /// A tiled grid's block masks, one per tile of the step, and the
    /// shape (height, width, block height, block width) they are for.
    blocks: Vec<BlockMasks>,
    blocks_for: (usize, usize, usize, usize),
}

impl HardScratch {
    /// Room for programs of up to `slots` slots (taps plus gates; a
    /// circuit's `rows` bounds every program built from it).
    pub fn with_slots(slots: usize) -> Self {
        let mut scratch = Self::default();
        scratch.fit(slots);
        scratch
    }

    /// The block masks of every tile of a step on `grid` (tiled), built
    /// once per shape.
    fn fit_blocks(&mut self, grid: &BitGrid) {
        let shape = (grid.height, grid.width, grid.block_height, grid.block_width);
        if self.blocks_for == shape && !self.blocks.is_empty() {
            return;
        }
        self.blocks.clear();
        let wpr = grid.words_per_row;
        for i0 in (0..grid.height * wpr).step_by(TILE) {
            let col: [usize; TILE] = std::array::from_fn(|j| (i0 + j) % wpr);
            self.blocks.push(BlockMasks::new(grid, i0, &col));
        }
        self.blocks_for = shape;
    }

    fn fit(&mut self, slots: usize) {
        if self.slots.len() < slots {
            self.slots.resize(slots, AlignedTile([0; TILE]));
        }
    }
}
