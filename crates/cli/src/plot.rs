//! Learning curves as PNG: one panel per metric against the step.

use crate::error::CliError;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// A named series of (step, value) points.
#[derive(Debug, Clone, Copy)]
pub struct Series<'a> {
    /// The panel's title.
    pub title: &'a str,
    /// The points, step first.
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
pub fn learning_curves(path: &Path, heading: &str, series: &[Series<'_>]) -> Result<(), CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::Plot { path: path.to_path_buf(), detail: e.to_string() };
    let (width, height) = (480 * series.len().max(1) as u32, 400);
    let mut rgb = vec![0u8; 3 * width as usize * height as usize];
    draw(&mut rgb, (width, height), heading, series).map_err(|e| fail(&e))?;
    // Encoded in memory and written in one checked call: the bitmap
    // backend's own file writer loses a failed last write unseen.
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(&rgb).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))?;
    std::fs::write(path, bytes).map_err(CliError::io(path))
}

/// Draws the series side by side into `rgb`, a `size` image.
fn draw(
    rgb: &mut [u8],
    size: (u32, u32),
    heading: &str,
    series: &[Series<'_>],
) -> Result<(), DrawingAreaErrorKind<<BitMapBackend<'static> as DrawingBackend>::ErrorType>> {
    register_font();
    let root = BitMapBackend::with_buffer(rgb, size).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(heading, ("sans-serif", 20))?;
    for (area, s) in root.split_evenly((1, series.len().max(1))).into_iter().zip(series) {
        let (x_max, (y_min, y_max)) = bounds(s.points);
        // Integer steps on the x axis, so ticks fall on whole steps.
        let mut chart = ChartBuilder::on(&area)
            .caption(s.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0..x_max.ceil() as u64, y_min..y_max)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .x_labels(6)
            .x_label_formatter(&|step| step_label(*step))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let points = s.points.iter().map(|&(step, value)| (step.round() as u64, value));
        chart.draw_series(LineSeries::new(points, &BLUE))?;
    }
    root.present()
}

/// A step count as a short tick label: 750, 12k, 2.5k, 1M, 2.5M.
fn step_label(step: u64) -> String {
    let short = |value: f64, unit: &str| {
        let text = format!("{value:.1}");
        format!("{}{unit}", text.strip_suffix(".0").unwrap_or(&text))
    };
    match step {
        0..1_000 => step.to_string(),
        1_000..1_000_000 => short(step as f64 / 1e3, "k"),
        1_000_000..1_000_000_000 => short(step as f64 / 1e6, "M"),
        _ => short(step as f64 / 1e9, "G"),
    }
}

fn bounds(points: &[(f64, f64)]) -> (f64, (f64, f64)) {
    let x_max = points.iter().map(|p| p.0).fold(1.0, f64::max);
    let (lo, hi) =
        points.iter().filter(|p| p.1.is_finite()).fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    if lo > hi {
        return (x_max, (0.0, 1.0));
    }
    // A flat series (a win rate that sits at 100%) gets a range a tenth
    // of its size around it, not one so thin that every tick prints the
    // same label.
    let least = 0.1 * hi.abs().max(lo.abs()).max(1e-5);
    let widen = (least - (hi - lo)).max(0.0) / 2.0;
    let (lo, hi) = (lo - widen, hi + widen);
    let pad = (hi - lo) * 0.05;
    (x_max, (lo - pad, hi + pad))
}

#[cfg(test)]
mod tests {
    use super::{bounds, step_label};

    #[test]
    fn step_labels_are_short_and_whole() {
        let labels: Vec<String> = [0, 250, 999, 1_000, 2_500, 12_000, 1_000_000, 2_000_000, 2_500_000, 3_000_000_000]
            .into_iter()
            .map(step_label)
            .collect();
        assert_eq!(labels, ["0", "250", "999", "1k", "2.5k", "12k", "1M", "2M", "2.5M", "3G"]);
    }

    #[test]
    fn a_flat_series_gets_a_readable_range() {
        let (_, (lo, hi)) = bounds(&[(1.0, 1.0), (2.0, 1.0)]);
        assert!(lo < 1.0 && hi > 1.0 && hi - lo >= 0.1, "{lo}..{hi}");
        let (_, (lo, hi)) = bounds(&[(1.0, 0.0), (2.0, 0.0)]);
        assert!(lo < 0.0 && hi > 0.0, "{lo}..{hi}");
        let (_, (lo, hi)) = bounds(&[(1.0, 2.0), (2.0, 4.0)]);
        assert!((lo - 1.9).abs() < 1e-12 && (hi - 4.1).abs() < 1e-12, "{lo}..{hi}");
    }

    #[test]
    fn a_long_run_plots() {
        let dir = std::env::temp_dir().join(format!("minnow-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("curve.png");
        let points: Vec<(f64, f64)> = (0..=40).map(|i| (i as f64 * 50_000.0, 1.0 / (1.0 + i as f64))).collect();
        super::learning_curves(&path, "test", &[super::Series { title: "loss", points: &points }]).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 1000);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_plot_that_cannot_be_written_is_an_error() {
        // /dev/full refuses every write with ENOSPC, as a full disk does.
        let full = std::path::Path::new("/dev/full");
        let points = [(1.0, 1.0), (2.0, 0.5)];
        let e = super::learning_curves(full, "test", &[super::Series { title: "loss", points: &points }]).unwrap_err();
        let text = crate::chain(&e);
        assert!(text.starts_with("/dev/full: No space left on device"), "{text}");
    }
}
