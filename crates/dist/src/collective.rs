//! The group of processes a job runs on, and the few collectives training
//! needs. Rank 0 is the root of every gather and broadcast.

use crate::{DistError, Result};
use std::rc::Rc;

/// The processes of one job, each knowing its rank. Every rank must call
/// the same collectives in the same order (a rank that skips one leaves the
/// others waiting).
pub trait Collective: std::fmt::Debug {
    /// This process's rank, `0..size()`.
    fn rank(&self) -> usize;

    /// How many ranks the job has.
    fn size(&self) -> usize;

    /// Concatenates every rank's `send` (all of one length) into `recv` on
    /// rank 0, in rank order; `recv` is not touched on the other ranks.
    fn gather(&self, send: &[f32], recv: &mut [f32]);

    /// Copies rank 0's `buffer` into every other rank's.
    fn broadcast(&self, buffer: &mut [f32]);

    /// Every rank's bytes, in rank order, on every rank.
    fn all_gather_bytes(&self, send: &[u8]) -> Vec<Vec<u8>>;

    /// Every rank's bytes (of any lengths), in rank order, on rank 0; the
    /// other ranks get nothing back. For results only the root needs
    /// (self-play games for the learner), without sending each rank's to
    /// all the others.
    fn gather_bytes(&self, send: &[u8]) -> Vec<Vec<u8>>;

    /// Ends the whole job at once (MPI jobs die whole: a rank that returned
    /// on its own would leave the others waiting in a collective).
    fn abort(&self, code: i32) -> !;
}

/// The one-process group: every collective is a copy or nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Solo;

impl Collective for Solo {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        1
    }

    fn gather(&self, send: &[f32], recv: &mut [f32]) {
        recv.copy_from_slice(send);
    }

    fn broadcast(&self, _buffer: &mut [f32]) {}

    fn all_gather_bytes(&self, send: &[u8]) -> Vec<Vec<u8>> {
        vec![send.to_vec()]
    }

    fn gather_bytes(&self, send: &[u8]) -> Vec<Vec<u8>> {
        vec![send.to_vec()]
    }

    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

/// Variables an MPI launcher (Open MPI's `mpirun`, a PMI or PMIx process
/// manager such as Slurm's) sets in every process it starts.
pub(crate) const LAUNCHER_VARIABLES: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"];

/// Whether an MPI launcher started this process.
pub fn launched_by_mpi() -> bool {
    LAUNCHER_VARIABLES.iter().any(|v| std::env::var_os(v).is_some())
}

/// This process's rank as its MPI launcher numbered it, read from the
/// launcher's variables (MPI itself need not be up, as in a signal
/// handler); `None` when no launcher started the process.
pub fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"].iter().find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// The group this process trains in: [`Solo`] unless a distributed run is
/// `requested` or an MPI launcher started the process, then the MPI job. A
/// distributed run without MPI compiled in, or without a launcher, is an
/// error that says how to build and launch.
pub fn world(requested: bool) -> Result<Rc<dyn Collective>> {
    let launched = launched_by_mpi();
    if !requested && !launched {
        return Ok(Rc::new(Solo));
    }
    #[cfg(feature = "mpi")]
    {
        if !launched {
            return Err(DistError::NoLauncher);
        }
        Ok(Rc::new(crate::MpiWorld::init()?))
    }
    #[cfg(not(feature = "mpi"))]
    Err(DistError::NotCompiled)
}

/// Checks that every rank was started with the same `text` (a config as
/// JSON, say); a rank that differs is an error on every rank, naming the
/// first such rank and the difference as `describe(rank 0's, theirs)`
/// tells it (the whole texts by default).
pub fn agree(comm: &dyn Collective, text: &str, describe: impl Fn(&str, &str) -> (String, String)) -> Result<()> {
    let all = comm.all_gather_bytes(text.as_bytes());
    let ours = String::from_utf8_lossy(&all[0]);
    match all.iter().enumerate().skip(1).find(|(_, theirs)| **theirs != all[0]) {
        None => Ok(()),
        Some((rank, theirs)) => {
            let (ours, theirs) = describe(&ours, &String::from_utf8_lossy(theirs));
            Err(DistError::Disagree { rank, ours, theirs })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_process_is_solo_and_agrees_with_itself() {
        // The test runner is not started by an MPI launcher.
        if launched_by_mpi() {
            return;
        }
        let world = world(false).unwrap();
        assert_eq!((world.rank(), world.size()), (0, 1));
        let whole = |a: &str, b: &str| (a.to_string(), b.to_string());
        agree(world.as_ref(), r#"{"seed":1}"#, whole).unwrap();
        let mut recv = [0.0; 2];
        world.gather(&[1.0, 2.0], &mut recv);
        assert_eq!(recv, [1.0, 2.0]);
    }

    #[cfg(not(feature = "mpi"))]
    #[test]
    fn a_distributed_run_without_mpi_says_how_to_build_and_launch() {
        let message = world(true).unwrap_err().to_string();
        assert!(message.contains("--features mpi"), "{message}");
        assert!(message.contains("mpirun -np K"), "{message}");
        assert!(message.contains("apt-get install libopenmpi-dev"), "{message}");
    }
}
