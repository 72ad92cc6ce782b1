//! The trainer's worker threads: persistent, each owning one [`Worker`],
//! woken once per training step.
//!
//! Why not rayon: entering a rayon pool from a thread outside it pushes the
//! job onto the pool's injector queue, which allocates a new block every 63
//! entries (1.5 KB; the zero-allocation test caught it), and a training
//! step must allocate nothing. Here a step is one condvar hand-off per
//! helper and nothing else; std's futex-based locks never allocate.

use crate::ca::{Circuit, TAPS};
use crate::hard::HardProgram;
use crate::rollout::{Rollout, Shared, Worker};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;

/// What every worker reads and nothing changes after the trainer is built.
#[derive(Debug)]
pub(crate) struct Fixed {
    pub circuit: Circuit,
    pub neighbours: Vec<[u32; TAPS]>,
    pub steps: usize,
    pub lanes: usize,
    pub rollout: Rollout,
    pub height: usize,
    pub width: usize,
    /// Floats per grid (channels x cells).
    pub per_grid: usize,
    pub batch: usize,
    pub workers: usize,
}

/// What the main thread writes before each step and the workers read.
#[derive(Debug)]
pub(crate) struct StepData {
    pub coeffs: Vec<[f32; 4]>,
    pub program: HardProgram,
    /// `[batch, channels, cells]`
    pub grids: Vec<f32>,
    /// `[batch, cells]`: channel 0's target of each grid.
    pub targets: Vec<f32>,
    /// `[batch, steps, cells]` fire masks, or empty (synchronous).
    pub fire: Vec<f32>,
}

impl Fixed {
    /// Runs worker `index` on its fixed share of the batch.
    pub fn run(&self, index: usize, worker: &mut Worker, data: &StepData) {
        let shared = Shared {
            circuit: &self.circuit,
            neighbours: &self.neighbours,
            coeffs: &data.coeffs,
            steps: self.steps,
            lanes: self.lanes,
            rollout: self.rollout,
            hard: Some(&data.program),
            height: self.height,
            width: self.width,
        };
        let (start, end) = (index * self.batch / self.workers, (index + 1) * self.batch / self.workers);
        let cells = self.height * self.width;
        let fire = if data.fire.is_empty() {
            &[][..]
        } else {
            &data.fire[start * self.steps * cells..end * self.steps * cells]
        };
        let grids = &data.grids[start * self.per_grid..end * self.per_grid];
        worker.run(&shared, grids, &data.targets[start * cells..end * cells], fire);
    }
}

#[derive(Debug, Default)]
struct Signal {
    /// Steps started; a helper runs when this passes what it has done.
    started: u64,
    /// Steps each helper finished, by helper.
    finished: Vec<u64>,
    panicked: bool,
    quit: bool,
}

#[derive(Debug)]
struct Sync {
    signal: Mutex<Signal>,
    wake: Condvar,
    done: Condvar,
}

/// Helper threads 1..n (the calling thread is worker 0).
#[derive(Debug)]
pub(crate) struct Team {
    sync: Arc<Sync>,
    pub workers: Vec<Arc<Mutex<Worker>>>,
    handles: Vec<JoinHandle<()>>,
}

impl Team {
    pub fn new(fixed: &Arc<Fixed>, data: &Arc<RwLock<StepData>>, helpers: usize) -> std::io::Result<Self> {
        let sync = Arc::new(Sync {
            signal: Mutex::new(Signal { finished: vec![0; helpers], ..Signal::default() }),
            wake: Condvar::new(),
            done: Condvar::new(),
        });
        let mut workers = Vec::with_capacity(helpers);
        let mut handles = Vec::with_capacity(helpers);
        for h in 0..helpers {
            let worker = Arc::new(Mutex::new(Worker::new(&fixed.circuit, fixed.lanes)));
            let (fixed, data, sync, mine) = (fixed.clone(), data.clone(), sync.clone(), worker.clone());
            let handle = std::thread::Builder::new()
                .name(format!("minnow-logic-{}", h + 1))
                .spawn(move || helper(h, &fixed, &data, &sync, &mine))?;
            workers.push(worker);
            handles.push(handle);
        }
        Ok(Self { sync, workers, handles })
    }

    /// Wakes every helper for step number `step` (1-based, increasing).
    pub fn start(&self, step: u64) {
        let mut s = lock(&self.sync.signal);
        s.started = step;
        self.sync.wake.notify_all();
    }

    /// Waits until every helper finished step `step`.
    #[track_caller]
    pub fn wait(&self, step: u64) {
        let mut s = lock(&self.sync.signal);
        while !s.panicked && s.finished.iter().any(|&f| f < step) {
            s = self.sync.done.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        assert!(!s.panicked, "a minnow-logic worker thread panicked");
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        lock(&self.sync.signal).quit = true;
        self.sync.wake.notify_all();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn helper(h: usize, fixed: &Fixed, data: &RwLock<StepData>, sync: &Sync, worker: &Mutex<Worker>) {
    minnow_kernels::flush_denormals();
    let mut done = 0u64;
    loop {
        let step = {
            let mut s = lock(&sync.signal);
            while !s.quit && s.started <= done {
                s = sync.wake.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            if s.quit {
                return;
            }
            s.started
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let data = data.read().unwrap_or_else(|e| e.into_inner());
            fixed.run(h + 1, &mut lock(worker), &data);
        }));
        done = step;
        let mut s = lock(&sync.signal);
        s.finished[h] = step;
        s.panicked |= result.is_err();
        sync.done.notify_all();
    }
}
