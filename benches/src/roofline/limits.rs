//! The limits a run measured, and the floor they give a workload's cost.

use super::{Caches, Cost, Limit, Memory, Precision, Roofline};
use crate::{Measurement, Work};
use serde::Serialize;

/// The best rate the probes of one limit reached at one thread count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LimitRate {
    /// The limit.
    pub limit: Limit,
    /// Threads the probe ran on.
    pub threads: usize,
    /// FLOP/s or bytes/s, at the probe's median time.
    pub rate: f64,
    /// The probe that reached it.
    pub workload: String,
}

/// The machine's limits as one run measured them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Limits {
    /// The cache sizes that place each working set.
    pub caches: Caches,
    /// The best rate per limit and thread count.
    pub rates: Vec<LimitRate>,
}

/// Which limit a floor comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Bound {
    /// The FLOPs at the FMA peak take longer than the bytes.
    Compute,
    /// The bytes at the bandwidth take longer than the FLOPs.
    Memory,
}

/// The least time a cost can take on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Floor {
    /// max(compute_ns, memory_ns).
    pub ns: f64,
    /// Which of the two it is.
    pub bound: Bound,
    /// The FLOPs at the FMA peak of their precision and thread count.
    pub compute_ns: Option<f64>,
    /// The bytes at the bandwidth of the level holding the working set.
    pub memory_ns: Option<f64>,
    /// That level.
    pub memory: Option<Memory>,
}

impl Floor {
    /// "% of limit": the floor as a percentage of `time_ns` (100 = the
    /// workload runs at the machine's limit).
    pub fn percent_of(&self, time_ns: f64) -> f64 {
        100.0 * self.ns / time_ns
    }
}

impl Limits {
    /// The best rate of each limit's probes among `results`, at each
    /// thread count, at their median times.
    pub fn measured(results: &[Measurement], caches: Caches) -> Self {
        let mut rates: Vec<LimitRate> = Vec::new();
        for m in results {
            let Roofline::Probe { limit, threads } = m.roofline else { continue };
            let work = match (limit, m.work) {
                (Limit::Compute(_), Work::Flops(f)) | (Limit::Bandwidth(_), Work::Bytes(f)) => f,
                _ => continue,
            };
            let rate = work * 1e9 / m.median_ns;
            match rates.iter_mut().find(|r| r.limit == limit && r.threads == threads) {
                Some(best) if best.rate >= rate => {}
                Some(best) => *best = LimitRate { limit, threads, rate, workload: m.name.clone() },
                None => rates.push(LimitRate { limit, threads, rate, workload: m.name.clone() }),
            }
        }
        Self { caches, rates }
    }

    /// The best rate of `limit` on at most `threads` threads: a workload
    /// on two threads can do at least what one does. Without a bf16
    /// probe (no native bf16 dot product), bf16 kernels multiply in f32
    /// and the f32 peak is theirs.
    pub fn rate(&self, limit: Limit, threads: usize) -> Option<f64> {
        let best = self
            .rates
            .iter()
            .filter(|r| r.limit == limit && r.threads <= threads)
            .map(|r| r.rate)
            .max_by(f64::total_cmp);
        match (best, limit) {
            (None, Limit::Compute(Precision::Bf16)) => self.rate(Limit::Compute(Precision::F32), threads),
            _ => best,
        }
    }

