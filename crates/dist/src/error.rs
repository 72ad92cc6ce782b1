/// What can go wrong when processes train together.
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    /// A distributed run asked of a build without MPI.
    #[error(
        "this build has no MPI support: build with the cargo feature `mpi` (`--features mpi`; the system side on \
         Debian: `apt-get install libopenmpi-dev openmpi-bin libclang-dev`), then launch with `mpirun -np K PROGRAM ...`"
    )]
    NotCompiled,
    /// A distributed run started without an MPI launcher.
    #[error(
        "a distributed run needs an MPI launcher: start it with `mpirun -np K PROGRAM ...` (no launcher found: \
         none of {} is set)",
        crate::collective::LAUNCHER_VARIABLES.join(", ")
    )]
    NoLauncher,
    /// MPI was initialised before in this process (it can be only once).
    #[error("MPI is already initialised in this process")]
    AlreadyInitialised,
    /// The ranks were started with different settings.
    #[error("rank {rank} runs with {theirs}, rank 0 with {ours}: every rank must run the same config")]
    Disagree {
        /// The first rank whose settings differ from rank 0's.
        rank: usize,
        /// Rank 0's settings (or the part of them that differs).
        ours: String,
        /// That rank's settings (or the part of them that differs).
        theirs: String,
    },
    /// A rank failed at a step every rank had to pass.
    #[error("rank {rank} failed: {message}")]
    RankFailed {
        /// The rank whose work failed.
        rank: usize,
        /// Its error, as it displayed on that rank.
        message: String,
    },
    /// A buffer of another length than the collective was set up for.
    #[error("{what}: expected a buffer of {expected} values, found {found}")]
    Length {
        /// The collective that was given the buffer.
        what: &'static str,
        /// The length it was set up for, in values.
        expected: usize,
        /// The length it was given, in values.
        found: usize,
    },
    /// A global batch too small to give every rank a row.
    #[error("a batch of {batch} rows cannot be split over {ranks} ranks: every rank needs a row")]
    TooFewRows {
        /// Rows in the global batch.
        batch: usize,
        /// Ranks in the job.
        ranks: usize,
    },
    /// A result gathered from a rank that does not decode.
    #[error("the result gathered from rank {rank} does not decode: {detail}")]
    Decode {
        /// The rank whose result it was.
        rank: usize,
        /// What the decoder said.
        detail: String,
    },
}

/// A result whose error is a [`DistError`].
pub type Result<T, E = DistError> = std::result::Result<T, E>;
