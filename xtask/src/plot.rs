//! Learning curves as PNG: one panel per metric against the step.

use crate::error::XtaskError;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// A named series of (step, value) points.
pub struct Series<'a> {
    pub title: &'a str,
    pub points: &'a [(f64, f64)],
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // DejaVu Sans ships with the repository (assets/), so plots render
        // the same on every machine without system fonts.
        let _ =
            plotters::style::register_font("sans-serif", FontStyle::Normal, include_bytes!("../assets/DejaVuSans.ttf"));
    });
}

/// Draws the series side by side into a PNG.
pub fn learning_curves(path: &Path, heading: &str, series: &[Series<'_>]) -> Result<(), XtaskError> {
    register_font();
    let fail = |e: &dyn std::fmt::Display| XtaskError::Plot { path: path.to_path_buf(), detail: e.to_string() };
    let width = 480 * series.len().max(1) as u32;
    let root = BitMapBackend::new(path, (width, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let root = root.titled(heading, ("sans-serif", 20)).map_err(|e| fail(&e))?;
    for (area, s) in root.split_evenly((1, series.len().max(1))).into_iter().zip(series) {
        let (x_max, (y_min, y_max)) = bounds(s.points);
        let mut chart = ChartBuilder::on(&area)
            .caption(s.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..x_max, y_min..y_max)
            .map_err(|e| fail(&e))?;
        chart.configure_mesh().x_desc("step").light_line_style(WHITE.mix(0.0)).draw().map_err(|e| fail(&e))?;
        chart.draw_series(LineSeries::new(s.points.iter().copied(), &BLUE)).map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}

fn bounds(points: &[(f64, f64)]) -> (f64, (f64, f64)) {
    let x_max = points.iter().map(|p| p.0).fold(1.0, f64::max);
    let (lo, hi) =
        points.iter().filter(|p| p.1.is_finite()).fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    if lo > hi {
        return (x_max, (0.0, 1.0));
    }
    let pad = ((hi - lo) * 0.05).max(1e-6);
    (x_max, (lo - pad, hi + pad))
}
