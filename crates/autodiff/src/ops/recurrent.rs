//! The fused cells of recurrent layers, one time step each.
//!
//! The cells read step t's input-side gate pre-activations from
//! gx [B, T, G] (one GEMM over every step makes them) and the hidden-side
//! ones from gh [B, G] = h W_hhᵀ + b_hh, or from b_hh [G] itself, broadcast
//! over the rows, at the first step where h = 0. They save the gate
//! activations a (from their own scratch) for the backward pass.
//! - rnn_cell, G = H: h' = tanh(gx_t + gh); dpre = dh' (1 - h'²).
//! - lstm_cell, G = 4H, gates [i f g o] = [σ σ tanh σ](gx_t + gh); the
//!   state s = [h | c] [B, 2H] (absent: zeros) becomes s' = [h' | c'] with
//!   c' = f c + i g, h' = o tanh c'. Saves a [B, 4H] and tanh c' [B, H].
//!   dc = dc' + dh' o (1 - tanh² c'); do = dh' tanh c'; di = dc g;
//!   df = dc c; dg = dc i; dc_prev += dc f (h enters only through gh).
//! - gru_cell, G = 3H, PyTorch's form: r, z = σ(gx_t + gh) (first 2H);
//!   n = tanh(gx_n + r gh_n); h' = (1 - z) n + z h. Saves [r z n].
//!   dn = dh' (1 - z); dz = dh' (h - n); dh_prev += dh' z;
//!   dn_pre = dn (1 - n²) goes to gx_n, and dn_pre r to gh_n;
//!   dr = dn_pre gh_n.
//!

use super::OpKind;
use super::check;
use crate::tape::{Block, Graph, IndexBlock, Op, TAPE};
use crate::{Error, Result, Var};
use minnow_kernels::{self as k, Accum};
use minnow_tensor::{Shape, TensorError};

/// A recurrent cell: an Elman RNN (tanh), an LSTM or a GRU, with
/// PyTorch's gate order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecurrentCell {
    /// h' = tanh(gx + gh): one gate block.
    Rnn,
    /// Gates i, f, g, o; carries the state [h | c].
    Lstm,
    /// Gates r, z, n; carries h.
    Gru,
}

impl RecurrentCell {
    /// The cell's name, as its layer is called ("Rnn", "Lstm", "Gru").
    pub fn name(self) -> &'static str {
        match self {
            RecurrentCell::Rnn => "Rnn",
            RecurrentCell::Lstm => "Lstm",
            RecurrentCell::Gru => "Gru",
        }
    }

    /// Gate blocks of width H in G.
    pub fn gates(self) -> usize {
        match self {
            RecurrentCell::Rnn => 1,
            RecurrentCell::Lstm => 4,
            RecurrentCell::Gru => 3,
        }
    }

    /// Width of the state the cell carries, in units of H.
    pub fn state_width(self) -> usize {
        match self {
            RecurrentCell::Lstm => 2,
            _ => 1,
        }
    }

    fn op_name(self) -> &'static str {
        match self {
            RecurrentCell::Rnn => "rnn_cell",
            RecurrentCell::Lstm => "lstm_cell",
            RecurrentCell::Gru => "gru_cell",
        }
    }
}

/// One cell step as recorded on the tape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kind {
    cell: RecurrentCell,
    t: u32,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        self.cell.op_name()
    }
}

