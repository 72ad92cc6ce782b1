//! The collectives on a real MPI job, each rank with its own data: run
//! under `mpirun -np K` (any K >= 1). Each check runs on every rank; rank 0
//! prints the tally.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_dist::{Collective, DataParallel, DistError, FixedOrderSum, MpiWorld, agree, spread};
use std::rc::Rc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Rank r's value at index i: not exactly representable sums, so a
/// reordered sum would show.
fn value(rank: usize, i: usize) -> f32 {
    ((rank * 7919 + i * 104_729) % 1000) as f32 * 0.001 + 0.1 / (1 + rank) as f32
}

/// One check: `Err` says what went wrong on this rank.
type Check = fn(&Rc<dyn Collective>) -> Result<(), String>;

fn main() {
    let world: Rc<dyn Collective> = Rc::new(MpiWorld::init().expect("MPI initialises once"));
    let (rank, size) = (world.rank(), world.size());
    let checks: [(&str, Check); 7] = [
        ("the fixed-order sum is rank 0's sum in rank order, the same bits everywhere", fixed_order_sum),
        ("a data-parallel reduction weights each rank by its share of the batch", data_parallel),
        (
            "shares already scaled sum unweighted, every rank's row values reach every rank exactly",
            data_parallel_shares,
        ),
        ("a warmed-up sum allocates nothing", sum_allocates_nothing),
        (
            "work spread over ranks comes back in item order, stopping at the first round that meets the target",
            spread_items,
        ),
        ("ranks with different configs are refused, naming the rank", configs_must_agree),
        ("bytes of every length reach rank 0 alone, in rank order", gather_bytes),
    ];
    let mut failed = 0;
    for (name, check) in checks {
        let outcome = check(&world);
        // Every rank's verdict, so rank 0 reports a failure on any rank.
        let verdicts = world.all_gather_bytes(outcome.as_ref().err().map_or(&[][..], |e| e.as_bytes()));
        let errors: Vec<String> = verdicts
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(r, v)| format!("rank {r}: {}", String::from_utf8_lossy(v)))
            .collect();
        failed += !errors.is_empty() as usize;
        if rank == 0 {
            let verdict =
                if errors.is_empty() { "ok".to_string() } else { format!("FAILED\n  {}", errors.join("\n  ")) };
            println!("test {name} ({size} ranks) ... {verdict}");
        }
    }
    if rank == 0 {
        println!("{} passed, {failed} failed", checks.len() - failed);
    }
    drop(world);
    if failed > 0 {
        std::process::exit(1);
    }
}

fn gather_bytes(world: &Rc<dyn Collective>) -> Result<(), String> {
    let mine = |rank: usize| vec![rank as u8; 3 * rank];
    let got = world.gather_bytes(&mine(world.rank()));
    let expected: Vec<Vec<u8>> = if world.rank() == 0 { (0..world.size()).map(mine).collect() } else { Vec::new() };
    if got != expected {
        return Err(format!("gathered {got:?}, expected {expected:?}"));
    }
    Ok(())
}

fn fixed_order_sum(world: &Rc<dyn Collective>) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let len = 1000;
    let mut buffer: Vec<f32> = (0..len).map(|i| value(rank, i)).collect();
    let mut sum = FixedOrderSum::new(world.as_ref(), len);
    sum.sum(world.as_ref(), &mut buffer).map_err(|e| e.to_string())?;
    for i in 0..len {
        let expected = (1..size).fold(value(0, i), |acc, r| acc + value(r, i));
        if buffer[i].to_bits() != expected.to_bits() {
            return Err(format!("index {i}: {} != {expected}", buffer[i]));
        }
    }
    Ok(())
}

fn data_parallel(world: &Rc<dyn Collective>) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let batch = 7;
    let mut parallel = DataParallel::new(world.clone(), batch, 2).map_err(|e| e.to_string())?;
    let rows = parallel.rows();
    // Row j's "gradient" is (j, 1) and its loss j: this rank's mean over its rows.
    let n = rows.len() as f32;
    let mean = rows.clone().map(|j| j as f32).sum::<f32>() / n;
    let mut grads = [mean, 1.0];
    // Only the last rank is asked to stop: every rank hears it.
    let reduced = parallel.reduce(&mut grads, mean, rank == size - 1).map_err(|e| e.to_string())?;
    let loss = reduced.loss;
    if !reduced.stop {
        return Err(format!("rank {rank}: the last rank's stop was not heard"));
    }
    let global = (0..batch).map(|j| j as f32).sum::<f32>() / batch as f32;
    let close = |a: f32, b: f32| (a - b).abs() <= 4.0 * f32::EPSILON * b.abs().max(1.0);
    if !(close(grads[0], global) && close(grads[1], 1.0) && close(loss, global)) {
        return Err(format!("rank {rank} of {size}: grads {grads:?}, loss {loss}; expected mean {global} and 1"));
    }
    match DataParallel::new(world.clone(), size - 1, 2) {
        Err(DistError::TooFewRows { .. }) => Ok(()),
        other => Err(format!("a batch smaller than the job: {other:?}")),
    }
}

