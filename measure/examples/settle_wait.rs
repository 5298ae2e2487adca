//! The measurement behind `measure::cpu::SETTLE_WAIT`: how much of other threads' CPU the process clock misses
//! when it is read right after they signal the end of their work and park, and how long after that it is whole.
//!
//! Two threads burn 30 ms each, send a message and park; the main thread receives both, then reads the process
//! CPU clock at once and again 1, 2, 4, 8, 10 and 20 ms later, and finally 40 ms later as the reference (by then
//! both have long parked). What the main thread itself used between a reading and the reference is taken out.
//! Printed: per wait, the median and largest CPU a reading missed against the reference, over 40 rounds.
//!
//! `cargo run --release -p measure --example settle_wait` (quiet machine; it takes about 4 seconds).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use measure::cpu::{process_cpu_clock_ns, thread_cpu_clock_ns};

/// Reading waits after the workers signalled, in microseconds; the last is the reference.
const WAITS_US: [u64; 8] = [0, 1_000, 2_000, 4_000, 8_000, 10_000, 20_000, 40_000];
/// Rounds of two workers.
const ROUNDS: usize = 40;

fn main() {
    let mut missed: Vec<Vec<i64>> = vec![Vec::new(); WAITS_US.len()];
    for _ in 0..ROUNDS {
        let (done_tx, done_rx) = mpsc::channel::<u64>();
        let mut parked = Vec::new();
        for _ in 0..2 {
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let done = done_tx.clone();
            let worker = std::thread::spawn(move || {
                let _ = done.send(burn(Duration::from_millis(30)));
                let _ = release_rx.recv();
            });
            parked.push((release_tx, worker));
        }
        for _ in 0..2 {
            std::hint::black_box(done_rx.recv().ok());
        }
        let signalled = Instant::now();
        let mut readings = Vec::with_capacity(WAITS_US.len());
        for wait in WAITS_US {
            while signalled.elapsed() < Duration::from_micros(wait) {
                std::thread::sleep(Duration::from_micros(200));
            }
            readings.push((process_cpu_clock_ns().unwrap_or(0), thread_cpu_clock_ns().unwrap_or(0)));
        }
        let (reference, own_at_reference) = readings[readings.len() - 1];
        for (i, (process, own)) in readings.iter().enumerate() {
            let whole = reference.saturating_sub(own_at_reference.saturating_sub(*own));
            missed[i].push(whole as i64 - *process as i64);
        }
        for (release, worker) in parked {
            drop(release);
            let _ = worker.join();
        }
    }
    println!("{:>10}  {:>14}  {:>14}", "read after", "missed, median", "missed, most");
    for (wait, mut m) in WAITS_US.iter().zip(missed) {
        m.sort_unstable();
        println!("{:>7} ms  {:>11} ns  {:>11} ns", *wait as f64 / 1e3, m[m.len() / 2], m[m.len() - 1]);
    }
}

/// Burn CPU for `span` of wall time; returns a value the optimiser must keep.
fn burn(span: Duration) -> u64 {
    let end = Instant::now() + span;
    let mut x = 1u64;
    while Instant::now() < end {
        for _ in 0..1_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        }
    }
    x
}
