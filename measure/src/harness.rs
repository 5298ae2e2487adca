//! The one measurement loop every scenario's trial runs: warm-ups and timed iterations with no instrument on the
//! contestant's path, then accounting iterations with every instrument on, each verified as it ends.
//!
//! A scenario does not write a loop. It hands [`run`] a [`Routine`]: how to run its contestant once (given the
//! [`Instruments`] of the iteration, and a `go` to call once everything is set up), how many items a run
//! processed, how to verify a run and turn it into metrics, and the checks to report at the end. The harness
//! owns the order and the clocks:
//!
//! 1. the peak resident set is reset ([`crate::memory::reset_peak_rss`]) and held when the loop ends
//!    ([`crate::memory::hold_measured_peak`]), so `peak_rss_mib` describes the measured and accounting iterations,
//!    not the set-up before them nor the conformance checks after them in the first process;
//! 2. `warmup + iterations` **timed** iterations: [`Instruments::Timed`] (the contestant meters with
//!    [`NoMeter`], which compiles away), a [`Stopwatch`] started at `go` (allocation counting paused), no sampler;
//! 3. `accounting` **accounting** iterations: [`Instruments::Accounting`] with the shared gauge, the full
//!    [`Probe`] started at `go` (sampler, gauge, allocation counters). Their instrument readings keep their
//!    contract names; their clock readings are recorded with the [`INSTRUMENTED_PREFIX`], so a report can show
//!    what the instruments cost beside the timed figures without ever mistaking one for the other;
//! 4. the routine's closing checks.
//!
//! Series are kept from the first measured iteration of each kind only (the raw file stays small). A run that
//! fails or is skipped ends the trial with that check or reason; nothing after it runs.
//!
//! Every timed iteration is watched by the busy-machine guard ([`crate::busy`]): the machine's CPU and the
//! trial's own are read right before the stopwatch starts and right after it stops, and an iteration in which
//! other processes used more than [`crate::busy::OTHERS_CORE_SHARE`] of a core is *disturbed*. A disturbed
//! measured iteration is run again, up to [`crate::busy::MAX_RERUNS`] times; the run that is kept records how
//! many were discarded (`reruns`) and, when it is still disturbed after them, says so (`disturbed`). Warm-ups are
//! judged and recorded, never re-run; accounting iterations are not judged (no timing figure comes from them).
//! A `--quick` smoke run judges and flags but re-runs nothing: its numbers are not for conclusions anyway.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::busy::{CpuSource, Disturbance, ProcStat, MAX_RERUNS};
use crate::check::Check;
use crate::gauge::Outstanding;
use crate::memory;
use crate::meter::{GaugeMeter, NoMeter};
use crate::probe::{Measurement, Probe, Stopwatch, Timing};
use crate::record::{IterationRecord, MetricValues, Series, TrialRequest};
use crate::scenario::TrialSink;

/// Prefix of the clock readings of accounting iterations (`instrumented_ms_per_million`): the same metric as the
/// timed one, taken with every instrument on.
pub const INSTRUMENTED_PREFIX: &str = "instrumented_";

/// The check a run fails when it returns without ever calling `go`.
pub const RUNS_CHECK: &str = "runs";

/// What an iteration measures with, handed to [`Routine::run`].
#[derive(Debug, Clone)]
pub enum Instruments {
    /// A timed iteration: meter with [`NoMeter`]; nothing of the lab's runs beside the contestant.
    Timed,
    /// An accounting iteration: meter with this [`GaugeMeter`], which the sampler reads.
    Accounting(GaugeMeter),
}

impl Instruments {
    /// The meter of a timed iteration (the same for every timed iteration).
    pub const NONE: NoMeter = NoMeter;

    /// Whether this is a timed iteration.
    pub fn is_timed(&self) -> bool {
        matches!(self, Instruments::Timed)
    }
}

/// Which iteration of the trial this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iteration {
    /// Index among the trial's iterations: warm-ups, then timed, then accounting, counting from 0.
    pub index: u32,
    /// A warm-up (timed, discarded by statistics).
    pub warmup: bool,
    /// An accounting iteration.
    pub accounting: bool,
}

impl Iteration {
    /// A timed iteration that statistics keep.
    pub fn is_measured(&self) -> bool {
        !self.warmup && !self.accounting
    }
}

