//! candle and burn on docs/ANCHORS.md's `dqn_step/cube`, `dqn_step/2048`
//! and `az_forward/b{1,8,64}`, with minnow's inputs and harness rules;
//! prints the same lines as benches/peers/{dqn_step,az_forward}.py (one
//! JSON line per workload on stdout, a readable line on stderr), so that
//! run_all.sh and summarize.py take them alongside JAX and PyTorch.
//!
//!   minnow-rust-peers --framework candle|burn-ndarray|burn-flex
//!                     [--workload all|dqn_step|az_forward|NAME]... [--threads N] [--smoke]
//!
//! NAME is one of dqn_step/cube, dqn_step/2048, az_forward/b1, az_forward/b8,
//! az_forward/b64 (repeatable; default all). --threads N (default 1) sets
//! RAYON_NUM_THREADS and MATMUL_NUM_THREADS and sizes rayon's global pool
//! before any backend starts. --smoke runs each workload a few times and
//! prints the checks, without timing.

mod alloc_count;
mod burn_peer;
mod candle_peer;
mod harness;
mod inputs;

use inputs::{AZ_INPUTS, AZ_PARAMS, AZ_POLICY, AZ_WIDTH, Bench, DQN, DqnSpec};
use std::fmt::Write as _;
use std::process::ExitCode;

#[global_allocator]
static ALLOC: alloc_count::Counting = alloc_count::Counting;

const FRAMEWORKS: [&str; 3] = ["candle", "burn-ndarray", "burn-flex"];
const WORKLOADS: [&str; 5] = ["dqn_step/cube", "dqn_step/2048", "az_forward/b1", "az_forward/b8", "az_forward/b64"];
/// Calls over which allocations are counted (untimed, after the timing).
const ALLOC_CALLS: usize = 50;

struct Args {
    framework: String,
    workloads: Vec<&'static str>,
    threads: usize,
    smoke: bool,
}

fn usage() -> String {
    format!(
        "usage: minnow-rust-peers --framework {} [--workload all|dqn_step|az_forward|{}]... [--threads N] [--smoke]",
        FRAMEWORKS.join("|"),
        WORKLOADS.join("|")
    )
}

fn parse_args() -> Result<Args, String> {
    let mut framework = None;
    let mut workloads: Vec<&'static str> = Vec::new();
    let mut threads = 1;
    let mut smoke = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--framework" => {
                let f = args.next().ok_or("--framework needs a value")?;
                if !FRAMEWORKS.contains(&f.as_str()) {
                    return Err(format!("unknown framework {f}"));
                }
                framework = Some(f);
            }
            "--workload" => {
                let w = args.next().ok_or("--workload needs a value")?;
                let chosen: Vec<&'static str> = match w.as_str() {
                    "all" => WORKLOADS.to_vec(),
                    group @ ("dqn_step" | "az_forward") => {
                        WORKLOADS.iter().copied().filter(|n| n.split('/').next() == Some(group)).collect()
                    }
                    name => vec![*WORKLOADS.iter().find(|n| **n == name).ok_or(format!("unknown workload {name}"))?],
                };
                for c in chosen {
                    if !workloads.contains(&c) {
                        workloads.push(c);
                    }
                }
            }
            "--threads" => {
                threads = args
                    .next()
                    .and_then(|t| t.parse().ok())
                    .filter(|&t: &usize| t >= 1)
                    .ok_or("--threads needs a positive integer")?;
            }
            "--smoke" => smoke = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let framework = framework.ok_or("--framework is required")?;
    if workloads.is_empty() {
        workloads = WORKLOADS.to_vec();
    }
    Ok(Args { framework, workloads, threads, smoke })
}

/// Builds one workload in one framework.
fn build(framework: &str, workload: &str) -> Box<dyn Bench> {
    let dqn = |name: &str| -> &'static DqnSpec { DQN.iter().find(|s| s.name == name).expect("a DQN workload") };
    let batch = |name: &str| -> usize { name.trim_start_matches("az_forward/b").parse().expect("az_forward/bB") };
    let is_dqn = workload.starts_with("dqn_step/");
    match framework {
        "candle" if is_dqn => Box::new(candle_peer::Dqn::new(dqn(workload)).expect("candle DQN")),
        "candle" => Box::new(candle_peer::Az::new(batch(workload)).expect("candle az net")),
        f => {
            let backend = if f == "burn-ndarray" { burn_peer::Backend::NdArray } else { burn_peer::Backend::Flex };
            if is_dqn {
                Box::new(burn_peer::Dqn::new(dqn(workload), backend))
            } else {
                Box::new(burn_peer::Az::new(batch(workload), backend))
            }
        }
    }
}

/// The network's parameter count and linear shapes, as docs/ANCHORS.md defines them.
fn expected(workload: &str) -> (usize, Vec<(usize, usize)>) {
    if let Some(spec) = DQN.iter().find(|s| s.name == workload) {
        (spec.params, spec.sizes.windows(2).map(|p| (p[0], p[1])).collect())
    } else {
        let mut shapes = vec![(AZ_INPUTS, AZ_WIDTH)];
        shapes.extend(std::iter::repeat_n((AZ_WIDTH, AZ_WIDTH), 8));
        shapes.extend([(AZ_WIDTH, AZ_POLICY), (AZ_WIDTH, 1)]);
        (AZ_PARAMS, shapes)
    }
}

