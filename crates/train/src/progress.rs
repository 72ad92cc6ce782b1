//! The progress of long work outside a drive (a final evaluation's
//! matches): the library counts, the front end draws.

/// Shows how far a part of some work has come.
pub trait Progress {
    /// Runs `work` once, a part labelled `label` of `total` units; `work`
    /// calls the tick it is given once per unit done, from any thread.
    fn part(&self, label: &str, total: u64, work: &mut dyn FnMut(&(dyn Fn() + Sync)));
}

/// Nothing shown.
impl Progress for () {
    fn part(&self, _: &str, _: u64, work: &mut dyn FnMut(&(dyn Fn() + Sync))) {
        work(&|| {});
    }
}

/// [`Progress::part`] returning what `work` returns.
pub fn with_progress<R>(
    progress: &dyn Progress,
    label: &str,
    total: u64,
    work: impl FnOnce(&(dyn Fn() + Sync)) -> R,
) -> R {
    let (mut work, mut result) = (Some(work), None);
    progress.part(label, total, &mut |tick| result = work.take().map(|work| work(tick)));
    result.expect("a progress runs its work")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn the_work_runs_once_and_its_result_comes_back() {
        let ticks = AtomicU64::new(0);
        let result = with_progress(&(), "part", 3, |tick| {
            for _ in 0..3 {
                tick();
                ticks.fetch_add(1, Ordering::Relaxed);
            }
            7
        });
        assert_eq!((result, ticks.into_inner()), (7, 3));
    }
}
