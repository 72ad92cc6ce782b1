//! `cargo xtask profile WORKLOAD`: a flat profile of one workload's step.

use crate::error::XtaskError;
use clap::Args;

#[derive(Args, Debug)]
pub struct ProfileArgs {
    /// A workload name, e.g. dqn_step/cube.
    workload: String,
    /// Steps to profile (after a warm-up).
    #[arg(long, default_value_t = 2000)]
    steps: usize,
}

pub fn run(args: ProfileArgs) -> Result<(), XtaskError> {
    if cfg!(debug_assertions) {
        return Err(XtaskError::DebugBuild { command: "profile" });
    }
    let report = minnow_benches::profile(&args.workload, args.steps).ok_or_else(|| {
        XtaskError::from(format!(
            "profile: cannot profile '{}'; profiled workloads: {}",
            args.workload,
            minnow_benches::PROFILED.join(", ")
        ))
    })?;
    let total = report.per_step.as_secs_f64() * 1e6;
    minnow_train::outln!("{}: {:.2} us per step over {} steps (profiling on)", report.workload, total, report.steps);
    minnow_train::outln!("{:<11} {:<36} {:>10} {:>7} {:>7}", "phase", "op", "us/step", "share", "calls");
    for row in &report.rows {
        let us = row.per_step.as_secs_f64() * 1e6;
        minnow_train::outln!(
            "{:<11} {:<36} {:>10.2} {:>6.1}% {:>7.1}",
            row.phase,
            row.op,
            us,
            100.0 * us / total,
            row.calls_per_step
        );
    }
    Ok(())
}
