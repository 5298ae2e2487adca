//! One service trial in its own process: the harness's loop over runs of the contestant against a fresh
//! dependency, gate and book, each analysed once its clocks have stopped, then, in the first process of each
//! contestant and phase, the conformance runs.
//!
//! Where each figure comes from: a timed run (no instrument on any call's path; the book is one atomic write per
//! arrival, the same in every family) gives every latency, goodput, shed and timeout figure, the limit and the
//! series, with `wall_ms`, `cpu_us_per_call` and context switches from the harness's clocks; an accounting run,
//! a quarter as long, gives threads, allocations and heap. The load generator's lag behind the schedule is
//! the harness's own figure (`harness_generator_lag_p99_us`): it is in every family's latency alike.

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::record::TrialRequest;
use measure::scenario::{runs_conformance, TrialError, TrialSink};
use measure::summary::Check;

use super::contestants::run::{run_once, RunOutput};
use super::contestants::{Prepared, ServiceContestant};
use crate::clocks::{clock_metrics, duration_us, instrument_metrics};
use crate::config::limiter_ceiling;
use crate::service_analysis::{self as analysis, Frame, ServiceAnalysis};
use crate::service_config::{ServiceConfig, WINDOW};

/// An accounting run is this many times shorter than a timed one.
const ACCOUNTING_SHARE: u32 = 4;
/// The check every run's book is held to.
pub const EXACTLY_ONCE: &str = "exactly_once";
/// A phase's calls answered in time may exceed what the dependency's ceiling serves over the phase and one
/// deadline after it by this share at most: the jitter's mean over thousands of calls.
pub const CEILING_TOLERANCE: f64 = 0.03;

/// The analysis of `output`, a run of `config`.
pub fn analyse(config: &ServiceConfig, output: &RunOutput) -> ServiceAnalysis {
    let limits = crate::settle::points(output.calls.gate.as_deref(), output.gate_at_start);
    let frame = Frame {
        schedule: &output.calls.schedule,
        drop_us: output.drop_us,
        healthy_us: duration_us(config.healthy),
        end_us: duration_us(config.healthy + config.after),
        deadline_us: duration_us(config.deadline),
        rate: config.rate as f64,
        ceilings: (config.ceiling_ops(config.capacity), config.ceiling_ops(config.capacity_after)),
        limits: &limits,
        window_us: duration_us(WINDOW),
        mark: format!("capacity {} → {}", config.capacity, config.capacity_after),
    };
    analysis::analyse(&output.calls.book.entries(), &frame)
}

/// Run the trial `request` names: the harness's loop, then, in the first process of each contestant and phase,
/// the conformance runs.
pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let config = ServiceConfig::from_request(request)?;
    let contestant = ServiceContestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    if contestant.family == measure::summary::Family::Coroutine {
        let most = match contestant.limiter {
            Some(kind) => limiter_ceiling(kind, &config.limits_for(kind)) as u64,
            // Unbounded: every arrival of the after-drop phase may be waiting at once.
            None => config.rate.saturating_mul(duration_us(config.after)) / 1_000_000 + config.capacity as u64,
        };
        if let Some(reason) = crate::job::coroutine_refusal(usize::try_from(most).unwrap_or(usize::MAX)) {
            sink.skipped(&reason);
            return Ok(());
        }
    }
    let prepared = match contestant.prepare() {
        Ok(prepared) => prepared,
        Err(e) => {
            sink.check(Check::new(EXACTLY_ONCE, false, format!("could not prepare: {e}")));
            return Ok(());
        }
    };
    let accounting = config.shortened(ACCOUNTING_SHARE);
    let mut routine = ServiceRoutine { contestant, prepared, config, accounting, invariants: Invariants::default() };
    harness::run(&mut routine, request, sink);
    // The conformance checks after the timed iterations, in the first process only (see `measure_then_check`).
    if runs_conformance(request) {
        for check in super::conformance::conformance(contestant, &routine.prepared, &routine.config) {
            sink.check(check);
        }
    }
    Ok(())
}

/// What every run must have shown; each becomes a check at the end of the trial.
#[derive(Debug, Default)]
struct Invariants {
    runs: u32,
    failed: u64,
    over_limit_admissions: u64,
    over_capacity_starts: u64,
    /// The most calls of a phase answered in time, as a share of what the dependency's ceiling serves over the
    /// phase and one deadline after it, over every timed run and phase.
    goodput_over_ceiling: f64,
}

