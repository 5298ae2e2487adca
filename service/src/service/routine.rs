//! One service trial in its own process: calibrate the work, then the harness's loop over runs of the contestant
//! against a fresh dependency, each analysed once its clocks have stopped, then, in the first process of each
//! contestant and phase, the conformance checks.
//!
//! Where each figure comes from: a timed run gives every latency, goodput, shed and timed-out figure, the
//! generator's lag, the bounds' maxima and the series, with `wall_ms`, `cores_used` and `cpu_us_per_request` from
//! the harness's clocks (the whole process: the generator and the dependency's timer threads included, the same
//! in every style); an accounting run, a quarter as long, gives threads, allocations and heap.

use std::sync::Arc;

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::record::{Series, TrialRequest};
use measure::scenario::{measure_then_check, TrialError, TrialSink};
use measure::summary::{Check, Family};

use super::contestants::run::{run_once, RunOutput, Variation};
use super::contestants::{Contestant, Prepared};
use super::search::{self, Found};
use super::SEARCH;
use crate::analysis::{self, CPU_PER_REQUEST, GENERATOR_LAG, MOST_CALLS, MOST_OUTSTANDING};
use crate::config::{ServiceConfig, WINDOW};
use crate::work::{self, Work};

/// AIMD's admission limit when the run ended.
pub const ADMISSION_LIMIT_AT_END: &str = "admission_limit_at_end";
/// The series of the most requests inside the service per window.
pub const INSIDE: &str = "inside";
/// An accounting run is this many times shorter than a timed one.
const ACCOUNTING_SHARE: u32 = 4;
/// The check every run is held to.
pub const EXACTLY_ONCE: &str = "exactly_once";
/// The answered requests whose stages' value a timed run checks: every this-many-th (checking every one would
/// spend the work again after each run; the conformance runs check every one).
const VALUE_STRIDE: usize = 61;

/// Run the trial `request` names: calibration, the harness's loop, then, in the first process of each contestant
/// and phase, the conformance runs ([`measure_then_check`]).
pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let mut config = ServiceConfig::from_request(request)?;
    let probe = std::time::Duration::from_millis(request.param("probe_ms")?);
    let contestant = Contestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let Some(prepared) = prepared(contestant, &config, sink) else {
        return Ok(());
    };
    let work = Work::new(config.work_us, config.stages, work::ns_per_round());
    // The conformance runs check at the phase's own settings, before any search sets the rate.
    let (checked, checked_prepared) = (config.clone(), Arc::clone(&prepared));
    let measure = move |sink: &mut dyn TrialSink| {
        let found = if config.rate == SEARCH {
            match search::sustainable_rate(contestant, &prepared, &config, work, probe) {
                Ok(found) => {
                    config.rate = found.rate;
                    Some(found)
                }
                Err(e) => {
                    sink.check(Check::new(EXACTLY_ONCE, false, format!("the sustainable-rate search: {e}")));
                    return Ok(());
                }
            }
        } else {
            None
        };
        let settings = [config.clone(), config.shortened(ACCOUNTING_SHARE)];
        let mut routine =
            ServiceRoutine { invariants: Invariants::default(), work, contestant, prepared, settings, found };
        harness::run(&mut routine, request, sink);
        Ok(())
    };
    measure_then_check(request, sink, measure, || {
        super::conformance::checks(contestant, checked_prepared, &checked, work, None)
    })
}

/// `contestant` prepared for its trial; `None` when it cannot be, told to `sink`: skipped when `may`'s map limit
/// leaves no room for a coroutine per admitted request, failed when its runtime cannot be built.
fn prepared(contestant: Contestant, config: &ServiceConfig, sink: &mut dyn TrialSink) -> Option<Arc<Prepared>> {
    // Every admitted request may hold a coroutine, beside the stages'.
    let coroutines = config.admission + config.stages as usize + 1;
    let refusal =
        (contestant.family() == Family::Coroutine).then(|| overload::job::coroutine_refusal(coroutines)).flatten();
    if let Some(reason) = refusal {
        sink.skipped(&reason);
        return None;
    }
    contestant
        .prepare()
        .map_err(|e| sink.check(Check::new(EXACTLY_ONCE, false, format!("could not prepare: {e}"))))
        .ok()
        .map(Arc::new)
}

/// What every run must have shown; each becomes a check at the end of the trial.
#[derive(Debug, Default)]
struct Invariants {
    runs: u32,
    failed: u64,
    /// The most requests inside the service at once over every run.
    most_inside: Option<u64>,
    /// The most dependency calls in flight at once over every run.
    most_calls: u64,
    /// Answered requests whose stages handed on a wrong value, among those checked.
    wrong_values: u64,
}

/// A prepared contestant as the harness runs it, with its work calibrated and what its runs showed so far.
struct ServiceRoutine {
    invariants: Invariants,
    work: Work,
    contestant: Contestant,
    prepared: Arc<Prepared>,
    /// The settings of a timed run, then of an accounting run.
    settings: [ServiceConfig; 2],
    /// What the sustainable-rate search found, in a phase that searched (its runs are at that rate).
    found: Option<Found>,
}

