//! A counting global allocator: while switched on, every allocation (and
//! reallocation) in the process, on any thread, adds one. Switched off it
//! costs one relaxed load per allocation, so it stays installed while
//! timing; the count is taken in a separate, untimed pass.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
static COUNT: AtomicU64 = AtomicU64::new(0);

/// The allocator (installed in main.rs).
#[derive(Debug)]
pub struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Heap allocations per call of `call`, averaged over `calls` calls.
pub fn per_call(calls: usize, mut call: impl FnMut()) -> f64 {
    COUNT.store(0, Ordering::Relaxed);
    ON.store(true, Ordering::SeqCst);
    for _ in 0..calls {
        call();
    }
    ON.store(false, Ordering::SeqCst);
    COUNT.load(Ordering::Relaxed) as f64 / calls as f64
}
