//! Shapes and tensors for minnow: row-major `f32` data that is either owned
//! (an aligned buffer) or borrowed (from an arena, a parameter store, a
//! caller's slice), and destination-taking ops (`add_into`, `matmul_into`,
//! ...) that allocate nothing and return a [`TensorError`] naming both
//! shapes when they do not fit.

mod error;
mod ops;
mod shape;
mod tensor;

pub use error::TensorError;
pub use ops::*;
pub use shape::{MAX_RANK, Shape};
pub use tensor::{AsTensor, AsTensorMut, Tensor, TensorMut, TensorRef};

pub type Result<T, E = TensorError> = std::result::Result<T, E>;
