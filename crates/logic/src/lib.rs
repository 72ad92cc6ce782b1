//! Differentiable logic-gate networks and logic cellular automata.
//!
//! - [`gates`]: the 16 two-input gates, their relaxations and the
//!   multilinear form (`c0 + c1 a + c2 b + c3 ab`): each gate's softmax over
//!   16 logits folds into 4 coefficients once per step.
//! - [`layer`]: soft forward/backward kernels of a gate layer over lanes
//!   (cells x batch), and [`GateLayer`], a gate layer as a custom op on the
//!   autodiff tape; [`reference`](mod@reference) holds the naive 16-term twins.
//! - [`wiring`]: "unique", "random" and Moore (first perception layer)
//!   wiring, seeded.
//! - [`ca`]: the logic CA (per-channel perception kernels with shared
//!   logits, update circuit) as one circuit over rows.
//! - [`train`]: the checkerboard task and its variants (Game of Life,
//!   asynchronous updates), from a serde'd, validated config: unrolled
//!   rollout with backward through time on worker threads, AdamW, hard
//!   accuracy each step.
//! - [`population`]: several trainings run side by side, restarted on a
//!   cadence, and the one policy that picks the circuit a run keeps; it
//!   drives any [`Member`] (a training that steps, reports and offers
//!   circuits). [`selection`]: the pattern trainer as a member, with the
//!   held-out score that ranks its circuits; [`run`]: a population of
//!   pattern trainers as a `minnow_train::Run` ([`LogicCaRun`]), so the
//!   one run driver trains it; [`checkpoint`]: that population in the one
//!   run-checkpoint layout, exact resume.
//! - `PatternTrainer::set_target`: any target grid in place of the
//!   checkerboard (the `drawn_pattern` example grows an ASCII drawing).
//! - [`hard`]: argmax circuits, pruned, run bit-parallel (64 cells per
//!   `u64`), written as text, Verilog or C (`HardProgram::to_verilog`,
//!   `to_c`), taken from a CA, a trainer or a finished run in one call
//!   (`LogicCa::hard_program`, `PatternTrainer::hard_program`,
//!   `Trained::hard_program`); [`trained`] ships a trained checkerboard
//!   circuit.
//! - [`robustness`]: a trained rule on a larger grid, under damage and
//!   with asynchronous updates; [`life`]: the Game of Life rule and boards.
//!
//! Design notes (where this crate departs from the generic stack):
//! - The CA trainer does not record its 20 x 19 gate layers on the
//!   autodiff tape: the tape would keep every step's activations (189 MB
//!   per step here) and cannot split a step across threads. It runs the
//!   same kernels in its own engine instead (`rollout`): per worker thread
//!   whole grids, tiles of 64 cells, each tile's forward pass recomputed
//!   just before its backward pass, so everything stays in cache. The tape
//!   op ([`GateLayer`]) is there for networks that mix gates with other
//!   layers.
//! - The worker threads are the crate's own (`team`), not rayon's: entering
//!   a rayon pool from outside allocates now and then (its injector queue),
//!   and a training step must allocate nothing.
//! - The hot loops are compiled per instruction set and dispatched at run
//!   time from `minnow_kernels::level()`; the `unsafe` calls into the
//!   target-feature copies are fenced in one module (`simd`), the rest of
//!   the crate denies `unsafe`.
//!
//! A trained circuit run bit-parallel: the shipped checkerboard circuit
//! (28 gates reading a cell's 3x3 neighbourhood, 8 channels) grows the
//! checkerboard of 2x2 squares in channel 0 from random grids.
//!
//! ```
//! use minnow_logic::{BitGrid, HardScratch, checkerboard, trained};
//! use rand::{Rng, SeedableRng};
//!
//! let program = trained::checkerboard();
//! let (height, width) = (16, 16);
//! let mut grid = BitGrid::new(height, width, program.channels());
//! let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
//! grid.fill_random(|| rng.random());
//! let (mut next, mut scratch) = (grid.clone(), HardScratch::default());
//! for _ in 0..20 {
//!     program.step(&grid, &mut next, &mut scratch); // 64 cells per u64 op
//!     std::mem::swap(&mut grid, &mut next);
//! }
//! assert_eq!(grid.count_equal(0, &checkerboard(height, width)), height * width);
//! ```
//!
//! Training one (minutes on two cores; `examples/checkerboard.rs` is the
//! same with a report per step and the circuit written out):
//!
//! ```no_run
//! use minnow_logic::{CheckerboardConfig, train_checkerboard};
//! let trained = train_checkerboard(&CheckerboardConfig::default(), |reports| {
//!     for r in reports {
//!         println!("step {} loss {:.2} hard accuracy {:.3}", r.step, r.loss, r.hard_accuracy);
//!     }
//!     std::ops::ControlFlow::Continue(())
//! })?;
//! println!("100% at step {:?}, kept {:?}", trained.first_perfect, trained.kept.map(|k| k.step));
//! # Ok::<(), minnow_logic::LogicError>(())
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod ca;
pub mod checkpoint;
mod config;
mod error;
mod export;
pub mod gates;
pub mod hard;
pub mod layer;
pub mod life;
mod memory;
mod pattern;
pub mod population;
pub mod reference;
pub mod repair;
mod repair_sets;
pub mod robustness;
mod rollout;
pub mod run;
pub mod selection;
// The one module allowed `unsafe`: calls into target-feature copies.
#[allow(unsafe_code)]
mod simd;
mod target;
mod team;
pub mod train;
pub mod trained;
mod trainer;
pub mod wiring;

pub use ca::{Boundary, Circuit, LogicCa, LogicCaConfig};
pub use config::{CheckerboardConfig, RepairConfig, Variant};
pub use error::{LayerName, LogicError, Result};
pub use hard::{BitGrid, HardProgram, HardScratch, Prune};
pub use layer::{Gate, GateLayer};
pub use pattern::checkerboard;
pub use population::{Candidate, Kept, Member, Population, PopulationConfig};
pub use repair_sets::{DAMAGED_STREAM, REPAIR_STREAM, damaged_repair_set, repair_set};
pub use rollout::{Rollout, SoftRollout};
pub use run::LogicCaRun;
pub use selection::selection_score;
pub use train::{Trained, train_checkerboard};
pub use trainer::{DATA_STREAM, PatternTrainer, StepReport};
pub use wiring::Wiring;
