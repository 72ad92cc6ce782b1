//! Per-op-kind timing of steps, for `cargo xtask profile`: a flat profile.

use crate::ops::OpKind;
use std::time::{Duration, Instant};

/// Op kinds a profile keeps apart before it starts to allocate.
const KINDS: usize = 64;

#[derive(Clone, Debug)]
struct Entry {
    name: &'static str,
    forward: (Duration, u64),
    backward: (Duration, u64),
}

/// Accumulated time and call counts per op kind, forward and backward.
/// Room for 64 kinds is reserved up front, so recording does not allocate.
#[derive(Clone, Debug)]
pub struct Profile {
    entries: Vec<Entry>,
    pub(crate) op_start: Option<Instant>,
}

impl Default for Profile {
    fn default() -> Self {
        Self { entries: Vec::with_capacity(KINDS), op_start: None }
    }
}

impl Profile {
    fn entry(&mut self, kind: OpKind) -> &mut Entry {
        let name = kind.name();
        let at = match self.entries.iter().position(|e| e.name == name) {
            Some(at) => at,
            None => {
                self.entries.push(Entry { name, forward: Default::default(), backward: Default::default() });
                self.entries.len() - 1
            }
        };
        &mut self.entries[at]
    }

    pub(crate) fn add_forward(&mut self, kind: OpKind, t: Duration) {
        let e = &mut self.entry(kind).forward;
        e.0 += t;
        e.1 += 1;
    }

    pub(crate) fn add_backward(&mut self, kind: OpKind, t: Duration) {
        let e = &mut self.entry(kind).backward;
        e.0 += t;
        e.1 += 1;
    }

    /// (phase, op name, total time, calls) for every kind that ran, most
    /// expensive first.
    pub fn rows(&self) -> Vec<(&'static str, &'static str, Duration, u64)> {
        let mut rows: Vec<_> = self
            .entries
            .iter()
            .flat_map(|e| {
                [("forward", e.forward), ("backward", e.backward)]
                    .into_iter()
                    .filter(|(_, (_, n))| *n > 0)
                    .map(move |(phase, (t, n))| (phase, e.name, t, n))
            })
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.2));
        rows
    }
}
