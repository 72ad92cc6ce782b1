//! `cargo xtask bench [FILTER]`: times the workloads whose names contain
//! FILTER, prints a table, writes JSON under target/bench/, and compares
//! with the previous run. Every run also times the probes of the
//! machine's limits and reports each workload's floor beside its time
//! (the roofline: `minnow_benches::roofline`).

use crate::error::XtaskError;
use crate::machine::Machine;
use clap::Args;
use minnow_benches::roofline::{Caches, Floor, Limit, Limits, Memory, Precision, Roofline};
use minnow_benches::{Budget, Measurement, Workload, measure};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Only workloads whose name contains this.
    filter: Option<String>,
    /// Shorter warm-up and measurement (noisier).
    #[arg(long)]
    quick: bool,
    /// List the workload names and exit.
    #[arg(long)]
    list: bool,
    /// With a FILTER, leave out the probes of the machine's limits that
    /// would be timed beside it (the floors are then missing).
    #[arg(long)]
    no_limits: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    machine: Machine,
    /// The limits this run measured.
    limits: &'a Limits,
    results: Vec<Row<'a>>,
}

/// One workload's result with its floor.
#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    measurement: &'a Measurement,
    /// The least time its work can take here, ns (none without a floor).
    floor_ns: Option<f64>,
    /// floor / median time, in percent.
    percent_of_limit: Option<f64>,
    /// The floor's parts and its bound.
    floor: Option<Floor>,
}

#[derive(Deserialize)]
struct Previous {
    results: Vec<PreviousResult>,
}

#[derive(Deserialize)]
struct PreviousResult {
    name: String,
    median_ns: f64,
}

pub fn run(args: BenchArgs) -> Result<(), XtaskError> {
    if cfg!(debug_assertions) {
        return Err(XtaskError::DebugBuild { command: "bench" });
    }
    let mut workloads = minnow_benches::all();
    let is_probe = |w: &dyn Workload| matches!(w.roofline(), Roofline::Probe { .. });
    if let Some(filter) = &args.filter {
        let matched = |w: &dyn Workload| w.name().contains(filter.as_str());
        if args.list || !workloads.iter().any(|w| matched(w.as_ref())) {
            workloads.retain(|w| matched(w.as_ref()));
        } else {
            // The floors need the limits measured in the same run.
            workloads.retain(|w| matched(w.as_ref()) || (!args.no_limits && is_probe(w.as_ref())));
        }
    }
    if args.list {
        workloads.iter().for_each(|w| minnow_train::outln!("{}", w.name()));
        return Ok(());
    }
    if workloads.is_empty() {
        return Err(format!("bench: no workload matches '{}'; try --list", args.filter.unwrap_or_default()).into());
    }
    let dir = crate::workspace_root().join("target/bench");
    let latest = dir.join("latest.json");
    let previous = read_previous(&latest);
    let machine = Machine::detect();
    minnow_train::outln!(
        "minnow bench  {}  {} cores  simd {}  rev {}",
        machine.cpu,
        machine.cores,
        machine.simd,
        machine.git_revision
    );
    eprintln!(
        "timing {} workloads in {} rounds",
        workloads.len(),
        if args.quick { Budget::QUICK.rounds } else { Budget::FULL.rounds }
    );
    minnow_train::outln!(
        "{:<34} {:>10} {:>10} {:>10} {:>18} {:>9} {:>8} {:>10} {:>8} {:>7}",
        "workload",
        "median",
        "min",
        "max",
        "throughput",
        "allocs",
        "vs prev",
        "floor",
        "% limit",
        "bound"
    );
    let budget = if args.quick { Budget::QUICK } else { Budget::FULL };
    let terminal = std::io::stderr().is_terminal();
    let results = measure(&mut workloads, budget, |round| eprint!("{}", round_line(terminal, round, budget.rounds)));
    eprint!("{}", round_line(terminal, 0, budget.rounds));
    let limits = Limits::measured(&results, Caches::detect());
    let floors: Vec<Option<Floor>> = results
        .iter()
        .map(|m| match &m.roofline {
            Roofline::Floor(cost) => limits.floor(cost),
            _ => None,
        })
        .collect();
    for (m, floor) in results.iter().zip(&floors) {
        print_row(m, previous.get(&m.name).copied(), floor.as_ref());
    }
    print_wrapper_ratios(&results);
    print_limits(&limits);

    std::fs::create_dir_all(&dir).map_err(XtaskError::io(&dir))?;
    let rows = results
        .iter()
        .zip(&floors)
        .map(|(m, floor)| Row {
            measurement: m,
            floor_ns: floor.map(|f| f.ns),
            percent_of_limit: floor.map(|f| f.percent_of(m.median_ns)),
            floor: *floor,
        })
        .collect();
    let json = serde_json::to_string_pretty(&Report { machine: machine.clone(), limits: &limits, results: rows })
        .expect("plain numbers and strings always encode");
    let stamped = dir.join(format!("{}-{}.json", machine.unix_time, machine.git_revision));
    for path in [&stamped, &latest] {
        std::fs::write(path, &json).map_err(XtaskError::io(path))?;
    }
    minnow_train::outln!("\nwrote {}", stamped.display());
    Ok(())
}