    /// The floor of `cost`: max(flops / FMA peak, bytes / bandwidth of
    /// the level holding its working set); `None` when neither term has
    /// work and a measured limit.
    pub fn floor(&self, cost: &Cost) -> Option<Floor> {
        let compute_ns = (cost.flops > 0.0)
            .then(|| self.rate(Limit::Compute(cost.precision), cost.threads))
            .flatten()
            .map(|rate| cost.flops * 1e9 / rate);
        let memory = (cost.bytes > 0.0).then(|| self.caches.holding(cost.working_set)).flatten();
        let memory_ns = memory
            .and_then(|level| self.rate(Limit::Bandwidth(level), cost.threads))
            .map(|rate| cost.bytes * 1e9 / rate);
        let (ns, bound) = match (compute_ns, memory_ns) {
            (Some(c), Some(m)) if m > c => (m, Bound::Memory),
            (Some(c), _) => (c, Bound::Compute),
            (None, Some(m)) => (m, Bound::Memory),
            (None, None) => return None,
        };
        Some(Floor { ns, bound, compute_ns, memory_ns, memory: memory_ns.and(memory) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(name: &str, limit: Limit, threads: usize, work: Work, median_ns: f64) -> Measurement {
        Measurement {
            name: name.into(),
            median_ns,
            min_ns: median_ns,
            max_ns: median_ns,
            samples: 1,
            calls_per_sample: 1,
            work,
            allocs_per_call: 0.0,
            roofline: Roofline::Probe { limit, threads },
        }
    }

    /// 100 GFLOP/s f32 on one thread (the better of two probes), 180 on
    /// two; 200 GB/s from L2 and 20 GB/s from DRAM on one thread.
    fn limits() -> Limits {
        let f32 = Limit::Compute(Precision::F32);
        let results = [
            probe("peak/fma", f32, 1, Work::Flops(80e3), 1e3),
            probe("faer/1024", f32, 1, Work::Flops(100e3), 1e3),
            probe("peak/fma/2thr", f32, 2, Work::Flops(180e3), 1e3),
            probe("memory/l2", Limit::Bandwidth(Memory::L2), 1, Work::Bytes(200e3), 1e3),
            probe("memory/dram", Limit::Bandwidth(Memory::Dram), 1, Work::Bytes(20e6), 1e6),
        ];
        Limits::measured(&results, Caches { l1: 32 << 10, l2: 1 << 20, l3: 32 << 20 })
    }

    #[test]
    fn each_limit_is_its_best_probe_and_more_threads_never_lower_it() {
        let l = limits();
        let f32 = Limit::Compute(Precision::F32);
        assert_eq!(l.rate(f32, 1), Some(100e9));
        assert_eq!(l.rates.iter().find(|r| r.threads == 1 && r.limit == f32).unwrap().workload, "faer/1024");
        assert_eq!(l.rate(f32, 2), Some(180e9));
        assert_eq!(l.rate(f32, 4), Some(180e9));
        // No native bf16 probe: bf16 kernels run on the f32 peak.
        assert_eq!(l.rate(Limit::Compute(Precision::Bf16), 1), Some(100e9));
        assert_eq!(l.rate(Limit::Bandwidth(Memory::L3), 1), None);
    }

    #[test]
    fn the_floor_is_the_slower_of_flops_at_peak_and_bytes_at_bandwidth() {
        let l = limits();
        // 1 MFLOP at 100 GFLOP/s is 10 us; 400 kB from L2 at 200 GB/s is 2 us.
        let cost = Cost { flops: 1e6, precision: Precision::F32, bytes: 400e3, working_set: 400e3, threads: 1 };
        let floor = l.floor(&cost).unwrap();
        assert_eq!((floor.ns, floor.bound), (10e3, Bound::Compute));
        assert_eq!((floor.compute_ns, floor.memory_ns, floor.memory), (Some(10e3), Some(2e3), Some(Memory::L2)));
        assert_eq!(floor.percent_of(20e3), 50.0);
        // The same bytes from a working set past L3 come at 20 GB/s: 20 us.
        let big = Cost { working_set: 1e9, ..cost };
        let floor = l.floor(&big).unwrap();
        assert_eq!((floor.ns, floor.bound), (20e3, Bound::Memory));
        // Two threads: the two-thread peak.
        let two = Cost { threads: 2, bytes: 0.0, ..cost };
        assert_eq!(l.floor(&two).unwrap().ns, 1e6 * 1e9 / 180e9);
    }

    #[test]
    fn without_work_or_a_measured_limit_there_is_no_floor() {
        let l = limits();
        let nothing = Cost { flops: 0.0, precision: Precision::F32, bytes: 0.0, working_set: 0.0, threads: 1 };
        assert_eq!(l.floor(&nothing), None);
        // In L1 (no probe) and no FLOPs.
        let in_l1 = Cost { bytes: 1e3, working_set: 1e3, ..nothing };
        assert_eq!(l.floor(&in_l1), None);
        // In L3, which no probe measured: the FLOPs alone.
        let in_l3 = Cost { flops: 1e6, bytes: 1e9, working_set: 4e6, ..nothing };
        let floor = l.floor(&in_l3).unwrap();
        assert_eq!((floor.bound, floor.memory_ns, floor.memory), (Bound::Compute, None, None));
    }
}
