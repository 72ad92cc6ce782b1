//! Shapes for minnow: a [`Shape`] of up to [`MAX_RANK`] dimensions that is
//! `Copy` and never allocates, and the [`TensorError`] every layer above
//! reports wrong shapes with (naming the op and both shapes).
//!
//! ```
//! use minnow_tensor::Shape;
//! let s = Shape::new(&[2, 3, 4]).unwrap();
//! assert_eq!((s.numel(), s.last()), (24, 4));
//! assert!(Shape::new(&[usize::MAX, 2]).is_err());
//! ```

#![warn(missing_docs)]

mod error;
mod shape;

pub use error::TensorError;
pub use shape::{MAX_RANK, Shape};

/// A result whose error is a [`TensorError`].
pub type Result<T, E = TensorError> = std::result::Result<T, E>;
