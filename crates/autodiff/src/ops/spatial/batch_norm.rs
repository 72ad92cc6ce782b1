//! Batch normalisation over the batch axis of x [B, C] (PyTorch's
//! `batch_norm`, BatchNorm1d without a length axis):
//! y = (x - mean) rstd gamma + beta, rstd = 1 / √(var + eps), per channel.
//!
//! Training: mean and the biased variance are the batch's; the running
//! statistics (buffers of the store, so a training graph writes them)
//! move towards them by running += momentum (batch - running), using the
//! unbiased variance (B / (B - 1)) for running_var, as PyTorch does.
//! Evaluation: mean and var are the running statistics, which are read
//! only.
//!
//! Both save mean and rstd [2C]. With x̂ = (x - mean) rstd:
//! dβ += Σ_b dy; dγ += Σ_b dy x̂; dx += γ rstd dy in evaluation, and in
//! training (the statistics depend on x)
//! dx += γ rstd (dy - Σ_b dy / B - x̂ Σ_b dy x̂ / B).

use super::Kind;
use crate::ops::{OpKind, check};
use crate::tape::{Block, Graph, IndexBlock, Op, ParamAccess};
use crate::{BufferId, Error, Result, Var};
use minnow_tensor::Shape;

impl Graph<'_> {
    /// Batch normalisation of x [B, C] with weight (gamma) and bias (beta)
    /// `[C]`, in PyTorch's argument order; the running statistics are
    /// buffers `[C]` of the graph's store. `training` normalises with the
    /// batch's statistics and moves the running ones towards them with
    /// `momentum` (PyTorch's default 0.1), which only a training graph
    /// ([`Tape::graph`](crate::Tape::graph)) may do; otherwise the running
    /// statistics normalise and are only read. eps: PyTorch's default is
    /// 1e-5.
    pub fn batch_norm(
        &mut self,
        x: Var,
        running_mean: BufferId,
        running_var: BufferId,
        weight: Var,
        bias: Var,
        training: bool,
        momentum: f32,
        eps: f32,
    ) -> Result<Var> {
        const OP: &str = "batch_norm";
        let (rows, cols) = self.shape(x).as_matrix(OP)?;
        check::same(OP, Shape::vector(cols), self.shape(weight))?;
        check::same(OP, Shape::vector(cols), self.shape(bias))?;
        if cols == 0 {
            return Err(Error::Config(format!("{OP}: x has no channels")));
        }
        let (mean_len, var_len) = (self.params().buffer(running_mean).len(), self.params().buffer(running_var).len());
        if mean_len != cols || var_len != cols {
            return Err(Error::Config(format!(
                "{OP}: running statistics of {mean_len} and {var_len} values for {cols} channels"
            )));
        }
        if !(eps > 0.0 && eps.is_finite() && (0.0..=1.0).contains(&momentum)) {
            return Err(Error::Config(format!(
                "{OP}: eps must be positive and momentum in [0, 1], found {eps} and {momentum}"
            )));
        }
        if training && rows < 2 {
            return Err(Error::Config(format!(
                "{OP}: training needs more than one value per channel, found a batch of {rows}"
            )));
        }
        if training && !self.is_training() {
            return Err(Error::Config(format!(
                "{OP}: training updates the running statistics, which an inference graph cannot write"
            )));
        }
        let y = self.output(self.shape(x), &[x, weight, bias]);
        let saved = self.scratch(2 * cols);
        if training {
            let ([xv], [sv]) = self.split([self.val(x)], [self.blk(saved)]);
            let (mean, var) = sv.split_at_mut(cols);
            batch_statistics(xv, cols, mean, var);
            self.update_running(saved, running_mean, running_var, rows, momentum);
        } else {
            let (data, store) = (&mut self.tape.data, self.params.store());
            let (mean, var) = data.get_mut(saved.range()).split_at_mut(cols);
            mean.copy_from_slice(store.buffer(running_mean));
            var.copy_from_slice(store.buffer(running_var));
        }
        let ([xv, gv, bv], [yv, sv]) =
            self.split([self.val(x), self.val(weight), self.val(bias)], [self.val(y), self.blk(saved)]);
        let (mean, rstd) = sv.split_at_mut(cols);
        // The variance becomes the reciprocal standard deviation in place.
        for r in rstd.iter_mut() {
            *r = 1.0 / (*r + eps).sqrt();
        }
        for (y_row, x_row) in yv.chunks_exact_mut(cols).zip(xv.chunks_exact(cols)) {
            for j in 0..cols {
                y_row[j] = (x_row[j] - mean[j]) * rstd[j] * gv[j] + bv[j];
            }
        }
        let kind = if training { Kind::BatchNorm } else { Kind::BatchNormEval };
        self.record(OpKind::Spatial(kind), &[x, weight, bias], y, saved, IndexBlock::EMPTY, eps);
        Ok(y)
    }

    /// running += momentum (batch - running), with the batch's mean and
    /// unbiased variance (its biased one, in `stats`, times B / (B - 1)).
    fn update_running(
        &mut self,
        stats: Block,
        running_mean: BufferId,
        running_var: BufferId,
        rows: usize,
        momentum: f32,
    ) {
        let ParamAccess::Train(store) = &mut self.params else {
            unreachable!("batch_norm checks for a training graph first")
        };
        let stats = self.tape.data.get(stats.range());
        let (mean, var) = stats.split_at(stats.len() / 2);
        for (r, &m) in store.buffer_mut(running_mean).iter_mut().zip(mean) {
            *r += momentum * (m - *r);
        }
        let unbiased = rows as f32 / (rows - 1) as f32;
        for (r, &v) in store.buffer_mut(running_var).iter_mut().zip(var) {
            *r += momentum * (v * unbiased - *r);
        }
    }
}

