//! Tests the counting global allocator installed as `#[global_allocator]`: allocations, bytes and live bytes,
//! and the probe's allocation metrics. The counters are process-wide, so the checks run one after another in
//! a single test: nothing else in the process allocates meanwhile, and the counts can be asserted exactly.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use measure::alloc::{is_counting, snapshot, CountingAlloc};
use measure::gauge::Outstanding;
use measure::probe::Probe;

mod common;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn counting_allocator() {
    assert!(is_counting());
    vec_allocation_is_counted();
    realloc_counts_new_size_and_adjusts_live();
    zeroed_allocation_is_counted();
    probe_reports_allocations_per_item();
    probe_and_sampler_add_no_allocations_of_their_own();
    probe_reports_the_heap_peak_and_what_was_kept();
    probe_reports_what_starting_it_allocated();
}

fn probe_reports_what_starting_it_allocated() {
    let m = Probe::start(Arc::new(Outstanding::new())).finish(1);
    // The sampler reserves its whole series up front (8 bytes a point) before the probe's clocks start.
    let series = (measure::sampler::MAX_SERIES_POINTS * 8) as u64;
    assert!(m.setup.heap_bytes >= series, "setup {} bytes, series alone {series}", m.setup.heap_bytes);
    assert_eq!(m.allocs, 0, "none of that is counted inside the iteration");
}

fn vec_allocation_is_counted() {
    const N: usize = 1 << 20;
    let before = snapshot();
    let v: Vec<u8> = Vec::with_capacity(N);
    let during = snapshot();
    let v = std::hint::black_box(v);
    drop(v);
    let after = snapshot();
    assert_eq!(during.allocs, before.allocs + 1);
    assert_eq!(during.bytes, before.bytes + N as u64);
    assert_eq!(during.live_bytes, before.live_bytes + N as u64);
    assert_eq!(after.live_bytes, before.live_bytes, "freed again");
    assert_eq!(after.allocs, during.allocs, "dropping does not allocate");
}

fn realloc_counts_new_size_and_adjusts_live() {
    let mut v: Vec<u8> = Vec::with_capacity(1000);
    let before = snapshot();
    v.reserve_exact(5000); // grows to 5000 with one realloc
    let after = snapshot();
    assert_eq!(after.allocs, before.allocs + 1);
    assert_eq!(after.bytes, before.bytes + 5000);
    assert_eq!(after.live_bytes, before.live_bytes + 4000);
    drop(std::hint::black_box(v));
}

fn zeroed_allocation_is_counted() {
    let before = snapshot();
    let v = vec![0u64; 4096];
    let after = snapshot();
    assert_eq!(after.allocs, before.allocs + 1);
    assert_eq!(after.bytes, before.bytes + 4096 * 8);
    assert_eq!(std::hint::black_box(v).iter().sum::<u64>(), 0);
}

fn probe_reports_allocations_per_item() {
    let gauge = Arc::new(Outstanding::new());
    let probe = Probe::start(gauge);
    const ITEMS: u64 = 1000;
    let mut kept = 0usize;
    for i in 0..ITEMS {
        let b = Box::new([i as u8; 64]);
        kept += std::hint::black_box(b)[0] as usize;
    }
    std::hint::black_box(kept);
    let m = probe.finish(ITEMS);
    // One Box per item and nothing else: the probe and its sampler allocate nothing inside the window.
    assert_eq!(m.allocs, ITEMS);
    assert_eq!(m.alloc_bytes, 64 * ITEMS);
    let metrics = m.metrics();
    assert_eq!(metrics["allocs_per_item"], 1.0);
    assert_eq!(metrics["alloc_bytes_per_item"], 64.0);
}

fn probe_and_sampler_add_no_allocations_of_their_own() {
    let gauge = Arc::new(Outstanding::new());
    let probe = Probe::start(Arc::clone(&gauge));
    // About 50 sampler ticks and 5 thread-count reads, with the gauge moving.
    for _ in 0..50 {
        gauge.admit(3);
        std::thread::sleep(std::time::Duration::from_millis(1));
        gauge.leave(3);
    }
    let m = probe.finish(50);
    // The sampler preallocates its series and /proc buffer before the window opens.
    assert_eq!(m.allocs, 0, "allocs {}", m.allocs);
    assert_eq!(m.alloc_bytes, 0);
    assert_eq!(m.max_outstanding, Some(3));
}

fn probe_reports_the_heap_peak_and_what_was_kept() {
    const HELD: usize = 8 << 20;
    const KEPT: usize = 4096;
    let gauge = Arc::new(Outstanding::new());
    let probe = Probe::start(Arc::clone(&gauge));
    // Found (its allocations freed again) before the block is held; watching it then allocates nothing.
    let sampler = common::SamplerThread::find();
    let held: Vec<u8> = vec![1; HELD];
    // Hold it until the 1 ms sampler has certainly sampled the heap with it.
    sampler.sampled();
    drop(std::hint::black_box(held));
    let kept: Vec<u8> = std::hint::black_box(vec![2; KEPT]);
    let m = probe.finish(1);
    assert!(m.heap_peak_bytes >= HELD as u64, "peak {}", m.heap_peak_bytes);
    assert!(m.heap_peak_bytes < (HELD + 2 * KEPT) as u64, "peak {}", m.heap_peak_bytes);
    assert_eq!(m.heap_retained_bytes, KEPT as i64);
    let metrics = m.metrics();
    assert!(metrics["heap_peak_mib"] >= 8.0);
    assert_eq!(metrics["heap_retained_bytes"], KEPT as f64);
    drop(kept);
}
