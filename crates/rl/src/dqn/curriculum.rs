//! A curriculum: the task's difficulty level rises when the success rate
//! of episodes at the current level, over a window, passes a threshold.

use crate::{Check, Result};
use serde::{Deserialize, Serialize};

/// When the task's difficulty level rises.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurriculumConfig {
    /// The first level (the hardest the agent starts on).
    pub start: usize,
    /// The level is never raised above this.
    pub max: usize,
    /// Episodes at the current level that make one window.
    pub window: usize,
    /// Success rate over a window that raises the level, in (0, 1].
    pub threshold: f32,
}

impl CurriculumConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("CurriculumConfig");
        check.count_in("start", "a value >= 1", self.start as u64, 1, u64::MAX)?;
        check.count_in("max", "a value >= start", self.max as u64, self.start as u64, u64::MAX)?;
        check.count_in("window", "a value >= 1", self.window as u64, 1, u64::MAX)?;
        Ok(check.fraction("threshold", self.threshold)?)
    }
}

/// The curriculum's state; plain data, saved as JSON in checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Curriculum {
    /// Levels, window and threshold.
    pub config: CurriculumConfig,
    /// The current difficulty level, `start..=max`.
    pub level: usize,
    /// Episodes at the current level in this window.
    pub seen: usize,
    /// Of those, the episodes that succeeded.
    pub succeeded: usize,
}

impl Curriculum {
    /// A curriculum at level `config.start`, after validating `config`.
    pub fn new(config: CurriculumConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self { config, level: config.start, seen: 0, succeeded: 0 })
    }

    /// Counts an episode of difficulty `difficulty`; only episodes at the
    /// current level count. Returns true when the level rose.
    pub fn record(&mut self, difficulty: usize, success: bool) -> bool {
        if difficulty != self.level || self.level >= self.config.max {
            return false;
        }
        self.seen += 1;
        self.succeeded += success as usize;
        if self.seen < self.config.window {
            return false;
        }
        let rate = self.succeeded as f32 / self.seen as f32;
        (self.seen, self.succeeded) = (0, 0);
        if rate >= self.config.threshold {
            self.level += 1;
            return true;
        }
        false
    }
}
