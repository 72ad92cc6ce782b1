//! The checkerboard the CA learns to grow, and how well a hard circuit
//! draws it.

use crate::hard::HardProgram;

/// The target of cell (row, col): `((col / 2) + (row / 2)) % 2`.
pub fn checkerboard(height: usize, width: usize) -> Vec<f32> {
    (0..height * width).map(|i| (((i % width) / 2 + (i / width) / 2) % 2) as f32).collect()
}

/// Channel-0 accuracy of a hard program against the checkerboard after
/// `steps` synchronous steps from random grids (`trials` of them, seeded),
/// bit-parallel: the robustness check of a trained rule on other sizes.
pub fn hard_checkerboard_accuracy(
    program: &HardProgram,
    height: usize,
    width: usize,
    steps: usize,
    trials: usize,
    seed: u64,
) -> f64 {
    crate::robustness::rollout_accuracy(
        program,
        height,
        width,
        steps,
        trials,
        seed,
        crate::robustness::Disturbance::None,
    )
}
