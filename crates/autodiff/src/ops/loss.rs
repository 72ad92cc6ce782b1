//! Losses, each reduced to a scalar mean as PyTorch's default
//! `reduction="mean"`, with optional per-sample weights w [B] (prioritized
//! replay's importance weights) that scale every element of their row:
//! loss = Σ_b w_b Σ_j l_bj / (number of elements of pred).
//! Targets and weights are data (no gradient).
//!
//! mse: l = (p - t)²; dl/dp = 2 (p - t).
//! huber (smooth L1, delta δ): l = ½d² if |d| ≤ δ else δ(|d| - ½δ);
//!   dl/dp = clamp(d, -δ, δ).
//! bce_with_logits: l = max(x, 0) - x t + ln(1 + e^-|x|); dl/dx = σ(x) - t.
//! cross_entropy (class indices c [B], logits [B, C]):
//!   l_b = -log_softmax(x_b)[c_b], divided by B; dl/dx = softmax - onehot.
//! soft_cross_entropy (target distributions t [B, C]):
//!   l_b = -Σ_j t_bj log_softmax(x_b)_j, divided by B;
//!   dl/dx = softmax Σ_j t_bj - t.

use super::OpKind;
use super::check;
use crate::tape::{Block, Graph, IndexBlock, Op, TAPE, split_parts};
use crate::{Error, Result, Var};
use minnow_kernels as k;
use minnow_tensor::Shape;