fn versions(framework: &str) -> Vec<(&'static str, &'static str)> {
    let rustc = env!("PEER_RUSTC");
    let mut v = vec![("rustc", rustc.strip_prefix("rustc ").unwrap_or(rustc))];
    match framework {
        "candle" => v.extend([
            ("candle-core", env!("PEER_CANDLE_CORE")),
            ("candle-nn", env!("PEER_CANDLE_NN")),
            ("gemm", env!("PEER_GEMM")),
        ]),
        "burn-ndarray" => v.extend([
            ("burn", env!("PEER_BURN")),
            ("burn-core", env!("PEER_BURN_CORE")),
            ("burn-ndarray", env!("PEER_BURN_NDARRAY")),
            ("ndarray", env!("PEER_NDARRAY")),
            ("matrixmultiply", env!("PEER_MATRIXMULTIPLY")),
        ]),
        _ => v.extend([
            ("burn", env!("PEER_BURN")),
            ("burn-core", env!("PEER_BURN_CORE")),
            ("burn-flex", env!("PEER_BURN_FLEX")),
            ("gemm", env!("PEER_GEMM")),
        ]),
    }
    v
}

/// The CPUs this process may run on (as Python's os.sched_getaffinity).
fn affinity() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap_or("").trim().to_string();
    let mut cpus = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse().unwrap_or(0)..=b.parse().unwrap_or(0)),
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    cpus
}

fn json_floats(v: &[f32]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("{e}");
            }
            eprintln!("{}", usage());
            return ExitCode::from(2);
        }
    };
    // Before any backend or pool starts: candle reads RAYON_NUM_THREADS at
    // each matmul, matrixmultiply (burn-ndarray) MATMUL_NUM_THREADS once,
    // and rayon's global pool (burn-ndarray, burn-flex, gemm) is sized here.
    // SAFETY: no other thread exists yet.
    unsafe {
        std::env::set_var("RAYON_NUM_THREADS", args.threads.to_string());
        std::env::set_var("MATMUL_NUM_THREADS", args.threads.to_string());
    }
    rayon::ThreadPoolBuilder::new().num_threads(args.threads).build_global().expect("rayon's global pool");

    for &workload in &args.workloads {
        let mut bench = build(&args.framework, workload);
        let (params, shapes) = expected(workload);
        let (got_params, got_shapes) = (bench.n_params(), bench.linear_shapes());
        if got_params != params || got_shapes != shapes {
            eprintln!(
                "{workload} in {}: {got_params} parameters, shapes {got_shapes:?}; docs/ANCHORS.md: {params}, {shapes:?}",
                args.framework
            );
            return ExitCode::FAILURE;
        }
        if args.smoke {
            // From a fresh network: three probes (three steps' losses, or three forwards).
            let probes: Vec<Vec<f32>> = (0..3).map(|_| bench.probe()).collect();
            let allocs = alloc_count::per_call(3, || bench.call());
            eprintln!(
                "{workload:<16} {:<22} {} thr  smoke: {params} params OK, probes {probes:?}, {allocs:.0} allocations per call",
                args.framework, args.threads
            );
            continue;
        }
        let stats = harness::measure(|| bench.call());
        let allocs = alloc_count::per_call(ALLOC_CALLS, || bench.call());
        let probe = bench.probe();
        let probe_name = if workload.starts_with("dqn_step") { "final_loss" } else { "value0_policysum0_policy00" };

        eprintln!(
            "{workload:<16} {:<22} {} thr  median {:9.2} us  min {:9.2}  max {:9.2}  ({} samples x {} calls)  {:.0} allocs/call",
            args.framework,
            args.threads,
            stats.median_us,
            stats.min_us,
            stats.max_us,
            stats.samples,
            stats.calls_per_sample,
            allocs
        );
        let mut row = String::new();
        write!(
            row,
            "{{\"workload\": \"{workload}\", \"framework\": \"{}\", \"threads\": {}, \"median_us\": {}, \"min_us\": {}, \
             \"max_us\": {}, \"samples\": {}, \"calls_per_sample\": {}, \"affinity\": {:?}, \"rayon_threads\": {}, \
             \"allocs_per_call\": {}, \"n_params\": {}, \"{probe_name}\": {}",
            args.framework,
            args.threads,
            stats.median_us,
            stats.min_us,
            stats.max_us,
            stats.samples,
            stats.calls_per_sample,
            affinity(),
            rayon::current_num_threads(),
            allocs,
            got_params,
            if probe.len() == 1 { format!("{:e}", probe[0]) } else { json_floats(&probe) },
        )
        .expect("formatting");
        for (name, version) in versions(&args.framework) {
            write!(row, ", \"{name}\": \"{version}\"").expect("formatting");
        }
        row.push('}');
        println!("{row}");
    }
    ExitCode::SUCCESS
}
