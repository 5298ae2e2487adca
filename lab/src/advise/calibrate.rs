//! CPU work per item in microseconds, mapped onto the chain's work rounds ([`chain::ops::map1`]) by
//! timing one round on this machine, then checked: the mapped work is timed again and must come within 20% of
//! what was asked. The check is the lab's (it goes into the advice), not a timed test.

use std::hint::black_box;
use std::time::{Duration, Instant};

use chain::ops::map1;
use measure::summary::Check;
use serde::{Deserialize, Serialize};

/// Largest work the chain accepts, in rounds.
pub(crate) const MAX_ROUNDS: u64 = 1_000_000;

/// How far the measured µs per item may stray from the asked, as a fraction.
pub(crate) const TOLERANCE: f64 = 0.2;

/// The mapping from µs per item to rounds, and its check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Calibration {
    /// Nanoseconds one mixing round took here (the fastest of several timings).
    pub ns_per_round: f64,
    /// CPU work asked per item, in µs.
    pub asked_us: f64,
    /// Rounds that work maps to.
    pub rounds: u64,
    /// Microseconds of CPU per item the mapped work measured (map1 at `rounds`, on the calling thread's CPU
    /// clock).
    pub measured_us: f64,
    /// Whether `measured_us` is within [`TOLERANCE`] of `asked_us`.
    pub passed: bool,
}

impl Calibration {
    /// The check the advice reports.
    pub(crate) fn check(&self) -> Check {
        Check::new(
            "cpu_work_calibration",
            self.passed,
            format!(
                "asked {} µs of CPU per item; one mixing round took {:.3} ns here in a long chain, and timing the \
                 work itself set it at {} rounds; that work measured {:.2} µs of CPU per item ({:+.1}%; the check allows ±{:.0}%)",
                super::shape::trim(self.asked_us),
                self.ns_per_round,
                self.rounds,
                self.measured_us,
                (self.measured_us / self.asked_us - 1.0) * 100.0,
                TOLERANCE * 100.0
            ),
        )
    }
}

/// Nanoseconds of this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), or of the wall clock where that clock is
/// missing: CPU time is what the user asked for, and another process sharing the core does not inflate it.
fn now_ns(wall: Instant) -> f64 {
    measure::cpu::thread_cpu_clock_ns().map_or_else(|| wall.elapsed().as_nanos() as f64, |ns| ns as f64)
}

/// Time `items` items of `rounds` rounds on this thread's CPU clock; the fastest of `repeats` timings, in ns per
/// item.
fn ns_per_item(rounds: u32, items: u64, repeats: u32) -> f64 {
    let origin = Instant::now();
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let start = now_ns(origin);
        let mut sum = 0u64;
        for x in 0..items {
            sum = sum.wrapping_add(map1(black_box(x), black_box(rounds)));
        }
        black_box(sum);
        best = best.min((now_ns(origin) - start) / items as f64);
    }
    best
}

/// Items whose work of `ns_per_item` lasts about `target`.
fn items_for(ns_per_item: f64, target: Duration) -> u64 {
    ((target.as_nanos() as f64 / ns_per_item.max(1e-3)) as u64).max(1)
}

/// The rounds of `us` µs of work: `us` divided by the time of one round on this machine, then the check.
pub(crate) fn calibrate(us: f64) -> Calibration {
    const PROBE_ROUNDS: u32 = 4_096;
    // One round: the fastest of 5 timings of about 20 ms each of many rounds per item.
    let probe = ns_per_item(PROBE_ROUNDS, 64, 1);
    let per_item = ns_per_item(PROBE_ROUNDS, items_for(probe, Duration::from_millis(20)), 5);
    let ns_per_round = per_item / f64::from(PROBE_ROUNDS);
    let mut rounds = ((us * 1e3 / ns_per_round).round() as u64).clamp(1, MAX_ROUNDS);
    let items = items_for(us * 1e3, Duration::from_millis(50));
    let time = |rounds: u64| ns_per_item(u32::try_from(rounds).unwrap_or(u32::MAX), items, 3) / 1e3;
    // Few rounds per item overlap from one item to the next (the CPU runs independent items' rounds side by
    // side), so one round's time from a long chain is not quite the time per round of a short one: correct the
    // rounds by the ratio measured, twice, then time the result afresh for the check.
    for _ in 0..2 {
        let measured = time(rounds);
        rounds = ((rounds as f64 * us / measured.max(1e-6)).round() as u64).clamp(1, MAX_ROUNDS);
    }
    let measured_us = time(rounds);
    let passed = (measured_us / us - 1.0).abs() <= TOLERANCE;
    Calibration { ns_per_round, asked_us: us, rounds, measured_us, passed }
}

/// The most CPU work per item the chain can express here, in µs, given one round's time.
pub(crate) fn max_us(ns_per_round: f64) -> f64 {
    MAX_ROUNDS as f64 * ns_per_round / 1e3
}