impl Graph<'_> {
    /// An Elman RNN step: h' = tanh(gx[:, t, :] + gh), with gx [B, T, H]
    /// and gh `[B, H]` (or `[H]`, broadcast over rows).
    pub fn rnn_cell(&mut self, gx: Var, t: usize, gh: Var) -> Result<Var> {
        self.recurrent_cell(RecurrentCell::Rnn, gx, t, gh, None)
    }

    /// An LSTM step with PyTorch's gate order i, f, g, o: gx [B, T, 4H],
    /// gh `[B, 4H]` (or `[4H]`); state `[h | c]` `[B, 2H]`, `None` for zeros.
    /// Returns the next state [h' | c'] [B, 2H].
    pub fn lstm_cell(&mut self, gx: Var, t: usize, gh: Var, state: Option<Var>) -> Result<Var> {
        self.recurrent_cell(RecurrentCell::Lstm, gx, t, gh, state)
    }

    /// A GRU step with PyTorch's gate order r, z, n and its form of n
    /// (r multiplies W_hn h + b_hn): gx `[B, T, 3H]`, gh `[B, 3H]` (or `[3H]`);
    /// h [B, H], `None` for zeros. Returns h' [B, H].
    pub fn gru_cell(&mut self, gx: Var, t: usize, gh: Var, h: Option<Var>) -> Result<Var> {
        self.recurrent_cell(RecurrentCell::Gru, gx, t, gh, h)
    }

    /// One step of `cell` (the three methods above, chosen at run time):
    /// gx [B, T, G H], gh [B, G H] (or [G H]); the state [B, W H] with
    /// W = [`RecurrentCell::state_width`], `None` for zeros. Returns the
    /// next state.
    pub fn recurrent_cell(
        &mut self,
        cell: RecurrentCell,
        gx: Var,
        t: usize,
        gh: Var,
        state: Option<Var>,
    ) -> Result<Var> {
        let op = cell.op_name();
        let xs = self.shape(gx);
        let &[batch, steps, width] = xs.dims() else {
            return Err(TensorError::Rank { op, expected: 3, found: xs }.into());
        };
        if t >= steps {
            return Err(check::index(op, t, steps));
        }
        let gates = cell.gates();
        if width == 0 || width % gates != 0 {
            return Err(Error::Config(format!("{op}: gx {xs} must end in {gates} gates of a positive width")));
        }
        let hidden = width / gates;
        let hs = self.shape(gh);
        if hs != Shape::matrix(batch, width) && hs != Shape::vector(width) {
            return Err(TensorError::ShapeMismatch { op, lhs: Shape::matrix(batch, width), rhs: hs }.into());
        }
        let state_shape = Shape::matrix(batch, cell.state_width() * hidden);
        if let Some(s) = state {
            check::same(op, state_shape, self.shape(s))?;
        }
        let all = [gx, gh, state.unwrap_or(gx)];
        let inputs = &all[..2 + state.is_some() as usize];
        let y = self.output(state_shape, inputs);
        let saved = match cell {
            RecurrentCell::Rnn => Block::EMPTY,
            RecurrentCell::Lstm => self.scratch(batch * 5 * hidden),
            RecurrentCell::Gru => self.scratch(batch * 3 * hidden),
        };
        let pre = self.scratch(batch * width);
        let state_loc = state.map_or((TAPE, 0..0), |s| self.val(s));
        let reads = [self.val(gx), self.val(gh), state_loc];
        let writes = [self.val(y), self.blk(saved), self.blk(pre)];
        let ([gxv, ghv, sv], [yv, sav, prev]) = self.split(reads, writes);
        let shapes = CellShape { batch, steps, hidden, t };
        match cell {
            RecurrentCell::Rnn => {
                shapes.preactivations(gxv, ghv, width, prev);
                k::tanh(prev, yv);
            }
            RecurrentCell::Lstm => lstm_forward(&shapes, gxv, ghv, sv, yv, sav, prev),
            RecurrentCell::Gru => gru_forward(&shapes, gxv, ghv, sv, yv, sav, prev),
        }
        let kind = Kind { cell, t: t as u32 };
        self.record(OpKind::Recurrent(kind), inputs, y, saved, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}

/// The sizes a cell works with, and its time step.
#[derive(Clone, Copy, Debug)]
struct CellShape {
    batch: usize,
    steps: usize,
    hidden: usize,
    t: usize,
}

impl CellShape {
    /// Row `b`, step `t` of gx [B, T, width].
    fn gx_row(&self, b: usize, width: usize) -> std::ops::Range<usize> {
        let at = (b * self.steps + self.t) * width;
        at..at + width
    }

    /// Row `b` of gh: [B, width], or the same [width] for every row.
    fn gh_row(gh: &[f32], b: usize, width: usize) -> &[f32] {
        if gh.len() == width { gh } else { &gh[b * width..(b + 1) * width] }
    }

    /// pre[b] = gx[b, t, ..width] + gh[b, ..width] for the first `width`
    /// columns of rows of `row` columns.
    fn preactivations(&self, gx: &[f32], gh: &[f32], width: usize, pre: &mut [f32]) {
        let row = pre.len() / self.batch.max(1);
        for b in 0..self.batch {
            let x = &gx[self.gx_row(b, row)];
            let h = Self::gh_row(gh, b, row);
            k::add(&x[..width], &h[..width], &mut pre[b * row..b * row + width]);
        }
    }

    /// dgx[:, t, :] += d; dgh += d, summed over rows when gh is broadcast.
    fn scatter(&self, d: &[f32], width: usize, dgx: &mut [f32]) {
        if dgx.is_empty() {
            return;
        }
        for b in 0..self.batch {
            let r = self.gx_row(b, width);
            k::add_assign(&mut dgx[r], &d[b * width..(b + 1) * width]);
        }
    }

    fn gh_grad(d: &[f32], width: usize, dgh: &mut [f32]) {
        if dgh.is_empty() {
        } else if dgh.len() == width {
            k::col_sums(d, width, dgh, Accum::Add);
        } else {
            k::add_assign(dgh, d);
        }
    }
}

/// Gate activations a = [σ(i) σ(f) tanh(g) σ(o)], c' = f c + i g,
/// h' = o tanh c'; `saved` holds a then tanh c'.
fn lstm_forward(
    s: &CellShape,
    gx: &[f32],
    gh: &[f32],
    state: &[f32],
    y: &mut [f32],
    saved: &mut [f32],
    pre: &mut [f32],
) {
    let h = s.hidden;
    let (act, tanh_c) = saved.split_at_mut(s.batch * 4 * h);
    s.preactivations(gx, gh, 4 * h, pre);
    for b in 0..s.batch {
        let p = &pre[b * 4 * h..(b + 1) * 4 * h];
        let a = &mut act[b * 4 * h..(b + 1) * 4 * h];
        k::sigmoid(&p[..2 * h], &mut a[..2 * h]);
        k::tanh(&p[2 * h..3 * h], &mut a[2 * h..3 * h]);
        k::sigmoid(&p[3 * h..], &mut a[3 * h..]);
        let (h_out, c_out) = y[b * 2 * h..(b + 1) * 2 * h].split_at_mut(h);
        let (i, f, g, o) = (&a[..h], &a[h..2 * h], &a[2 * h..3 * h], &a[3 * h..]);
        k::mul(i, g, c_out);
        if !state.is_empty() {
            let c = &state[b * 2 * h + h..(b + 1) * 2 * h];
            k::mul_add_assign(c_out, f, c);
        }
        let tc = &mut tanh_c[b * h..(b + 1) * h];
        k::tanh(c_out, tc);
        k::mul(o, tc, h_out);
    }
}

/// r, z = σ(gx + gh), n = tanh(gx_n + r gh_n), h' = (1 - z) n + z h;
/// `saved` holds [r z n].
fn gru_forward(
    s: &CellShape,
    gx: &[f32],
    gh: &[f32],
    state: &[f32],
    y: &mut [f32],
    saved: &mut [f32],
    pre: &mut [f32],
) {
    let h = s.hidden;
    s.preactivations(gx, gh, 2 * h, pre);
    for b in 0..s.batch {
        let x_n = &gx[s.gx_row(b, 3 * h)][2 * h..];
        let h_n = &CellShape::gh_row(gh, b, 3 * h)[2 * h..];
        let p = &mut pre[b * 3 * h..(b + 1) * 3 * h];
        let a = &mut saved[b * 3 * h..(b + 1) * 3 * h];
        k::sigmoid(&p[..2 * h], &mut a[..2 * h]);
        let (rz, n) = a.split_at_mut(2 * h);
        let p_n = &mut p[2 * h..];
        k::mul(&rz[..h], h_n, p_n);
        k::add_assign(p_n, x_n);
        k::tanh(p_n, n);
        let out = &mut y[b * h..(b + 1) * h];
        let z = &rz[h..];
        for j in 0..h {
            let prev = if state.is_empty() { 0.0 } else { state[b * h + j] };
            out[j] = n[j] + z[j] * (prev - n[j]);
        }
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op, kind: Kind) {
    cell_backward(g, op, kind.cell, kind.t as usize)
}

fn cell_backward(g: &mut Graph<'_>, op: &Op, cell: RecurrentCell, t: usize) {
    let (gx, gh) = (op.inputs[0], op.inputs[1]);
    let state = (op.arity == 3).then(|| op.inputs[2]);
    let dims = g.shape(gx);
    let (batch, steps, width) = (dims.dims()[0], dims.dims()[1], dims.dims()[2]);
    let s = CellShape { batch, steps, hidden: width / cell.gates(), t };
    // Gate gradients for gx; GRU's n gate differs for gh, fixed up below.
    let d = g.scratch(batch * width);
    let dy_loc = g.grad_loc(op.output);
    let (dgx_loc, dgh_loc) = (g.grad_loc(gx), g.grad_loc(gh));
    let (state_val, dstate_loc) = match state {
        Some(v) => (g.val(v), g.grad_loc(v)),
        None => ((TAPE, 0..0), (TAPE, 0..0)),
    };
    let reads = [g.val(op.output), dy_loc, g.blk(op.saved), g.val(gh), state_val];
    let writes = [g.blk(d), dgx_loc, dgh_loc, dstate_loc];
    let ([yv, dy, saved, ghv, sv], [dv, dgx, dgh, ds]) = g.split(reads, writes);
    match cell {
        RecurrentCell::Rnn => {
            k::tanh_backward(yv, dy, dv, Accum::Replace);
            s.scatter(dv, width, dgx);
            CellShape::gh_grad(dv, width, dgh);
        }
        RecurrentCell::Lstm => {
            lstm_backward(&s, saved, dy, sv, dv, ds);
            s.scatter(dv, width, dgx);
            CellShape::gh_grad(dv, width, dgh);
        }
        RecurrentCell::Gru => {
            gru_backward(&s, saved, dy, ghv, sv, dv, ds);
            s.scatter(dv, width, dgx);
            // gh_n's gradient is r times gx_n's.
            let h = s.hidden;
            for b in 0..batch {
                let r = &saved[b * 3 * h..b * 3 * h + h];
                let d_n = &mut dv[b * 3 * h + 2 * h..(b + 1) * 3 * h];
                d_n.iter_mut().zip(r).for_each(|(d, &r)| *d *= r);
            }
            CellShape::gh_grad(dv, width, dgh);
        }
    }
}

/// Gate pre-activation gradients into `d` [B, 4H]; dc_prev into `dstate`.
fn lstm_backward(s: &CellShape, saved: &[f32], dy: &[f32], state: &[f32], d: &mut [f32], dstate: &mut [f32]) {
    let h = s.hidden;
    let (act, tanh_c) = saved.split_at(s.batch * 4 * h);
    for b in 0..s.batch {
        let a = &act[b * 4 * h..(b + 1) * 4 * h];
        let tc = &tanh_c[b * h..(b + 1) * h];
        let (dh, dc_next) = dy[b * 2 * h..(b + 1) * 2 * h].split_at(h);
        let drow = &mut d[b * 4 * h..(b + 1) * 4 * h];
        for j in 0..h {
            let (i, f, gg, o) = (a[j], a[h + j], a[2 * h + j], a[3 * h + j]);
            let c_prev = if state.is_empty() { 0.0 } else { state[b * 2 * h + h + j] };
            let dc = dc_next[j] + dh[j] * o * (1.0 - tc[j] * tc[j]);
            drow[j] = dc * gg * i * (1.0 - i);
            drow[h + j] = dc * c_prev * f * (1.0 - f);
            drow[2 * h + j] = dc * i * (1.0 - gg * gg);
            drow[3 * h + j] = dh[j] * tc[j] * o * (1.0 - o);
            if !dstate.is_empty() {
                dstate[b * 2 * h + h + j] += dc * f;
            }
        }
    }
}

/// Gate pre-activation gradients (as gx sees them) into `d` [B, 3H];
/// dh_prev into `dstate`.
fn gru_backward(
    s: &CellShape,
    saved: &[f32],
    dy: &[f32],
    gh: &[f32],
    state: &[f32],
    d: &mut [f32],
    dstate: &mut [f32],
) {
    let h = s.hidden;
    for b in 0..s.batch {
        let a = &saved[b * 3 * h..(b + 1) * 3 * h];
        let h_n = &CellShape::gh_row(gh, b, 3 * h)[2 * h..];
        let dh = &dy[b * h..(b + 1) * h];
        let drow = &mut d[b * 3 * h..(b + 1) * 3 * h];
        for j in 0..h {
            let (r, z, n) = (a[j], a[h + j], a[2 * h + j]);
            let prev = if state.is_empty() { 0.0 } else { state[b * h + j] };
            let dn = dh[j] * (1.0 - z) * (1.0 - n * n);
            let dr = dn * h_n[j];
            drow[j] = dr * r * (1.0 - r);
            drow[h + j] = dh[j] * (prev - n) * z * (1.0 - z);
            drow[2 * h + j] = dn;
            if !dstate.is_empty() {
                dstate[b * h + j] += dh[j] * z;
            }
        }
    }
}
