//! What the dependency is: its slots, its service time, its capacity schedule, its queue limit and its timer
//! threads, with the defaults the overload scenario starts from.

use std::io;
use std::time::Duration;

/// How the simulated dependency behaves. [`Config::default`] is the overload scenario's starting point:
/// 500 slots, 5 ms per call, no jitter, no schedule, no queue limit, 2 timer threads, seed 1, 100 ms windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Initial number of concurrent slots: calls in service at once. `usize::MAX` means unlimited (every call
    /// starts at once and nothing queues); `0` means nothing starts until a scheduled change raises it.
    pub capacity: usize,
    /// Mean service time of one call: the time from the start of service to the timer firing.
    pub service: Duration,
    /// Half-width of the service time's spread: each call's service time is uniform in
    /// `[service - jitter, service + jitter]` (clamped at zero), drawn from [`Config::seed`] and the call's issue
    /// index, so a run is reproducible whatever the order calls arrive in. Zero means every call takes exactly
    /// `service`.
    pub jitter: Duration,
    /// Capacity changes, applied in order as calls are issued. Must be sorted by [`CapacityChange::at_call`].
    pub schedule: Vec<CapacityChange>,
    /// If set, a call arriving when the FIFO queue already holds this many calls is rejected at once with
    /// [`crate::CallError::Overloaded`]. `None` (the default) queues without limit.
    pub queue_limit: Option<usize>,
    /// Inputs of calls that fail at once with [`crate::CallError::Injected`], whatever the dependency's state: a
    /// failure at a chosen call, for conformance checks only. Empty (the default) on every measured run, where it
    /// costs one emptiness test per call under the dependency's lock.
    pub fail_inputs: Vec<u64>,
    /// Number of timer threads that fire deadlines and complete calls (at least 1; default 2).
    pub timer_threads: usize,
    /// Seed of the service-time jitter.
    pub seed: u64,
    /// Width of one timeline window (non-zero; default 100 ms). Windows are counted from
    /// [`crate::Dependency::start`].
    pub window: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            capacity: 500,
            service: Duration::from_millis(5),
            jitter: Duration::ZERO,
            schedule: Vec::new(),
            queue_limit: None,
            fail_inputs: Vec::new(),
            timer_threads: 2,
            seed: 1,
            window: Duration::from_millis(100),
        }
    }
}

/// A change of capacity that applies when the call with issue index [`CapacityChange::at_call`] is issued,
/// before that call is admitted (so that call already sees the new capacity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityChange {
    /// 0-based issue index of the call that triggers the change (rejected calls count: it is the order of
    /// [`crate::Dependency::call`]s).
    pub at_call: u64,
    /// The capacity from then on (`usize::MAX` = unlimited).
    pub capacity: usize,
}

impl Config {
    /// Checks the fields that have to make sense before any thread starts: at least one timer thread, a
    /// non-zero window, a service time (plus jitter) of at most a day, and a schedule sorted by `at_call`.
    ///
    /// # Errors
    ///
    /// An [`io::ErrorKind::InvalidInput`] error naming the field.
    pub fn validate(&self) -> io::Result<()> {
        let invalid =
            |message: &str| Err(io::Error::new(io::ErrorKind::InvalidInput, format!("dependency: {message}")));
        if self.timer_threads == 0 {
            return invalid("timer_threads must be at least 1");
        }
        if self.window.is_zero() {
            return invalid("window must be longer than zero");
        }
        if self.service.checked_add(self.jitter).is_none_or(|longest| longest > MAX_SERVICE) {
            return invalid("service + jitter must be at most one day");
        }
        if self.schedule.windows(2).any(|pair| pair[0].at_call > pair[1].at_call) {
            return invalid("schedule must be sorted by at_call");
        }
        Ok(())
    }

