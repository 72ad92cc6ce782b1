//! Shape and sequence ops: column slices and concatenation, time steps of
//! batch-first sequences, and the fused cells of recurrent layers unrolled
//! over time.
//!
//! slice_cols: x [B, N] -> y [B, len] = x[:, start..start + len];
//!   dx[:, start..start + len] += dy.
//! concat_cols: one to four x_k [B, N_k] -> y [B, Σ N_k];
//!   dx_k += dy[:, the columns of x_k].
//! time_step: x [B, T, F] -> y [B, F] = x[:, t, :]; dx[:, t, :] += dy.
//! stack_steps: h_t [B, H] (any T) -> y [B, T, H], built from concat_cols
//!   (a [B, T H] row is a [T, H] block) and a free reshape.
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
//! Every gate gradient goes to gx_t and gh alike (summed over rows for a
//! broadcast gh), apart from GRU's n gate as above.

use super::OpKind;
use super::check;
use crate::tape::{Block, Graph, IndexBlock, MAX_INPUTS, Op, TAPE};
use crate::{Error, Result, Var};
use minnow_kernels::{self as k, Accum};
use minnow_tensor::{Shape, TensorError};

/// The ops of this family; settings that differ per call (a column
/// offset, a time step) live in the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    SliceCols { start: u32 },
    ConcatCols,
    TimeStep { t: u32 },
    RnnCell { t: u32 },
    LstmCell { t: u32 },
    GruCell { t: u32 },
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::SliceCols { .. } => "slice_cols",
            Kind::ConcatCols => "concat_cols",
            Kind::TimeStep { .. } => "time_step",
            Kind::RnnCell { .. } => "rnn_cell",
            Kind::LstmCell { .. } => "lstm_cell",
            Kind::GruCell { .. } => "gru_cell",
        }
    }
}

/// Which recurrent cell, for the shared shape checks and the forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Rnn,
    Lstm,
    Gru,
}

impl Cell {
    /// Gate blocks of width H in G.
    fn gates(self) -> usize {
        match self {
            Cell::Rnn => 1,
            Cell::Lstm => 4,
            Cell::Gru => 3,
        }
    }

    /// Width of the state the cell carries, in units of H.
    fn state_width(self) -> usize {
        match self {
            Cell::Lstm => 2,
            _ => 1,
        }
    }

    fn kind(self, t: u32) -> Kind {
        match self {
            Cell::Rnn => Kind::RnnCell { t },
            Cell::Lstm => Kind::LstmCell { t },
            Cell::Gru => Kind::GruCell { t },
        }
    }
}

/// dst[r, d0..d0 + width] = (or +=) src[r, s0..s0 + width] for every row r
/// of two row-major matrices with `src_cols` and `dst_cols` columns.
fn move_cols(
    src: &[f32],
    src_cols: usize,
    s0: usize,
    dst: &mut [f32],
    dst_cols: usize,
    d0: usize,
    width: usize,
    rows: usize,
    accum: Accum,
) {
    if width == 0 {
        return;
    }
    for r in 0..rows {
        let s = &src[r * src_cols + s0..r * src_cols + s0 + width];
        let d = &mut dst[r * dst_cols + d0..r * dst_cols + d0 + width];
        match accum {
            Accum::Replace => d.copy_from_slice(s),
            Accum::Add => k::add_assign(d, s),
        }
    }
}

fn index_error(op: &'static str, index: usize, bound: usize) -> Error {
    Error::IndexOutOfRange { op, index: u32::try_from(index).unwrap_or(u32::MAX), bound }
}

