use minnow_arena::{Arena, CountingAlloc, count_allocations};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn counts_heap_allocations_on_this_thread() {
    let (v, on_thread, _) = count_allocations(|| vec![1u8; 1000]);
    assert_eq!(on_thread.allocations, 1);
    assert_eq!(on_thread.bytes, 1000);
    drop(v);
}

#[test]
fn warm_arena_step_allocates_nothing() {
    let mut arena = Arena::new();
    let step = |arena: &Arena| {
        let a = arena.alloc(1000);
        let b = arena.alloc_dirty(50_000);
        a[0] + b[0]
    };
    step(&arena);
    arena.reset();
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..10 {
            step(&arena);
            arena.reset();
        }
    });
    assert_eq!(on_thread.allocations, 0);
}