/// Per-column mean and biased variance of rows of `cols`, two-pass.
fn batch_statistics(x: &[f32], cols: usize, mean: &mut [f32], var: &mut [f32]) {
    let rows = x.len() / cols.max(1);
    mean.fill(0.0);
    var.fill(0.0);
    for row in x.chunks_exact(cols) {
        for (m, &v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    let inv = 1.0 / rows as f32;
    mean.iter_mut().for_each(|m| *m *= inv);
    for row in x.chunks_exact(cols) {
        for ((s, &m), &v) in var.iter_mut().zip(mean.iter()).zip(row) {
            *s += (v - m) * (v - m);
        }
    }
    var.iter_mut().for_each(|s| *s *= inv);
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op, training: bool) {
    let [x, gamma, beta, _] = op.inputs;
    let (rows, cols) = (g.shape(x).rows(), g.shape(x).last());
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let (dg_loc, db_loc) = (g.grad_loc(gamma), g.grad_loc(beta));
    // Every gradient block exists before the mark (see conv.rs).
    let mark = g.tape.data.mark();
    let sums = g.scratch(2 * cols);
    let ([xv, gv, sv, dy], [dx, dg, db, sums]) =
        g.split([g.val(x), g.val(gamma), g.blk(op.saved), dy_loc], [dx_loc, dg_loc, db_loc, g.blk(sums)]);
    let (mean, rstd) = sv.split_at(cols);
    let (sum_dy, sum_dy_xhat) = sums.split_at_mut(cols);
    sum_dy.fill(0.0);
    sum_dy_xhat.fill(0.0);
    for (x_row, dy_row) in xv.chunks_exact(cols).zip(dy.chunks_exact(cols)) {
        for j in 0..cols {
            sum_dy[j] += dy_row[j];
            sum_dy_xhat[j] += dy_row[j] * (x_row[j] - mean[j]) * rstd[j];
        }
    }
    if !dg.is_empty() {
        minnow_kernels::add_assign(dg, sum_dy_xhat);
    }
    if !db.is_empty() {
        minnow_kernels::add_assign(db, sum_dy);
    }
    if !dx.is_empty() {
        let inv = if training { 1.0 / rows as f32 } else { 0.0 };
        let each_row = dx.chunks_exact_mut(cols).zip(xv.chunks_exact(cols)).zip(dy.chunks_exact(cols));
        for ((dx_row, x_row), dy_row) in each_row {
            for j in 0..cols {
                let xhat = (x_row[j] - mean[j]) * rstd[j];
                let centred = dy_row[j] - inv * (sum_dy[j] + xhat * sum_dy_xhat[j]);
                dx_row[j] += gv[j] * rstd[j] * centred;
            }
        }
    }
    g.tape.data.truncate(mark);
}
