//! Any target grid in place of the checkerboard: a trainer learns the CA
//! rule that grows the caller's pattern (channel 0) from random grids.

use crate::config::Variant;
use crate::trainer::PatternTrainer;
use crate::{LogicError, Result};

impl PatternTrainer {
    /// Trains channel 0 towards `target` (`height * width` values, 0 or 1,
    /// row-major) from the next step on, instead of the checkerboard. The
    /// step reports then measure this target. Refused for the Game of
    /// Life (its targets are the next boards) and with repairs on
    /// (`repair.every > 0`: their grids are scored against the
    /// checkerboard).
    pub fn set_target(&mut self, target: &[f32]) -> Result<()> {
        let config = self.config();
        if config.variant == Variant::GameOfLife {
            return Err(LogicError::Config(
                "variant: a target grid needs checkerboard or async, found game-of-life".into(),
            ));
        }
        if config.repair.every > 0 {
            let every = config.repair.every;
            return Err(LogicError::InvalidCount {
                config: "CheckerboardConfig",
                field: "repair.every",
                expected: "0 with a target grid (repairs score the checkerboard)",
                found: every,
            });
        }
        let cells = config.ca.cells();
        if target.len() != cells {
            return Err(LogicError::DataLength { what: "target grid", expected: cells, found: target.len() });
        }
        if let Some(&v) = target.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return Err(LogicError::InvalidValue {
                config: "target grid",
                field: "cell",
                expected: "0 or 1",
                found: v,
            });
        }
        let mut data = self.data.write().unwrap_or_else(|e| e.into_inner());
        for grid in data.targets.chunks_exact_mut(cells) {
            grid.copy_from_slice(target);
        }
        Ok(())
    }
}
