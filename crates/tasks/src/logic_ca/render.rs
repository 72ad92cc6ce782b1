//! Pictures of a logic-CA rollout: channel 0 of each step as a PNG frame
//! and all of them as an animated GIF (live cells dark, as the paper
//! draws them). The encoders are the `png` crate and the `gif`
//! crate without its colour quantiser: two colours need no palette search.

use minnow_logic::BitGrid;
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
    // Encoded in memory and written in one checked call: an encoder's
    // buffered writer, dropped, would lose a failed last write unseen.
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w as u32, h as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(&data).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))?;
    std::fs::write(path, bytes).map_err(|e| in_file(path, e))
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
    let palette = [LIVE, LIVE, LIVE, DEAD, DEAD, DEAD];
    let mut encoder = gif::Encoder::new(Vec::new(), w16, h16, &palette).map_err(|e| fail(&e))?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(|e| fail(&e))?;
    for (i, grid) in frames.iter().enumerate() {
        let (_, _, grey) = pixels(grid, scale);
        let indices: Vec<u8> = grey.iter().map(|&g| (g == DEAD) as u8).collect();
        let mut frame = gif::Frame::from_indexed_pixels(w16, h16, indices, None);
        frame.delay = if i + 1 == frames.len() { delay_cs * 4 } else { delay_cs };
        encoder.write_frame(&frame).map_err(|e| fail(&e))?;
    }
    // `into_inner` writes the trailer; the file is written whole, checked.
    let bytes = encoder.into_inner().map_err(|e| fail(&e))?;
    std::fs::write(path, bytes).map_err(|e| in_file(path, e))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_that_cannot_be_written_are_errors() {
        // /dev/full refuses every write with ENOSPC, as a full disk does;
        // a frame this small fits a writer's buffer, whose last write a
        // drop would lose unseen.
        let full = Path::new("/dev/full");
        let frames = [BitGrid::new(4, 4, 1), BitGrid::new(4, 4, 1)];
        for result in [write_png(full, &frames[0], 2), write_gif(full, &frames, 2, 10)] {
            let e = result.unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::StorageFull, "{e}");
            assert!(e.to_string().starts_with("/dev/full: "), "{e}");
        }
        let dir = std::env::temp_dir().join(format!("minnow-render-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_png(&dir.join("f.png"), &frames[0], 2).unwrap();
        write_gif(&dir.join("f.gif"), &frames, 2, 10).unwrap();
        assert!(std::fs::read(dir.join("f.gif")).unwrap().ends_with(&[0x3b]), "the GIF ends with its trailer");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
