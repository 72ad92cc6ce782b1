//! The soft rollout of a logic CA over N synchronous steps and its backward
//! pass through time, for the grids of one worker thread.
//!
//! A grid is processed in tiles of `lanes` cells (row-major; the last tile
//! padded): for one tile and one CA step, the whole circuit's rows are
//! `[rows, lanes]`, a few hundred KiB that stay in L2 while every layer runs
//! over them. States of every step live in the worker's arena; the tile
//! activations are either kept for every step and tile (`Rollout::Store`,
//! arena memory ~ steps x cells x rows) or recomputed from the stored
//! states in the backward pass (`Rollout::Recompute`, one tile's rows).
//!
//! Backward through time: dL/ds_t of every cell of a grid accumulates as
//! the tiles of step t scatter their tap gradients to the neighbours the
//! taps read; a worker owns whole grids, so nothing is shared.

use crate::ca::{Circuit, LogicCa, fill_taps, scatter_taps};
use crate::gates::OPS;
use crate::hard::{BitGrid, HardProgram, HardScratch};
use crate::layer::{BLOCK, gate_backward_tracked};
use crate::{LogicError, Result};
use minnow_arena::{AlignedBuf, Arena};
use minnow_config::Check;

/// How the backward pass gets each step's activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rollout {
    /// Keep every step's activations in the arena (memory grows with
    /// steps x cells x circuit rows: 96 MB per grid for the checkerboard).
    Store,
    /// Keep only the states; recompute each tile's forward pass just before
    /// its backward pass (one extra forward, everything stays in cache).
    Recompute,
}

/// What the engine needs about the CA, shared read-only by the workers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shared<'a> {
    pub circuit: &'a Circuit,
    pub neighbours: &'a [[u32; 9]],
    pub coeffs: &'a [[f32; 4]],
    pub steps: usize,
    pub lanes: usize,
    pub rollout: Rollout,
    /// The hard program for the accuracy check (None: skip it).
    pub hard: Option<&'a HardProgram>,
    pub height: usize,
    pub width: usize,
}

impl Shared<'_> {
    fn cells(&self) -> usize {
        self.neighbours.len()
    }

    fn tiles(&self) -> usize {
        self.cells().div_ceil(self.lanes)
    }

    /// Floats per channel plane, padded to whole tiles.
    fn stride(&self) -> usize {
        self.tiles() * self.lanes
    }
}

/// One thread's memory: arena for the rollout, tile buffers, and the
/// per-gate gradient sums it accumulates.
#[derive(Debug)]
pub(crate) struct Worker {
    arena: Arena,
    tile: TileBuffers,
    pub sums: Vec<[f32; 4]>,
    pub loss: f64,
    /// Channel-0 cells the hard circuit got right, over this worker's grids.
    pub hard_correct: usize,
    hard: Option<HardBuffers>,
}

/// One tile's activations and gradients, and the gradient sums the
/// tiles' backward passes accumulate.
#[derive(Debug)]
struct TileBuffers {
    acts: AlignedBuf,
    grads: AlignedBuf,
    /// `[params, 4, 4]`: four partial sums of each, reduced into
    /// `Worker::sums` at the end of a run.
    lane_sums: Vec<f32>,
    /// Per row of `grads`: whether this tile's backward pass wrote it yet.
    written: Vec<bool>,
}

impl Worker {
    pub fn new(circuit: &Circuit, lanes: usize) -> Self {
        assert!(
            lanes > 0 && lanes.is_multiple_of(BLOCK),
            "Worker::new: lanes must be a positive multiple of {BLOCK}, found {lanes}"
        );
        Self {
            arena: Arena::new(),
            tile: TileBuffers {
                acts: AlignedBuf::zeros(circuit.rows * lanes),
                grads: AlignedBuf::zeros(circuit.rows * lanes),
                lane_sums: vec![0.0; circuit.params * 16],
                written: vec![false; circuit.rows],
            },
            sums: vec![[0.0; 4]; circuit.params],
            loss: 0.0,
            hard_correct: 0,
            hard: None,
        }
    }

