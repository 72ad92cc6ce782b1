//! N-tuple networks: a value function that is a sum of learned lookup
//! tables, each indexed by the values of a few fixed cells of a board
//! (Lucas 2008; Szubert & Jaśkowski 2014). They learn fast because an
//! update touches only the entries the board reads (a sparse update), and
//! they evaluate in a few dozen memory loads.
//!
//! - [`NTupleNetwork`]: the tables in one flat `f32` buffer with offsets;
//!   `value`, and `update` that spreads a change over the touched entries.
//! - [`TdLearner`]: TD(0) on afterstates, one update per move.
//! - [`SparseWeights`]: the weights that are not zero, to store a trained
//!   network in a fraction of its tables' size and read it back exactly.
//!
//! A board is a slice of small integer cells (`0..levels`). A table may be
//! read at several placements (symmetric sampling: the same pattern at
//! every rotation of the board shares one table), or at one.
//!
//! ```
//! use minnow_rl::ntuple::{NTupleNetwork, TdLearner};
//! // A 2x2 board of cells 0..3: one table over the top row, one over the left column.
//! let mut net = NTupleNetwork::new(4, 3, &[vec![vec![0, 1]], vec![vec![0, 2]]]).unwrap();
//! let mut td = TdLearner::new(0.5);
//! td.step(&mut net, &[1, 2, 0, 0], 0.0);
//! td.step(&mut net, &[2, 2, 1, 0], 4.0);
//! td.finish(&mut net);
//! assert!(net.value(&[1, 2, 0, 0]) > 0.0);
//! ```

mod network;
mod sparse;
mod td;

pub use network::{MAX_TABLE_ENTRIES, MAX_TUPLE_LENGTH, NTupleNetwork};
pub use sparse::SparseWeights;
pub use td::TdLearner;