impl Graph<'_> {
    /// y = x[:, start..start + len] of a matrix x [B, N].
    pub fn slice_cols(&mut self, x: Var, start: usize, len: usize) -> Result<Var> {
        const OP: &str = "slice_cols";
        let shape = self.shape(x);
        let (rows, cols) = shape.as_matrix(OP)?;
        let end = start.saturating_add(len);
        if end > cols {
            // The shape the slice would need.
            return Err(TensorError::ShapeMismatch { op: OP, lhs: shape, rhs: Shape::matrix(rows, end) }.into());
        }
        let y = self.output(Shape::matrix(rows, len), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        move_cols(xv, cols, start, yv, len, 0, len, rows, Accum::Replace);
        let kind = Kind::SliceCols { start: start as u32 };
        self.record(OpKind::Sequence(kind), &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// y = [x_0 x_1 ...] side by side: matrices [B, N_k], one to four of
    /// them, with the same number of rows.
    pub fn concat_cols(&mut self, xs: &[Var]) -> Result<Var> {
        const OP: &str = "concat_cols";
        if xs.is_empty() || xs.len() > MAX_INPUTS {
            return Err(Error::Config(format!("{OP} takes 1 to {MAX_INPUTS} inputs, found {}", xs.len())));
        }
        let first = self.shape(xs[0]);
        let (rows, _) = first.as_matrix(OP)?;
        let mut total = 0;
        for &x in xs {
            let (r, c) = self.shape(x).as_matrix(OP)?;
            if r != rows {
                return Err(TensorError::ShapeMismatch { op: OP, lhs: first, rhs: self.shape(x) }.into());
            }
            total += c;
        }
        let y = self.output(Shape::matrix(rows, total), xs);
        let mut at = 0;
        for &x in xs {
            let cols = self.shape(x).last();
            let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
            move_cols(xv, cols, 0, yv, total, at, cols, rows, Accum::Replace);
            at += cols;
        }
        self.record(OpKind::Sequence(Kind::ConcatCols), xs, y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// y = x[:, t, :] of a batch-first sequence x [B, T, F].
    pub fn time_step(&mut self, x: Var, t: usize) -> Result<Var> {
        const OP: &str = "time_step";
        let shape = self.shape(x);
        let &[batch, steps, features] = shape.dims() else {
            return Err(TensorError::Rank { op: OP, expected: 3, found: shape }.into());
        };
        if t >= steps {
            return Err(index_error(OP, t, steps));
        }
        let y = self.output(Shape::matrix(batch, features), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        let row = steps * features;
        move_cols(xv, row, t * features, yv, features, 0, features, batch, Accum::Replace);
        let kind = Kind::TimeStep { t: t as u32 };
        self.record(OpKind::Sequence(kind), &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// y [B, T, H] with y[:, t, :] = hs[t]: the hidden states of a sequence,
    /// any number of equal-shaped matrices [B, H].
    pub fn stack_steps(&mut self, hs: &[Var]) -> Result<Var> {
        const OP: &str = "stack_steps";
        let Some(&first) = hs.first() else {
            return Err(Error::Config(format!("{OP} needs at least one step")));
        };
        let shape = self.shape(first);
        let (batch, hidden) = shape.as_matrix(OP)?;
        for &h in hs {
            check::same(OP, shape, self.shape(h))?;
        }
        let whole = self.concat_tree(hs)?;
        self.reshape(whole, &[batch, hs.len(), hidden])
    }

    /// Columns of all of `xs`, concatenated four at a time, bottom up.
    fn concat_tree(&mut self, xs: &[Var]) -> Result<Var> {
        if xs.len() == 1 {
            return Ok(xs[0]);
        }
        if xs.len() <= MAX_INPUTS {
            return self.concat_cols(xs);
        }
        // Groups of the largest power of 4 below the length, so that most
        // values are copied once per level of a balanced tree.
        let mut group = MAX_INPUTS;
        while group * MAX_INPUTS < xs.len() {
            group *= MAX_INPUTS;
        }
        let mut parts = [xs[0]; MAX_INPUTS];
        let mut n = 0;
        for chunk in xs.chunks(group) {
            parts[n] = self.concat_tree(chunk)?;
            n += 1;
        }
        self.concat_cols(&parts[..n])
    }

    /// An Elman RNN step: h' = tanh(gx[:, t, :] + gh), with gx [B, T, H]
    /// and gh [B, H] (or [H], broadcast over rows).
    pub fn rnn_cell(&mut self, gx: Var, t: usize, gh: Var) -> Result<Var> {
        self.cell(Cell::Rnn, gx, t, gh, None)
    }

    /// An LSTM step with PyTorch's gate order i, f, g, o: gx [B, T, 4H],
    /// gh [B, 4H] (or [4H]); state [h | c] [B, 2H], `None` for zeros.
    /// Returns the next state [h' | c'] [B, 2H].
    pub fn lstm_cell(&mut self, gx: Var, t: usize, gh: Var, state: Option<Var>) -> Result<Var> {
        self.cell(Cell::Lstm, gx, t, gh, state)
    }

    /// A GRU step with PyTorch's gate order r, z, n and its form of n
    /// (r multiplies W_hn h + b_hn): gx [B, T, 3H], gh [B, 3H] (or [3H]);
    /// h [B, H], `None` for zeros. Returns h' [B, H].
    pub fn gru_cell(&mut self, gx: Var, t: usize, gh: Var, h: Option<Var>) -> Result<Var> {
        self.cell(Cell::Gru, gx, t, gh, h)
    }

    fn cell(&mut self, cell: Cell, gx: Var, t: usize, gh: Var, state: Option<Var>) -> Result<Var> {
        let op = cell.kind(0).name();
        let xs = self.shape(gx);
        let &[batch, steps, width] = xs.dims() else {
            return Err(TensorError::Rank { op, expected: 3, found: xs }.into());
        };
        if t >= steps {
            return Err(index_error(op, t, steps));
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
            Cell::Rnn => Block::EMPTY,
            Cell::Lstm => self.scratch(batch * 5 * hidden),
            Cell::Gru => self.scratch(batch * 3 * hidden),
        };
        let pre = self.scratch(batch * width);
        let state_loc = state.map_or((TAPE, 0..0), |s| self.val(s));
        let reads = [self.val(gx), self.val(gh), state_loc];
        let writes = [self.val(y), self.blk(saved), self.blk(pre)];
        let ([gxv, ghv, sv], [yv, sav, prev]) = self.split(reads, writes);
        let shapes = CellShape { batch, steps, hidden, t };
        match cell {
            Cell::Rnn => {
                shapes.preactivations(gxv, ghv, width, prev);
                k::tanh(prev, yv);
            }
            Cell::Lstm => lstm_forward(&shapes, gxv, ghv, sv, yv, sav, prev),
            Cell::Gru => gru_forward(&shapes, gxv, ghv, sv, yv, sav, prev),
        }
        let kind = cell.kind(t as u32);
        self.record(OpKind::Sequence(kind), inputs, y, saved, IndexBlock::EMPTY, 0.0);
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
    match kind {
        Kind::SliceCols { start } => {
            let x = op.inputs[0];
            let cols = g.shape(x).last();
            let out = g.shape(op.output);
            let (rows, len) = (out.dims()[0], out.dims()[1]);
            let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
            let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
            if !dx.is_empty() {
                let start = start as usize;
                move_cols(dy, len, 0, dx, cols, start, len, rows, Accum::Add);
            }
        }
        Kind::ConcatCols => {
            let total = g.shape(op.output).last();
            let rows = g.shape(op.output).rows();
            let mut at = 0;
            for &x in op.inputs() {
                let cols = g.shape(x).last();
                let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
                let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
                if !dx.is_empty() {
                    move_cols(dy, total, at, dx, cols, 0, cols, rows, Accum::Add);
                }
                at += cols;
            }
        }
        Kind::TimeStep { t } => {
            let x = op.inputs[0];
            let dims = g.shape(x);
            let (batch, steps, features) = (dims.dims()[0], dims.dims()[1], dims.dims()[2]);
            let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
            let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
            if !dx.is_empty() {
                let at = t as usize * features;
                let row = steps * features;
                move_cols(dy, features, 0, dx, row, at, features, batch, Accum::Add);
            }
        }
        Kind::RnnCell { t } => cell_backward(g, op, Cell::Rnn, t as usize),
        Kind::LstmCell { t } => cell_backward(g, op, Cell::Lstm, t as usize),
        Kind::GruCell { t } => cell_backward(g, op, Cell::Gru, t as usize),
    }
}

fn cell_backward(g: &mut Graph<'_>, op: &Op, cell: Cell, t: usize) {
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
        Cell::Rnn => {
            k::tanh_backward(yv, dy, dv, Accum::Replace);
            s.scatter(dv, width, dgx);
            CellShape::gh_grad(dv, width, dgh);
        }
        Cell::Lstm => {
            lstm_backward(&s, saved, dy, sv, dv, ds);
            s.scatter(dv, width, dgx);
            CellShape::gh_grad(dv, width, dgh);
        }
        Cell::Gru => {
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
