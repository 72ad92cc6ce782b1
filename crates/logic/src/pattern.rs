//! The checkerboard the CA learns to grow.

/// The target of cell (row, col): `((col / 2) + (row / 2)) % 2`.
pub fn checkerboard(height: usize, width: usize) -> Vec<f32> {
    (0..height * width).map(|i| (((i % width) / 2 + (i / width) / 2) % 2) as f32).collect()
}
