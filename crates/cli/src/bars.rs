//! Progress bars for work that plays for minutes (a final evaluation's
//! matches). The work only counts (one atomic add a unit: no allocation,
//! no drawing); a thread of its own draws the count ten times a second.
//! The bars go to stderr like training's, so they are hidden when that is
//! not a terminal, and each is cleared when its part ends.

use indicatif::{ProgressBar, ProgressStyle};
use minnow_train::Progress;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// A bar a part.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bars;

impl Progress for Bars {
    fn part(&self, label: &str, total: u64, work: &mut dyn FnMut(&(dyn Fn() + Sync))) {
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
        std::thread::scope(|s| {
            let drawer = s.spawn(|| {
                while !finished.load(Ordering::Relaxed) {
                    bar.set_position(done.load(Ordering::Relaxed));
                    std::thread::park_timeout(Duration::from_millis(100));
                }
            });
            work(&tick);
            finished.store(true, Ordering::Relaxed);
            drawer.thread().unpark();
        });
        bar.finish_and_clear();
    }
}
