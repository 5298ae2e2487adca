//! One trial of a device or backpressure contestant in its own process: the conformance checks at its
//! scenario's sizes ([`crate::checks::all`]), an idle call's real duration, then the harness's loop
//! ([`measure::harness::run`]) over a `DeviceRoutine`: every run against a fresh device and fresh counters,
//! every answer checked.
//!
//! Where each figure comes from:
//!
//! - **Timed iterations** (the contestant metering with [`measure::meter::NoMeter`], no sampler, allocation
//!   counting paused): `wall_ms`, `cores_used`, `ops_per_sec` and `cpu_us_per_call` (over the steady window),
//!   their `_whole_run` forms, `ideal_fraction`, `ctx_switches_per_call`, `spawn_ms`, `cut_short`,
//!   `completed_fraction`, `steady_window` and `dependency_cpu_us_per_call`, with `idle_call_ms` (measured once
//!   before the loop) and `ideal_ops_per_sec` beside them.
//! - **Accounting iterations** (the shared gauge, the 1 ms sampler, the allocation counters): `max_outstanding`,
//!   `max_outstanding_sampled`, `threads`, `sampler_cpu_ms`, the allocation and heap figures of the probe, the
//!   `outstanding` series, and memory per waiting call (`live_heap_bytes_per_call`, `rss_bytes_per_call`,
//!   `memory_read_at_ms`), and where a call's switches and CPU land by group of threads
//!   (`voluntary_switches_per_call`, `involuntary_switches_per_call`, `device_switches_per_call`,
//!   `worker_switches_per_call`, and for coroutines `may_timer_cpu_us_per_call` and `may_timer_switches_per_call`:
//!   [`crate::threads`]). Their clock readings are recorded too, prefixed `instrumented_` by the harness.
//!   An accounting iteration runs [`TrialSpec::accounting_items`] items, which a scenario may set below
//!   [`TrialSpec::items`] where no instrument reading depends on the run's length.
//!
//! The clocks start when the contestant says go (after any up-front threads are parked), so spawning is timed
//! apart (`spawn_ms`). Memory is read against a baseline taken before anything of the run exists (before
//! threads are spawned), so a waiting call's cost includes its thread where it has one; what starting the
//! probe itself added (the sampler's series buffer, about 1 MiB, read by the probe before its clocks start:
//! [`measure::probe::ProbeSetup`]) is taken out.

use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window, RUNS_CHECK};
use measure::meter::NoMeter;
use measure::probe::{bounded_outstanding_check, Measurement, Timing};
use measure::record::{MetricValues, Series, TrialRequest};
use measure::scenario::{measure_then_check, Repetitions, TrialError, TrialSink};
use measure::summary::Check;

use crate::call::{expected_sum, Call};
use crate::checks::{self, Sizes};
use crate::contestants::{Contestant, Prepared};
use crate::job::{Job, JobMeter, RunError, Shared, Steady, Totals};
use crate::threads::{self, Census};

/// Uncontended calls timed before the iterations, for `idle_call_ms`.
pub const IDLE_CALLS: u32 = 20;

/// One timed and one accounting iteration, no warm-up, in each of `forks` processes (one in a quick run): the
/// repetitions of both scenarios, whose iterations last seconds.
pub fn repetitions(quick: bool, forks: u32) -> Repetitions {
    Repetitions { forks: if quick { 1 } else { forks }, warmup: 0, iterations: 1, accounting: 1 }
}

/// How a scenario runs one contestant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialSpec {
    /// Items per timed iteration.
    pub items: u64,
    /// Items per accounting iteration: [`TrialSpec::items`], or fewer where no instrument reading depends on
    /// the run's length (a bounded contestant's high-water mark, its threads, its allocations per call).
    pub accounting_items: u64,
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

/// What every non-warm-up iteration showed, checked at the end of the trial.
#[derive(Debug, Default)]
struct Tally {
    runs: u32,
    cut_short: u32,
    failed_calls: u64,
    wrong_sums: Vec<String>,
    /// The highest exact high-water mark over the accounting iterations.
    max_outstanding: Option<u64>,
}

