//! The cache sizes that decide which bandwidth bounds a working set.

use super::Memory;
use serde::Serialize;

/// Data cache sizes in bytes (0 when unknown).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Caches {
    /// L1 data cache of one core.
    pub l1: usize,
    /// L2 of one core.
    pub l2: usize,
    /// The last-level cache, shared.
    pub l3: usize,
}

impl Caches {
    /// This machine's, as Linux reports them for cpu0; zero where it
    /// does not.
    pub fn detect() -> Self {
        let mut caches = Caches { l1: 0, l2: 0, l3: 0 };
        for index in 0..8 {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
            let read = |file: &str| std::fs::read_to_string(format!("{dir}/{file}")).ok();
            let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size")) else {
                continue;
            };
            let Some(bytes) = parse_size(size.trim()) else { continue };
            match (level.trim(), kind.trim()) {
                ("1", "Data") => caches.l1 = bytes,
                ("2", "Unified") => caches.l2 = bytes,
                ("3", "Unified") => caches.l3 = bytes,
                _ => {}
            }
        }
        caches
    }

    /// The fastest measured level that can hold `working_set` bytes of
    /// one thread, or `None` when L1 holds it (no probe measures L1).
    /// An unknown size counts as large enough: the floor then takes the
    /// faster level's bandwidth, so it stays a lower bound.
    pub fn holding(&self, working_set: f64) -> Option<Memory> {
        let fits = |size: usize| size == 0 || working_set <= size as f64;
        if self.l1 != 0 && working_set <= self.l1 as f64 {
            None
        } else if fits(self.l2) {
            Some(Memory::L2)
        } else if fits(self.l3) {
            Some(Memory::L3)
        } else {
            Some(Memory::Dram)
        }
    }
}

/// "48K", "1024K", "32M" (sysfs's form) in bytes.
fn parse_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let value: usize = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    Some(value * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("2 KB"), None);
    }

    #[test]
    fn a_working_set_is_held_by_the_smallest_level_it_fits() {
        let c = Caches { l1: 32 << 10, l2: 1 << 20, l3: 32 << 20 };
        assert_eq!(c.holding(16e3), None);
        assert_eq!(c.holding(600e3), Some(Memory::L2));
        assert_eq!(c.holding(1.2e6), Some(Memory::L3));
        assert_eq!(c.holding(1e9), Some(Memory::Dram));
        let unknown = Caches { l1: 0, l2: 0, l3: 0 };
        assert_eq!(unknown.holding(1e9), Some(Memory::L2));
    }
}
