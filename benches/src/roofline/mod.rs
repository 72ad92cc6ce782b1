//! The roofline: each workload's time against the machine's limits.
//!
//! Probe workloads measure the limits in the same run as the rest (the
//! best FMA rate per precision and thread count; the best bandwidth per
//! memory level and thread count). A defining workload states the work
//! one call cannot avoid ([`Cost`]: FLOPs of its matrix products, bytes it
//! must move, threads); its floor is the time the limits allow for that
//! work, `max(flops / FMA peak, bytes / bandwidth)`, and "% of limit" is
//! floor / time.

mod caches;
mod limits;
mod linear;

pub use caches::Caches;
pub use limits::{Bound, Floor, LimitRate, Limits};
pub use linear::{ADAM_FLOPS_PER_PARAMETER, LinearShape};

use serde::Serialize;

/// The number format a workload's matrix products run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Precision {
    /// f32 operands, f32 accumulation.
    F32,
    /// bf16 operands, f32 accumulation.
    Bf16,
}

/// Where data lives between calls: the memory levels whose bandwidth is
/// measured. L1 is not among them: a working set that fits L1 gets no
/// byte floor, since no probe measures how fast L1 delivers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Memory {
    /// The core's private L2.
    L2,
    /// The shared last-level cache.
    L3,
    /// Main memory.
    Dram,
}

/// A limit of the machine that a probe workload measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Limit {
    /// FLOP/s of fused multiply-adds (the workload's `Work::Flops`).
    Compute(Precision),
    /// Bytes/s to and from a level (the workload's `Work::Bytes`).
    Bandwidth(Memory),
}

/// The work one call of a workload cannot avoid.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cost {
    /// FLOPs (a multiply-add counts 2) that could run at the FMA peak.
    pub flops: f64,
    /// The format those FLOPs run in.
    pub precision: Precision,
    /// Bytes that must move to or from memory, over all threads.
    pub bytes: f64,
    /// Bytes one thread keeps touching from call to call: the level that
    /// holds them is the one whose bandwidth bounds `bytes`.
    pub working_set: f64,
    /// Threads the call runs on.
    pub threads: usize,
}

/// What a workload tells the roofline.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Roofline {
    /// It measures `limit` on `threads` threads at the rate of its work.
    Probe {
        /// The limit measured.
        limit: Limit,
        /// Threads it runs on.
        threads: usize,
    },
    /// It does this work; its floor follows from the limits.
    Floor(Cost),
    /// No floor is meaningful; the reason.
    NoFloor(&'static str),
}
