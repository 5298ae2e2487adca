//! One trial of the overload scenario in its own process: conformance checks, the idle call's latency, then
//! warm-ups and measured iterations, each against a fresh dependency and a fresh gate.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use dependency::{Dependency, Timeline};
use measure::gauge::Outstanding;
use measure::probe::{Measurement, Probe};
use measure::record::{IterationRecord, Mark, MetricValues, Series, TrialRequest};
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;

use crate::analysis::{self, RunAnalysis, AFTER_DROP};
use crate::config::{OverloadConfig, IDLE_CALLS, WINDOW};
use crate::conformance;
use crate::contestants::{Contestant, Job, Prepared};
use crate::ledger::Ledger;
use crate::limit::{self, Gate};

/// What every measured iteration must have shown; each becomes a check at the end of the trial.
#[derive(Debug, Default)]
struct Invariants {
    iterations: u32,
    over_capacity_starts: u64,
    over_limit_admissions: u64,
    max_in_service: usize,
    unexpected_errors: u64,
}

pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let config = OverloadConfig::from_request(request)?;
    let contestant = Contestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;

    for check in conformance::all(contestant) {
        sink.check(check);
    }
    let prepared = match contestant.prepare(&config) {
        Ok(prepared) => prepared,
        Err(err) => {
            sink.check(Check::new("exactly_once", false, format!("could not prepare: {err}")));
            return Ok(());
        }
    };
    let idle = match idle_metrics(prepared.as_ref(), &config) {
        Ok(idle) => idle,
        Err(err) => {
            // An idle call that fails is a broken contestant, not a limit of the machine: it fails, never skips.
            sink.check(Check::new("idle_call", false, err));
            return Ok(());
        }
    };

    let mut invariants = Invariants::default();
    let mut first_measured = true;
    for index in 0..request.warmup + request.iterations {
        let warmup = index < request.warmup;
        let outcome = match iteration(contestant, prepared.as_ref(), &config) {
            Ok(outcome) => outcome,
            Err(err) => {
                sink.check(Check::new("exactly_once", false, format!("iteration {index}: {err}")));
                return Ok(());
            }
        };
        invariants.iterations += 1;
        invariants.over_capacity_starts += outcome.over_capacity_starts;
        invariants.over_limit_admissions += outcome.over_limit_admissions;
        invariants.max_in_service = invariants.max_in_service.max(outcome.max_in_service);
        if config.queue_limit.is_none() {
            invariants.unexpected_errors += outcome.errors;
        }
        let mut metrics = outcome.metrics;
        metrics.extend(idle.clone());
        let mut series = BTreeMap::new();
        if !warmup && first_measured {
            series = outcome.series;
            first_measured = false;
        }
        sink.iteration(IterationRecord { index, warmup, metrics, series });
    }

    let n = invariants.iterations;
    sink.check(Check::new(
        "exactly_once",
        true,
        format!("{n} iterations of {} calls: every call completed once with the right answer", config.calls),
    ));
    sink.check(Check::new(
        "dependency_within_capacity",
        invariants.over_capacity_starts == 0,
        format!(
            "{} service starts at or above capacity over {n} iterations; most in service at once {} (capacity {} \
             then {})",
            invariants.over_capacity_starts, invariants.max_in_service, config.capacity, config.capacity_after
        ),
    ));
    if contestant.limiter().is_some() {
        sink.check(Check::new(
            "within_limit",
            invariants.over_limit_admissions == 0,
            format!(
                "{} admissions above the gate's limit at the time over {n} iterations",
                invariants.over_limit_admissions
            ),
        ));
    }
    if config.queue_limit.is_none() {
        sink.check(Check::new(
            "no_errors",
            invariants.unexpected_errors == 0,
            format!("{} failed calls without a queue limit (expected none)", invariants.unexpected_errors),
        ));
    }
    Ok(())
}

/// What one iteration produced.
#[derive(Debug)]
struct IterationOutcome {
    metrics: MetricValues,
    series: BTreeMap<String, Series>,
    over_capacity_starts: u64,
    over_limit_admissions: u64,
    max_in_service: usize,
    errors: u64,
}

