//! What a person watching a run sees and keeps: the progress bar with the
//! latest metrics, the metrics files (JSON lines and TensorBoard) and the
//! learning curve.

use crate::error::CliError;
use crate::plot::{Series, learning_curves};
use indicatif::{ProgressBar, ProgressStyle};
use minnow_train::sinks::{JsonLines, TensorBoard};
use minnow_train::{Event, Observer};
use std::path::Path;

/// The progress bar, the metrics sinks and the curve's points.
pub struct FrontEnd {
    bar: ProgressBar,
    /// The metric plotted beside the loss (`test_accuracy`).
    headline: &'static str,
    /// The metrics the progress line shows, with their latest values.
    shown: Vec<(&'static str, f64)>,
    sinks: (JsonLines, TensorBoard),
    loss: Vec<(f64, f64)>,
    accuracy: Vec<(f64, f64)>,
    /// Steps observed: the progress line is redrawn every 25.
    steps: u64,
}

impl FrontEnd {
    /// Opens the metrics sinks in `out`, keeping only what they hold up to
    /// `step` (a resumed run redoes whatever came after its checkpoint).
    pub fn open(out: &Path, step: u64, total: u64, headline: &'static str) -> minnow_train::Result<Self> {
        let jsonl = JsonLines::open(&out.join("metrics.jsonl"), step)?;
        let tensorboard = TensorBoard::open(out, step)?;
        let mut front = Self {
            bar: ProgressBar::new(total),
            headline,
            shown: vec![("loss", f64::NAN), (headline, f64::NAN)],
            sinks: (jsonl, tensorboard),
            loss: Vec::new(),
            accuracy: Vec::new(),
            steps: 0,
        };
        for value in front.sinks.0.kept().to_vec() {
            let step = value["step"].as_f64().unwrap_or(0.0);
            if let Some(loss) = value["loss"].as_f64() {
                front.loss.push((step, loss));
            }
            if let Some(acc) = value[headline].as_f64() {
                front.accuracy.push((step, acc));
            }
        }
        front.bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}) {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        front.bar.set_position(step);
        Ok(front)
    }

    /// Shows `show` on the progress line (the loss and the headline when empty).
    pub fn show(&mut self, show: &[&'static str], total: u64) {
        if !show.is_empty() {
            self.shown = show.iter().map(|&key| (key, f64::NAN)).collect();
        }
        self.bar.set_length(total);
    }

    /// Clears the progress bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn remember(&mut self, step: u64, metrics: &[(&'static str, f64)]) {
        for &(name, value) in metrics {
            if name == "loss" {
                self.loss.push((step as f64, value));
            } else if name == self.headline {
                self.accuracy.push((step as f64, value));
            }
            if let Some(shown) = self.shown.iter_mut().find(|(key, _)| *key == name) {
                shown.1 = value;
            }
        }
    }

    fn message(&self) -> String {
        let value = |v: f64| if v.abs() >= 100.0 { format!("{v:.0}") } else { format!("{v:.4}") };
        let shown = self.shown.iter().map(|&(key, v)| format!("{} {}", key.replace('_', " "), value(v)));
        shown.collect::<Vec<_>>().join("  ")
    }

    /// Draws the loss and the headline metric against the step.
    pub fn plot(&self, path: &Path, title: &str) -> Result<(), CliError> {
        let headline = self.headline.replace('_', " ");
        let series = [
            Series { title: "training loss", points: &self.loss },
            Series { title: &headline, points: &self.accuracy },
        ];
        learning_curves(path, title, &series)
    }
}

impl Observer for FrontEnd {
    fn observe(&mut self, event: Event<'_>) -> minnow_train::Result<()> {
        self.sinks.observe(event)?;
        match event {
            Event::Step { step, metrics, .. } => {
                self.remember(step, metrics);
                self.bar.set_position(step);
                self.steps += 1;
                if self.steps % 25 == 1 {
                    self.bar.set_message(self.message());
                }
            }
            Event::Eval { step, metrics } => {
                self.remember(step, metrics);
                self.bar.set_message(self.message());
            }
            Event::Checkpoint { step, .. } => self.bar.set_message(format!("checkpoint at step {step}")),
        }
        Ok(())
    }

    fn persist(&mut self) -> minnow_train::Result<()> {
        self.sinks.persist()
    }
}

impl std::fmt::Debug for FrontEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrontEnd").field("headline", &self.headline).field("shown", &self.shown).finish_non_exhaustive()
    }
}
