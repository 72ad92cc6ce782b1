//! Per-op-kind timing of steps, for `cargo xtask profile`: a flat profile.

use crate::ops::OpKind;
use std::time::{Duration, Instant};

/// Accumulated time and call counts per op kind, forward and backward.
/// Fixed arrays indexed by kind: recording never allocates.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    forward: [(Duration, u64); OpKind::COUNT],
    backward: [(Duration, u64); OpKind::COUNT],
    pub(crate) op_start: Option<Instant>,
}

impl Profile {
    pub(crate) fn add_forward(&mut self, kind: OpKind, t: Duration) {
        let e = &mut self.forward[kind.index()];
        e.0 += t;
        e.1 += 1;
    }

    pub(crate) fn add_backward(&mut self, kind: OpKind, t: Duration) {
        let e = &mut self.backward[kind.index()];
        e.0 += t;
        e.1 += 1;
    }

    /// (phase, op name, total time, calls) for every kind that ran, most
    /// expensive first.
    pub fn rows(&self) -> Vec<(&'static str, &'static str, Duration, u64)> {
        let mut rows: Vec<_> = OpKind::ALL
            .iter()
            .flat_map(|&k| {
                [
                    ("forward", self.forward[k.index()]),
                    ("backward", self.backward[k.index()]),
                ]
                .into_iter()
                .filter(|(_, (_, n))| *n > 0)
                .map(move |(phase, (t, n))| (phase, k.name(), t, n))
            })
            .collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2));
        rows
    }
}