/// Run `contestant`'s trial under `spec`, reporting its iterations to `sink`, each accounting iteration with the
/// scenario's own figures of its `outstanding` series, then, in the first process of each contestant and phase,
/// its conformance checks (every check of [`checks::all`] at its scenario's `sizes`, the caller's cancel at the
/// point the run's seed picks).
pub fn run_trial(
    request: &TrialRequest,
    sink: &mut dyn TrialSink,
    contestant: Contestant,
    spec: &TrialSpec,
    sizes: Sizes,
    series_figures: fn(&Series) -> MetricValues,
) -> Result<(), TrialError> {
    let measure = |sink: &mut dyn TrialSink| {
        let prepared = match contestant.prepare() {
            Ok(prepared) => prepared,
            Err(e) => {
                sink.check(Check::new(RUNS_CHECK, false, format!("could not prepare: {e}")));
                return Ok(());
            }
        };
        let idle_ms = match idle_call_ms(contestant, &prepared, spec) {
            Ok(ms) => ms,
            Err(e) => {
                sink.check(Check::new(RUNS_CHECK, false, e.to_string()));
                return Ok(());
            }
        };
        // Which thread is `may`'s timer, found once before the loop (a coroutine sleeps a millisecond), for the
        // accounting iterations' census.
        let may_timer = matches!(contestant, Contestant::Coroutine { .. }).then(threads::may_timer_thread).flatten();
        let tally = Tally::default();
        let (spec, started) = (*spec, 0);
        let mut routine =
            DeviceRoutine { contestant, prepared, spec, idle_ms, may_timer, series_figures, started, tally };
        harness::run(&mut routine, request, sink);
        Ok(())
    };
    // The first process alone checks, so a run cancels at one point, seeded by the run's seed.
    measure_then_check(request, sink, measure, || checks::all(contestant, sizes, request.seed))
}

/// The median real duration of an uncontended call made the contestant's way, in milliseconds.
fn idle_call_ms(contestant: Contestant, prepared: &Prepared, spec: &TrialSpec) -> Result<f64, RunError> {
    let call = Call::start(contestant.timer(), spec.service)?;
    let job = Job::new(0, 1, call, Duration::ZERO, Arc::new(Shared::new(NoMeter)));
    let mut times = prepared.idle_calls(&job, IDLE_CALLS);
    job.call.shut_down();
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    Ok(median.as_secs_f64() * 1e3)
}

/// A prepared device or backpressure contestant as the harness runs it: a fresh device and counters per run,
/// the answers checked, the bound held over the accounting iterations.
#[derive(Debug)]
struct DeviceRoutine {
    contestant: Contestant,
    prepared: Prepared,
    spec: TrialSpec,
    idle_ms: f64,
    /// The thread id of `may`'s timer thread, for coroutine contestants.
    may_timer: Option<i32>,
    /// The scenario's own figures of an accounting iteration's `outstanding` series.
    series_figures: fn(&Series) -> MetricValues,
    /// Runs started so far (the harness's iteration index of the next run).
    started: u32,
    tally: Tally,
}

/// Live heap and resident set before anything of an accounting run existed.
#[derive(Debug, Clone, Copy)]
struct Baseline {
    heap_bytes: u64,
    rss_kib: Option<u64>,
}

/// What one run hands back.
#[derive(Debug)]
struct RunOutput {
    /// Items the run was asked for.
    items: u64,
    /// The counters at the end.
    totals: Totals,
    /// From asking the contestant to run to its `go`: starting its threads, where it has any.
    spawn: Duration,
    /// How the run called: the device to read and shut down once the clocks have stopped.
    call: Call,
    /// Memory before the run (accounting iterations only).
    baseline: Option<Baseline>,
    /// Switches and CPU per call by group of threads ([`Census::per_call_since`]; accounting iterations only).
    threads: MetricValues,
}

impl DeviceRoutine {
    /// One run of `items` items metered by `meter`: a fresh device and counters, the steady-window marks, the
    /// run, the device shut down.
    fn run_with<M: JobMeter>(&self, meter: M, items: u64, go: &mut dyn FnMut()) -> Result<RunOutput, RunError> {
        let spec = &self.spec;
        let call = Call::start(self.contestant.timer(), spec.service)?;
        let limit = spec.limit as u64;
        let mut counters = Shared::new(meter);
        if items > limit.saturating_mul(2) {
            // The steady window: from the end of the first round of calls to the start of the last.
            counters = counters.marking(limit, items - limit);
        }
        let shared = Arc::new(counters);
        let job = Job::new(items, spec.limit, call, spec.budget, shared);
        let baseline = M::COUNTS.then(|| Baseline {
            heap_bytes: measure::alloc::snapshot().live_bytes,
            rss_kib: measure::memory::rss_kib(),
        });
        // Accounting only: every thread's counters right before `go`.
        let may_timer = self.may_timer;
        let mut census = None;
        let asked = Instant::now();
        let mut spawn = None;
        let ran = self.prepared.run(&job, &mut || {
            spawn = Some(asked.elapsed());
            if M::COUNTS {
                census = Some(Census::take(may_timer));
            }
            go();
        });
        // The clocks are still running: read the counters and leave the rest (the device's timer CPU, its
        // shutdown) to `finish`.
        let totals = job.shared.outcome();
        let threads =
            census.map(|before| Census::take(may_timer).per_call_since(&before, totals.completed)).unwrap_or_default();
        if let Err(e) = ran {
            job.call.shut_down();
            return Err(e);
        }
        Ok(RunOutput { items, totals, spawn: spawn.unwrap_or_default(), call: job.call, baseline, threads })
    }

