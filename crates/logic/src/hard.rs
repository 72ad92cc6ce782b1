//! Hard circuits: each gate fixed to its argmax op, simplified, and run
//! bit-parallel.
//!
//! A grid is stored as channel-major bit planes ([`BitGrid`]): each grid
//! row takes whole `u64` words, bit j of word q is column 64q + j, bits
//! past the last column stay 0. A CA step goes over the planes in tiles
//! of 64 consecutive words: it computes every tap of a tile as a word
//! shift of the old plane (the zero boundary comes in as the zero bits
//! past the edges), then each gate as one bitwise op per word, all in a
//! scratch that stays in L1.
//!
//! A [`HardProgram`] is built from the circuit and the ops either exactly
//! (`Prune::None`: every gate, every channel, the soft network's hard
//! forward one to one) or pruned (`Prune::Channel0`): pass-through gates
//! become wires, constants fold, negations fold into the gates that read
//! them, equal gates merge, and only what channel 0 depends on (over any
//! number of steps) is kept.

use crate::ca::{Boundary, Circuit, TAPS};
use crate::gates::{self, OP_NAMES, op_bit, op_word};
use crate::{LogicError, Result};

/// The bit planes of a grid: `[channels, height, words_per_row]` words.
///
/// A grid may be tiled ([`BitGrid::tiled`]): blocks of
/// `block_height x block_width` cells that a CA step treats as separate
/// grids, each with the zero boundary of its own, so that several small
/// grids share the words of one tile of the bit-parallel step instead of
/// each filling a tile mostly with padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitGrid {
    height: usize,
    width: usize,
    channels: usize,
    words_per_row: usize,
    block_height: usize,
    block_width: usize,
    bits: Vec<u64>,
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

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn channels(&self) -> usize {
        self.channels
    }

    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }

    /// The words of one channel.
    pub fn plane(&self, channel: usize) -> &[u64] {
        let n = self.height * self.words_per_row;
        &self.bits[channel * n..(channel + 1) * n]
    }

    pub fn get(&self, channel: usize, row: usize, col: usize) -> bool {
        let w = self.bits[(channel * self.height + row) * self.words_per_row + col / 64];
        (w >> (col % 64)) & 1 == 1
    }

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
    fn word_mask(&self, q: usize) -> u64 {
        let used = self.width - 64 * q;
        if used >= 64 { !0 } else { (1u64 << used) - 1 }
    }
}

/// Where a program output comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// A slot, negated or not.
    Slot {
        slot: u32,
        negated: bool,
    },
    Const(bool),
    /// Not computed: channel 0 does not depend on this channel.
    Dead,
}

/// One bitwise gate: `slot = op(slots[a], slots[b])`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    pub op: u8,
    pub a: u32,
    pub b: u32,
}

/// How much to simplify when building a [`HardProgram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prune {
    /// Every gate and channel, exactly as the circuit is wired.
    None,
    /// Only what channel 0 depends on, simplified.
    Channel0,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Tap,
    Gate { op: u8, a: u32, b: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Const(bool),
    Lit { var: u32, neg: bool },
}

/// A hard circuit as straight-line bitwise code: slots `0..taps.len()`
/// are the live taps (channel, tap), then one slot per instruction; the
/// outputs are the next state's channels.
#[derive(Clone, Debug, Default)]
pub struct HardProgram {
    channels: usize,
    periodic: bool,
    taps: Vec<(u16, u8)>,
    instrs: Vec<Instr>,
    outputs: Vec<Output>,
    // Build scratch, kept so a rebuild allocates nothing.
    vals: Vec<Val>,
    nodes: Vec<Node>,
    live: Vec<bool>,
    slot_of: Vec<u32>,
    table: Vec<u32>,
    live_channels: Vec<bool>,
}

impl HardProgram {
    /// The program of `circuit` with parameter gate p fixed to `ops[p]`.
    pub fn new(circuit: &Circuit, ops: &[u8], boundary: Boundary, prune: Prune) -> Self {
        let mut program = Self::default();
        program.rebuild(circuit, ops, boundary, prune);
        program
    }