/// What the clocks (and, in an accounting iteration, the instruments) read over one run.
#[derive(Debug, Clone, Copy)]
pub enum Window<'a> {
    /// A timed iteration's clocks.
    Timed(&'a Timing),
    /// An accounting iteration's clocks and instruments.
    Accounting(&'a Measurement),
}

impl Window<'_> {
    /// The clocks' readings (in an accounting iteration, with the instruments' cost in them).
    pub fn timing(&self) -> &Timing {
        match self {
            Window::Timed(timing) => timing,
            Window::Accounting(measurement) => &measurement.timing,
        }
    }

    /// The instruments' readings, in an accounting iteration.
    pub fn accounting(&self) -> Option<&Measurement> {
        match self {
            Window::Timed(_) => None,
            Window::Accounting(measurement) => Some(measurement),
        }
    }
}

/// What one verified run adds to the raw record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IterationData {
    /// Clock-derived metrics (`wall_ms`, `ms_per_million`, `ops_per_sec`, latencies, CPU).
    pub timing: MetricValues,
    /// Instrument readings (`max_outstanding`, `allocs_per_item`, memory per waiting unit); recorded only from
    /// accounting iterations.
    pub instruments: MetricValues,
    /// Time series for charts, by name.
    pub series: BTreeMap<String, Series>,
}

/// What the busy-machine guard found about the iteration that was kept.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Guard {
    /// Other processes' CPU over the kept run, in cores; `None` when not judged.
    others_cores: Option<f64>,
    /// The kept run was disturbed.
    disturbed: bool,
    /// Disturbed runs discarded before it.
    reruns: u32,
}

impl IterationData {
    /// The timing metrics of `window` ([`Timing::metrics`]) and, in an accounting iteration, its instrument
    /// readings ([`Measurement::metrics`]); no series.
    pub fn from_window(window: Window<'_>) -> IterationData {
        IterationData {
            timing: window.timing().metrics(),
            instruments: window.accounting().map(Measurement::metrics).unwrap_or_default(),
            series: BTreeMap::new(),
        }
    }

    fn into_record(self, iteration: Iteration, guard: Guard) -> IterationRecord {
        let metrics = if iteration.accounting {
            let mut metrics = self.instruments;
            metrics
                .extend(self.timing.into_iter().map(|(name, value)| (format!("{INSTRUMENTED_PREFIX}{name}"), value)));
            metrics
        } else {
            self.timing
        };
        IterationRecord {
            index: iteration.index,
            warmup: iteration.warmup,
            accounting: iteration.accounting,
            metrics,
            series: self.series,
            disturbed: guard.disturbed,
            reruns: guard.reruns,
            others_cores: guard.others_cores,
        }
    }
}

/// Why a trial ends early.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The machine cannot run it; the reason is what the OS or library said.
    Skipped(String),
    /// It failed this check.
    Failed(Check),
}

impl Stop {
    /// A failed check named `name` with `detail`.
    pub fn failed(name: &str, detail: impl Into<String>) -> Stop {
        Stop::Failed(Check::new(name, false, detail))
    }
}

/// One contestant of one scenario, prepared in its trial process, as the harness runs it.
pub trait Routine {
    /// What one run hands back to be verified.
    type Output;

    /// Read live heap and resident memory at the first sample of an accounting iteration where outstanding work
    /// reaches this level ([`crate::probe::Measurement::threshold`]); `None` reads nothing.
    fn memory_threshold(&self) -> Option<u64> {
        None
    }

    /// Run the contestant once, metering with what `instruments` says, and call `go` exactly once when
    /// everything that is not the work is ready (runtimes built, threads spawned and parked, inputs made), right
    /// before the work starts. Every thread and task the run started must have ended when it returns.
    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<Self::Output, Stop>;

    /// Items (or calls) the run processed: the divisor of every per-item metric.
    fn items(&self, output: &Self::Output) -> u64;

