//! Training across processes. A [`Collective`] is the group of processes
//! (ranks) a job runs on: [`Solo`] is the one-process group every build
//! has, and with the `mpi` feature an MPI job launched by `mpirun` is one
//! too (Open MPI through rsmpi). On top of it: a sum in a fixed rank order
//! ([`FixedOrderSum`]) and with it data-parallel training
//! ([`DataParallel`]: each rank its share of the batch, one sum of the flat
//! gradient buffer), whose result does not depend on timing; and work
//! spread over ranks in rounds, every result gathered ([`spread`]).
//!
//! ```
//! use minnow_dist::{Collective, FixedOrderSum, Solo};
//!
//! let world = Solo;
//! let mut grads = vec![1.0, 2.0, 3.0];
//! let mut sum = FixedOrderSum::new(&world, grads.len());
//! sum.sum(&world, &mut grads).unwrap();
//! assert_eq!(grads, [1.0, 2.0, 3.0]); // one rank: the sum is its own
//! assert_eq!((world.rank(), world.size()), (0, 1));
//! ```

#![warn(missing_docs)]

mod collective;
mod data_parallel;
mod error;
#[cfg(feature = "mpi")]
mod mpi_world;
mod spread;
mod sum;

pub use collective::{Collective, Solo, agree, launched_by_mpi, launcher_rank, world};
pub use data_parallel::{DataParallel, Reduced, shard};
pub use error::{DistError, Result};
#[cfg(feature = "mpi")]
pub use mpi_world::MpiWorld;
pub use spread::{Round, spread};
pub use sum::FixedOrderSum;