    /// Rebuilds in place; allocates nothing once it has been built for a
    /// circuit of this size.
    #[track_caller]
    pub fn rebuild(&mut self, circuit: &Circuit, ops: &[u8], boundary: Boundary, prune: Prune) {
        assert_eq!(ops.len(), circuit.params, "HardProgram::rebuild: expected one op per parameter gate");
        self.channels = circuit.channels;
        self.periodic = boundary == Boundary::Periodic;
        self.vals.clear();
        self.nodes.clear();
        self.taps.clear();
        self.instrs.clear();
        self.outputs.clear();
        let table_len = (2 * circuit.rows).next_power_of_two();
        self.table.clear();
        self.table.resize(table_len, u32::MAX);
        for r in 0..circuit.taps {
            self.nodes.push(Node::Tap);
            self.vals.push(Val::Lit { var: r as u32, neg: false });
        }
        for stage in &circuit.stages {
            for g in &stage.gates {
                let op = ops[g.param as usize];
                let (a, b) = (self.vals[g.a as usize], self.vals[g.b as usize]);
                let v = match prune {
                    Prune::None => {
                        let (Val::Lit { var: a, .. }, Val::Lit { var: b, .. }) = (a, b) else {
                            unreachable!("unpruned values are plain rows")
                        };
                        self.nodes.push(Node::Gate { op, a, b });
                        Val::Lit { var: self.nodes.len() as u32 - 1, neg: false }
                    }
                    Prune::Channel0 => self.simplify(op, a, b),
                };
                self.vals.push(v);
            }
        }
        // Liveness, with the channels channel 0 depends on found as a fixed point.
        self.live_channels.clear();
        self.live_channels.resize(circuit.channels, prune == Prune::None);
        self.live_channels[0] = true;
        loop {
            self.live.clear();
            self.live.resize(self.nodes.len(), prune == Prune::None);
            for c in 0..circuit.channels {
                if let (true, Val::Lit { var, .. }) = (self.live_channels[c], self.vals[circuit.outputs + c]) {
                    self.live[var as usize] = true;
                }
            }
            for v in (0..self.nodes.len()).rev() {
                if let (true, Node::Gate { a, b, .. }) = (self.live[v], self.nodes[v]) {
                    self.live[a as usize] = true;
                    self.live[b as usize] = true;
                }
            }
            let mut changed = false;
            for t in 0..circuit.taps {
                if self.live[t] && !self.live_channels[t / TAPS] {
                    self.live_channels[t / TAPS] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Emit: live taps, then live gates in order.
        self.slot_of.clear();
        self.slot_of.resize(self.nodes.len(), u32::MAX);
        let mut slot = 0u32;
        for t in 0..circuit.taps {
            if self.live[t] {
                self.taps.push(((t / TAPS) as u16, (t % TAPS) as u8));
                self.slot_of[t] = slot;
                slot += 1;
            }
        }
        for v in circuit.taps..self.nodes.len() {
            if let (true, Node::Gate { op, a, b }) = (self.live[v], self.nodes[v]) {
                self.instrs.push(Instr { op, a: self.slot_of[a as usize], b: self.slot_of[b as usize] });
                self.slot_of[v] = slot;
                slot += 1;
            }
        }
        for c in 0..circuit.channels {
            let out = if !self.live_channels[c] {
                Output::Dead
            } else {
                match self.vals[circuit.outputs + c] {
                    Val::Const(x) => Output::Const(x),
                    Val::Lit { var, neg } => Output::Slot { slot: self.slot_of[var as usize], negated: neg },
                }
            };
            self.outputs.push(out);
        }
    }

    /// The value of gate `op(a, b)` with constants folded, negations folded
    /// into the op, wires for ops that read one input, and equal gates
    /// shared. Gates kept have op(0, 0) = 0 (a negated output is carried
    /// by the literal instead) and their inputs in increasing order.
    fn simplify(&mut self, op: u8, a: Val, b: Val) -> Val {
        let unary = |f0: bool, f1: bool, var: u32| -> Val {
            match (f0, f1) {
                (x, y) if x == y => Val::Const(x),
                (false, true) => Val::Lit { var, neg: false },
                _ => Val::Lit { var, neg: true },
            }
        };
        match (a, b) {
            (Val::Const(x), Val::Const(y)) => Val::Const(op_bit(op, x, y)),
            (Val::Const(x), Val::Lit { var, neg }) => unary(op_bit(op, x, neg), op_bit(op, x, !neg), var),
            (Val::Lit { var, neg }, Val::Const(y)) => unary(op_bit(op, neg, y), op_bit(op, !neg, y), var),
            (Val::Lit { var: va, neg: na }, Val::Lit { var: vb, neg: nb }) => {
                if va == vb {
                    return unary(op_bit(op, na, nb), op_bit(op, !na, !nb), va);
                }
                let mut op = op;
                if na {
                    op = gates::negate_a(op);
                }
                if nb {
                    op = gates::negate_b(op);
                }
                let reads_a = (0..4).any(|i| op_bit(op, i & 1 == 1, i & 2 == 2) != op_bit(op, i & 1 == 0, i & 2 == 2));
                let reads_b = (0..4).any(|i| op_bit(op, i & 1 == 1, i & 2 == 2) != op_bit(op, i & 1 == 1, i & 2 == 0));
                match (reads_a, reads_b) {
                    (false, false) => return Val::Const(op_bit(op, false, false)),
                    (true, false) => return unary(op_bit(op, false, false), op_bit(op, true, false), va),
                    (false, true) => return unary(op_bit(op, false, false), op_bit(op, false, true), vb),
                    (true, true) => {}
                }
                let (mut va, mut vb) = (va, vb);
                if va > vb {
                    op = gates::swap_inputs(op);
                    std::mem::swap(&mut va, &mut vb);
                }
                let neg = op_bit(op, false, false);
                if neg {
                    op = gates::negate_output(op);
                }
                let var = self.intern(op, va, vb);
                Val::Lit { var, neg }
            }
        }
    }

    /// The node of gate (op, a, b), made if new (open addressing).
    fn intern(&mut self, op: u8, a: u32, b: u32) -> u32 {
        let mask = self.table.len() - 1;
        let key = Node::Gate { op, a, b };
        let hash =
            (a as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (b as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f) ^ op as u64;
        let mut i = (hash ^ (hash >> 29)) as usize & mask;
        loop {
            match self.table[i] {
                u32::MAX => {
                    self.nodes.push(key);
                    let var = self.nodes.len() as u32 - 1;
                    self.table[i] = var;
                    return var;
                }
                v if self.nodes[v as usize] == key => return v,
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The live taps as (channel, tap).
    pub fn taps(&self) -> &[(u16, u8)] {
        &self.taps
    }

    pub fn instrs(&self) -> &[Instr] {
        &self.instrs
    }

    pub fn outputs(&self) -> &[Output] {
        &self.outputs
    }

    /// The boundary the taps assume.
    pub fn boundary(&self) -> Boundary {
        if self.periodic { Boundary::Periodic } else { Boundary::Zero }
    }

    /// Gates left after pruning (bitwise instructions per cell update,
    /// not counting output negations).
    pub fn gate_count(&self) -> usize {
        self.instrs.len()
    }

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

/// Gates on the paths channel 0 depends on that do real work: neither a
/// pass-through (A, B) nor a constant, following each op's true inputs.
pub fn active_gates(circuit: &Circuit, ops: &[u8]) -> usize {
    let mut live = vec![false; circuit.rows];
    let mut live_channels = vec![false; circuit.channels];
    live_channels[0] = true;
    loop {
        live.fill(false);
        for c in 0..circuit.channels {
            live[circuit.outputs + c] = live_channels[c];
        }
        for stage in circuit.stages.iter().rev() {
            for (i, g) in stage.gates.iter().enumerate() {
                if live[stage.out_start + i] {
                    let op = ops[g.param as usize];
                    let (ra, rb) = reads(op);
                    live[g.a as usize] |= ra;
                    live[g.b as usize] |= rb;
                }
            }
        }
        let mut changed = false;
        for t in 0..circuit.taps {
            if live[t] && !live_channels[t / TAPS] {
                live_channels[t / TAPS] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    circuit
        .stages
        .iter()
        .flat_map(|s| s.gates.iter().enumerate().map(move |(i, g)| (s.out_start + i, g)))
        .filter(|&(row, g)| {
            let op = ops[g.param as usize];
            live[row] && reads(op) == (true, true)
        })
        .count()
}

/// Which inputs an op depends on.
fn reads(op: u8) -> (bool, bool) {
    let a = (0..4).any(|i| op_bit(op, i & 1 == 1, i & 2 == 2) != op_bit(op, i & 1 == 0, i & 2 == 2));
    let b = (0..4).any(|i| op_bit(op, i & 1 == 1, i & 2 == 2) != op_bit(op, i & 1 == 1, i & 2 == 0));
    (a, b)
}

impl HardProgram {
    /// A readable text form: one line per tap, gate and output.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str("# minnow-logic hard circuit: slots are taps (channel, 3x3 position,\n");
        s.push_str("# row-major, centre 4), then gates; outputs are the next state.\n");
        s.push_str(&format!("channels {}\n", self.channels));
        s.push_str(&format!("boundary {}\n", if self.periodic { "periodic" } else { "zero" }));
        for (i, &(c, d)) in self.taps.iter().enumerate() {
            s.push_str(&format!("s{i} = tap c{c} {d}\n"));
        }
        for (i, ins) in self.instrs.iter().enumerate() {
            let slot = self.taps.len() + i;
            s.push_str(&format!("s{slot} = {} s{} s{}\n", OP_NAMES[ins.op as usize], ins.a, ins.b));
        }
        for (c, out) in self.outputs.iter().enumerate() {
            let v = match *out {
                Output::Slot { slot, negated: false } => format!("s{slot}"),
                Output::Slot { slot, negated: true } => format!("NOT s{slot}"),
                Output::Const(x) => format!("{}", x as u8),
                Output::Dead => "dead".to_string(),
            };
            s.push_str(&format!("out c{c} = {v}\n"));
        }
        s
    }

    /// Parses [`to_text`](Self::to_text)'s form.
    pub fn from_text(text: &str) -> Result<Self> {
        let bad = |line: usize| LogicError::InvalidCount {
            config: "HardProgram text",
            field: "line",
            expected: "a line of the form `to_text` writes",
            found: line + 1,
        };
        let mut p = Self::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let slot = |w: &str| -> Result<u32> { w.strip_prefix('s').and_then(|v| v.parse().ok()).ok_or(bad(n)) };
            match words.as_slice() {
                ["channels", c] => p.channels = c.parse().map_err(|_| bad(n))?,
                ["boundary", b] => {
                    p.periodic = match *b {
                        "periodic" => true,
                        "zero" => false,
                        _ => return Err(bad(n)),
                    }
                }
                [s, "=", "tap", c, d] => {
                    let c: u16 = c.strip_prefix('c').and_then(|v| v.parse().ok()).ok_or(bad(n))?;
                    let d: u8 = d.parse().map_err(|_| bad(n))?;
                    if slot(s)? as usize != p.taps.len()
                        || !p.instrs.is_empty()
                        || d as usize >= TAPS
                        || c as usize >= p.channels
                    {
                        return Err(bad(n));
                    }
                    p.taps.push((c, d));
                }
                [s, "=", op, a, b] => {
                    let op = OP_NAMES.iter().position(|o| o == op).ok_or(bad(n))? as u8;
                    let here = p.taps.len() + p.instrs.len();
                    let (a, b) = (slot(a)?, slot(b)?);
                    if slot(s)? as usize != here || a as usize >= here || b as usize >= here {
                        return Err(bad(n));
                    }
                    p.instrs.push(Instr { op, a, b });
                }
                ["out", c, "=", rest @ ..] => {
                    let c: usize = c.strip_prefix('c').and_then(|v| v.parse().ok()).ok_or(bad(n))?;
                    if c != p.outputs.len() {
                        return Err(bad(n));
                    }
                    let slots = p.taps.len() + p.instrs.len();
                    let out = match rest {
                        ["dead"] => Output::Dead,
                        ["0"] => Output::Const(false),
                        ["1"] => Output::Const(true),
                        ["NOT", s] => Output::Slot { slot: slot(s)?, negated: true },
                        [s] => Output::Slot { slot: slot(s)?, negated: false },
                        _ => return Err(bad(n)),
                    };
                    if let Output::Slot { slot, .. } = out
                        && slot as usize >= slots
                    {
                        return Err(bad(n));
                    }
                    p.outputs.push(out);
                }
                _ => return Err(bad(n)),
            }
        }
        if p.channels == 0 || p.outputs.len() != p.channels {
            return Err(LogicError::DataLength {
                what: "HardProgram text outputs",
                expected: p.channels,
                found: p.outputs.len(),
            });
        }
        Ok(p)
    }
}
