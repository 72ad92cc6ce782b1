//! Up-front memory checks. A config whose buffers cannot fit would abort
//! the process on its first failed allocation ("memory allocation of N
//! bytes failed": no error, no checkpoint); a run instead estimates what
//! it needs before allocating and is refused with the estimate against
//! the memory the machine has available.

use crate::{Result, TrainError};

/// The memory the machine can give a new process without swapping
/// (`MemAvailable` in `/proc/meminfo`), in bytes; `None` where unknown.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Refuses `what` (say "the digits network (hidden 100000000)") if its
/// estimated `bytes` exceed the available memory. Estimates are `f64` so
/// that absurd sizes do not overflow on the way to the error.
pub fn check_fits(what: &str, bytes: f64) -> Result<()> {
    match available_bytes() {
        Some(available) if bytes > available as f64 => Err(TrainError::OutOfMemory {
            what: what.to_string(),
            needed: human(bytes),
            available: human(available as f64),
        }),
        _ => Ok(()),
    }
}

/// `bytes` in the largest unit that keeps it above 1 (`3.2 GiB`).
pub fn human(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit + 1 == UNITS.len() && value >= 1024.0 {
        format!("{bytes:.1e} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_beyond_the_machine_is_refused_with_both_numbers() {
        assert_eq!(human(512.0), "512.0 B");
        assert_eq!(human(3.5 * 1024.0 * 1024.0 * 1024.0), "3.5 GiB");
        assert_eq!(human(4e40), "4.0e40 B");
        if available_bytes().is_none() {
            return; // not Linux: nothing to compare with
        }
        assert!(check_fits("a small buffer", 1024.0).is_ok());
        let err = check_fits("the digits network (hidden 100000000)", 4e16).unwrap_err().to_string();
        assert!(err.starts_with("the digits network (hidden 100000000) needs about 35.5 PiB of memory"), "{err}");
        assert!(err.contains("available"), "{err}");
    }
}
