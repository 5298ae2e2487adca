//! The scenario's parameters as typed values, the dependency and limiters they configure, and how each limiter
//! is described in reports.

use std::time::Duration;

use dependency::{CapacityChange, Config as DependencyConfig};
use measure::record::TrialRequest;
use measure::scenario::TrialError;

use crate::limit::{LimiterKind, LimiterParams};

/// The limiters every family runs, in report order.
pub const LIMITERS: [LimiterKind; 4] =
    [LimiterKind::Fixed, LimiterKind::Aimd, LimiterKind::Gradient2, LimiterKind::Vegas];

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
    /// Its slots from call `calls / 2` on.
    pub capacity_after: usize,
    /// Service time of one call.
    pub service: Duration,
    /// Service time varies uniformly by up to this much either way.
    pub jitter: Duration,
    /// Calls the dependency queues before rejecting (`None`: unlimited).
    pub queue_limit: Option<usize>,
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
        let threshold_ms = request.param("latency_threshold_ms")?;
        let latency_threshold = if threshold_ms == 0 { service * 2 } else { Duration::from_millis(threshold_ms) };
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
            limits: LimiterParams {
                fixed_limit: request.param_usize("fixed_limit")?,
                initial: request.param_usize("initial_limit")?,
                max: request.param_usize("max_limit")?,
                latency_threshold,
            },
            unbounded_threads: request.param_usize("unbounded_threads")?,
            seed: request.seed,
        };
        if config.calls < 2 || config.capacity == 0 || config.capacity_after == 0 || service.is_zero() {
            return Err(TrialError::BadParam(
                "`calls` must be at least 2; `capacity`, `capacity_after` and `service_ms` at least 1".to_string(),
            ));
        }
        if config.limits.initial > config.limits.max {
            return Err(TrialError::BadParam("`initial_limit` must not exceed `max_limit`".to_string()));
        }
        Ok(config)
    }

    /// The call at which capacity drops: `calls / 2`.
    pub fn drop_at(&self) -> u64 {
        self.calls / 2
    }

    /// The dependency of one iteration: `capacity` slots, dropping to `capacity_after` when call `calls / 2` is
    /// issued.
    pub fn dependency(&self) -> DependencyConfig {
        DependencyConfig {
            capacity: self.capacity,
            service: self.service,
            jitter: self.jitter,
            schedule: vec![CapacityChange { at_call: self.drop_at(), capacity: self.capacity_after }],
            queue_limit: self.queue_limit,
            seed: self.seed,
            window: WINDOW,
            ..DependencyConfig::default()
        }
    }

    /// The dependency's ceiling in calls per second with `capacity` slots: `capacity / service`.
    pub fn ceiling_ops(&self, capacity: usize) -> f64 {
        capacity as f64 / self.service.as_secs_f64()
    }
}

/// The most calls the limiter can ever admit at once: the fixed limit, or the adaptive limiters' maximum. The
/// blocking pools have this many threads.
pub fn limiter_ceiling(kind: LimiterKind, limits: &LimiterParams) -> usize {
    match kind {
        LimiterKind::Fixed => limits.fixed_limit,
        _ => limits.max,
    }
}

/// One phrase describing the limiter with the scenario's default settings.
pub fn limiter_description(kind: LimiterKind) -> String {
    match kind {
        LimiterKind::Fixed => "fixed limit of `fixed-limit` (default 500, the healthy capacity) calls".to_string(),
        LimiterKind::Aimd => "AIMD limit (Netflix semantics): starts at 20, +1 per call admitted with in-flight ≥ \
            half the limit, ×0.9 on a call slower than `latency-threshold-ms` (default twice the service time) or \
            rejected; 1..=`max-limit` (default 1000)"
            .to_string(),
        LimiterKind::Gradient2 => "Gradient2 limit (Netflix semantics): starts at 20, moves by the ratio of the \
            long-term average latency (window 600) to the latest call's, times a tolerance of 1.5, plus a queue \
            size of 4, smoothed by 0.2; up to `max-limit`"
            .to_string(),
        LimiterKind::Vegas => "Vegas limit (Netflix semantics): starts at 20, estimates queued calls from latency \
            against the minimum seen and grows or shrinks to keep a few queued; up to `max-limit`"
            .to_string(),
    }
}
