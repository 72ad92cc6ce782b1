//! Pictures of a logic-CA rollout: channel 0 of each step as a PNG frame
//! and all of them as an animated GIF (live cells dark, as the paper
//! draws them). The encoders are the `png` crate and the `gif`
//! crate without its colour quantiser: two colours need no palette search.

use minnow_logic::BitGrid;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Grey levels of a live and a dead cell.
const LIVE: u8 = 24;
const DEAD: u8 = 240;

/// Channel 0 of `grid`, each cell `scale x scale` pixels, as 8-bit grey.
fn pixels(grid: &BitGrid, scale: usize) -> (usize, usize, Vec<u8>) {
    let (w, h) = (grid.width() * scale, grid.height() * scale);
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            out.push(if grid.get(0, y / scale, x / scale) { LIVE } else { DEAD });
        }
    }
    (w, h, out)
}

/// Writes one frame as a greyscale PNG.
pub fn write_png(path: &Path, grid: &BitGrid, scale: usize) -> std::io::Result<()> {
    let fail = |e: &dyn std::fmt::Display| std::io::Error::other(format!("{}: {e}", path.display()));
    let (w, h, data) = pixels(grid, scale);
    let file = File::create(path).map_err(|e| in_file(path, e))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), w as u32, h as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(&data).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))
}

/// Writes the frames as a looping GIF, `delay_cs` hundredths of a second
/// per frame (the last one held four times as long).
pub fn write_gif(path: &Path, frames: &[BitGrid], scale: usize, delay_cs: u16) -> std::io::Result<()> {
    let fail = |e: &dyn std::fmt::Display| std::io::Error::other(format!("{}: {e}", path.display()));
    let Some(first) = frames.first() else {
        return Err(fail(&"no frames to write"));
    };
    let (w, h) = (first.width() * scale, first.height() * scale);
    let (w16, h16) = (u16::try_from(w).map_err(|e| fail(&e))?, u16::try_from(h).map_err(|e| fail(&e))?);
    let file = File::create(path).map_err(|e| in_file(path, e))?;
    let palette = [LIVE, LIVE, LIVE, DEAD, DEAD, DEAD];
    let mut encoder = gif::Encoder::new(BufWriter::new(file), w16, h16, &palette).map_err(|e| fail(&e))?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(|e| fail(&e))?;
    for (i, grid) in frames.iter().enumerate() {
        let (_, _, grey) = pixels(grid, scale);
        let indices: Vec<u8> = grey.iter().map(|&g| (g == DEAD) as u8).collect();
        let mut frame = gif::Frame::from_indexed_pixels(w16, h16, indices, None);
        frame.delay = if i + 1 == frames.len() { delay_cs * 4 } else { delay_cs };
        encoder.write_frame(&frame).map_err(|e| fail(&e))?;
    }
    Ok(())
}

/// Writes `frames` as `dir/NNN.png` and `gif`.
pub fn write_rollout(dir: &Path, gif: &Path, frames: &[BitGrid], scale: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| in_file(dir, e))?;
    for (i, grid) in frames.iter().enumerate() {
        write_png(&dir.join(format!("{i:03}.png")), grid, scale)?;
    }
    write_gif(gif, frames, scale, 20)
}

/// `e` with the file it concerns.
fn in_file(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