    /// Rolls out the grids `s0` (`[grids, channels, cells]`, 0/1 values)
    /// for `steps`, adds the loss Σ (s_N[0] - target)² into `self.loss`
    /// and its gradient sums into `self.sums` (both reset first), and, with
    /// a hard program, counts the channel-0 cells it gets right.
    ///
    /// `target` is `[cells]` (every grid) or `[grids, cells]`. `fire` is
    /// empty (synchronous steps) or `[grids, steps, cells]` of 0/1: a cell
    /// whose fire value is 0 at step t keeps its state, so
    /// `s_{t+1} = fire ? f(s_t) : s_t` and, backward, the gradient of a
    /// cell that did not fire goes straight to its previous state.
    pub fn run(&mut self, sh: &Shared<'_>, s0: &[f32], target: &[f32], fire: &[f32]) {
        let circuit = sh.circuit;
        let (channels, cells, steps) = (circuit.channels, sh.cells(), sh.steps);
        let plane = channels * sh.stride();
        let grids = s0.len() / (channels * cells);
        assert!(
            s0.len() == grids * channels * cells
                && (target.len() == cells || target.len() == grids * cells)
                && (fire.is_empty() || fire.len() == grids * steps * cells),
            "Worker::run: expected s0 [grids, {channels}, {cells}], target [{cells}] or [grids, {cells}] and fire \
             empty or [grids, {steps}, {cells}], found {}, {} and {}",
            s0.len(),
            target.len(),
            fire.len()
        );
        self.sums.fill([0.0; 4]);
        self.tile.lane_sums.fill(0.0);
        self.loss = 0.0;
        self.hard_correct = 0;
        self.arena.reset();
        let states = self.arena.alloc_dirty((steps + 1) * plane);
        let stored = match sh.rollout {
            Rollout::Store => self.arena.alloc_dirty(steps * sh.tiles() * circuit.rows * sh.lanes),
            Rollout::Recompute => &mut [][..],
        };
        let dstate = self.arena.alloc_dirty(plane);
        let dprev = self.arena.alloc_dirty(plane);

        for g in 0..grids {
            let target = if target.len() == cells { target } else { &target[g * cells..][..cells] };
            let fire = if fire.is_empty() { fire } else { &fire[g * steps * cells..][..steps * cells] };
            let grid = &s0[g * channels * cells..][..channels * cells];
            load_state(sh, &mut states[..plane], grid);
            self.tile.forward_through_time(sh, states, stored, fire);
            add_loss(sh, &mut self.loss, dstate, &states[steps * plane..], target);
            self.tile.backward_through_time(sh, states, stored, &mut dstate[..], &mut dprev[..], fire);
            if let Some(program) = sh.hard {
                self.hard_correct += hard_rollout(&mut self.hard, sh, program, grid, target, fire);
            }
        }
        for (s, l) in self.sums.iter_mut().zip(self.tile.lane_sums.chunks_exact(16)) {
            for k in 0..4 {
                s[k] += (l[k * 4] + l[k * 4 + 2]) + (l[k * 4 + 1] + l[k * 4 + 3]);
            }
        }
    }
}

/// s_0 of one grid (`[channels, cells]`) into `state`, padded to whole tiles.
fn load_state(sh: &Shared<'_>, state: &mut [f32], grid: &[f32]) {
    let (cells, stride) = (sh.cells(), sh.stride());
    for c in 0..sh.circuit.channels {
        let dst = &mut state[c * stride..][..stride];
        dst[..cells].copy_from_slice(&grid[c * cells..][..cells]);
        dst[cells..].fill(0.0);
    }
}

/// Adds Σ (s[0] - target)² of the last state `last` into `loss` and
/// seeds `dstate` with its gradient, 2 (s[0] - target) on channel 0.
fn add_loss(sh: &Shared<'_>, loss: &mut f64, dstate: &mut [f32], last: &[f32], target: &[f32]) {
    let cells = sh.cells();
    dstate.fill(0.0);
    for ((d, &s), &y) in dstate[..cells].iter_mut().zip(&last[..cells]).zip(target) {
        let e = s - y;
        *loss += (e as f64) * (e as f64);
        *d = 2.0 * e;
    }
}

