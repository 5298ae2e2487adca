//! A timed run of every network contestant allocates no latency histogram per connection: every allocation of a
//! histogram's size (its counts array is about 184 KiB) over the whole run (its set-up included), and every free
//! of one between `go` and the run's end, is counted, and each count must stay below one per two connections (the
//! run's latencies go into one buffer allocated before `go`, and its histograms are built after the run). The
//! allocator is process-wide, so everything runs in a single test.
#![allow(clippy::unwrap_used)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use measure::latency::LatencyRecorder;
use measure::meter::NoMeter;
use network::cancel::Cancel;
use network::error::NetworkError;
use network::http_calls::HttpJob;
use network::launch::Port;
use network::outcome::Outcome;
use network::tcp_exchange::TcpJob;

/// An allocation at least this big is counted: a histogram's counts array (about 184 KiB) is bigger, a
/// connection's buffers are smaller (`ureq` 3 gives each connection two of 128 KiB, its default input and output
/// buffers, where `ureq` 2 read through an 8 KiB `BufReader`).
const LARGE: usize = 160 * 1024;

static COUNTING: AtomicBool = AtomicBool::new(false);
static AFTER_GO: AtomicBool = AtomicBool::new(false);
static LARGE_ALLOCS: AtomicU64 = AtomicU64::new(0);
static LARGE_FREES: AtomicU64 = AtomicU64::new(0);

struct LargeCounter;

// SAFETY: every call is passed to the system allocator unchanged; only a counter is added.
unsafe impl GlobalAlloc for LargeCounter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= LARGE && AFTER_GO.load(Ordering::Relaxed) {
            LARGE_FREES.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn note(size: usize) {
    if size >= LARGE && COUNTING.load(Ordering::Relaxed) {
        LARGE_ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: LargeCounter = LargeCounter;

/// Run `run`, counting large allocations over all of it and large frees from `go` to its end.
fn large_allocs_after_go<T>(run: impl FnOnce(&mut dyn FnMut()) -> T) -> (T, u64) {
    LARGE_ALLOCS.store(0, Ordering::SeqCst);
    LARGE_FREES.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    let out = run(&mut || AFTER_GO.store(true, Ordering::SeqCst));
    COUNTING.store(false, Ordering::SeqCst);
    AFTER_GO.store(false, Ordering::SeqCst);
    (out, LARGE_ALLOCS.load(Ordering::SeqCst).max(LARGE_FREES.load(Ordering::SeqCst)))
}

#[test]
fn no_contestant_allocates_a_histogram_per_connection() {
    // The counter sees a histogram: without this, a threshold above a histogram's size would pass anything.
    let (_, seen) = large_allocs_after_go(|go| {
        let made: Vec<LatencyRecorder> = (0..4).map(|_| LatencyRecorder::new()).collect();
        go();
        drop(made);
    });
    assert!(seen >= 4, "the counter saw {seen} large allocations or frees for 4 histograms");

    let server = common::server();
    const IN_FLIGHT: usize = 32;
    let (requests, addr) = (20 * IN_FLIGHT as u64, server.addr(Port::Http));
    let job = HttpJob { addr, requests, in_flight: IN_FLIGHT, meter: NoMeter, cancel: Cancel::never() };
    each_within(&network::http::contestants::HttpContestant::ALL.map(|c| (c.name(), c)), IN_FLIGHT, |c, go| {
        c.run(&job, go)
    });
    const CONNECTIONS: usize = 16;
    let addr = server.addr(Port::Tcp);
    let job =
        TcpJob { addr, connections: CONNECTIONS, exchanges: 32, batches: 5, meter: NoMeter, cancel: Cancel::never() };
    each_within(&network::tcp::contestants::TcpContestant::ALL.map(|c| (c.name(), c)), CONNECTIONS, |c, go| {
        c.run(&job, go)
    });
}

/// Each named contestant's run answers every request once, with fewer large allocations or frees in its timed
/// window than one per two of its `connections`.
fn each_within<C: Copy>(
    contestants: &[(&str, C)],
    connections: usize,
    run: impl Fn(C, &mut dyn FnMut()) -> Result<Outcome, NetworkError>,
) {
    for &(name, contestant) in contestants {
        let (outcome, large) = large_allocs_after_go(|go| run(contestant, go));
        assert_eq!(outcome.unwrap().verify(), Ok(()), "{name}");
        assert!(large < connections as u64 / 2, "{name}: {large} large allocations in the timed window");
    }
}
