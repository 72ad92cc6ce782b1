//! `cargo xtask bench [FILTER]`: times the workloads whose names contain
//! FILTER, prints a table, writes JSON under target/bench/, and compares
//! with the previous run.

use crate::error::XtaskError;
use crate::machine::Machine;
use clap::Args;
use minnow_benches::{Budget, Measurement, measure};
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
}

#[derive(Serialize)]
struct Report<'a> {
    machine: Machine,
    results: &'a [Measurement],
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
    if let Some(filter) = &args.filter {
        workloads.retain(|w| w.name().contains(filter.as_str()));
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
        "{:<34} {:>10} {:>10} {:>10} {:>18} {:>9} {:>8}",
        "workload",
        "median",
        "min",
        "max",
        "throughput",
        "allocs",
        "vs prev"
    );
    let budget = if args.quick { Budget::QUICK } else { Budget::FULL };
    let terminal = std::io::stderr().is_terminal();
    let results = measure(&mut workloads, budget, |round| eprint!("{}", round_line(terminal, round, budget.rounds)));
    eprint!("{}", round_line(terminal, 0, budget.rounds));
    for m in &results {
        print_row(m, previous.get(&m.name).copied());
    }
    print_wrapper_ratios(&results);

    std::fs::create_dir_all(&dir).map_err(XtaskError::io(&dir))?;
    let json = serde_json::to_string_pretty(&Report { machine: machine.clone(), results: &results })
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

fn print_row(m: &Measurement, previous_ns: Option<f64>) {
    let (value, unit) = m.throughput();
    let speedup = previous_ns.map_or(String::from("-"), |p| format!("{:.2}x", p / m.median_ns));
    minnow_train::outln!(
        "{:<34} {:>10} {:>10} {:>10} {:>18} {:>9} {:>8}",
        m.name,
        duration(m.median_ns),
        duration(m.min_ns),
        duration(m.max_ns),
        format!("{} {unit}", si(value)),
        format!("{:.1}", m.allocs_per_call),
        speedup
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
