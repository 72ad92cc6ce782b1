//! Any target grid in place of the checkerboard: a trainer learns the CA
//! rule that grows the caller's pattern (channel 0) from random grids.

use crate::config::Variant;
use crate::trainer::PatternTrainer;
use crate::{LogicError, Result};
use minnow_config::{Check, Found};

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
            let found = Found::Text("game-of-life".into());
            return Err(Check("CheckerboardConfig")
                .error("variant", "checkerboard or async with a target grid", found)
                .into());
        }
        if config.repair.every > 0 {
            let every = config.repair.every;
            let expected = "0 with a target grid (repairs score the checkerboard)";
            return Err(Check("CheckerboardConfig").count("repair.every", expected, every as u64).into());
        }
        let cells = config.ca.cells();
        if target.len() != cells {
            return Err(LogicError::DataLength { what: "target grid", expected: cells, found: target.len() });
        }
        if let Some(&v) = target.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return Err(Check("target grid").value("cell", "0 or 1", v).into());
        }
        let mut data = self.data.write().unwrap_or_else(|e| e.into_inner());
        for grid in data.targets.chunks_exact_mut(cells) {
            grid.copy_from_slice(target);
        }
        Ok(())
    }
}