/// One iteration: a fresh dependency, ledger and gate; the contestant's run bracketed by the probe; the records
/// verified and analysed.
fn iteration(
    contestant: Contestant,
    prepared: &dyn Prepared,
    config: &OverloadConfig,
) -> Result<IterationOutcome, String> {
    let dependency = Dependency::start(config.dependency()).map_err(|e| format!("cannot start the dependency: {e}"))?;
    // Created right after the dependency, so the ledger's and the dependency's windows line up (to microseconds).
    let ledger = Ledger::new(config.calls);
    // Room for a limit change per call, so the history never reallocates inside the timed window.
    let history = usize::try_from(config.calls).unwrap_or(usize::MAX).saturating_add(1);
    let gate = contestant
        .limiter()
        .map(|kind| Arc::new(Gate::with_history_capacity(limit::build(kind, &config.limits), history)));
    let job = Job { dependency: &dependency, ledger: &ledger, calls: config.calls, gate: gate.clone() };

    let gauge = Arc::new(Outstanding::new());
    let mut probe: Option<Probe> = None;
    let mut timer_cpu_at_go = Duration::ZERO;
    let ran = prepared.run(&job, &mut || {
        timer_cpu_at_go = dependency.timer_cpu();
        probe = Some(Probe::start(Arc::clone(&gauge)));
    });
    let measurement = probe.map(|p| p.finish(config.calls));
    let timer_cpu = dependency.timer_cpu().saturating_sub(timer_cpu_at_go);
    ran?;
    let measurement = measurement.ok_or("the contestant never started its calls")?;
    ledger.verify()?;

    let stats = dependency.stats();
    let timeline = dependency.timeline();
    dependency.shutdown();
    let drop_us = stats.capacity_changed_at.map(|at| ledger.offset_us(at));
    let analysis = analysis::analyse(&ledger.records(), drop_us, duration_us(WINDOW));

    let mut metrics = analysis.metrics.clone();
    put_probe_metrics(&mut metrics, &measurement, timer_cpu, config.calls);
    let mut series: BTreeMap<String, Series> = analysis.series.iter().cloned().collect();
    let marks = series.get("outstanding").map(|s| s.marks.clone()).unwrap_or_default();
    put_dependency_series(&mut series, &timeline, &analysis, &marks);
    if let Some(gate) = &gate {
        put_limit(&mut metrics, &mut series, gate, &analysis, drop_us, &marks);
    }
    Ok(IterationOutcome {
        metrics,
        series,
        over_capacity_starts: stats.over_capacity_starts,
        over_limit_admissions: gate.as_ref().map_or(0, |g| g.over_limit_admissions()),
        max_in_service: stats.max_in_service,
        errors: analysis.failed,
    })
}

fn duration_us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Wall time, CPU and threads from the probe. `cpu_us_per_call` is the whole process's CPU (less the sampler's)
/// per call, the dependency's timer threads included: they do the dependency's bookkeeping *and* wake each
/// waiting caller, and waking a parked thread costs far more than waking a task, so that share belongs to the
/// style. It is also given apart (`dependency_cpu_us_per_call`) beside the callers' own threads
/// (`caller_cpu_us_per_call`).
fn put_probe_metrics(metrics: &mut MetricValues, m: &Measurement, timer_cpu: Duration, calls: u64) {
    let probe = m.metrics();
    for key in ["wall_ms", "threads", "sampler_cpu_ms", "ctx_switches_per_item", "allocs_per_item", "heap_peak_mib"] {
        if let Some(&v) = probe.get(key) {
            metrics.insert(key.to_string(), v);
        }
    }
    let timer_ns = u64::try_from(timer_cpu.as_nanos()).unwrap_or(u64::MAX);
    let total_ns = m.cpu_ns();
    let calls = calls.max(1) as f64;
    metrics.insert("cpu_us_per_call".to_string(), total_ns as f64 / 1e3 / calls);
    metrics.insert("dependency_cpu_us_per_call".to_string(), timer_ns as f64 / 1e3 / calls);
    metrics.insert("caller_cpu_us_per_call".to_string(), total_ns.saturating_sub(timer_ns) as f64 / 1e3 / calls);
    if m.wall_ns > 0 {
        metrics.insert("cores_used".to_string(), total_ns as f64 / m.wall_ns as f64);
    }
}

