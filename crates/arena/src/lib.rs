//! Memory for minnow: 64-byte aligned `f32` buffers ([`AlignedBuf`]), two
//! per-step arenas that are reset rather than freed (the bump [`Arena`]
//! hands out slices, the logic CA's rollouts use it; the [`FlatArena`]
//! hands out offsets, the autodiff tape records into it, and
//! [`split_disjoint`] borrows several of its blocks at once), and a
//! [`CountingAlloc`] global allocator that tests and benchmarks install to
//! prove a code path allocates nothing.
//!
//! `unsafe` lives in this crate, in `minnow-kernels` and in the target-
//! feature dispatch of the `minnow_kernels::kernel!` macro.
//!
//! ```
//! use minnow_arena::{Arena, CountingAlloc, count_allocations};
//!
//! #[global_allocator]
//! static ALLOC: CountingAlloc = CountingAlloc;
//!
//! fn main() {
//!     let mut arena = Arena::new();
//!     let step = |arena: &mut Arena| {
//!         arena.alloc(1024)[0] = 1.0;
//!         arena.reset();
//!     };
//!     step(&mut arena); // warm-up: the arena grows once
//!     let (_, cold, _) = count_allocations(|| step(&mut Arena::new()));
//!     let (_, warm, _) = count_allocations(|| step(&mut arena));
//!     assert!(cold.allocations > 0);
//!     assert_eq!(warm.allocations, 0);
//! }
//! ```

#![warn(missing_docs)]

mod aligned;
mod arena;
mod counting;
mod flat;
mod split;

pub use aligned::{ALIGN, AlignedBuf, LINE_FLOATS, whole_lines};
pub use arena::{Arena, ArenaMark};
pub use counting::{AllocStats, CountingAlloc, count_allocations, global_stats, thread_stats};
pub use flat::FlatArena;
pub use split::split_disjoint;
