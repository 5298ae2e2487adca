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
    /// Arrivals per second (0 in a trial's request: the sustainable-rate search, which sets it).
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
    /// The share of the dependency's slots lost halfway through the run, % (0: none).
    pub loss_pct: u64,
    /// Whether admission is AIMD's limit (a reply later than the deadline counts as a drop) instead of the
    /// style's natural bound alone.
    pub aimd: bool,
}

impl Default for ServiceConfig {
    /// The scenario's default single parameters at 20 µs of work and 8,000 arrivals per second, seed 1: a
    /// starting point for tests and examples, which override what they vary.
    fn default() -> Self {
        ServiceConfig {
            rate: 8_000,
            pattern: Pattern::Poisson,
            work_us: 20,
            stages: 3,
            dependency: Duration::from_millis(2),
            dependency_bound: 64,
            admission: 256,
            queue: 64,
            deadline: Duration::from_millis(20),
            run: Duration::from_millis(600),
            seed: 1,
            loss_pct: 0,
            aimd: false,
        }
    }
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
            loss_pct: request.param("loss_pct")?.min(100),
            aimd: request.param("aimd")? == 1,
        };
        let zero = [config.stages as u64, config.dependency_bound as u64, config.admission as u64].contains(&0)
            || config.queue == 0;
        if zero {
            return Err(TrialError::BadParam(
                "`stages`, `dependency-bound`, `admission` and `queue` must be at least 1".to_string(),
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

    /// When the dependency loses capacity, from the run's start: halfway through it, `None` without a loss.
    pub fn loss_at(&self) -> Option<Duration> {
        (self.loss_pct > 0).then(|| self.run / 2)
    }

    /// The dependency's slots after the loss (at least 1).
    pub fn slots_after_loss(&self) -> usize {
        (self.dependency_bound * (100 - self.loss_pct.min(100) as usize) / 100).max(1)
    }

    /// The admission limit AIMD moves: from 20 within 20 and the admission bound, a reply later than the
    /// deadline after its scheduled start counting as a drop (overload-service's AIMD, whose timeout at the
    /// deadline protected the callers there); updated on every reply.
    pub fn aimd_limits(&self) -> overload::limit::LimiterParams {
        let ceiling = self.admission.max(1);
        overload::limit::LimiterParams {
            fixed_limit: ceiling,
            initial: 20.min(ceiling),
            min: 20.min(ceiling),
            max: ceiling,
            timeout: self.deadline,
            ..overload::limit::LimiterParams::default()
        }
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
