//! Gathers and scatter-adds by index: rows (embedding lookups, replay
//! sampling) and one element per row (Q-values at the actions taken).
//! An index out of range is a caller bug and panics naming the op.

use crate::{same_len, whole_rows};

#[track_caller]
fn check_index(op: &str, idx: &[u32], bound: usize) {
    if let Some(&bad) = idx.iter().find(|&&i| i as usize >= bound) {
        panic!("{op}: index {bad} out of range for {bound}");
    }
}

/// dst row i = src row `idx[i]`; rows of `cols`.
#[track_caller]
pub fn gather_rows(src: &[f32], cols: usize, idx: &[u32], dst: &mut [f32]) {
    let rows = whole_rows("gather_rows", src.len(), cols);
    same_len("gather_rows", &[idx.len() * cols, dst.len()]);
    check_index("gather_rows", idx, rows);
    for (d, &i) in dst.chunks_exact_mut(cols.max(1)).zip(idx) {
        let start = i as usize * cols;
        d.copy_from_slice(&src[start..start + cols]);
    }
}

kernel! {
    /// dst row `idx[i]` += src row i; rows of `cols`. Repeated indices add up.
    pub fn scatter_add_rows(src: &[f32], cols: usize, idx: &[u32], dst: &mut [f32]);
    check {
        let rows = whole_rows("scatter_add_rows", dst.len(), cols);
        same_len("scatter_add_rows", &[idx.len() * cols, src.len()]);
        check_index("scatter_add_rows", idx, rows);
    }
    {
        if cols == 0 {
            return;
        }
        for (s, &i) in src.chunks_exact(cols).zip(idx) {
            let start = i as usize * cols;
            for (d, &v) in dst[start..start + cols].iter_mut().zip(s) {
                *d += v;
            }
        }
    }
}

/// `out[r] = x[r, idx[r]]` for a (rows, cols) matrix.
#[track_caller]
pub fn gather_cols(x: &[f32], cols: usize, idx: &[u32], out: &mut [f32]) {
    let rows = whole_rows("gather_cols", x.len(), cols);
    same_len("gather_cols", &[rows, idx.len(), out.len()]);
    check_index("gather_cols", idx, cols);
    for (r, (o, &i)) in out.iter_mut().zip(idx).enumerate() {
        *o = x[r * cols + i as usize];
    }
}

/// `dx[r, idx[r]] += dy[r]`: the backward of `gather_cols`.
#[track_caller]
pub fn scatter_add_cols(dy: &[f32], cols: usize, idx: &[u32], dx: &mut [f32]) {
    let rows = whole_rows("scatter_add_cols", dx.len(), cols);
    same_len("scatter_add_cols", &[rows, idx.len(), dy.len()]);
    check_index("scatter_add_cols", idx, cols);
    for (r, (&g, &i)) in dy.iter().zip(idx).enumerate() {
        dx[r * cols + i as usize] += g;
    }
}