fn data_parallel_shares(world: &Rc<dyn Collective>) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let batch = 7;
    let mut parallel = DataParallel::new(world.clone(), batch, 1).map_err(|e| e.to_string())?.with_row_values(2);
    let rows = parallel.rows();
    // Row j's share of the mean is j / batch; its values (value(j, 0), j).
    let mut grads = [rows.clone().map(|j| j as f32 / batch as f32).sum::<f32>()];
    let mut values = [0.0; 14];
    for j in rows.clone() {
        (values[2 * j], values[2 * j + 1]) = (value(j, 0), j as f32);
    }
    let loss = grads[0];
    let reduced = parallel.reduce_shares(&mut grads, &mut values, loss, rank == 0).map_err(|e| e.to_string())?;
    let expected: Vec<f32> = (0..batch).flat_map(|j| [value(j, 0), j as f32]).collect();
    if values[..] != expected[..] || !reduced.stop {
        return Err(format!("rank {rank} of {size}: row values {values:?}, stop {}", reduced.stop));
    }
    let global = (0..batch).map(|j| j as f32).sum::<f32>() / batch as f32;
    let close = |a: f32| (a - global).abs() <= 4.0 * f32::EPSILON * global;
    if !(close(grads[0]) && close(reduced.loss)) {
        return Err(format!("rank {rank} of {size}: grads {grads:?}, loss {}; expected {global}", reduced.loss));
    }
    match parallel.agree_stop(rank == size - 1) {
        Ok(true) => Ok(()),
        other => Err(format!("rank {rank}: the last rank's stop was not heard: {other:?}")),
    }
}

fn sum_allocates_nothing(world: &Rc<dyn Collective>) -> Result<(), String> {
    let len = 283_477;
    let mut buffer = vec![1.0f32; len];
    let mut sum = FixedOrderSum::new(world.as_ref(), len);
    sum.sum(world.as_ref(), &mut buffer).map_err(|e| e.to_string())?;
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..5 {
            sum.sum(world.as_ref(), &mut buffer).unwrap();
            world.broadcast(&mut buffer);
        }
    });
    match on_thread.allocations {
        0 => Ok(()),
        n => Err(format!("{n} allocations ({} bytes)", on_thread.bytes)),
    }
}

fn spread_items(world: &Rc<dyn Collective>) -> Result<(), String> {
    let size = world.size();
    let items: Vec<u64> = (10..10 + 2 * size as u64 + 1).collect();
    let mut heard = Vec::new();
    let all = spread(world.as_ref(), &items, |&x| Ok::<_, String>(x * x), None, |round| heard.extend_from_slice(round))
        .map_err(|e| e.to_string())?;
    let expected: Vec<(u64, u64)> = items.iter().map(|&x| (x, x * x)).collect();
    if all != expected || (world.rank() == 0 && heard != expected) {
        return Err(format!("got {all:?}, rank 0 heard {heard:?}"));
    }
    // The target is met by the second item: the job stops after round one.
    let met: &dyn Fn(&u64) -> bool = &|v| *v == 11 * 11;
    let first =
        spread(world.as_ref(), &items, |&x| Ok::<_, String>(x * x), Some(met), |_| {}).map_err(|e| e.to_string())?;
    let rounds = if size >= 2 { 1 } else { 2 };
    if first.len() != rounds * size {
        return Err(format!("--until-first kept {} results, expected {}", first.len(), rounds * size));
    }
    Ok(())
}

fn configs_must_agree(world: &Rc<dyn Collective>) -> Result<(), String> {
    let whole = |a: &str, b: &str| (a.to_string(), b.to_string());
    agree(world.as_ref(), "seed=1", whole).map_err(|e| e.to_string())?;
    let mine = format!("seed={}", world.rank().min(1));
    match (world.size(), agree(world.as_ref(), &mine, whole)) {
        (1, Ok(())) => Ok(()),
        (_, Err(e))
            if e.to_string() == "rank 1 runs with seed=1, rank 0 with seed=0: every rank must run the same config" =>
        {
            Ok(())
        }
        (_, other) => Err(format!("{other:?}")),
    }
}
