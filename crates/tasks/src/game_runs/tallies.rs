//! The statistics a game-per-step run's metrics lines average: one
//! game's, or the sums over the games since the last line. The sums
//! travel in the checkpoint (as `window`), so that a resumed run logs what
//! an uninterrupted one does; read back, they are checked, since a
//! checkpoint may be crafted.

use minnow_train::{Metrics, TrainError};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A count a game adds to, with more than one game can ever add: a window
/// holding more than its games could is a crafted one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Count {
    /// Its key in the window ("moves").
    pub key: &'static str,
    /// The count.
    pub value: u64,
    /// More than any one game adds.
    pub per_game: u64,
}

/// One game's statistics, or their sums over a window of games. The
/// task's struct is the checkpoint's `window` document as it stands.
pub(crate) trait Tallies: Copy + Default + Serialize + DeserializeOwned {
    /// Games tallied (1 for one game).
    fn games(&self) -> u64;

    /// Moves (or decisions) learned from: a line's loss is the squared
    /// error per move.
    fn moves(&self) -> u64;

    /// The sum of squared TD errors.
    fn squared_error(&self) -> f64;

    /// The counts, with what one game can add to each.
    fn counts(&self) -> impl IntoIterator<Item = Count>;

    /// Adds another game's (or window's) tallies.
    fn add(&mut self, other: &Self);

    /// A metrics line's values after the loss: the task's per-game means
    /// over `games` games.
    fn means(&self, games: f64) -> impl IntoIterator<Item = (&'static str, f64)>;

    /// Writes the metrics line of a window: the mean squared TD error per
    /// move as "loss" (it grows with the values as the games get longer),
    /// then the task's per-game means.
    fn write_line(&self, metrics: &mut Metrics) {
        metrics.push(("loss", self.squared_error() / self.moves().max(1) as f64));
        metrics.extend(self.means(self.games() as f64));
    }

    /// Checks a window read from a checkpoint at `step` games: no more
    /// games than the run has played, no count past what they can hold, a
    /// finite error.
    fn check(&self, step: u64) -> Result<(), TrainError> {
        let (games, squared_error) = (self.games(), self.squared_error());
        let counts: Vec<Count> = self.counts().into_iter().collect();
        let problem = if games > step {
            format!("{games} games in the window, more than the run's {step}")
        } else if counts.iter().any(|c| c.value > games.checked_mul(c.per_game).unwrap_or(0)) {
            let counts: Vec<String> = counts.iter().map(|c| format!("{} = {}", c.key, c.value)).collect();
            format!("{}: more than {games} games can hold", counts.join(", "))
        } else if !(squared_error.is_finite() && squared_error >= 0.0) {
            format!("squared_error {squared_error} is not a finite value >= 0")
        } else {
            return Ok(());
        };
        Err(TrainError::BadState { key: "window".into(), detail: problem })
    }
}
