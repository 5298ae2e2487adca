//! CPU work per item in microseconds, mapped onto the rounds of the CPU work a scenario declares
//! ([`Scenario::cpu_work`]) by timing one round on this machine, then checked: the mapped work is timed again and
//! must come within 20% of what was asked. The check is the lab's (it goes into the advice), not a timed test.

use std::hint::black_box;
use std::time::{Duration, Instant};

use measure::advice::CpuWork;
use measure::scenario::Scenario;
use measure::summary::Check;
use serde::{Deserialize, Serialize};

use crate::registry;

/// The CPU work the advice times: the first a scenario of the registry declares, with the scenario's name and the
/// most rounds its parameter accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Work {
    /// The scenario that declares it.
    pub scenario: &'static str,
    /// The work.
    pub work: CpuWork,
    /// The most rounds the scenario's parameter accepts.
    pub max_rounds: u64,
}

impl Work {
    /// The first CPU work a scenario of the registry declares, if any does.
    pub(crate) fn declared() -> Option<Work> {
        registry::scenarios().into_iter().find_map(|scenario: &'static dyn Scenario| {
            let work = scenario.cpu_work()?;
            let spec = scenario.params().into_iter().find(|p| p.key() == work.param)?;
            Some(Work { scenario: scenario.name(), work, max_rounds: spec.max })
        })
    }

    /// The most CPU work per item the work can express here, in µs, given one round's time.
    pub(crate) fn max_us(&self, ns_per_round: f64) -> f64 {
        self.max_rounds as f64 * ns_per_round / 1e3
    }
}

/// How far the measured µs per item may stray from the asked, as a fraction.
pub(crate) const TOLERANCE: f64 = 0.2;

/// The mapping from µs per item to rounds, and its check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Calibration {
    /// Nanoseconds one round took here (the fastest of several timings).
    pub ns_per_round: f64,
    /// CPU work asked per item, in µs.
    pub asked_us: f64,
    /// Rounds that work maps to.
    pub rounds: u64,
    /// Microseconds of CPU per item the mapped work measured (at `rounds`, on the calling thread's CPU clock).
    pub measured_us: f64,
    /// Whether `measured_us` is within [`TOLERANCE`] of `asked_us`.
    pub passed: bool,
}

impl Calibration {
    /// The check the advice reports, naming one round as the declared work does ([`CpuWork::round`]).
    pub(crate) fn check(&self) -> Check {
        let round = Work::declared().map_or("round", |w| w.work.round);
        Check::new(
            "cpu_work_calibration",
            self.passed,
            format!(
                "asked {} µs of CPU per item; one {round} took {:.3} ns here in a long chain, and timing the \
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

/// Time `items` items of `rounds` rounds of `work` on this thread's CPU clock; the fastest of `repeats` timings,
/// in ns per item.
fn ns_per_item(work: &CpuWork, rounds: u32, items: u64, repeats: u32) -> f64 {
    let origin = Instant::now();
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let start = now_ns(origin);
        black_box((work.items)(black_box(items), black_box(rounds)));
        best = best.min((now_ns(origin) - start) / items as f64);
    }
    best
}

/// Items whose work of `ns_per_item` lasts about `target`.
fn items_for(ns_per_item: f64, target: Duration) -> u64 {
    ((target.as_nanos() as f64 / ns_per_item.max(1e-3)) as u64).max(1)
}

/// The rounds of `work` that `us` µs of work takes: `us` divided by the time of one round on this machine, then
/// the check.
pub(crate) fn calibrate(work: &Work, us: f64) -> Calibration {
    const PROBE_ROUNDS: u32 = 4_096;
    let (max, work) = (work.max_rounds, &work.work);
    // One round: the fastest of 5 timings of about 20 ms each of many rounds per item.
    let probe = ns_per_item(work, PROBE_ROUNDS, 64, 1);
    let per_item = ns_per_item(work, PROBE_ROUNDS, items_for(probe, Duration::from_millis(20)), 5);
    let ns_per_round = per_item / f64::from(PROBE_ROUNDS);
    let mut rounds = ((us * 1e3 / ns_per_round).round() as u64).clamp(1, max);
    let items = items_for(us * 1e3, Duration::from_millis(50));
    let time = |rounds: u64| ns_per_item(work, u32::try_from(rounds).unwrap_or(u32::MAX), items, 3) / 1e3;
    // Few rounds per item overlap from one item to the next (the CPU runs independent items' rounds side by
    // side), so one round's time from a long chain is not quite the time per round of a short one: correct the
    // rounds by the ratio measured, twice, then time the result afresh for the check.
    for _ in 0..2 {
        let measured = time(rounds);
        rounds = ((rounds as f64 * us / measured.max(1e-6)).round() as u64).clamp(1, max);
    }
    let measured_us = time(rounds);
    let passed = (measured_us / us - 1.0).abs() <= TOLERANCE;
    Calibration { ns_per_round, asked_us: us, rounds, measured_us, passed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_declares_the_cpu_work_and_its_parameter_bounds_the_rounds() {
        let work = Work::declared().expect("a scenario of the registry declares CPU work");
        let scenario = registry::find(work.scenario).expect("its scenario is in the registry");
        let spec = scenario.params().into_iter().find(|p| p.key() == work.work.param).expect("its parameter");
        assert_eq!(work.max_rounds, spec.max);
        assert!(work.max_us(2.0) > 0.0);
        assert_ne!((work.work.items)(3, 1), (work.work.items)(3, 2), "the rounds change the work");
    }
}
