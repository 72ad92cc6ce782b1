//! A proportion with its 95% interval: the unit of the evaluation tables.

use minnow_rl::alphazero::wilson;
use serde::Serialize;

/// `count` of `of`, with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    /// Times it happened.
    pub count: u64,
    /// Times it could have.
    pub of: u64,
    /// `count / of` (0 of none).
    pub rate: f64,
    /// The interval's lower end.
    pub lo: f64,
    /// Its upper end.
    pub hi: f64,
}

impl Rate {
    /// `count` of `of`.
    pub fn new(count: u64, of: u64) -> Self {
        let (lo, hi) = wilson(count, of, 1.959_964);
        Self { count, of, rate: count as f64 / of.max(1) as f64, lo, hi }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:5.1}% [{:.1}-{:.1}]", 100.0 * self.rate, 100.0 * self.lo, 100.0 * self.hi)
    }
}
