//! One service run's settings as typed values, read from the trial request.

use std::time::Duration;

use measure::record::TrialRequest;
use measure::scenario::TrialError;
use overload::service_config::Pattern;

/// Width of one window of the over-time series.
pub const WINDOW: Duration = Duration::from_millis(50);

/// One run's settings.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Arrivals per second.
    pub rate: u64,
    /// How the arrivals are spaced.
    pub pattern: Pattern,
    /// CPU work per request, µs, over all its stages.
    pub work_us: u64,
    /// Stages the work passes through (each does an equal share of it).
    pub stages: u32,
    /// The dependency's service time per call.
    pub dependency: Duration,
    /// Calls to the dependency in flight at once, at most: its slots, and every style's bound on its calls.
    pub dependency_bound: usize,
    /// Requests inside the service at once (admitted, not yet answered), at most: an arrival beyond is shed.
    pub admission: usize,
    /// Capacity of each channel between stages, where a style has them.
    pub queue: usize,
    /// A reply later than this after the request's scheduled start has timed out.
    pub deadline: Duration,
    /// How long arrivals come for.
    pub run: Duration,
    /// Seed of the arrivals and of the dependency's jitter.
    pub seed: u64,
}

impl ServiceConfig {
    /// Read and check the parameters of `request`.
    pub fn from_request(request: &TrialRequest) -> Result<ServiceConfig, TrialError> {
        let config = ServiceConfig {
            rate: request.param("rate")?,
            pattern: if request.param("poisson")? == 0 { Pattern::Constant } else { Pattern::Poisson },
            work_us: request.param("work_us")?,
            stages: u32::try_from(request.param("stages")?)
                .map_err(|_| TrialError::BadParam("`stages` is too large".to_string()))?,
            dependency: Duration::from_millis(request.param("dependency_ms")?),
            dependency_bound: request.param_usize("dependency_bound")?,
            admission: request.param_usize("admission")?,
            queue: request.param_usize("queue")?,
            deadline: Duration::from_millis(request.param("deadline_ms")?),
            run: Duration::from_millis(request.param("run_ms")?),
            seed: request.seed,
        };
        let zero = [config.rate, config.stages as u64, config.dependency_bound as u64, config.admission as u64]
            .contains(&0)
            || config.queue == 0;
        if zero {
            return Err(TrialError::BadParam(
                "`rate`, `stages`, `dependency-bound`, `admission` and `queue` must be at least 1".to_string(),
            ));
        }
        Ok(config)
    }

    /// The dependency of one run: `dependency_bound` slots of `dependency` (±10%), failing `fail_inputs` on
    /// purpose.
    pub fn dependency(&self, fail_inputs: Vec<u64>) -> dependency::Config {
        dependency::Config {
            capacity: self.dependency_bound,
            service: self.dependency,
            jitter: self.dependency / 10,
            queue_limit: None,
            fail_inputs,
            seed: self.seed,
            window: WINDOW,
            ..dependency::Config::default()
        }
    }

    /// The scheduled start of every arrival, µs from the run's start.
    pub fn schedule(&self) -> Vec<u64> {
        overload::arrivals::instants(self.rate, self.pattern, duration_us(self.run), self.seed)
    }

    /// The same run, `share` times shorter: an accounting run's settings.
    pub fn shortened(&self, share: u32) -> ServiceConfig {
        ServiceConfig { run: self.run / share.max(1), ..self.clone() }
    }
}

/// `d` in whole microseconds (saturating).
pub fn duration_us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
