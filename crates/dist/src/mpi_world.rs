//! The MPI job as a [`Collective`]: Open MPI through rsmpi, the Rust
//! ecosystem's MPI bindings (the same binary runs under `mpirun` on a laptop
//! and under a cluster's scheduler).

use crate::{Collective, DistError, Result};
use mpi::Count;
use mpi::datatype::PartitionMut;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

/// The world communicator of an MPI job. MPI is finalised when it drops.
pub struct MpiWorld {
    // Dropped before the universe, whose drop finalises MPI.
    world: mpi::topology::SimpleCommunicator,
    _universe: mpi::environment::Universe,
}

impl std::fmt::Debug for MpiWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiWorld").field("rank", &self.rank()).field("size", &self.size()).finish()
    }
}

impl MpiWorld {
    /// Initialises MPI (once per process).
    pub fn init() -> Result<Self> {
        let universe = mpi::initialize().ok_or(DistError::AlreadyInitialised)?;
        Ok(Self { world: universe.world(), _universe: universe })
    }
}

impl Collective for MpiWorld {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn gather(&self, send: &[f32], recv: &mut [f32]) {
        let root = self.world.process_at_rank(0);
        if self.world.rank() == 0 {
            root.gather_into_root(send, recv);
        } else {
            root.gather_into(send);
        }
    }

    fn broadcast(&self, buffer: &mut [f32]) {
        self.world.process_at_rank(0).broadcast_into(buffer);
    }

    fn all_gather_bytes(&self, send: &[u8]) -> Vec<Vec<u8>> {
        let size = self.size();
        let mut counts = vec![0 as Count; size];
        self.world.all_gather_into(&(send.len() as Count), &mut counts[..]);
        let displs: Vec<Count> = counts.iter().scan(0, |at, &n| Some(std::mem::replace(at, *at + n))).collect();
        // One byte more than needed: with nothing to gather, an empty send
        // slice and an empty buffer share a dangling address, which Open
        // MPI refuses as an aliased buffer.
        let mut all = vec![0u8; counts.iter().map(|&n| n as usize).sum::<usize>() + 1];
        {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(send, &mut partition);
        }
        counts.iter().zip(&displs).map(|(&n, &at)| all[at as usize..(at + n) as usize].to_vec()).collect()
    }

    fn gather_bytes(&self, send: &[u8]) -> Vec<Vec<u8>> {
        let root = self.world.process_at_rank(0);
        let count = send.len() as Count;
        if self.world.rank() != 0 {
            root.gather_into(&count);
            root.gather_varcount_into(send);
            return Vec::new();
        }
        let mut counts = vec![0 as Count; self.size()];
        root.gather_into_root(&count, &mut counts[..]);
        let displs: Vec<Count> = counts.iter().scan(0, |at, &n| Some(std::mem::replace(at, *at + n))).collect();
        // One byte more than needed, as in `all_gather_bytes`.
        let mut all = vec![0u8; counts.iter().map(|&n| n as usize).sum::<usize>() + 1];
        {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(send, &mut partition);
        }
        counts.iter().zip(&displs).map(|(&n, &at)| all[at as usize..(at + n) as usize].to_vec()).collect()
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}
