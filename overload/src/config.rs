//! The scenario's parameters as typed values, the dependency and limiters they configure, and how each limiter
//! is described in reports; with what both scenarios' lab views share (the limits' order and
//! their repetitions).

use std::time::Duration;

use dependency::{CapacityChange, Config as DependencyConfig};
use measure::record::{RunParams, TrialRequest};
use measure::runtime_size::{Code, RuntimeSize};
use measure::scenario::{ChartReference, ParamSpec, ReferenceValue, Repetitions, TrialError};
use measure::summary::Summary;

use crate::limit::{LimiterKind, LimiterParams};
use crate::settle::DropRule;

/// The limiters every family runs, in report order.
pub const LIMITERS: [LimiterKind; 7] = LimiterKind::ALL;

/// Window of the time series and of the dependency's timeline.
pub const WINDOW: Duration = Duration::from_millis(100);

/// Calls made one at a time on an idle dependency, in every trial process, to measure its uncontended latency.
pub const IDLE_CALLS: u32 = 25;

/// One run's settings, from the trial request's parameters.
#[derive(Debug, Clone)]
pub struct OverloadConfig {
    /// Calls per iteration.
    pub calls: u64,
    /// The dependency's concurrent slots before the drop.
    pub capacity: usize,
    /// Its slots once the limit has settled (a timed run) or from call `calls / 2` on (an accounting run).
    pub capacity_after: usize,
    /// Service time of one call.
    pub service: Duration,
    /// Service time varies uniformly by up to this much either way.
    pub jitter: Duration,
    /// Calls the dependency queues before rejecting (`None`: unlimited).
    pub queue_limit: Option<usize>,
    /// When the capacity drops in a timed run: once every limit has settled (or at the rule's cap). An
    /// accounting run, a twentieth as long, drops at its half-way call instead.
    pub drop: DropRule,
    /// Limiter settings.
    pub limits: LimiterParams,
    /// Threads of `blocking-unbounded`.
    pub unbounded_threads: usize,
    /// Seed of the dependency's jitter.
    pub seed: u64,
}

impl OverloadConfig {
    /// Read and check the parameters of `request`.
    pub fn from_request(request: &TrialRequest) -> Result<OverloadConfig, TrialError> {
        let service = Duration::from_millis(request.param("service_ms")?);
        let queue_limit = match request.param_usize("queue_limit")? {
            0 => None,
            n => Some(n),
        };
        let config = OverloadConfig {
            calls: request.param("calls")?,
            capacity: request.param_usize("capacity")?,
            capacity_after: request.param_usize("capacity_after")?,
            service,
            jitter: Duration::from_micros(request.param("jitter_us")?),
            queue_limit,
            drop: DropRule {
                healthy_min: Duration::from_millis(request.param("healthy_ms")?),
                hold: Duration::from_millis(request.param("settle_ms")?),
                drift: request.param("settle_drift_pct")? as f64 / 100.0,
                healthy_max: Duration::from_millis(request.param("healthy_max_ms")?),
                at_call: match request.param("drop_at_call")? {
                    0 => None,
                    n => Some(n),
                },
            },
            // Until the trial has measured the no-load latency, the service time stands for it.
            limits: limits(
                request,
                Duration::from_millis(request.param("timeout_ms")?),
                service,
                request.param("windowed")? != 0,
            )?,
            unbounded_threads: request.param_usize("unbounded_threads")?,
            seed: request.seed,
        };
        if config.calls < 2 || config.capacity == 0 || config.capacity_after == 0 || service.is_zero() {
            return Err(TrialError::BadParam(
                "`calls` must be at least 2; `capacity`, `capacity_after` and `service_ms` at least 1".to_string(),
            ));
        }
        if config.drop.at_call.is_some_and(|at| at >= config.calls) {
            return Err(TrialError::BadParam(
                "`drop-at-call` must be below `calls` (0: once the limit settled)".to_string(),
            ));
        }
        limits_in_order(&config.limits)?;
        Ok(config)
    }

