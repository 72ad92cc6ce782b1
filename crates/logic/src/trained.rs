//! Trained circuits shipped with the crate, for benchmarks and demos.

use crate::HardProgram;

/// The text of the pruned checkerboard circuit (22 gates, 15 taps) from
/// `cargo run --release -p minnow-logic --example checkerboard -- --seed 3
/// --steps 1000 --circuit crates/logic/data/checkerboard.circuit`: of the
/// steps whose batch came out 100% right, the circuit most accurate on
/// fresh grids (step 857; 99.9% of channel-0 cells right on fresh 16x16
/// grids after 20 steps, 98.2% on 64x64 grids after 80).
pub const CHECKERBOARD_TEXT: &str = include_str!("../data/checkerboard.circuit");

/// The shipped checkerboard circuit.
pub fn checkerboard() -> HardProgram {
    HardProgram::from_text(CHECKERBOARD_TEXT).expect("the shipped circuit parses")
}

#[cfg(test)]
mod tests {
    use crate::hard_checkerboard_accuracy;

    #[test]
    fn shipped_circuit_draws_the_checkerboard() {
        let program = super::checkerboard();
        assert_eq!(program.channels(), 8);
        let accuracy = hard_checkerboard_accuracy(&program, 16, 16, 20, 50, 5);
        assert!(accuracy > 0.99, "accuracy {accuracy}");
    }
}