/// A prepared service contestant as the harness runs it.
struct ServiceRoutine {
    contestant: ServiceContestant,
    prepared: Prepared,
    config: ServiceConfig,
    accounting: ServiceConfig,
    invariants: Invariants,
}

impl Routine for ServiceRoutine {
    type Output = RunOutput;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<RunOutput, Stop> {
        let config = if instruments.is_timed() { &self.config } else { &self.accounting };
        run_once(self.contestant, &self.prepared, config, Vec::new(), None, go)
            .map_err(|e| Stop::failed(EXACTLY_ONCE, e))
    }

    fn items(&self, output: &RunOutput) -> u64 {
        output.calls.schedule.len() as u64
    }

    fn finish(&mut self, iteration: Iteration, output: RunOutput, window: Window<'_>) -> Result<IterationData, Stop> {
        let timed = window.accounting().is_none();
        let config = if timed { &self.config } else { &self.accounting };
        let analysis = analyse(config, &output);
        let stats = output.calls.dependency.stats();
        let timer_cpu = output.calls.dependency.timer_cpu().saturating_sub(output.timer_cpu_at_go);
        output.calls.dependency.shutdown();
        let invariants = &mut self.invariants;
        invariants.runs += 1;
        invariants.failed += analysis.failed;
        invariants.over_limit_admissions += output.calls.gate.as_ref().map_or(0, |g| g.over_limit_admissions());
        invariants.over_capacity_starts += stats.over_capacity_starts;
        if analysis.missing + analysis.wrong + output.calls.book.twice() > 0 {
            return Err(Stop::failed(
                EXACTLY_ONCE,
                format!(
                    "iteration {}: {} arrivals never handled, {} handled twice, {} wrong answers",
                    iteration.index,
                    analysis.missing,
                    output.calls.book.twice(),
                    analysis.wrong
                ),
            ));
        }
        let arrivals = output.calls.schedule.len() as u64;
        let mut data =
            IterationData { timing: clock_metrics(window.timing(), timer_cpu, arrivals), ..Default::default() };
        match window.accounting() {
            Some(measurement) => data.instruments = instrument_metrics(measurement),
            None => {
                for (phase, ceiling, span) in [
                    ("before_drop", config.ceiling_ops(config.capacity), config.healthy),
                    ("after_drop", config.ceiling_ops(config.capacity_after), config.after),
                ] {
                    if let Some(&in_time) = analysis.metrics.get(&format!("{phase}.in_time")) {
                        // A phase's calls are answered within its span and at most one deadline after it.
                        let most = ceiling * (span + config.deadline).as_secs_f64();
                        invariants.goodput_over_ceiling = invariants.goodput_over_ceiling.max(in_time / most);
                    }
                }
                data.timing.extend(analysis.metrics);
                let lag = output.lag.metrics("harness_generator_");
                if let Some(&p99) = lag.get("harness_generator_latency_p99_us") {
                    data.timing.insert("harness_generator_lag_p99_us".to_string(), p99);
                }
                data.series = analysis.series;
            }
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let (i, config) = (&self.invariants, &self.config);
        let mut checks = vec![
            Check::new(
                EXACTLY_ONCE,
                true,
                format!(
                    "{measured} timed and {accounted} accounting runs at {} arrivals/s: every arrival handled once, \
                     answered with the right value or shed",
                    config.rate
                ),
            ),
            Check::new(
                "no_failed_calls",
                i.failed == 0,
                format!(
                    "{} calls failed over {} runs (the dependency queues without limit: none should)",
                    i.failed, i.runs
                ),
            ),
            Check::new(
                "dependency_within_capacity",
                i.over_capacity_starts == 0,
                format!(
                    "{} service starts at or above the capacity in force over {} runs",
                    i.over_capacity_starts, i.runs
                ),
            ),
            Check::new(
                "goodput_within_ceiling",
                i.goodput_over_ceiling <= 1.0 + CEILING_TOLERANCE,
                format!(
                    "a phase's calls answered in time came to at most {:.1}% of what the dependency's ceiling in force \
                     (capacity / service time) serves over the phase and one deadline after it ({:.0}% allowed for \
                     the jitter's mean)",
                    i.goodput_over_ceiling * 100.0,
                    CEILING_TOLERANCE * 100.0
                ),
            ),
        ];
        if self.contestant.limiter.is_some() {
            checks.push(Check::new(
                "within_limit",
                i.over_limit_admissions == 0,
                format!(
                    "{} admissions with the gate's in-flight count at or above its limit over {} runs",
                    i.over_limit_admissions, i.runs
                ),
            ));
        }
        checks
    }
}