/// What stderr shows as round `round` of `rounds` finishes (0: the rounds
/// are over): on a terminal, one line redrawn in place and cleared at the
/// end; elsewhere nothing, since a file or a log does not go back on `\r`
/// and the rounds would run together (`round 1/4round 2/4`).
fn round_line(terminal: bool, round: usize, rounds: usize) -> String {
    match (terminal, round) {
        (false, _) => String::new(),
        (true, 0) => "\r\x1b[K".to_string(),
        (true, round) => format!("\rround {round}/{rounds}"),
    }
}

fn read_previous(path: &PathBuf) -> HashMap<String, f64> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    match serde_json::from_str::<Previous>(&text) {
        Ok(p) => p.results.into_iter().map(|r| (r.name, r.median_ns)).collect(),
        Err(e) => {
            eprintln!("note: ignoring unreadable previous results {}: {e}", path.display());
            HashMap::new()
        }
    }
}

fn print_row(m: &Measurement, previous_ns: Option<f64>, floor: Option<&Floor>) {
    let (value, unit) = m.throughput();
    let speedup = previous_ns.map_or(String::from("-"), |p| format!("{:.2}x", p / m.median_ns));
    let (floor_text, percent, bound) = match floor {
        Some(f) => (duration(f.ns), format!("{:.1}%", f.percent_of(m.median_ns)), bound_name(f)),
        None => ("-".to_string(), "-".to_string(), ""),
    };
    minnow_train::outln!(
        "{:<34} {:>10} {:>10} {:>10} {:>18} {:>9} {:>8} {:>10} {:>8} {:>7}",
        m.name,
        duration(m.median_ns),
        duration(m.min_ns),
        duration(m.max_ns),
        format!("{} {unit}", si(value)),
        format!("{:.1}", m.allocs_per_call),
        speedup,
        floor_text,
        percent,
        bound
    );
}

/// "compute", or the memory level whose bandwidth bounds the floor.
fn bound_name(floor: &Floor) -> &'static str {
    match (floor.bound, floor.memory) {
        (minnow_benches::roofline::Bound::Compute, _) => "compute",
        (_, Some(level)) => memory_name(level),
        (_, None) => "memory",
    }
}

fn memory_name(level: Memory) -> &'static str {
    match level {
        Memory::L2 => "L2",
        Memory::L3 => "L3",
        Memory::Dram => "DRAM",
    }
}

/// The limits the floors divided by, and the probe that set each.
fn print_limits(limits: &Limits) {
    if limits.rates.is_empty() {
        return;
    }
    minnow_train::outln!(
        "
Machine limits in this run (the best probe of each; floors use these):"
    );
    for r in &limits.rates {
        let (what, value) = match r.limit {
            Limit::Compute(Precision::F32) => ("f32 FMA".to_string(), format!("{:.1} GFLOP/s", r.rate / 1e9)),
            Limit::Compute(Precision::Bf16) => ("bf16 dot".to_string(), format!("{:.1} GFLOP/s", r.rate / 1e9)),
            Limit::Bandwidth(level) => {
                (format!("{} bandwidth", memory_name(level)), format!("{:.1} GB/s", r.rate / 1e9))
            }
        };
        minnow_train::outln!("  {what:<16} {:>2} thr {value:>16}  {}", r.threads, r.workload);
    }
    if !limits.rates.iter().any(|r| r.limit == Limit::Compute(Precision::Bf16)) {
        minnow_train::outln!(
            "  bf16: no native dot product here; the bf16 kernels multiply in f32, so f32's peak applies"
        );
    }
    let c = limits.caches;
    minnow_train::outln!(
        "  caches: L1d {} KiB, L2 {} KiB a core, L3 {} MiB; a working set takes the bandwidth of the smallest level holding it",
        c.l1 >> 10,
        c.l2 >> 10,
        c.l3 >> 20
    );
}

/// For each `gemm/X`: its time over faer's on the same row-major slices
/// (the wrapper's overhead) and over faer on column-major `Mat`s.
fn print_wrapper_ratios(results: &[Measurement]) {
    let median = |name: String| results.iter().find(|m| m.name == name).map(|m| m.median_ns);
    let rows: Vec<_> = results
        .iter()
        .filter_map(|m| {
            let shape = m.name.strip_prefix("gemm/")?;
            Some((shape, m.median_ns, median(format!("faer/{shape}"))?, median(format!("faer-colmajor/{shape}"))?))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    minnow_train::outln!("\nGEMM time ratios (1.00 = equal; below 1 minnow is faster):");
    minnow_train::outln!("  {:<24} {:>16} {:>22}", "shape", "vs faer same data", "vs faer column-major");
    for (shape, ours, same, colmajor) in rows {
        minnow_train::outln!("  {shape:<24} {:>16.3} {:>22.3}", ours / same, ours / colmajor);
    }
}

fn duration(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.1} ns"),
        n if n < 1e6 => format!("{:.2} us", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

fn si(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{:.2}G", v / 1e9),
        v if v >= 1e6 => format!("{:.2}M", v / 1e6),
        v if v >= 1e4 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.1}"),
    }
}

#[cfg(test)]
mod tests {
    use super::round_line;

    #[test]
    fn rounds_are_shown_on_a_terminal_only() {
        let shown: String = (1..=4).chain([0]).map(|r| round_line(true, r, 4)).collect();
        assert_eq!(shown, "\rround 1/4\rround 2/4\rround 3/4\rround 4/4\r\x1b[K");
        assert!((0..=4).all(|r| round_line(false, r, 4).is_empty()));
    }
}
