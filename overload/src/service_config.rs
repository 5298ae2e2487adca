//! One service run's settings as typed values, read from the trial request: the arrival rate and its pattern, the
//! two fixed-length phases, the deadline, the dependency and the limiters.

use std::time::Duration;

use dependency::Config as DependencyConfig;
use measure::record::TrialRequest;
use measure::scenario::TrialError;

use crate::config::{limits, limits_in_order};
pub use crate::config::{little_bound, Defaults, DEFAULTS};
use crate::limit::{LimiterKind, LimiterParams};

/// Window of every over-time series.
pub const WINDOW: Duration = Duration::from_millis(50);

/// How arrivals are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// One arrival every `1 / rate`.
    Constant,
    /// A seeded Poisson process of the same mean rate: exponential gaps.
    Poisson,
}

/// One service run's settings.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Arrivals per second of wall time, in both phases.
    pub rate: u64,
    /// How the arrivals are spaced.
    pub pattern: Pattern,
    /// Length of the healthy phase; the capacity drops when it ends.
    pub healthy: Duration,
    /// Length of the phase after the drop.
    pub after: Duration,
    /// A call answered later than this after its scheduled start has timed out.
    pub deadline: Duration,
    /// The dependency's slots before the drop.
    pub capacity: usize,
    /// Its slots after the drop.
    pub capacity_after: usize,
    /// Mean service time of one call.
    pub service: Duration,
    /// Half-width of the service time's uniform spread.
    pub jitter: Duration,
    /// Limiter settings.
    pub limits: LimiterParams,
    /// `fixed-little`'s bound, sized by Little's law from the run's parameters when they are read
    /// ([`little_bound`]) and kept whatever a derived configuration (a conformance run's, an accounting run's)
    /// changes.
    pub little_limit: usize,
    /// Threads of `blocking-unbounded`'s pool.
    pub unbounded_threads: usize,
    /// Seed of the arrivals and of the dependency's jitter.
    pub seed: u64,
}

impl ServiceConfig {
    /// Read and check the parameters of `request`.
    pub fn from_request(request: &TrialRequest) -> Result<ServiceConfig, TrialError> {
        let service = Duration::from_millis(request.param("service_ms")?);
        let deadline = Duration::from_millis(request.param("deadline_ms")?);
        let pattern = match request.param("poisson")? {
            0 => Pattern::Constant,
            _ => Pattern::Poisson,
        };
        let config = ServiceConfig {
            rate: request.param("rate")?,
            pattern,
            healthy: Duration::from_millis(request.param("healthy_ms")?),
            after: Duration::from_millis(request.param("after_ms")?),
            deadline,
            capacity: request.param_usize("capacity")?,
            capacity_after: request.param_usize("capacity_after")?,
            service,
            jitter: Duration::from_micros(request.param("jitter_us")?),
            // A reply later than the deadline is the loss every limiter sees; AIMD's own timeout agrees.
            limits: limits(request, deadline, service, false)?,
            little_limit: usize::try_from(little_bound(
                request.param("capacity_after")?,
                request.param("service_ms")?,
                request.param("deadline_ms")?,
            ))
            .unwrap_or(usize::MAX),
            unbounded_threads: request.param_usize("unbounded_threads")?,
            seed: request.seed,
        };
        if config.rate == 0 || config.capacity == 0 || config.capacity_after == 0 || service.is_zero() {
            return Err(TrialError::BadParam(
                "`rate`, `capacity`, `capacity_after` and `service_ms` must be at least 1".to_string(),
            ));
        }
        limits_in_order(&config.limits)?;
        Ok(config)
    }

    /// The same run shortened by `share` (both phases): an accounting run's settings.
    pub fn shortened(&self, share: u32) -> ServiceConfig {
        let share = share.max(1);
        ServiceConfig { healthy: self.healthy / share, after: self.after / share, ..self.clone() }
    }

    /// The dependency of one run: `capacity` slots until the load generator drops them to `capacity_after` at
    /// the end of the healthy phase; it queues what it cannot serve, without limit.
    pub fn dependency(&self) -> DependencyConfig {
        DependencyConfig {
            capacity: self.capacity,
            service: self.service,
            jitter: self.jitter,
            queue_limit: None,
            seed: self.seed,
            window: WINDOW,
            ..DependencyConfig::default()
        }
    }

    /// The limiter settings of `kind`'s gate: [`limits`](Self::limits), with `fixed-little`'s bound
    /// ([`little_limit`](Self::little_limit)) as its fixed limit.
    pub fn limits_for(&self, kind: LimiterKind) -> LimiterParams {
        match kind {
            LimiterKind::FixedLittle => LimiterParams { fixed_limit: self.little_limit, ..self.limits },
            _ => self.limits,
        }
    }

    /// The dependency's ceiling in calls per second with `capacity` slots.
    pub fn ceiling_ops(&self, capacity: usize) -> f64 {
        capacity as f64 / self.service.as_secs_f64()
    }
}
