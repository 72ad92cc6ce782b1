//! Memory for minnow: 64-byte aligned `f32` buffers ([`AlignedBuf`]), a
//! per-step bump [`Arena`] that is reset rather than freed, a [`Pool`] of
//! persistent buffers, and a [`CountingAlloc`] global allocator that tests and
//! benchmarks install to prove a code path allocates nothing.
//!
//! This crate and `minnow-kernels` are the only places `unsafe` lives.

mod aligned;
mod arena;
mod counting;
mod flat;
mod pool;
mod split;

pub use aligned::{ALIGN, AlignedBuf};
pub use arena::{Arena, ArenaMark};
pub use counting::{AllocStats, CountingAlloc, count_allocations, global_stats, thread_stats};
pub use flat::FlatArena;
pub use pool::Pool;
pub use split::split_disjoint;
