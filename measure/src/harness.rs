//! The one measurement loop every scenario's trial runs: warm-ups and timed iterations with no instrument on the
//! contestant's path, then accounting iterations with every instrument on, each verified as it ends.
//!
//! A scenario does not write a loop. It hands [`run`] a [`Routine`]: how to run its contestant once (given the
//! [`Instruments`] of the iteration, and a `go` to call once everything is set up), how many items a run
//! processed, how to verify a run and turn it into metrics, and the checks to report at the end. The harness
//! owns the order and the clocks:
//!
//! 1. the peak resident set is reset ([`crate::memory::reset_peak_rss`]), so `peak_rss_mib` describes the
//!    measured iterations, not the conformance checks that ran before in the same process;
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

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::gauge::Outstanding;
use crate::memory;
use crate::meter::{GaugeMeter, NoMeter};
use crate::probe::{Measurement, Probe, Stopwatch, Timing};
use crate::record::{IterationRecord, MetricValues, Series, TrialRequest};
use crate::scenario::TrialSink;
use crate::summary::Check;

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

    fn into_record(self, iteration: Iteration) -> IterationRecord {
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
    memory::reset_peak_rss();
    let gauge = Arc::new(Outstanding::new());
    let timed = request.warmup + request.iterations;
    let mut series_kept = [false; 2];
    for index in 0..timed + request.accounting {
        let iteration = Iteration { index, warmup: index < request.warmup, accounting: index >= timed };
        let data = if iteration.accounting {
            accounting_iteration(routine, iteration, &gauge)
        } else {
            timed_iteration(routine, iteration)
        };
        match data {
            Ok(mut data) => {
                let kind = usize::from(iteration.accounting);
                if iteration.warmup || series_kept[kind] {
                    data.series.clear();
                } else if !data.series.is_empty() {
                    series_kept[kind] = true;
                }
                sink.iteration(data.into_record(iteration));
            }
            Err(Stop::Skipped(reason)) => return sink.skipped(&reason),
            Err(Stop::Failed(check)) => return sink.check(check),
        }
    }
    for check in routine.checks(request.iterations, request.accounting) {
        sink.check(check);
    }
}

fn timed_iteration<R: Routine>(routine: &mut R, iteration: Iteration) -> Result<IterationData, Stop> {
    let mut watch: Option<Stopwatch> = None;
    let output = routine.run(&Instruments::Timed, &mut || watch = Some(Stopwatch::start()))?;
    let watch = watch.ok_or_else(never_started)?;
    // The clocks stop first thing in `finish`: counting the items is a field read.
    let timing = watch.finish(routine.items(&output));
    routine.finish(iteration, output, Window::Timed(&timing))
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
