//! Two forward passes that share nothing, such as a target network's on
//! the next states and the online network's on the states, run beside
//! each other when the tape would split one of them over threads anyway.

/// Runs `a` and `b`: on two of rayon's workers when `threads` (what
/// [`Tape::threads_for`](crate::Tape::threads_for) gives one of the
/// forwards' multiply-adds) is more than 1, otherwise `a` then `b` on this
/// thread. Each runs whole, as on one thread, so the results are the same
/// bits either way. `rayon::join` allocates nothing when called on a
/// worker of rayon's pool.
pub fn beside<A: Send, B: Send>(threads: usize, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    if threads > 1 { rayon::join(a, b) } else { (a(), b()) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_runs_once_on_one_thread_or_two() {
        for threads in [1, 2] {
            let (mut a, mut b) = (0, 0);
            let out = super::beside(
                threads,
                || {
                    a += 1;
                    'a'
                },
                || {
                    b += 1;
                    'b'
                },
            );
            assert_eq!((out, a, b), (('a', 'b'), 1, 1), "threads {threads}");
        }
    }
}