/// The dependency's own per-window view: calls in service, queued, and its capacity, aligned with the ledger's
/// windows.
fn put_dependency_series(series: &mut BTreeMap<String, Series>, timeline: &Timeline, a: &RunAnalysis, marks: &[Mark]) {
    let period_ms = timeline.window.as_secs_f64() * 1e3;
    let skip = usize::try_from(a.first_window).unwrap_or(usize::MAX);
    let windows = || timeline.windows.iter().skip(skip);
    let named: [(&str, Vec<f64>); 3] = [
        ("in_service", windows().map(|w| w.max_in_service as f64).collect()),
        ("queued", windows().map(|w| w.max_queued as f64).collect()),
        ("capacity", windows().map(|w| w.capacity as f64).collect()),
    ];
    for (name, values) in named {
        let mut s = Series::new(period_ms, values);
        s.marks = marks.to_vec();
        series.insert(name.to_string(), s);
    }
}

/// The gate's limit per window (the limit in force at the window's end) and after-drop summaries of it.
fn put_limit(
    metrics: &mut MetricValues,
    series: &mut BTreeMap<String, Series>,
    gate: &Gate,
    a: &RunAnalysis,
    drop_us: Option<u64>,
    marks: &[Mark],
) {
    let window_us = duration_us(WINDOW);
    let history = gate.limit_history();
    // The gate was created right after the ledger: its clock and the ledger's agree to microseconds.
    let points: Vec<(u64, usize)> = history.iter().map(|(since, limit)| (duration_us(*since), *limit)).collect();
    let end_us = a.end_us;
    // The history is in time order: the limit in force at `t` is the last change at or before it.
    let limit_at = |t: u64| match points.partition_point(|(at, _)| *at <= t) {
        0 => 0,
        n => points[n - 1].1,
    };
    let first = a.first_window;
    let last = end_us / window_us;
    let values: Vec<f64> = (first..=last).map(|w| limit_at((w + 1) * window_us - 1) as f64).collect();
    let mut s = Series::new(WINDOW.as_secs_f64() * 1e3, values);
    s.marks = marks.to_vec();
    series.insert("limit".to_string(), s);
    metrics.insert("limit_at_end".to_string(), limit_at(end_us) as f64);
    if let Some(drop) = drop_us {
        metrics.insert("limit_at_drop".to_string(), limit_at(drop) as f64);
        // Time-weighted mean of the limit over the after-drop phase.
        let mut weighted = 0.0;
        let mut t = drop;
        let mut current = limit_at(drop);
        for &(at, limit) in points.iter().filter(|(at, _)| *at > drop && *at <= end_us) {
            weighted += current as f64 * (at - t) as f64;
            t = at;
            current = limit;
        }
        weighted += current as f64 * end_us.saturating_sub(t) as f64;
        if end_us > drop {
            metrics.insert(format!("{AFTER_DROP}.limit_mean"), weighted / (end_us - drop) as f64);
        }
    }
    metrics.insert("max_in_flight".to_string(), gate.max_in_flight() as f64);
}

/// The latency of a call on an idle dependency (same service time, no load), waited for the way the contestant
/// waits: `idle_call_us` (median) and `idle_overshoot_us` (median beyond the service time).
fn idle_metrics(prepared: &dyn Prepared, config: &OverloadConfig) -> Result<MetricValues, String> {
    let dependency = Dependency::start(dependency::Config {
        capacity: config.capacity,
        service: config.service,
        ..dependency::Config::default()
    })
    .map_err(|e| format!("cannot start the dependency: {e}"))?;
    let mut latencies = prepared.idle_latencies(&dependency, IDLE_CALLS);
    dependency.shutdown();
    latencies.sort_unstable();
    let median = latencies.get(latencies.len() / 2).copied().unwrap_or_default();
    let mut metrics = MetricValues::new();
    metrics.insert("idle_call_us".to_string(), median.as_secs_f64() * 1e6);
    metrics.insert("idle_overshoot_us".to_string(), median.saturating_sub(config.service).as_secs_f64() * 1e6);
    Ok(metrics)
}
