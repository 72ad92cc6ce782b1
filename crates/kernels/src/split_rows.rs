//! Row-wise kernels (LayerNorm, softmax) split over threads. Every row is
//! computed exactly as on one thread, so the bits do not depend on the
//! thread count.

/// Runs `f` on bands of the rows of `x` and `y` (`cols` floats a row) and
/// of the per-row outputs `a` and `b` (each empty or some floats a row),
/// split by halves over `threads` threads of rayon's pool, as
/// [`gemm_threads`](crate::gemm_threads) splits a product's rows.
pub fn split_rows<F>(threads: usize, cols: usize, x: &[f32], y: &mut [f32], a: &mut [f32], b: &mut [f32], f: &F)
where
    F: Fn(&[f32], &mut [f32], &mut [f32], &mut [f32]) + Sync,
{
    let rows = x.len().checked_div(cols).unwrap_or(0);
    let whole =
        x.len() == rows * cols && y.len() == x.len() && a.len().is_multiple_of(rows) && b.len().is_multiple_of(rows);
    if threads <= 1 || rows < 2 || !whole {
        // One band (the kernel's own checks name any mismatch).
        return f(x, y, a, b);
    }
    let (per_a, per_b) = (a.len() / rows, b.len() / rows);
    let left = threads / 2;
    let mid = rows * left / threads;
    let (x0, x1) = x.split_at(mid * cols);
    let (y0, y1) = y.split_at_mut(mid * cols);
    let (a0, a1) = a.split_at_mut(mid * per_a);
    let (b0, b1) = b.split_at_mut(mid * per_b);
    rayon::join(|| split_rows(left, cols, x0, y0, a0, b0, f), || split_rows(threads - left, cols, x1, y1, a1, b1, f));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_layer_norm_and_softmax_give_the_bits_of_one_thread() {
        let (rows, cols) = (37, 140);
        let x: Vec<f32> = (0..rows * cols).map(|i| ((i * 7919) % 1000) as f32 / 250.0 - 2.0).collect();
        let gamma: Vec<f32> = (0..cols).map(|i| 0.5 + i as f32 / cols as f32).collect();
        let beta: Vec<f32> = (0..cols).map(|i| i as f32 / 100.0 - 0.7).collect();
        let norm = |x: &[f32], y: &mut [f32], mean: &mut [f32], rstd: &mut [f32]| {
            crate::layer_norm_relu(x, &gamma, &beta, 1e-5, y, mean, rstd)
        };
        let soft = |x: &[f32], y: &mut [f32], _: &mut [f32], _: &mut [f32]| crate::softmax_rows(x, cols, y);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let run = |threads: usize| {
            let (mut y, mut stats, mut p) = (vec![0.0; rows * cols], vec![0.0; 2 * rows], vec![0.0; rows * cols]);
            let (mean, rstd) = stats.split_at_mut(rows);
            pool.install(|| {
                split_rows(threads, cols, &x, &mut y, mean, rstd, &norm);
                split_rows(threads, cols, &x, &mut p, &mut [], &mut [], &soft);
            });
            (y, stats, p)
        };
        let one = run(1);
        assert!(one.0.iter().any(|&v| v > 0.0) && one.2.iter().all(|&v| v > 0.0));
        for threads in [2, 3, 5] {
            assert_eq!(run(threads), one, "{threads} threads");
        }
    }
}
