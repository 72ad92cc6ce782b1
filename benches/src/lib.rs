//! The workload benchmarks that define "fast" for minnow (see DESIGN.md),
//! and the harness that times them. `cargo xtask bench` runs them; the
//! names stay fixed so results compare across time.

#![warn(missing_docs)]

mod harness;
mod profile;
pub mod roofline;
pub mod workloads;

pub use harness::{Budget, Measurement, Work, Workload, measure};
pub use profile::{PROFILED, ProfileReport, ProfileRow, profile};

/// Every workload, in the order the table prints them.
pub fn all() -> Vec<Box<dyn Workload>> {
    let mut list = Vec::new();
    workloads::dqn::register(&mut list);
    workloads::az::register(&mut list);
    workloads::mcts::register(&mut list);
    workloads::conv::register(&mut list);
    workloads::lstm::register(&mut list);
    workloads::logic_ca::register(&mut list);
    workloads::gemm::register(&mut list);
    workloads::peak::register(&mut list);
    workloads::memory::register(&mut list);
    workloads::elementwise::register(&mut list);
    workloads::envs::register(&mut list);
    workloads::games::register(&mut list);
    list
}