impl Graph<'_> {
    /// Mean squared error.
    pub fn mse(&mut self, pred: Var, target: &[f32], weights: Option<&[f32]>) -> Result<Var> {
        self.elementwise_loss(OpKind::Mse, pred, target, weights, 0.0)
    }

    /// Huber loss (PyTorch `HuberLoss`; smooth L1 when delta = 1).
    pub fn huber(&mut self, pred: Var, target: &[f32], delta: f32, weights: Option<&[f32]>) -> Result<Var> {
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(Error::Config(format!("huber: delta must be positive and finite, found {delta}")));
        }
        self.elementwise_loss(OpKind::Huber, pred, target, weights, delta)
    }

    /// Binary cross-entropy on logits, targets in [0, 1].
    pub fn bce_with_logits(&mut self, logits: Var, target: &[f32], weights: Option<&[f32]>) -> Result<Var> {
        self.elementwise_loss(OpKind::BceWithLogits, logits, target, weights, 0.0)
    }

    /// Cross-entropy of logits `[B, C]` against class indices `[B]`.
    pub fn cross_entropy(&mut self, logits: Var, classes: &[u32], weights: Option<&[f32]>) -> Result<Var> {
        const OP: &str = "cross_entropy";
        let (rows, cols) = self.shape(logits).as_matrix(OP)?;
        if classes.len() != rows {
            return Err(Error::IndexCount { op: OP, expected: rows, found: classes.len() });
        }
        if let Some(&bad) = classes.iter().find(|&&c| c as usize >= cols) {
            return Err(Error::IndexOutOfRange { op: OP, index: bad, bound: cols });
        }
        let w = self.loss_weights(OP, rows, weights)?;
        let stored = self.store_indices(classes);
        let inputs = [logits, w.unwrap_or(logits)];
        let inputs = &inputs[..1 + w.is_some() as usize];
        let y = self.output(Shape::scalar(), inputs);
        let saved = self.scratch(rows * cols);
        let w_loc = w.map_or((TAPE, 0..0), |w| self.val(w));
        let (reads, writes) = ([self.val(logits), w_loc], [self.val(y), self.blk(saved)]);
        let ([xv, wv], [yv, ls]) = split_parts(&mut self.tape.data, &mut self.params, self.borrowed, reads, writes);
        let classes = &self.tape.indices[stored.range()];
        k::log_softmax_rows(xv, cols, ls);
        let mut total = 0.0f64;
        for (b, &c) in classes.iter().enumerate() {
            total -= (weight(wv, b) * ls[b * cols + c as usize]) as f64;
        }
        yv[0] = (total / rows.max(1) as f64) as f32;
        self.record(OpKind::CrossEntropy, inputs, y, saved, stored, 0.0);
        Ok(y)
    }

    /// Cross-entropy of logits [B, C] against target distributions [B, C]
    /// (AlphaZero's policy loss).
    pub fn soft_cross_entropy(&mut self, logits: Var, target: &[f32], weights: Option<&[f32]>) -> Result<Var> {
        const OP: &str = "soft_cross_entropy";
        let shape = self.shape(logits);
        let (rows, cols) = shape.as_matrix(OP)?;
        let t = self.input(shape.dims(), target).map_err(|_| wrong_target(OP, shape, target.len()))?;
        let w = self.loss_weights(OP, rows, weights)?;
        let inputs = [logits, t, w.unwrap_or(t)];
        let inputs = &inputs[..2 + w.is_some() as usize];
        let y = self.output(Shape::scalar(), inputs);
        let saved = self.scratch(rows * cols);
        let w_loc = w.map_or((TAPE, 0..0), |w| self.val(w));
        let ([xv, tv, wv], [yv, ls]) =
            self.split([self.val(logits), self.val(t), w_loc], [self.val(y), self.blk(saved)]);
        k::log_softmax_rows(xv, cols, ls);
        let mut total = 0.0f64;
        for (b, (t_row, l_row)) in tv.chunks_exact(cols.max(1)).zip(ls.chunks_exact(cols.max(1))).enumerate() {
            total -= (weight(wv, b) * k::dot(t_row, l_row)) as f64;
        }
        yv[0] = (total / rows.max(1) as f64) as f32;
        self.record(OpKind::SoftCrossEntropy, inputs, y, saved, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    fn elementwise_loss(
        &mut self,
        kind: OpKind,
        pred: Var,
        target: &[f32],
        weights: Option<&[f32]>,
        delta: f32,
    ) -> Result<Var> {
        let op = kind.name();
        let shape = self.shape(pred);
        let rows = check::batch(op, shape)?;
        let t = self.input(shape.dims(), target).map_err(|_| wrong_target(op, shape, target.len()))?;
        let w = self.loss_weights(op, rows, weights)?;
        let inputs = [pred, t, w.unwrap_or(t)];
        let inputs = &inputs[..2 + w.is_some() as usize];
        let y = self.output(Shape::scalar(), inputs);
        let w_loc = w.map_or((TAPE, 0..0), |w| self.val(w));
        let ([pv, tv, wv], [yv]) = self.split([self.val(pred), self.val(t), w_loc], [self.val(y)]);
        let per_row = shape.numel() / rows.max(1);
        let mut total = 0.0f64;
        for (b, (p_row, t_row)) in pv.chunks_exact(per_row.max(1)).zip(tv.chunks_exact(per_row.max(1))).enumerate() {
            let row: f32 = p_row.iter().zip(t_row).map(|(&p, &t)| pointwise(kind, p, t, delta)).sum();
            total += (weight(wv, b) * row) as f64;
        }
        yv[0] = (total / shape.numel().max(1) as f64) as f32;
        self.record(kind, inputs, y, Block::EMPTY, IndexBlock::EMPTY, delta);
        Ok(y)
    }

    /// The weights as a data node, checked to be one per row.
    fn loss_weights(&mut self, op: &'static str, rows: usize, weights: Option<&[f32]>) -> Result<Option<Var>> {
        match weights {
            None => Ok(None),
            Some(w) if w.len() == rows => Ok(Some(self.input(&[rows], w)?)),
            Some(w) => Err(Error::IndexCount { op, expected: rows, found: w.len() }),
        }
    }
}

fn wrong_target(op: &'static str, shape: Shape, len: usize) -> Error {
    minnow_tensor::TensorError::DataLength { op, shape, numel: shape.numel(), len }.into()
}

fn weight(w: &[f32], row: usize) -> f32 {
    if w.is_empty() { 1.0 } else { w[row] }
}

fn pointwise(kind: OpKind, p: f32, t: f32, delta: f32) -> f32 {
    match kind {
        OpKind::Mse => (p - t) * (p - t),
        OpKind::Huber => {
            let d = (p - t).abs();
            if d <= delta { 0.5 * d * d } else { delta * (d - 0.5 * delta) }
        }
        _ => p.max(0.0) - p * t + (-p.abs()).exp().ln_1p(),
    }
}

fn pointwise_grad(kind: OpKind, p: f32, t: f32, delta: f32) -> f32 {
    match kind {
        OpKind::Mse => 2.0 * (p - t),
        OpKind::Huber => (p - t).clamp(-delta, delta),
        _ => 1.0 / (1.0 + (-p).exp()) - t,
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let shape = g.shape(x);
    let rows = shape.dims()[0];
    let per_row = shape.numel() / rows.max(1);
    let weighted_at = match op.kind {
        OpKind::CrossEntropy => 1,
        _ => 2,
    };
    let w_loc = if op.arity as usize > weighted_at { g.val(op.inputs[weighted_at]) } else { (TAPE, 0..0) };
    let t_loc = if op.kind == OpKind::CrossEntropy { (TAPE, 0..0) } else { g.val(op.inputs[1]) };
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let reads = [g.val(x), t_loc, w_loc, dy_loc, g.blk(op.saved)];
    let ([xv, tv, wv, dy, ls], [dx]) = split_parts(&mut g.tape.data, &mut g.params, g.borrowed, reads, [dx_loc]);
    if dx.is_empty() {
        return;
    }
    match op.kind {
        OpKind::CrossEntropy | OpKind::SoftCrossEntropy => {
            let scale = dy[0] / rows.max(1) as f32;
            let classes = &g.tape.indices[op.index.range()];
            for b in 0..rows {
                let s = scale * weight(wv, b);
                let (l_row, d_row) = (&ls[b * per_row..(b + 1) * per_row], &mut dx[b * per_row..(b + 1) * per_row]);
                if op.kind == OpKind::CrossEntropy {
                    l_row.iter().zip(d_row.iter_mut()).for_each(|(&l, d)| *d += s * l.exp());
                    d_row[classes[b] as usize] -= s;
                } else {
                    let t_row = &tv[b * per_row..(b + 1) * per_row];
                    let mass = k::sum(t_row);
                    for ((&l, &t), d) in l_row.iter().zip(t_row).zip(d_row.iter_mut()) {
                        *d += s * (l.exp() * mass - t);
                    }
                }
            }
        }
        kind => {
            let scale = dy[0] / shape.numel().max(1) as f32;
            for b in 0..rows {
                let s = scale * weight(wv, b);
                let range = b * per_row..(b + 1) * per_row;
                for ((&p, &t), d) in xv[range.clone()].iter().zip(&tv[range.clone()]).zip(&mut dx[range]) {
                    *d += s * pointwise_grad(kind, p, t, op.scalar);
                }
            }
        }
    }
}