    /// The dependency of one timed iteration: `capacity` slots, until the trial sets `capacity_after` once the
    /// limit has settled ([`DropRule`]), or, with [`DropRule::at_call`], until that call is issued.
    pub fn dependency(&self) -> DependencyConfig {
        let schedule = self
            .drop
            .at_call
            .map(|at_call| vec![CapacityChange { at_call, capacity: self.capacity_after }])
            .unwrap_or_default();
        DependencyConfig {
            schedule,
            capacity: self.capacity,
            service: self.service,
            jitter: self.jitter,
            queue_limit: self.queue_limit,
            seed: self.seed,
            window: WINDOW,
            ..DependencyConfig::default()
        }
    }

    /// The dependency of one accounting iteration: as a timed one, dropping to `capacity_after` when call
    /// `calls / 2` is issued (an accounting run counts threads and allocations, not latency).
    pub fn dependency_by_call(&self) -> DependencyConfig {
        DependencyConfig {
            schedule: vec![CapacityChange { at_call: self.calls / 2, capacity: self.capacity_after }],
            ..self.dependency()
        }
    }
}

/// The most calls the limiter can ever admit at once: the fixed limit, or the adaptive limiters' maximum. The
/// blocking and coroutine pools have this many threads or coroutines.
pub fn limiter_ceiling(kind: LimiterKind, limits: &LimiterParams) -> usize {
    if kind.is_adaptive() {
        limits.max
    } else {
        limits.fixed_limit
    }
}

/// The defaults that size the bounds, as both scenarios' parameters declare them ([`dependency_params`];
/// `overload_service/mod.rs` reads them too; the fixed-little limiter's description names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    /// The dependency's slots after the drop (`capacity-after`).
    pub capacity_after: u64,
    /// Service time of one call in ms (`service-ms`).
    pub service_ms: u64,
    /// Each call's deadline in ms (`deadline-ms`).
    pub deadline_ms: u64,
}

/// The default `capacity-after`, `service-ms` and (the service's) `deadline-ms`.
pub const DEFAULTS: Defaults = Defaults { capacity_after: 100, service_ms: 5, deadline_ms: 20 };

/// The fixed bound Little's law sizes for a deadline: the after-drop ceiling (`capacity_after / service_ms`
/// calls per ms) times the deadline, rounded down and at least 1: the most calls in flight the degraded
/// dependency drains within one deadline, so a call admitted at that bound is answered in time (without jitter).
pub fn little_bound(capacity_after: u64, service_ms: u64, deadline_ms: u64) -> u64 {
    (capacity_after.saturating_mul(deadline_ms) / service_ms.max(1)).max(1)
}

/// How every adaptive limiter is updated, for descriptions.
const UPDATED: &str = "updated on every completed call (Netflix's default `SimpleLimiter`; `--windowed 1` wraps it in \
    the lab's short window instead), from 20 (`initial-limit`) within 20..=500 (`min-limit`, `max-limit`: the fixed \
    bound)";

