//! The process's CPU time, for reports that set it beside wall time.

/// User plus system CPU time of this process so far, from /proc (0 where
/// there is none).
pub fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    let Some((_, after_name)) = stat.rsplit_once(')') else { return 0.0 };
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime, fields 14 and 15 of the file, in clock ticks of 1/100 s.
    (ticks(11) + ticks(12)) / 100.0
}
