//! A progress bar for an evaluation that plays for minutes. The match
//! threads only count (one atomic add per game: no allocation, no
//! drawing); a thread of its own draws the count ten times a second. The
//! bar goes to stderr like training's, so it is hidden when that is not a
//! terminal, and it is cleared when the work ends.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Runs `work` under a bar labelled `label` over `total` units; `work`
/// calls the tick it is given once per unit done (from any thread).
pub(crate) fn with_bar<R>(label: &str, total: u64, work: impl FnOnce(&(dyn Fn() + Sync)) -> R) -> R {
    let bar = ProgressBar::new(total);
    if bar.is_hidden() {
        return work(&|| {});
    }
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(label.to_string());
    let (done, finished) = (AtomicU64::new(0), AtomicBool::new(false));
    let tick = || {
        done.fetch_add(1, Ordering::Relaxed);
    };
    let result = std::thread::scope(|s| {
        let drawer = s.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                bar.set_position(done.load(Ordering::Relaxed));
                std::thread::park_timeout(Duration::from_millis(100));
            }
        });
        let result = work(&tick);
        finished.store(true, Ordering::Relaxed);
        drawer.thread().unpark();
        result
    });
    bar.finish_and_clear();
    result
}