/// One phrase describing the limiter with the scenario's default settings.
pub fn limiter_description(kind: LimiterKind) -> String {
    match kind {
        LimiterKind::Fixed => "fixed limit of `fixed-limit` (default 500, the healthy capacity) calls".to_string(),
        LimiterKind::FixedLittle => {
            let d = DEFAULTS;
            format!(
                "fixed limit sized by Little's law from the run's own parameters: the after-drop ceiling \
                 (`capacity-after` ÷ `service-ms`) × the deadline (`deadline-ms`), rounded down, the most calls the \
                 degraded dependency drains within one deadline ({} at the defaults: {} slots ÷ {} ms × {} ms)",
                little_bound(d.capacity_after, d.service_ms, d.deadline_ms),
                d.capacity_after,
                d.service_ms,
                d.deadline_ms
            )
        }
        LimiterKind::Aimd => format!(
            "AIMD limit (Netflix's `AIMDLimit`), {UPDATED}: +1 per call made while at least half the limit was in \
             use, ×0.9 per dropped call (rejected by the dependency's full queue, or slower than `timeout-ms`, \
             default 5 s)"
        ),
        LimiterKind::AimdLatency(tenths) => format!(
            "AIMD limit as `aimd`, {UPDATED}, whose timeout is {}× the no-load latency (measured in the trial \
             process before timing, the median of uncontended calls waited for this contestant's way): a slower \
             call counts as dropped",
            f64::from(tenths) / 10.0
        ),
        LimiterKind::Gradient2 => format!(
            "Gradient2 limit (Netflix's `Gradient2Limit`), {UPDATED}: moves by the ratio of the long-term average \
             latency (600 samples) to the latest, times a tolerance of 1.5, plus a queue size of 4, smoothed by 0.2"
        ),
        LimiterKind::CongestionLimiter => {
            ("the `congestion-limiter` crate's own `DefaultLimiter` with its `Aimd` (its README's example), \
             admitting through its own semaphore, updated on every completed call from 20 within 20..=500 (the \
             same start and bounds as every adaptive limiter here): +1 per successful call made while more than \
             80% of the limit was in use, ×0.9 per overloaded call (rejected by the dependency's full queue, or \
             slower than `timeout-ms`: the same loss signal as `aimd`); its limit is mirrored into the lab's gate \
             after every release (one extra lock per admission and per release) so the drop and the reports read \
             it like every other")
                .to_string()
        }
        LimiterKind::Vegas => format!(
            "Vegas limit (Netflix's `VegasLimit`, log10 steps), {UPDATED}: estimates queued calls against the \
             no-load latency (the smallest seen, re-probed now and then) and grows or shrinks to keep a few queued"
        ),
    }
}

/// The limits `request` sets (`fixed_limit`, `initial_limit`, `min_limit`, `max_limit`), with `timeout`, the
/// no-load latency `no_load` and `windowed`.
pub fn limits(
    request: &TrialRequest,
    timeout: Duration,
    no_load: Duration,
    windowed: bool,
) -> Result<LimiterParams, TrialError> {
    Ok(LimiterParams {
        fixed_limit: request.param_usize("fixed_limit")?,
        initial: request.param_usize("initial_limit")?,
        min: request.param_usize("min_limit")?,
        max: request.param_usize("max_limit")?,
        timeout,
        no_load,
        windowed,
    })
}

/// A trial's limits, as both scenarios' settings check them: `min_limit` ≤ `initial_limit` ≤ `max_limit`.
pub fn limits_in_order(limits: &LimiterParams) -> Result<(), TrialError> {
    if limits.min > limits.initial || limits.initial > limits.max {
        return Err(TrialError::BadParam(
            "`min_limit`, `initial_limit` and `max_limit` must be in that order".to_string(),
        ));
    }
    Ok(())
}

/// The limits' order both scenarios hold their parameters to: `--min-limit` ≤ `--initial-limit` ≤ `--max-limit`.
pub fn check_limits(params: &RunParams) -> Result<(), String> {
    let one = |key: &str| params.get(key).and_then(|v| v.first()).copied().unwrap_or(0);
    if one("initial_limit") > one("max_limit") {
        return Err(format!("--initial-limit {} is above --max-limit {}", one("initial_limit"), one("max_limit")));
    }
    if one("min_limit") > one("initial_limit") {
        return Err(format!("--min-limit {} is above --initial-limit {}", one("min_limit"), one("initial_limit")));
    }
    Ok(())
}

/// Both scenarios' repetitions: five processes (one with `--quick`) of one timed run and one accounting run
/// each, with no warm-up (a run of tens of thousands of calls gains nothing from one).
pub fn repetitions(quick: bool) -> Repetitions {
    Repetitions { forks: if quick { 1 } else { 5 }, warmup: 0, iterations: 1, accounting: 1 }
}

