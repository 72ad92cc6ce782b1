//! minnow's autodiff: a tape (Wengert list) of ops recorded by index, its
//! reverse pass, flat parameter and gradient memory, custom ops, and a
//! finite-difference gradient checker.
//!
//! A training step:
//! ```ignore
//! params.zero_grads();
//! let mut g = tape.graph(&mut params);
//! let x = g.input(&[batch, 16], observations)?;
//! let w = g.param(w_id);
//! let y = g.linear(x, w, None)?;
//! let loss = g.mse(y, targets, None)?;
//! g.backward(loss)?;
//! ```
//! Parameters persist in [`Params`]; everything else lives in the tape's
//! arena until the next step clears it, so a warmed-up step allocates
//! nothing. `tape.inference(&params)` runs the same ops without recording.
//!
//! The graph also carries what a layer's mode depends on: whether it is a
//! training graph ([`Graph::is_training`]), the step's seed for random ops
//! ([`Graph::set_seed`]), and write access to the store's buffers
//! ([`BufferId`]: running statistics) when training.

#![warn(missing_docs)]

mod beside;
mod custom;
mod error;
/// Finite-difference gradient checking of a graph against its backward pass.
pub mod gradcheck;
mod ops;
mod params;
mod profile;
mod seed;
mod tape;

pub use beside::beside;
pub use custom::{CustomId, CustomOp};
pub use error::{Error, Result};
pub use ops::recurrent::RecurrentCell;
pub use params::{BufferId, ParamId, Params};
pub use profile::Profile;
pub use tape::{Graph, MAX_BORROWED, MAX_INPUTS, PARALLEL_GEMM_MIN_MACS, PARALLEL_ROWS_MIN_FLOATS, Tape, Var};
