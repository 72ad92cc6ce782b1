//! `cargo xtask profile WORKLOAD`: where a step's time goes, as a flat
//! profile (forward and backward by op kind, the optimiser, the rest).

use crate::workloads::{az::AzForward, dqn};
use minnow_autodiff::{Profile, Tape};
use std::time::{Duration, Instant};

/// One op's share of a profiled step.
#[derive(Clone, Debug)]
pub struct ProfileRow {
    /// Forward, backward or optimiser.
    pub phase: &'static str,
    /// The op's name.
    pub op: &'static str,
    /// Its time per step.
    pub per_step: Duration,
    /// Its calls per step.
    pub calls_per_step: f64,
}

/// A workload's step broken down by op.
#[derive(Clone, Debug)]
pub struct ProfileReport {
    /// The workload.
    pub workload: String,
    /// Steps profiled.
    pub steps: usize,
    /// Wall time per step with profiling on (timing each op adds about
    /// 50 ns per op).
    pub per_step: Duration,
    /// Per op, slowest first.
    pub rows: Vec<ProfileRow>,
}

/// The workloads that can be profiled. `az_forward/bB` is profiled on the
/// tape's forward (training's), op by op; the benchmark of that name runs
/// the tape-free inference copy, which has no ops to time.
pub const PROFILED: &[&str] = &[
    "dqn_step/cube",
    "dqn_step/2048",
    "dqn_step/cube/2thr",
    "dqn_step/2048/2thr",
    "az_forward/b1",
    "az_forward/b8",
    "az_forward/b64",
];

/// Profiles `steps` steps of a named workload after warming it up, on a
/// worker of rayon's pool as the bench harness runs it (the two-thread
/// steps run beside each other, so their ops' times add up to more than
/// the step's).
pub fn profile(name: &str, steps: usize) -> Option<ProfileReport> {
    rayon::scope(|_| profile_here(name, steps.max(1)))
}

fn profile_here(name: &str, steps: usize) -> Option<ProfileReport> {
    let (total, mut rows, per_tape) = match name {
        "dqn_step/cube" | "dqn_step/2048" | "dqn_step/cube/2thr" | "dqn_step/2048/2thr" => {
            let mut w = if name.contains("cube") { dqn::cube() } else { dqn::game2048() };
            if name.ends_with("/2thr") {
                w = w.with_threads(2);
            }
            (0..20).for_each(|_| drop(w.step()));
            let (online, target) = w.tapes_mut();
            online.enable_profile();
            target.enable_profile();
            let mut optimizer = Duration::ZERO;
            let start = Instant::now();
            for _ in 0..steps {
                optimizer += w.step_timing_optimizer().expect("valid step");
            }
            let total = start.elapsed();
            let (online, target) = w.tapes_mut();
            let rows = vec![ProfileRow {
                phase: "optimizer",
                op: "adam",
                per_step: optimizer / steps as u32,
                calls_per_step: 1.0,
            }];
            (total, rows, vec![("target fwd", take(target)), ("", take(online))])
        }
        "az_forward/b1" | "az_forward/b8" | "az_forward/b64" => {
            let batch = name.trim_start_matches("az_forward/b").parse().ok()?;
            let mut w = AzForward::on_tape(batch);
            (0..20).for_each(|_| drop(w.evaluate()));
            w.tape_mut().enable_profile();
            let start = Instant::now();
            for _ in 0..steps {
                w.evaluate().expect("valid input");
            }
            (start.elapsed(), Vec::new(), vec![("", take(w.tape_mut()))])
        }
        _ => return None,
    };
    for (label, profile) in per_tape {
        for (phase, op, time, calls) in profile.rows() {
            let phase = if label.is_empty() { phase } else { label };
            rows.push(ProfileRow {
                phase,
                op,
                per_step: time / steps as u32,
                calls_per_step: calls as f64 / steps as f64,
            });
        }
    }
    let per_step = total / steps as u32;
    let accounted: Duration = rows.iter().map(|r| r.per_step).sum();
    rows.push(ProfileRow {
        phase: "other",
        op: "inputs, targets, zero_grads, glue",
        per_step: per_step.saturating_sub(accounted),
        calls_per_step: 1.0,
    });
    rows.sort_by_key(|r| std::cmp::Reverse(r.per_step));
    Some(ProfileReport { workload: name.to_string(), steps, per_step, rows })
}

fn take(tape: &mut Tape) -> Profile {
    tape.take_profile().unwrap_or_default()
}