    /// Tally a non-warm-up run's answers.
    fn tally(&mut self, iteration: Iteration, output: &RunOutput, cut_short: bool) {
        let tally = &mut self.tally;
        tally.runs += 1;
        tally.failed_calls += output.totals.failed;
        if cut_short {
            tally.cut_short += 1;
        } else {
            let expected = expected_sum(output.items);
            if output.totals.sum != expected {
                tally
                    .wrong_sums
                    .push(format!("iteration {}: sum {} instead of {expected}", iteration.index, output.totals.sum));
            }
        }
    }
}

impl Routine for DeviceRoutine {
    type Output = RunOutput;

    fn memory_threshold(&self) -> Option<u64> {
        self.spec.heap_threshold
    }

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<RunOutput, Stop> {
        let index = self.started;
        self.started += 1;
        let ran = match instruments {
            Instruments::Timed => self.run_with(Instruments::NONE, self.spec.items, go),
            Instruments::Accounting(meter) => self.run_with(meter.clone(), self.spec.accounting_items, go),
        };
        ran.map_err(|e| match e {
            RunError::Skipped(reason) => Stop::Skipped(reason),
            RunError::Broken(problem) => Stop::failed(RUNS_CHECK, format!("iteration {index}: {problem}")),
        })
    }

    fn items(&self, output: &RunOutput) -> u64 {
        output.totals.completed
    }

