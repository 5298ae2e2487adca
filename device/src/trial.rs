//! One trial of a device or backpressure contestant in its own process: conformance checks, an idle call's
//! real duration, then warm-ups and measured iterations, each against a fresh device, bracketed by the probe.
//!
//! The probe starts when the contestant says go (after any up-front threads are parked), so spawning is timed
//! apart (`spawn_ms`). Memory is read against a baseline taken before anything of the run exists (before
//! threads are spawned), so a waiting call's cost includes its thread where it has one; what starting the
//! probe itself added (the sampler's series buffer, about 1 MiB, read by the probe before its clocks start:
//! [`measure::probe::ProbeSetup`]) is taken out.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::probe::{bounded_outstanding_check, Measurement, Probe};
use measure::record::{IterationRecord, MetricValues, Series, TrialRequest};
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;

use crate::call::{expected_sum, Call};
use crate::conformance;
use crate::contestants::{Contestant, Prepared};
use crate::job::{Deadline, Job, RunError, Shared, Steady};

/// Uncontended calls timed before the iterations, for `idle_call_ms`.
pub const IDLE_CALLS: u32 = 20;

/// How a scenario runs one contestant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialSpec {
    /// Items per iteration.
    pub items: u64,
    /// The bound on outstanding calls (for bounded contestants).
    pub limit: usize,
    /// Service time of every call.
    pub service: Duration,
    /// Time budget of one iteration, from go.
    pub budget: Duration,
    /// The ideal throughput, calls per second, for `ideal_fraction` (`None`: not reported).
    pub ideal_ops_per_sec: Option<f64>,
    /// Read memory once this many calls are outstanding, for `live_heap_bytes_per_call` (`None`: not read).
    pub heap_threshold: Option<u64>,
}

/// What every measured iteration showed, checked at the end of the trial.
#[derive(Debug, Default)]
struct Tally {
    measured: u32,
    cut_short: u32,
    failed_calls: u64,
    wrong_sums: Vec<String>,
    max_outstanding: Option<u64>,
}

/// Run `contestant`'s trial under `spec`, reporting to `sink`.
pub fn run_trial(
    request: &TrialRequest,
    sink: &mut dyn TrialSink,
    contestant: Contestant,
    spec: &TrialSpec,
) -> Result<(), TrialError> {
    for check in conformance::all(contestant) {
        sink.check(check);
    }
    let prepared = match contestant.prepare() {
        Ok(prepared) => prepared,
        Err(e) => {
            sink.check(Check::new("runs", false, format!("could not prepare: {e}")));
            return Ok(());
        }
    };
    let idle_ms = match idle_call_ms(contestant, &prepared, spec) {
        Ok(ms) => ms,
        Err(e) => {
            sink.check(Check::new("runs", false, e));
            return Ok(());
        }
    };
    let expected = expected_sum(spec.items);
    let mut tally = Tally::default();
    let mut first_measured = true;
    for index in 0..request.warmup + request.iterations {
        let warmup = index < request.warmup;
        let outcome = match iteration(contestant, &prepared, spec) {
            Ok(outcome) => outcome,
            Err(RunError::Skipped(reason)) => {
                sink.skipped(&reason);
                return Ok(());
            }
            Err(RunError::Broken(problem)) => {
                sink.check(Check::new("runs", false, format!("iteration {index}: {problem}")));
                return Ok(());
            }
        };
        if !warmup {
            tally.measured += 1;
            tally.failed_calls += outcome.failed;
            if outcome.cut_short {
                tally.cut_short += 1;
            } else if outcome.sum != expected {
                tally.wrong_sums.push(format!("iteration {index}: sum {} instead of {expected}", outcome.sum));
            }
            if let Some(max) = outcome.max_outstanding {
                tally.max_outstanding = Some(tally.max_outstanding.map_or(max, |m| m.max(max)));
            }
        }
        let mut metrics = outcome.metrics;
        metrics.insert("idle_call_ms".to_string(), idle_ms);
        let mut series = BTreeMap::new();
        if !warmup && first_measured {
            series.insert("outstanding".to_string(), outcome.outstanding);
            first_measured = false;
        }
        sink.iteration(IterationRecord { index, warmup, metrics, series });
    }
    report_tally(sink, contestant, spec, &tally);
    Ok(())
}