impl TileBuffers {
    /// The activations of `tile` at step `t`: kept in `stored`, or this
    /// tile's buffer.
    fn acts_mut<'a>(&'a mut self, sh: &Shared<'_>, stored: &'a mut [f32], t: usize, tile: usize) -> &'a mut [f32] {
        let tile_len = sh.circuit.rows * sh.lanes;
        match sh.rollout {
            Rollout::Store => &mut stored[(t * sh.tiles() + tile) * tile_len..][..tile_len],
            Rollout::Recompute => &mut self.acts[..],
        }
    }

    /// Forward through time: `states` (`[steps + 1, channels, stride]`)
    /// from its first step, cells that did not fire keeping their state.
    fn forward_through_time(&mut self, sh: &Shared<'_>, states: &mut [f32], stored: &mut [f32], fire: &[f32]) {
        let circuit = sh.circuit;
        let (channels, cells, lanes, stride) = (circuit.channels, sh.cells(), sh.lanes, sh.stride());
        let plane = channels * stride;
        for t in 0..sh.steps {
            let (past, future) = states.split_at_mut((t + 1) * plane);
            let state = &past[t * plane..];
            let next = &mut future[..plane];
            for tile in 0..sh.tiles() {
                let acts = self.acts_mut(sh, stored, t, tile);
                tile_forward(sh, acts, state, stride, tile);
                for c in 0..channels {
                    let out = &acts[(circuit.outputs + c) * lanes..][..lanes];
                    next[c * stride + tile * lanes..][..lanes].copy_from_slice(out);
                }
            }
            if !fire.is_empty() {
                let fire = &fire[t * cells..][..cells];
                for c in 0..channels {
                    let (old, new) = (&state[c * stride..][..cells], &mut next[c * stride..][..cells]);
                    for ((n, &o), &f) in new.iter_mut().zip(old).zip(fire) {
                        if f < 0.5 {
                            *n = o;
                        }
                    }
                }
            }
        }
    }

    /// Backward through time from dL/ds_N in `dstate`, accumulating the
    /// gate gradient sums into `lane_sums`; `dprev` is scratch of the
    /// same size.
    fn backward_through_time<'d>(
        &mut self,
        sh: &Shared<'_>,
        states: &[f32],
        stored: &[f32],
        mut dstate: &'d mut [f32],
        mut dprev: &'d mut [f32],
        fire: &[f32],
    ) {
        let (channels, cells, lanes, stride) = (sh.circuit.channels, sh.cells(), sh.lanes, sh.stride());
        let plane = channels * stride;
        let tile_len = sh.circuit.rows * lanes;
        for t in (0..sh.steps).rev() {
            let state = &states[t * plane..][..plane];
            dprev.fill(0.0);
            if !fire.is_empty() {
                // Cells that did not fire pass their gradient to s_t
                // and none to the circuit.
                let fire = &fire[t * cells..][..cells];
                for c in 0..channels {
                    let (d, p) = (&mut dstate[c * stride..][..cells], &mut dprev[c * stride..][..cells]);
                    for ((d, p), &f) in d.iter_mut().zip(p.iter_mut()).zip(fire) {
                        if f < 0.5 {
                            *p = *d;
                            *d = 0.0;
                        }
                    }
                }
            }
            for tile in 0..sh.tiles() {
                let acts: &[f32] = match sh.rollout {
                    Rollout::Store => &stored[(t * sh.tiles() + tile) * tile_len..][..tile_len],
                    Rollout::Recompute => {
                        tile_forward(sh, &mut self.acts, state, stride, tile);
                        &self.acts
                    }
                };
                let written = &mut self.written;
                tile_backward(sh, written, acts, &mut self.grads, &mut self.lane_sums, dstate, stride, tile);
                if t > 0 {
                    let first = tile * lanes;
                    let count = lanes.min(cells - first);
                    scatter_taps(dprev, stride, &self.grads, &self.written, lanes, sh.neighbours, first, count);
                }
            }
            std::mem::swap(&mut dstate, &mut dprev);
        }
    }
}

/// The hard rollout's grids: state, next state, fire mask, scratch.
type HardBuffers = (BitGrid, BitGrid, BitGrid, HardScratch);

/// Runs the hard program for `steps` from `s0` (with the fire masks of
/// `fire`, as [`Worker::run`]) and counts the channel-0 cells equal to the
/// target. The bit grids are made on the first call.
fn hard_rollout(
    hard: &mut Option<HardBuffers>,
    sh: &Shared<'_>,
    program: &HardProgram,
    s0: &[f32],
    target: &[f32],
    fire: &[f32],
) -> usize {
    let channels = sh.circuit.channels;
    let cells = sh.height * sh.width;
    let fresh = match hard {
        Some((a, _, _, _)) => a.height() != sh.height || a.width() != sh.width,
        None => true,
    };
    if fresh {
        let grid = BitGrid::new(sh.height, sh.width, channels);
        // Sized for the largest program the circuit can give, so a program
        // growing during training never allocates.
        let scratch = HardScratch::with_slots(sh.circuit.rows);
        *hard = Some((grid.clone(), grid, BitGrid::new(sh.height, sh.width, 1), scratch));
    }
    let (a, b, mask, scratch) = hard.as_mut().expect("just set");
    a.load(s0);
    for t in 0..sh.steps {
        program.step(a, b, scratch);
        if !fire.is_empty() {
            mask.load(&fire[t * cells..][..cells]);
            b.keep_unfired(a, mask);
        }
        std::mem::swap(a, b);
    }
    a.count_equal(0, target)
}

