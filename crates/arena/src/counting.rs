use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Heap allocations (and reallocations) and the bytes they asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Allocations (and reallocations) made.
    pub allocations: u64,
    /// Bytes they asked for.
    pub bytes: u64,
}

impl std::ops::Sub for AllocStats {
    type Output = AllocStats;
    fn sub(self, earlier: AllocStats) -> AllocStats {
        AllocStats { allocations: self.allocations - earlier.allocations, bytes: self.bytes - earlier.bytes }
    }
}

/// A global allocator that counts allocations per thread and in total, then
/// defers to the system allocator. Install it in a test or bench binary:
///
/// ```ignore
/// #[global_allocator]
/// static ALLOC: minnow_arena::CountingAlloc = minnow_arena::CountingAlloc;
/// ```
///
/// Without it installed, every count stays zero.
#[derive(Debug)]
pub struct CountingAlloc;

thread_local! {
    // Const-initialised `Cell`s of plain integers: no lazy init, no
    // destructor, so touching them never allocates.
    static THREAD_ALLOCS: Cell<u64> = const { Cell::new(0) };
    static THREAD_BYTES: Cell<u64> = const { Cell::new(0) };
}
static GLOBAL_ALLOCS: AtomicU64 = AtomicU64::new(0);
static GLOBAL_BYTES: AtomicU64 = AtomicU64::new(0);

fn record(bytes: usize) {
    GLOBAL_ALLOCS.fetch_add(1, Relaxed);
    GLOBAL_BYTES.fetch_add(bytes as u64, Relaxed);
    // `try_with`: the thread may be tearing down its locals.
    let _ = THREAD_ALLOCS.try_with(|c| c.set(c.get() + 1));
    let _ = THREAD_BYTES.try_with(|c| c.set(c.get() + bytes as u64));
}

// SAFETY: every call forwards to `System` with the caller's arguments.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocations made so far by the calling thread.
pub fn thread_stats() -> AllocStats {
    AllocStats {
        allocations: THREAD_ALLOCS.try_with(Cell::get).unwrap_or(0),
        bytes: THREAD_BYTES.try_with(Cell::get).unwrap_or(0),
    }
}

/// Allocations made so far by all threads.
pub fn global_stats() -> AllocStats {
    AllocStats { allocations: GLOBAL_ALLOCS.load(Relaxed), bytes: GLOBAL_BYTES.load(Relaxed) }
}

/// Runs `f` and returns what it allocated on this thread and on all threads
/// (the latter includes anything other threads did meanwhile).
pub fn count_allocations<R>(f: impl FnOnce() -> R) -> (R, AllocStats, AllocStats) {
    let (thread0, global0) = (thread_stats(), global_stats());
    let result = f();
    (result, thread_stats() - thread0, global_stats() - global0)
}