fn report_tally(sink: &mut dyn TrialSink, contestant: Contestant, spec: &TrialSpec, tally: &Tally) {
    let n = tally.measured;
    let whole = n - tally.cut_short;
    let clean = tally.wrong_sums.is_empty() && tally.failed_calls == 0;
    sink.check(if clean && n > 0 && whole == 0 {
        // A cut-short iteration's sum covers only the calls answered: there was no full sum to check.
        Check::not_applicable(
            "measured_sum_exact",
            format!(
                "every one of {n} measured iterations was cut short by the {:.1} s budget",
                spec.budget.as_secs_f64()
            ),
        )
    } else {
        Check::new(
            "measured_sum_exact",
            clean,
            if clean {
                format!(
                    "{whole} of {n} measured iterations ran all {} items with the exact sum; {} were cut short by the \
                     {:.1} s budget (their sum covers only the calls answered); no call failed",
                    spec.items,
                    tally.cut_short,
                    spec.budget.as_secs_f64()
                )
            } else {
                format!("{} failed calls; {}", tally.failed_calls, tally.wrong_sums.join("; "))
            },
        )
    });
    if contestant.bounded() {
        // The contract's tolerance: the bound plus one call in hand.
        sink.check(bounded_outstanding_check(tally.max_outstanding, spec.limit as u64 + 1, n, "calls"));
    }
}

/// The median real duration of an uncontended call made the contestant's way, in milliseconds.
fn idle_call_ms(contestant: Contestant, prepared: &Prepared, spec: &TrialSpec) -> Result<f64, String> {
    let call = Call::start(contestant.timer(), spec.service)?;
    let job = Job {
        items: 0,
        limit: 1,
        call,
        deadline: Deadline::new(Duration::ZERO),
        shared: Arc::new(Shared::new(Arc::new(Outstanding::new()))),
    };
    let mut times = prepared.idle_calls(&job, IDLE_CALLS);
    if let Some(device) = job.call.device() {
        device.shutdown();
    }
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    Ok(median.as_secs_f64() * 1e3)
}

/// What one iteration produced.
#[derive(Debug)]
struct IterationOutcome {
    metrics: MetricValues,
    outstanding: Series,
    cut_short: bool,
    sum: u64,
    failed: u64,
    max_outstanding: Option<u64>,
}

