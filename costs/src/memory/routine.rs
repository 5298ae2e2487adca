//! One trial of the memory scenario in its own process: the harness's loop over a [`MemoryRoutine`], then, in the
//! first process of each contestant and phase, the conformance checks ([`measure_then_check`]).
//!
//! A run creates every unit (timed: `create_ms`), waits until all are waiting, then releases them and collects
//! their checksums (timed: `release_ms`). In the accounting iteration the live heap (counting allocator) and the
//! resident set (`VmRSS`) are read right after `go` and again once every unit waits; the differences over the
//! count are `live_heap_bytes_per_unit` and `rss_bytes_per_unit`. Before each run, freed heap is handed back to
//! the OS (`malloc_trim`), so units of an earlier run do not sit in already-resident memory.

use std::time::{Duration, Instant};

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::record::TrialRequest;
use measure::scenario::{measure_then_check, TrialError, TrialSink};
use measure::summary::Check;
use pipelines::conformance::{every_iteration_passed, prepared_or_failed};

use super::conformance;
use super::contestants::{Contestant, HoldError, Units};
use crate::payload::expected_total;

pub(super) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let count = request.param("count")?;
    let bytes = request.param_usize("payload")?;
    if count == 0 {
        return Err(TrialError::BadParam("`count` must be at least 1".to_string()));
    }
    let contestant = Contestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let measure = |sink: &mut dyn TrialSink| {
        let Some(units) = prepared_or_failed(contestant.prepare(), "checksum", sink) else {
            return Ok(());
        };
        let mut routine = MemoryRoutine { units, count, bytes, expected: expected_total(count, bytes) };
        harness::run(&mut routine, request, sink);
        Ok(())
    };
    measure_then_check(request, sink, measure, || conformance::all(contestant))
}

/// Hand freed heap back to the OS, so the next run's units are not placed in memory that is already resident.
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of the allocator's own arenas; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A prepared kind of unit as the harness runs it.
#[derive(Debug)]
struct MemoryRoutine {
    units: Box<dyn Units>,
    count: u64,
    bytes: usize,
    expected: u64,
}

/// What one run handed back.
#[derive(Debug)]
struct Run {
    total: u64,
    create: Duration,
    release: Duration,
    /// Live heap bytes and resident KiB added while every unit waited (accounting iterations only).
    memory: Option<(u64, Option<u64>)>,
}

/// Live heap bytes and resident KiB now.
fn memory_now() -> (u64, Option<u64>) {
    (measure::alloc::snapshot().live_bytes, measure::memory::rss_kib())
}

fn stop(e: HoldError) -> Stop {
    match e {
        HoldError::Refused(reason) => Stop::Skipped(reason),
        other => Stop::failed("checksum", other.to_string()),
    }
}

impl Routine for MemoryRoutine {
    type Output = Run;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<Run, Stop> {
        trim_heap();
        go();
        let baseline = (!instruments.is_timed()).then(memory_now);
        let started = Instant::now();
        let held = self.units.hold(self.count, self.bytes).map_err(stop)?;
        let create = started.elapsed();
        let memory = baseline.map(|(heap, rss)| {
            let (heap_now, rss_now) = memory_now();
            let rss = match (rss_now, rss) {
                (Some(now), Some(before)) => Some(now.saturating_sub(before)),
                _ => None,
            };
            (heap_now.saturating_sub(heap), rss)
        });
        let releasing = Instant::now();
        let total = held.release().map_err(stop)?;
        Ok(Run { total, create, release: releasing.elapsed(), memory })
    }

    fn items(&self, _: &Run) -> u64 {
        self.count
    }

    fn finish(&mut self, iteration: Iteration, run: Run, window: Window<'_>) -> Result<IterationData, Stop> {
        if run.total != self.expected {
            let detail = format!(
                "iteration {}: the units handed back {} instead of {} ({} units of {} bytes)",
                iteration.index, run.total, self.expected, self.count, self.bytes
            );
            return Err(Stop::failed("checksum", detail));
        }
        let count = self.count as f64;
        let mut data = IterationData::from_window(window);
        data.timing.insert("create_ms".to_string(), run.create.as_secs_f64() * 1e3);
        data.timing.insert("release_ms".to_string(), run.release.as_secs_f64() * 1e3);
        data.timing.insert("create_ns_per_unit".to_string(), run.create.as_nanos() as f64 / count);
        data.timing.insert("release_ns_per_unit".to_string(), run.release.as_nanos() as f64 / count);
        if let Some((heap, rss_kib)) = run.memory {
            if measure::alloc::is_counting() {
                data.instruments.insert("live_heap_bytes_per_unit".to_string(), heap as f64 / count);
            }
            if let Some(kib) = rss_kib {
                data.instruments.insert("rss_bytes_per_unit".to_string(), kib as f64 * 1024.0 / count);
            }
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let what = format!(": all {} units handed back their payload's checksum, {} in all", self.count, self.expected);
        vec![every_iteration_passed("checksum", measured, accounted, &what)]
    }
}