    fn finish(&mut self, iteration: Iteration, output: RunOutput, window: Window<'_>) -> Result<IterationData, Stop> {
        let timer_cpu = output.call.device().map(|d| d.timer_cpu());
        output.call.shut_down();
        let cut_short = output.totals.completed + output.totals.failed < output.items;
        if !iteration.warmup {
            self.tally(iteration, &output, cut_short);
        }
        let mut data = IterationData {
            timing: timing_metrics(window.timing(), &self.spec, &output, timer_cpu, cut_short),
            ..IterationData::default()
        };
        match window.accounting() {
            None => {
                data.timing.insert("idle_call_ms".to_string(), self.idle_ms);
                if let Some(ideal) = self.spec.ideal_ops_per_sec {
                    data.timing.insert("ideal_ops_per_sec".to_string(), ideal);
                }
            }
            Some(measurement) => {
                if let Some(max) = measurement.max_outstanding {
                    self.tally.max_outstanding = Some(self.tally.max_outstanding.map_or(max, |m| m.max(max)));
                }
                data.instruments = instrument_metrics(measurement, output.baseline);
                data.instruments.extend(output.threads.clone());
                data.instruments.extend((self.series_figures)(&measurement.outstanding_series));
                data.series.insert("outstanding".to_string(), measurement.outstanding_series.clone());
            }
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let tally = &self.tally;
        let clean = tally.wrong_sums.is_empty() && tally.failed_calls == 0;
        let items = if self.spec.accounting_items == self.spec.items {
            format!("all {} items", self.spec.items)
        } else {
            format!("all {} items ({} in an accounting iteration)", self.spec.items, self.spec.accounting_items)
        };
        let (whole, budget) = (tally.runs - tally.cut_short, self.spec.budget.as_secs_f64());
        let mut checks = vec![if clean && tally.runs > 0 && whole == 0 {
            // A cut-short iteration's sum covers only the calls answered: there was no full sum to check.
            let detail = format!("every one of {} iterations was cut short by the {budget:.1} s budget", tally.runs);
            Check::not_applicable("measured_sum_exact", detail)
        } else if clean {
            let detail = format!(
                "{whole} of {} iterations ({measured} timed, {accounted} accounting) ran {items} with the exact sum; {} \
                 were cut short by the {budget:.1} s budget (their sum covers only the calls answered); no call failed",
                tally.runs, tally.cut_short,
            );
            Check::new("measured_sum_exact", true, detail)
        } else {
            let detail = format!("{} failed calls; {}", tally.failed_calls, tally.wrong_sums.join("; "));
            Check::new("measured_sum_exact", false, detail)
        }];
        if self.contestant.bounded() {
            // The contract's tolerance: the bound plus one call in hand.
            checks.push(bounded_outstanding_check(
                tally.max_outstanding,
                self.spec.limit as u64 + 1,
                accounted,
                "calls",
            ));
        }
        checks
    }
}

/// The clocks' per-call metrics over `output.totals.completed` calls.
/// `ops_per_sec` and `cpu_us_per_call` are over the steady window where the run had one, else over the whole
/// run; `ops_per_sec_whole_run` and `cpu_us_per_call_whole_run` always cover the whole run, start and drain
/// included; `steady_window` says which (1: steady window, 0: whole run).
fn timing_metrics(
    timing: &Timing,
    spec: &TrialSpec,
    output: &RunOutput,
    timer_cpu: Option<Duration>,
    cut_short: bool,
) -> MetricValues {
    let completed = output.totals.completed;
    let steady: Option<Steady> = output.totals.steady();
    let clocks = timing.metrics();
    let mut metrics = MetricValues::new();
    for name in ["wall_ms", "cores_used"] {
        if let Some(value) = clocks.get(name) {
            metrics.insert(name.to_string(), *value);
        }
    }
    let wall_s = timing.wall_secs();
    if completed > 0 && wall_s > 0.0 {
        let whole = completed as f64 / wall_s;
        let ops = steady.map_or(whole, |s| s.ops_per_sec);
        metrics.insert("ops_per_sec".to_string(), ops);
        metrics.insert("ops_per_sec_whole_run".to_string(), whole);
        metrics.insert("steady_window".to_string(), if steady.is_some() { 1.0 } else { 0.0 });
        if let Some(ideal) = spec.ideal_ops_per_sec {
            metrics.insert("ideal_fraction".to_string(), ops / ideal);
        }
        let whole_cpu = timing.cpu_ns() as f64 / 1e3 / completed as f64;
        let cpu = steady.and_then(|s| s.cpu_us_per_call).unwrap_or(whole_cpu);
        metrics.insert("cpu_us_per_call".to_string(), cpu);
        metrics.insert("cpu_us_per_call_whole_run".to_string(), whole_cpu);
        metrics.insert("ctx_switches_per_call".to_string(), timing.ctx_switches as f64 / completed as f64);
    }
    metrics.insert("spawn_ms".to_string(), output.spawn.as_secs_f64() * 1e3);
    metrics.insert("cut_short".to_string(), if cut_short { 1.0 } else { 0.0 });
    metrics.insert("completed_fraction".to_string(), completed as f64 / output.items.max(1) as f64);
    if let (Some(cpu), true) = (timer_cpu, completed > 0) {
        metrics.insert("dependency_cpu_us_per_call".to_string(), cpu.as_secs_f64() * 1e6 / completed as f64);
    }
    metrics
}

/// The instruments' readings of an accounting run: the probe's ([`Measurement::metrics`]) and memory per
/// waiting call at the threshold reading, against the memory before the run.
fn instrument_metrics(measurement: &Measurement, baseline: Option<Baseline>) -> MetricValues {
    let mut metrics = measurement.metrics();
    if let (Some(reading), Some(baseline)) = (&measurement.threshold, baseline) {
        let outstanding = reading.outstanding.max(1) as f64;
        // Starting the probe (its sampler's buffer and thread) came after the baseline: take it out.
        let heap =
            reading.live_heap_bytes.saturating_sub(baseline.heap_bytes).saturating_sub(measurement.setup.heap_bytes);
        if measure::alloc::is_counting() {
            metrics.insert("live_heap_bytes_per_call".to_string(), heap as f64 / outstanding);
        }
        if let (Some(now), Some(base)) = (reading.rss_kib, baseline.rss_kib) {
            let kib = now.saturating_sub(base).saturating_sub(measurement.setup.rss_kib);
            metrics.insert("rss_bytes_per_call".to_string(), kib as f64 * 1024.0 / outstanding);
        }
        metrics.insert("memory_read_at_ms".to_string(), reading.at_ms);
    }
    metrics
}

/// A quick request of two iterations of no contestant in the device scenario, without parameters, for tests.
#[cfg(test)]
pub(crate) fn test_request() -> TrialRequest {
    TrialRequest {
        scenario: "device".to_string(),
        contestant: String::new(),
        phase: None,
        params: std::collections::BTreeMap::new(),
        fork: 0,
        warmup: 0,
        iterations: 2,
        seed: 0,
        quick: true,
        accounting: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestants::{BlockingShape, StreamShape, Timer};

    /// Everything a trial reports.
    type Collect = measure::scenario::CollectingSink;

    /// Run `contestant` through the harness under `spec`.
    fn trial_under(contestant: Contestant, spec: TrialSpec) -> Collect {
        let prepared = contestant.prepare().expect("prepared");
        let tally = Tally::default();
        let mut routine = DeviceRoutine {
            contestant,
            prepared,
            spec,
            idle_ms: 1.0,
            may_timer: None,
            series_figures: |_| MetricValues::new(),
            started: 0,
            tally,
        };
        let mut sink = Collect::default();
        harness::run(&mut routine, &test_request(), &mut sink);
        sink
    }

    /// Run `contestant` through the harness over 400 items (200 on the accounting run), 1 ms calls, bound 16.
    /// The accounting run lasts about 12 ms at 16 in flight, so the 1 ms sampler gets many chances to take the
    /// memory reading at 8 outstanding on a loaded machine (with 40 items the run lasted 3 ms, and a sampler
    /// thread scheduled late under load once missed it).
    fn trial(contestant: Contestant) -> Collect {
        let spec = TrialSpec {
            items: 400,
            accounting_items: 200,
            limit: 16,
            service: Duration::from_millis(1),
            budget: Duration::from_secs(20),
            ideal_ops_per_sec: Some(16_000.0),
            heap_threshold: Some(8),
        };
        trial_under(contestant, spec)
    }

    #[test]
    fn timed_runs_carry_clock_figures_and_the_accounting_run_the_instruments() {
        for contestant in [
            Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device },
            Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Device },
        ] {
            let name = contestant.name();
            let sink = trial(contestant);
            assert_eq!(sink.skipped, None, "{name}");
            assert!(sink.checks.iter().all(|c| c.passed), "{name}: {:?}", sink.checks);
            let names: Vec<&str> = sink.checks.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, ["measured_sum_exact", "bounded_outstanding"], "{name}");
            assert!(sink.checks[0].detail.contains("3 of 3 iterations"), "{name}: {}", sink.checks[0].detail);
            assert_eq!(sink.iterations.len(), 3, "{name}");
            for timed in &sink.iterations[..2] {
                assert!(!timed.accounting);
                for metric in ["ops_per_sec", "cpu_us_per_call", "spawn_ms", "idle_call_ms", "completed_fraction"] {
                    assert!(timed.metrics.contains_key(metric), "{name}: a timed run has `{metric}`");
                }
                for instrument in [
                    "max_outstanding",
                    "max_outstanding_sampled",
                    "threads",
                    "rss_bytes_per_call",
                    "voluntary_switches_per_call",
                ] {
                    assert!(!timed.metrics.contains_key(instrument), "{name}: a timed run has no `{instrument}`");
                }
                assert_eq!(timed.metrics["completed_fraction"], 1.0, "{name}");
            }
            let accounting = &sink.iterations[2];
            assert!(accounting.accounting);
            let max = accounting.metrics["max_outstanding"];
            assert!((1.0..=17.0).contains(&max), "{name}: bound 16 + 1, got {max}");
            assert!(accounting.metrics["threads"] >= 2.0, "{name}");
            assert!(accounting.metrics.contains_key("memory_read_at_ms"), "{name}: memory is read at 8 outstanding");
            for split in ["voluntary_switches_per_call", "involuntary_switches_per_call", "device_switches_per_call"] {
                assert!(accounting.metrics.contains_key(split), "{name}: the accounting run has `{split}`");
            }
            assert!(accounting.metrics.contains_key("instrumented_ops_per_sec"), "{name}");
            assert!(!accounting.metrics.contains_key("ops_per_sec"), "{name}: no timing figure from accounting");
            assert!(accounting.series.contains_key("outstanding"), "{name}");
            assert!(sink.iterations[..2].iter().all(|i| i.series.is_empty()), "{name}: the series is accounting's");
        }
    }

    #[test]
    fn a_pool_the_machine_cannot_make_is_skipped_with_the_reason() {
        let contestant = Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Own };
        let spec = TrialSpec {
            items: 10,
            accounting_items: 10,
            limit: crate::checks::TOO_MANY_THREADS,
            service: Duration::from_millis(1),
            budget: Duration::from_secs(5),
            ideal_ops_per_sec: None,
            heap_threshold: None,
        };
        let sink = trial_under(contestant, spec);
        let reason = sink.skipped.expect("skipped");
        assert!(reason.contains("do not fit") || reason.contains("refused"), "{reason}");
        assert!(sink.iterations.is_empty() && sink.checks.is_empty());
    }
}