    /// Verify the run and turn it and what the window read into the iteration's metrics and series.
    fn finish(&mut self, iteration: Iteration, output: Self::Output, window: Window<'_>)
        -> Result<IterationData, Stop>;

    /// The checks that close the trial, after `measured` timed and `accounted` accounting iterations all passed
    /// [`Routine::finish`].
    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check>;
}

/// Run `request`'s warm-ups, timed and accounting iterations of `routine`, reporting each iteration and the
/// closing checks to `sink`.
pub fn run<R: Routine>(routine: &mut R, request: &TrialRequest, sink: &mut dyn TrialSink) {
    run_with(routine, request, sink, &mut ProcStat);
}

/// [`run`], with the busy-machine guard reading its CPU figures from `source` (fake values in tests).
pub fn run_with<R: Routine>(
    routine: &mut R,
    request: &TrialRequest,
    sink: &mut dyn TrialSink,
    source: &mut dyn CpuSource,
) {
    memory::reset_peak_rss();
    let gauge = Arc::new(Outstanding::new());
    let timed = request.warmup + request.iterations;
    let mut series_kept = [false; 2];
    for index in 0..timed + request.accounting {
        let iteration = Iteration { index, warmup: index < request.warmup, accounting: index >= timed };
        let data = if iteration.accounting {
            accounting_iteration(routine, iteration, &gauge).map(|data| (data, Guard::default()))
        } else {
            let reruns = if request.quick { 0 } else { MAX_RERUNS };
            guarded_iteration(routine, iteration, source, reruns)
        };
        match data {
            Ok((mut data, guard)) => {
                let kind = usize::from(iteration.accounting);
                if iteration.warmup || series_kept[kind] {
                    data.series.clear();
                } else if !data.series.is_empty() {
                    series_kept[kind] = true;
                }
                sink.iteration(data.into_record(iteration, guard));
            }
            Err(Stop::Skipped(reason)) => {
                memory::hold_measured_peak();
                return sink.skipped(&reason);
            }
            Err(Stop::Failed(check)) => {
                memory::hold_measured_peak();
                return sink.check(check);
            }
        }
    }
    memory::hold_measured_peak();
    for check in routine.checks(request.iterations, request.accounting) {
        sink.check(check);
    }
}

/// A timed iteration under the busy-machine guard: a measured one that other processes disturbed is run again,
/// up to `max_reruns` times.
fn guarded_iteration<R: Routine>(
    routine: &mut R,
    iteration: Iteration,
    source: &mut dyn CpuSource,
    max_reruns: u32,
) -> Result<(IterationData, Guard), Stop> {
    let mut reruns = 0;
    loop {
        let (data, disturbance) = timed_iteration(routine, iteration, source)?;
        let disturbed = disturbance.is_some_and(|d| d.disturbed);
        if disturbed && iteration.is_measured() && reruns < max_reruns {
            reruns += 1;
            continue;
        }
        let guard = Guard { others_cores: disturbance.map(|d| d.others_cores), disturbed, reruns };
        return Ok((data, guard));
    }
}

fn timed_iteration<R: Routine>(
    routine: &mut R,
    iteration: Iteration,
    source: &mut dyn CpuSource,
) -> Result<(IterationData, Option<Disturbance>), Stop> {
    let mut watch: Option<(Stopwatch, crate::busy::CpuReading, std::time::Instant)> = None;
    let output = routine.run(&Instruments::Timed, &mut || {
        let before = source.read();
        let since = std::time::Instant::now();
        watch = Some((Stopwatch::start(), before, since));
    })?;
    let (watch, before, since) = watch.ok_or_else(never_started)?;
    // The clocks stop first thing in `finish`: counting the items is a field read.
    let timing = watch.finish(routine.items(&output));
    // Read after the stopwatch's settling wait, so the machine's tick-based counters have booked the window; the
    // guard's wall time includes that wait.
    let after = source.read();
    let disturbance = Disturbance::judge(&before, &after, since.elapsed());
    routine.finish(iteration, output, Window::Timed(&timing)).map(|data| (data, disturbance))
}

fn accounting_iteration<R: Routine>(
    routine: &mut R,
    iteration: Iteration,
    gauge: &Arc<Outstanding>,
) -> Result<IterationData, Stop> {
    let threshold = routine.memory_threshold();
    let mut probe: Option<Probe> = None;
    let instruments = Instruments::Accounting(GaugeMeter::new(Arc::clone(gauge)));
    let output =
        routine.run(&instruments, &mut || probe = Some(Probe::start_with_threshold(Arc::clone(gauge), threshold)))?;
    let probe = probe.ok_or_else(never_started)?;
    let measurement = probe.finish(routine.items(&output));
    routine.finish(iteration, output, Window::Accounting(&measurement))
}

fn never_started() -> Stop {
    Stop::failed(RUNS_CHECK, "the contestant returned without ever starting its work (no `go`)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::busy::CpuReading;
    use crate::scenario::CollectingSink;

    /// A fake machine: every reading adds `others_ms` of other processes' CPU to the machine's total.
    struct FakeMachine {
        busy_ms: u64,
        others_ms: Vec<u64>,
    }

    impl CpuSource for FakeMachine {
        fn read(&mut self) -> CpuReading {
            self.busy_ms += if self.others_ms.is_empty() { 0 } else { self.others_ms.remove(0) };
            CpuReading { machine_busy_ns: Some(self.busy_ms * 1_000_000), own_ns: 0 }
        }
    }

    struct Instant;

    impl Routine for Instant {
        type Output = ();
        fn run(&mut self, _: &Instruments, go: &mut dyn FnMut()) -> Result<(), Stop> {
            go();
            Ok(())
        }
        fn items(&self, _: &()) -> u64 {
            1
        }
        fn finish(&mut self, _: Iteration, _: (), window: Window<'_>) -> Result<IterationData, Stop> {
            Ok(IterationData::from_window(window))
        }
        fn checks(&mut self, _: u32, _: u32) -> Vec<Check> {
            Vec::new()
        }
    }

    fn request(warmup: u32, iterations: u32) -> TrialRequest {
        TrialRequest {
            scenario: "test".into(),
            contestant: "instant".into(),
            phase: None,
            params: Default::default(),
            fork: 0,
            warmup,
            iterations,
            seed: 0,
            quick: false,
            accounting: 1,
        }
    }

    #[test]
    fn a_quiet_machine_re_runs_nothing() {
        let mut sink = CollectingSink::default();
        let mut quiet = FakeMachine { busy_ms: 0, others_ms: vec![] };
        run_with(&mut Instant, &request(1, 3), &mut sink, &mut quiet);
        assert_eq!(sink.iterations.len(), 5);
        assert!(sink.iterations.iter().all(|i| !i.disturbed && i.reruns == 0));
        assert!(sink.iterations.iter().filter(|i| !i.accounting).all(|i| i.others_cores.is_some()));
        assert!(sink.iterations.iter().filter(|i| i.accounting).all(|i| i.others_cores.is_none()));
    }

    #[test]
    fn a_disturbed_iteration_is_re_run_then_kept_and_flagged() {
        // Readings come in pairs (before, after); 1 s of others' CPU in an iteration of ~20 ms is disturbed.
        // Warm-up: disturbed, never re-run. Measured 0: disturbed once, then quiet. Measured 1: disturbed on
        // every run, so kept and flagged after MAX_RERUNS re-runs.
        let mut others = vec![0, 1_000, 0, 1_000, 0, 0];
        for _ in 0..=MAX_RERUNS {
            others.extend([0, 1_000]);
        }
        let mut sink = CollectingSink::default();
        run_with(&mut Instant, &request(1, 2), &mut sink, &mut FakeMachine { busy_ms: 0, others_ms: others });
        let [warmup, first, second, accounting] = &sink.iterations[..] else { panic!("{:?}", sink.iterations) };
        assert!(warmup.disturbed && warmup.reruns == 0, "{warmup:?}");
        assert!(!first.disturbed && first.reruns == 1, "{first:?}");
        assert!(second.disturbed && second.reruns == MAX_RERUNS, "{second:?}");
        assert!(!accounting.disturbed && accounting.others_cores.is_none());
        let counted = crate::summary::Disturbed::count(&sink.iterations);
        assert_eq!((counted.disturbed_iterations, counted.disturbed_kept), (1 + MAX_RERUNS + 1, 1));
    }

    #[test]
    fn a_quick_run_flags_but_re_runs_nothing() {
        let mut sink = CollectingSink::default();
        let quick = TrialRequest { quick: true, ..request(0, 1) };
        run_with(&mut Instant, &quick, &mut sink, &mut FakeMachine { busy_ms: 0, others_ms: vec![0, 1_000] });
        assert!(sink.iterations[0].disturbed && sink.iterations[0].reruns == 0, "{:?}", sink.iterations[0]);
    }
}