    /// The service time of the call with issue index `call`: [`Config::service`] when there is no jitter,
    /// otherwise uniform in `[service - jitter, service + jitter]` (clamped at zero), a pure function of
    /// [`Config::seed`] and `call`.
    pub fn service_time(&self, call: u64) -> Duration {
        if self.jitter.is_zero() {
            return self.service;
        }
        let jitter_ns = u64::try_from(self.jitter.as_nanos()).unwrap_or(u64::MAX / 4);
        let span = jitter_ns.saturating_mul(2).saturating_add(1);
        let offset = splitmix64(self.seed.wrapping_add(call.wrapping_mul(GOLDEN_GAMMA))) % span;
        let low = self.service.saturating_sub(self.jitter);
        // `offset` ranges over [0, 2 * jitter]; below `service - jitter` is clamped at zero by `low`.
        if self.service >= self.jitter {
            low + Duration::from_nanos(offset)
        } else {
            // service - jitter < 0: shift the window and clamp the negative part to zero.
            let below = self.jitter - self.service;
            Duration::from_nanos(offset).saturating_sub(below)
        }
    }
}

/// The longest service time (plus jitter) a config may ask for.
const MAX_SERVICE: Duration = Duration::from_secs(24 * 60 * 60);

/// The golden-ratio increment of SplitMix64.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a cheap, well-mixed hash of one 64-bit value.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_overload_starting_point() {
        let config = Config::default();
        assert_eq!(config.capacity, 500);
        assert_eq!(config.service, Duration::from_millis(5));
        assert_eq!(config.jitter, Duration::ZERO);
        assert!(config.schedule.is_empty());
        assert_eq!(config.queue_limit, None);
        assert!(config.fail_inputs.is_empty());
        assert_eq!(config.timer_threads, 2);
        assert_eq!(config.seed, 1);
        assert_eq!(config.window, Duration::from_millis(100));
        assert!(config.validate().is_ok());
    }

    #[test]
    fn validate_names_the_bad_field() {
        let zero_threads = Config { timer_threads: 0, ..Config::default() };
        assert!(zero_threads.validate().is_err_and(|e| e.to_string().contains("timer_threads")));
        let zero_window = Config { window: Duration::ZERO, ..Config::default() };
        assert!(zero_window.validate().is_err_and(|e| e.to_string().contains("window")));
        let unsorted = Config {
            schedule: vec![CapacityChange { at_call: 5, capacity: 1 }, CapacityChange { at_call: 2, capacity: 3 }],
            ..Config::default()
        };
        assert!(unsorted.validate().is_err_and(|e| e.to_string().contains("schedule")));
    }

    #[test]
    fn without_jitter_every_call_takes_the_service_time() {
        let config = Config::default();
        assert!((0..100).all(|call| config.service_time(call) == config.service));
    }

    #[test]
    fn jitter_stays_in_bounds_is_reproducible_and_spreads() {
        let config = Config { jitter: Duration::from_millis(2), ..Config::default() };
        let times: Vec<Duration> = (0..10_000).map(|call| config.service_time(call)).collect();
        assert!(times.iter().all(|t| *t >= Duration::from_millis(3) && *t <= Duration::from_millis(7)));
        assert_eq!(times, (0..10_000).map(|call| config.service_time(call)).collect::<Vec<_>>());
        let mean = times.iter().sum::<Duration>() / 10_000;
        assert!(mean > Duration::from_micros(4_900) && mean < Duration::from_micros(5_100), "mean {mean:?}");
        let other_seed = Config { seed: 2, ..config.clone() };
        assert_ne!(times[..10], (0..10).map(|call| other_seed.service_time(call)).collect::<Vec<_>>()[..]);
    }

    #[test]
    fn jitter_wider_than_service_clamps_at_zero() {
        let config =
            Config { service: Duration::from_millis(1), jitter: Duration::from_millis(3), ..Config::default() };
        let times: Vec<Duration> = (0..10_000).map(|call| config.service_time(call)).collect();
        assert!(times.iter().all(|t| *t <= Duration::from_millis(4)));
        assert!(times.iter().any(|t| t.is_zero()));
    }
}