/// One iteration: a fresh device and counters, the memory baseline, the run bracketed by the probe.
fn iteration(contestant: Contestant, prepared: &Prepared, spec: &TrialSpec) -> Result<IterationOutcome, RunError> {
    let call = Call::start(contestant.timer(), spec.service).map_err(RunError::Broken)?;
    let gauge = Arc::new(Outstanding::new());
    let limit = spec.limit as u64;
    let mut counters = Shared::new(Arc::clone(&gauge));
    if spec.items > limit.saturating_mul(2) {
        // The steady window: from the end of the first round of calls to the start of the last.
        counters = counters.marking(limit, spec.items - limit);
    }
    let shared = Arc::new(counters);
    let job = Job {
        items: spec.items,
        limit: spec.limit,
        call,
        deadline: Deadline::new(spec.budget),
        shared: Arc::clone(&shared),
    };
    let baseline_rss_kib = measure::memory::rss_kib();
    let baseline_heap = measure::alloc::snapshot().live_bytes;
    let asked = Instant::now();
    let mut started: Option<(Probe, Duration)> = None;
    let ran = prepared.run(&job, &mut || {
        let spawn = asked.elapsed();
        let probe = Probe::start_with_threshold(Arc::clone(&gauge), spec.heap_threshold);
        started = Some((probe, spawn));
    });
    let totals = shared.outcome();
    let measured = started.map(|(probe, spawn)| (probe.finish(totals.completed), spawn));
    let timer_cpu = job.call.device().map(|d| d.timer_cpu());
    if let Some(device) = job.call.device() {
        device.shutdown();
    }
    ran?;
    let (measurement, spawn) =
        measured.ok_or_else(|| RunError::Broken("the contestant never started its run".to_string()))?;
    let cut_short = totals.completed + totals.failed < spec.items;
    let mut metrics = metrics(&measurement, spec, totals.completed, totals.steady());
    metrics.insert("spawn_ms".to_string(), spawn.as_secs_f64() * 1e3);
    metrics.insert("cut_short".to_string(), if cut_short { 1.0 } else { 0.0 });
    metrics.insert("completed_fraction".to_string(), totals.completed as f64 / spec.items.max(1) as f64);
    if let (Some(cpu), true) = (timer_cpu, totals.completed > 0) {
        metrics.insert("dependency_cpu_us_per_call".to_string(), cpu.as_secs_f64() * 1e6 / totals.completed as f64);
    }
    if let Some(reading) = measurement.threshold {
        let outstanding = reading.outstanding.max(1) as f64;
        // Starting the probe (its sampler's buffer and thread) came after the baseline: take it out.
        let heap = reading.live_heap_bytes.saturating_sub(baseline_heap).saturating_sub(measurement.setup.heap_bytes);
        if measure::alloc::is_counting() {
            metrics.insert("live_heap_bytes_per_call".to_string(), heap as f64 / outstanding);
        }
        if let (Some(now), Some(base)) = (reading.rss_kib, baseline_rss_kib) {
            let kib = now.saturating_sub(base).saturating_sub(measurement.setup.rss_kib);
            metrics.insert("rss_bytes_per_call".to_string(), kib as f64 * 1024.0 / outstanding);
        }
        metrics.insert("memory_read_at_ms".to_string(), reading.at_ms);
    }
    Ok(IterationOutcome {
        metrics,
        outstanding: measurement.outstanding_series.clone(),
        cut_short,
        sum: totals.sum,
        failed: totals.failed,
        max_outstanding: measurement.max_outstanding,
    })
}

/// The contract's per-call metrics from the probe's measurement over `completed` calls.
/// `ops_per_sec` and `cpu_us_per_call` are over the steady window (`steady`) where the run had one, else over
/// the whole timed run; `ops_per_sec_whole_run` and `cpu_us_per_call_whole_run` always cover the whole timed
/// run, start and drain included; `steady_window` says which (1: steady window, 0: whole run).
fn metrics(measurement: &Measurement, spec: &TrialSpec, completed: u64, steady: Option<Steady>) -> MetricValues {
    let mut metrics = MetricValues::new();
    let probe = measurement.metrics();
    for name in ["wall_ms", "cores_used", "threads", "max_outstanding", "max_outstanding_sampled"] {
        if let Some(value) = probe.get(name) {
            metrics.insert(name.to_string(), *value);
        }
    }
    let wall_s = measurement.wall_ns as f64 / 1e9;
    if completed > 0 && wall_s > 0.0 {
        let whole = completed as f64 / wall_s;
        let ops = steady.map_or(whole, |s| s.ops_per_sec);
        metrics.insert("ops_per_sec".to_string(), ops);
        metrics.insert("ops_per_sec_whole_run".to_string(), whole);
        metrics.insert("steady_window".to_string(), if steady.is_some() { 1.0 } else { 0.0 });
        if let Some(ideal) = spec.ideal_ops_per_sec {
            metrics.insert("ideal_fraction".to_string(), ops / ideal);
            metrics.insert("ideal_ops_per_sec".to_string(), ideal);
        }
        let whole_cpu = measurement.cpu_ns() as f64 / 1e3 / completed as f64;
        let cpu = steady.and_then(|s| s.cpu_us_per_call).unwrap_or(whole_cpu);
        metrics.insert("cpu_us_per_call".to_string(), cpu);
        metrics.insert("cpu_us_per_call_whole_run".to_string(), whole_cpu);
        metrics.insert("ctx_switches_per_call".to_string(), measurement.ctx_switches as f64 / completed as f64);
    }
    metrics
}