/// Fills the taps of `tile` from `state` and runs the circuit on them.
fn tile_forward(sh: &Shared<'_>, acts: &mut [f32], state: &[f32], stride: usize, tile: usize) {
    let (lanes, cells) = (sh.lanes, sh.cells());
    let first = tile * lanes;
    fill_taps(acts, lanes, state, stride, sh.neighbours, first, lanes.min(cells - first));
    sh.circuit.forward(acts, lanes, sh.coeffs);
}

/// Backward through one tile's circuit: seeds the output rows with dL/ds
/// of its cells, then runs the stages in reverse, leaving the tap
/// gradients in the first rows of `grads`.
fn tile_backward(
    sh: &Shared<'_>,
    written: &mut [bool],
    acts: &[f32],
    grads: &mut [f32],
    lane_sums: &mut [f32],
    dnext: &[f32],
    stride: usize,
    tile: usize,
) {
    let circuit = sh.circuit;
    let lanes = sh.lanes;
    written.fill(false);
    for c in 0..circuit.channels {
        grads[(circuit.outputs + c) * lanes..][..lanes].copy_from_slice(&dnext[c * stride + tile * lanes..][..lanes]);
        written[circuit.outputs + c] = true;
    }
    for stage in circuit.stages.iter().rev() {
        let (dx, rest) = grads.split_at_mut(stage.out_start * lanes);
        let dout = &rest[..stage.gates.len() * lanes];
        let x = &acts[..stage.out_start * lanes];
        gate_backward_tracked(dx, lane_sums, x, dout, lanes, &stage.gates, sh.coeffs, written, stage.out_start);
    }
}

/// The soft rollout and its backward pass on the calling thread: the
/// engine the trainer's workers run, for tests and tools.
#[derive(Debug)]
pub struct SoftRollout {
    worker: Worker,
    probs: Vec<f32>,
    coeffs: Vec<[f32; 4]>,
    lanes: usize,
    rollout: Rollout,
}

impl SoftRollout {
    /// Buffers for `ca`'s circuit with tiles of `lanes` cells (a positive
    /// multiple of 16).
    pub fn new(ca: &LogicCa, lanes: usize, rollout: Rollout) -> Result<Self> {
        if lanes == 0 || !lanes.is_multiple_of(BLOCK) {
            return Err(Check("SoftRollout").count("lanes", "a positive multiple of 16", lanes as u64).into());
        }
        let params = ca.circuit().params;
        Ok(Self {
            worker: Worker::new(ca.circuit(), lanes),
            probs: vec![0.0; params * OPS],
            coeffs: vec![[0.0; 4]; params],
            lanes,
            rollout,
        })
    }

    /// Rolls out the grids `s0` (`[grids, channels, cells]`) for `steps`
    /// and returns Σ over grids and cells of (s_steps channel 0 - target)²;
    /// writes dL/dlogits into `ca`'s gradient buffer.
    pub fn loss_and_grads(&mut self, ca: &mut LogicCa, s0: &[f32], target: &[f32], steps: usize) -> Result<f32> {
        let config = ca.config();
        let (channels, cells) = (config.channels, config.cells());
        if steps == 0 {
            return Err(Check("SoftRollout").count("steps", "at least 1", 0).into());
        }
        if s0.is_empty() || !s0.len().is_multiple_of(channels * cells) {
            return Err(LogicError::DataLength {
                what: "SoftRollout s0 (a whole number of grids)",
                expected: channels * cells,
                found: s0.len(),
            });
        }
        if target.len() != cells {
            return Err(LogicError::DataLength { what: "SoftRollout target", expected: cells, found: target.len() });
        }
        ca.fold(&mut self.probs, &mut self.coeffs);
        let shared = Shared {
            circuit: ca.circuit(),
            neighbours: ca.neighbours(),
            coeffs: &self.coeffs,
            steps,
            lanes: self.lanes,
            rollout: self.rollout,
            hard: None,
            height: config.height,
            width: config.width,
        };
        self.worker.run(&shared, s0, target, &[]);
        ca.write_logit_grads(&self.probs, &self.worker.sums);
        Ok(self.worker.loss as f32)
    }
}