impl ServiceRoutine {
    /// The settings of a timed run (`timed`) or an accounting one.
    fn settings(&self, timed: bool) -> &ServiceConfig {
        &self.settings[usize::from(!timed)]
    }
}

impl Routine for ServiceRoutine {
    type Output = RunOutput;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<RunOutput, Stop> {
        let settings = self.settings(instruments.is_timed());
        run_once(self.contestant, &self.prepared, settings, self.work, &Variation::default(), go)
            .map_err(|e| Stop::failed(EXACTLY_ONCE, e.to_string()))
    }

    fn items(&self, output: &RunOutput) -> u64 {
        output.requests.schedule.len() as u64
    }

    fn finish(&mut self, iteration: Iteration, output: RunOutput, window: Window<'_>) -> Result<IterationData, Stop> {
        let config = self.settings(window.accounting().is_none()).clone();
        let config = &config;
        let requests = &output.requests;
        let found = analysis::analyse(&requests.book.entries(), &requests.schedule, config);
        let timer_cpu = requests.dependency.timer_cpu().saturating_sub(output.timer_cpu_at_go);
        requests.dependency.shutdown();
        let wrong_values = requests.wrong_values(VALUE_STRIDE);
        let i = &mut self.invariants;
        i.runs += 1;
        i.failed += found.failed;
        i.wrong_values += wrong_values;
        i.most_inside = Some(i.most_inside.unwrap_or(0).max(requests.outstanding.most()));
        i.most_calls = i.most_calls.max(requests.calls.most());
        if found.missing + found.wrong + requests.book.twice() + wrong_values > 0 {
            return Err(Stop::failed(
                EXACTLY_ONCE,
                format!(
                    "iteration {}: {} arrivals never answered, {} answered twice, {} wrong answers, {} wrong values",
                    iteration.index,
                    found.missing,
                    requests.book.twice(),
                    found.wrong,
                    wrong_values
                ),
            ));
        }
        let arrivals = requests.schedule.len() as u64;
        let clocks = overload::clocks::clock_metrics(window.timing(), timer_cpu, arrivals);
        let mut data = IterationData::default();
        for (from, to) in [
            ("wall_ms", "wall_ms"),
            ("cores_used", "cores_used"),
            ("ctx_switches_per_item", "ctx_switches_per_request"),
            ("cpu_us_per_call", CPU_PER_REQUEST),
            ("dependency_cpu_us_per_call", "dependency_cpu_us_per_request"),
        ] {
            if let Some(&v) = clocks.get(from) {
                data.timing.insert(to.to_string(), v);
            }
        }
        match window.accounting() {
            Some(measurement) => data.instruments = overload::clocks::instrument_metrics(measurement),
            None => {
                data.timing.extend(found.metrics);
                let lag = output.lag.metrics("generator_");
                if let Some(&p99) = lag.get("generator_latency_p99_us") {
                    data.timing.insert(GENERATOR_LAG.to_string(), p99);
                }
                data.timing.insert(MOST_OUTSTANDING.to_string(), requests.outstanding.most() as f64);
                data.timing.insert(MOST_CALLS.to_string(), requests.calls.most() as f64);
                data.timing.insert("work_rounds_per_stage".to_string(), f64::from(self.work.rounds));
                data.timing.insert("work_ns_per_round".to_string(), self.work.ns_per_round);
                data.timing.extend(self.found.iter().flat_map(Found::metrics));
                if let Some(gate) = &requests.gate {
                    data.timing.insert(ADMISSION_LIMIT_AT_END.to_string(), gate.limit() as f64);
                }
                data.series = found.series;
                let inside = output.inside.iter().map(|&n| n as f64).collect();
                data.series.insert(INSIDE.to_string(), Series::new(WINDOW.as_secs_f64() * 1e3, inside));
            }
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let (i, config) = (&self.invariants, self.settings(true));
        vec![
            Check::new(
                EXACTLY_ONCE,
                true,
                format!(
                    "{measured} timed and {accounted} accounting runs at {} arrivals/s: every arrival answered once or \
                     shed, the stages' value checked on every {VALUE_STRIDE}th",
                    config.rate
                ),
            ),
            Check::new(
                "no_failed_calls",
                i.failed == 0,
                format!("{} calls failed over {} runs (the dependency fails none unless asked)", i.failed, i.runs),
            ),
            measure::probe::bounded_outstanding_check(i.most_inside, config.admission as u64, measured, "requests"),
            Check::new(
                "dependency_bound_held",
                i.most_calls <= config.dependency_bound as u64,
                format!(
                    "at most {} dependency calls in flight at once over {} runs, bound {}",
                    i.most_calls, i.runs, config.dependency_bound
                ),
            ),
        ]
    }
}
