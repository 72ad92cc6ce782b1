use crate::roofline::Roofline;
use minnow_arena::global_stats;
use serde::Serialize;
use std::time::{Duration, Instant};

/// What one call of a workload does, for the throughput column.
#[derive(Clone, Copy, Debug, Serialize)]
pub enum Work {
    /// Floating-point operations (a multiply-add counts 2).
    Flops(f64),
    /// Bytes moved to or from memory.
    Bytes(f64),
    /// Items of a named kind (environment steps, simulations, ...).
    Items(f64, &'static str),
}

/// A benchmark: built once (all allocation happens there), then `run`
/// repeatedly. `run` must do the same work every call.
pub trait Workload: Send {
    /// The name `cargo xtask bench` prints and filters on.
    fn name(&self) -> String;
    /// The work one call does, for the throughput column.
    fn work(&self) -> Work;
    /// One call: the work to time.
    fn run(&mut self);
    /// What the workload tells the roofline: a limit it probes, the work
    /// its floor follows from, or why it has none. Asked after the
    /// timing, so a workload may count its work while it runs.
    fn roofline(&self) -> Roofline {
        Roofline::NoFloor("not a defining workload: no cost stated")
    }
}

/// The timing of one workload: per-call times over the samples.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    /// The workload.
    pub name: String,
    /// Median time per call, ns.
    pub median_ns: f64,
    /// Fastest sample, ns per call.
    pub min_ns: f64,
    /// Slowest sample, ns per call.
    pub max_ns: f64,
    /// Samples taken.
    pub samples: usize,
    /// Calls timed together in one sample.
    pub calls_per_sample: usize,
    /// The work of one call.
    pub work: Work,
    /// Heap allocations per call, counted over all timed calls (needs the
    /// counting allocator installed; xtask installs it).
    pub allocs_per_call: f64,
    /// Its place on the roofline.
    pub roofline: Roofline,
}

impl Measurement {
    /// Throughput at the median, as (value, unit).
    pub fn throughput(&self) -> (f64, &'static str) {
        let per_second = 1e9 / self.median_ns;
        match self.work {
            Work::Flops(f) => (f * per_second / 1e9, "GFLOP/s"),
            Work::Bytes(b) => (b * per_second / 1e9, "GB/s"),
            Work::Items(n, unit) => (n * per_second, unit),
        }
    }
}

/// How long to spend on each workload.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Untimed calls before the first round.
    pub warm_up: Duration,
    /// Measuring time per workload per round.
    pub per_round: Duration,
    /// Rounds over the whole list: each workload's samples are spread over
    /// the run, so a noisy moment on a shared machine hits every workload
    /// alike and the ratios measured in one run stay fair.
    pub rounds: usize,
    /// Samples per workload per round.
    pub samples_per_round: usize,
}

impl Budget {
    /// The budget of `cargo xtask bench`.
    pub const FULL: Budget = Budget {
        warm_up: Duration::from_millis(200),
        per_round: Duration::from_millis(400),
        rounds: 4,
        samples_per_round: 30,
    };
    /// The budget of `cargo xtask bench --quick` (noisier).
    pub const QUICK: Budget = Budget {
        warm_up: Duration::from_millis(50),
        per_round: Duration::from_millis(150),
        rounds: 2,
        samples_per_round: 15,
    };
}

/// Runs `f` until `time` has passed (and at least `min_calls` times);
/// returns the mean seconds per call.
fn run_for(workload: &mut dyn Workload, time: Duration, min_calls: usize) -> f64 {
    let start = Instant::now();
    let mut calls = 0usize;
    while calls < min_calls || start.elapsed() < time {
        workload.run();
        calls += 1;
    }
    start.elapsed().as_secs_f64() / calls as f64
}

/// Warms every workload up, then times them in rounds (see [`Budget`]).
/// A sample is several calls lasting about 2 ms, so timer overhead is
/// negligible; statistics are per call. `progress` hears each finished round.
///
/// All of it runs on a worker of rayon's pool: a workload that splits its
/// work over the pool then stays inside it, where handing each call in
/// from outside would cost a wake-up and, every 63 calls, an allocation in
/// rayon's job queue.
pub fn measure(
    workloads: &mut [Box<dyn Workload>],
    budget: Budget,
    progress: impl FnMut(usize) + Send,
) -> Vec<Measurement> {
    rayon::scope(|_| measure_here(workloads, budget, progress))
}

fn measure_here(
    workloads: &mut [Box<dyn Workload>],
    budget: Budget,
    mut progress: impl FnMut(usize),
) -> Vec<Measurement> {
    let calls_per_sample: Vec<usize> = workloads
        .iter_mut()
        .map(|w| {
            let per_call = run_for(w.as_mut(), budget.warm_up, 3);
            ((2e-3 / per_call).ceil() as usize).clamp(1, 1_000_000)
        })
        .collect();
    // Built one by one: `vec![v; n]` clones, and a clone drops the capacity.
    let mut times: Vec<Vec<f64>> =
        (0..workloads.len()).map(|_| Vec::with_capacity(budget.rounds * budget.samples_per_round)).collect();
    let mut allocations = vec![0u64; workloads.len()];
    for round in 0..budget.rounds {
        for (i, w) in workloads.iter_mut().enumerate() {
            run_for(w.as_mut(), Duration::from_millis(5), 1);
            let allocs_before = global_stats().allocations;
            let begin = Instant::now();
            let mut taken = 0;
            while taken < 3 || (taken < budget.samples_per_round && begin.elapsed() < budget.per_round) {
                let t = Instant::now();
                for _ in 0..calls_per_sample[i] {
                    w.run();
                }
                times[i].push(t.elapsed().as_secs_f64() * 1e9 / calls_per_sample[i] as f64);
                taken += 1;
            }
            allocations[i] += global_stats().allocations - allocs_before;
        }
        progress(round + 1);
    }
    workloads
        .iter()
        .zip(times.iter_mut())
        .zip(calls_per_sample.iter().zip(&allocations))
        .map(|((w, t), (&calls, &allocs))| {
            t.sort_by(f64::total_cmp);
            Measurement {
                name: w.name(),
                median_ns: t[t.len() / 2],
                min_ns: t[0],
                max_ns: t[t.len() - 1],
                samples: t.len(),
                calls_per_sample: calls,
                work: w.work(),
                allocs_per_call: allocs as f64 / (t.len() * calls) as f64,
                roofline: w.roofline(),
            }
        })
        .collect()
}