/// The runtimes both scenarios size, each one per CPU: tokio's multi-threaded runtime, built where `tokio_at`
/// points, and `may`'s coroutine carriers.
pub fn runtime_sizes(tokio_at: Code) -> Vec<RuntimeSize> {
    vec![
        RuntimeSize::tokio(tokio_at),
        RuntimeSize::may_per_core(Code::new("overload/src/job.rs", "CoroutineConfig::per_core()")),
    ]
}

/// The dependency's ceiling after the drop in calls per second: its slots after the drop ÷ the service time, from
/// the run's parameters (`None` without them).
pub fn after_ceiling(summary: &Summary) -> Option<f64> {
    Some(summary.param("capacity_after")? * 1e3 / summary.param("service_ms")?)
}

/// The dependency's ceiling after the drop in calls per second ([`after_ceiling`]), as a chart's dashed line in
/// both scenarios.
pub const AFTER_DROP_CEILING: ChartReference = ChartReference {
    words: "ceiling: capacity after the drop ÷ service time",
    value: ReferenceValue::Quotient { numerator: "capacity_after", denominator: "service_ms", times: 1_000 },
};

/// The dependency's parameters both scenarios take, with the same defaults: its slots before and after the drop,
/// the service time of one call and its jitter.
pub fn dependency_params() -> Vec<ParamSpec> {
    let (after, service) = (DEFAULTS.capacity_after, DEFAULTS.service_ms);
    let jitter = "Service time varies uniformly by up to this many microseconds either way (seeded; 0: none, the \
                  adversarial case).";
    vec![
        ParamSpec::single("capacity", "The dependency's concurrent slots before the drop.", 500, 500, 1, 100_000),
        ParamSpec::single("capacity-after", "Its slots after the drop.", after, after, 1, 100_000),
        ParamSpec::single("service-ms", "Service time of one call, in milliseconds.", service, service, 1, 1_000),
        ParamSpec::single("jitter-us", jitter, 500, 500, 0, 1_000_000),
    ]
}

/// The limiters' parameters both scenarios take, with the same defaults: the fixed bound, and where the adaptive
/// limiters start, their floor and their ceiling (`max_limit_help`: what else the ceiling sizes in the scenario).
pub fn limit_params(max_limit_help: &'static str) -> Vec<ParamSpec> {
    let fixed = "The fixed limiter's bound (the healthy capacity a team would configure).";
    vec![
        ParamSpec::single("fixed-limit", fixed, 500, 500, 1, 100_000),
        ParamSpec::single("initial-limit", "Where the adaptive limiters start.", 20, 20, 1, 100_000),
        ParamSpec::single("min-limit", "The lowest the adaptive limiters go (Netflix's 20).", 20, 20, 1, 100_000),
        ParamSpec::single("max-limit", max_limit_help, 500, 500, 1, 100_000),
    ]
}

/// The [`Scenario`](measure::scenario::Scenario) methods both scenarios share, inside their `impl Scenario`:
/// `check_params` holds the limits in order ([`check_limits`]), `repetitions` runs five processes of one timed
/// run and one accounting run each ([`repetitions`]), and `runtime_sizes` sizes tokio's runtime (built at
/// `$tokio_code` in `$tokio_file`) and `may`'s carriers, each one per CPU ([`runtime_sizes`]).
macro_rules! shared_scenario_methods {
    ($tokio_file:literal, $tokio_code:literal) => {
        fn check_params(&self, params: &measure::record::RunParams) -> Result<(), String> {
            crate::config::check_limits(params)
        }

        fn repetitions(&self, quick: bool) -> measure::scenario::Repetitions {
            crate::config::repetitions(quick)
        }

        fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
            crate::config::runtime_sizes(measure::runtime_size::Code::new($tokio_file, $tokio_code))
        }
    };
}
pub(crate) use shared_scenario_methods;
