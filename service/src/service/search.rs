//! The sustainable-rate search: the highest arrival rate at which a style answers at least 99% of its arrivals
//! within the deadline, with the load generator keeping its schedule, found in each trial process by bisection
//! over short probing runs and then confirmed on a longer one. The trial then times its runs at the confirmed
//! rate, so the rate is a per-process figure the lab judges on process medians like any other.

use measure::record::MetricValues;

use super::contestants::run::{run_once, Variation};
use super::contestants::{Contestant, Prepared};
use super::findings::{KEPT_SHARE, LAG_LIMIT_US};
use crate::analysis::{self, IN_TIME_SHARE};
use crate::config::ServiceConfig;
use crate::error::RunError;
use crate::work::Work;

/// The highest rate found, per process.
pub const SUSTAINABLE_RATE: &str = "sustainable_rate_per_sec";
/// The rate the search started from: what the cores allow the work and the dependency's slots allow, the lower.
pub const SEARCH_CEILING: &str = "search_ceiling_per_sec";
/// Bisection steps after the ceiling failed: the rate is found to within the ceiling ÷ 2⁶.
const STEPS: u32 = 6;
/// A confirming run is this many probes long.
const CONFIRM_LENGTH: u32 = 3;
/// Confirming runs before the search gives up, each 10% below the last.
const CONFIRM_TRIES: u32 = 3;

/// What one search found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    /// The rate the search ends at, per second: confirmed, or the last one tried.
    pub rate: u64,
    /// Whether a confirming run at `rate` answered 99% within the deadline with the schedule kept.
    pub confirmed: bool,
    /// The highest rate the search tried: what the dependency's slots and the cores allow the work.
    pub ceiling: u64,
    /// Probing and confirming runs made.
    pub probes: u32,
}

impl Found {
    /// The search's figures, as the trial's timed iterations record them.
    pub fn metrics(&self) -> MetricValues {
        MetricValues::from([
            (SUSTAINABLE_RATE.to_string(), self.rate as f64),
            ("sustainable_rate_confirmed".to_string(), f64::from(u8::from(self.confirmed))),
            (SEARCH_CEILING.to_string(), self.ceiling as f64),
            ("search_probes".to_string(), f64::from(self.probes)),
        ])
    }
}

/// The rate no style can exceed at `config`: the dependency's slots over its service time, and the cores over
/// the work per request, whichever is lower (at least 1).
pub fn ceiling(config: &ServiceConfig, cores: usize) -> u64 {
    let dependency = config.dependency_bound as f64 / config.dependency.as_secs_f64().max(1e-6);
    let cpu = cores.max(1) as f64 * 1e6 / (config.work_us.max(1) as f64);
    dependency.min(cpu).floor().max(1.0) as u64
}

/// Search `contestant`'s sustainable rate at `config` (its `rate` ignored), over probing runs of `probe` each.
pub fn sustainable_rate(
    contestant: Contestant,
    prepared: &Prepared,
    config: &ServiceConfig,
    work: Work,
    probe: std::time::Duration,
) -> Result<Found, RunError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let top = ceiling(config, cores);
    let mut probes = 0;
    let mut sustains = |rate: u64, length: u32| -> Result<bool, RunError> {
        probes += 1;
        let settings = ServiceConfig { rate: rate.max(1), run: probe * length, ..config.clone() };
        let output = run_once(contestant, prepared, &settings, work, &Variation::default(), &mut || {})?;
        let requests = &output.requests;
        let found = analysis::analyse(&requests.book.entries(), &requests.schedule, &settings);
        requests.dependency.shutdown();
        let in_time = found.metrics.get(IN_TIME_SHARE).copied().unwrap_or(0.0);
        let lag = output.lag.metrics("lag_").get("lag_latency_p99_us").copied().unwrap_or(f64::INFINITY);
        Ok(in_time >= KEPT_SHARE && lag <= LAG_LIMIT_US)
    };
    let mut rate = top;
    if !sustains(top, 1)? {
        let (mut low, mut high) = (top >> STEPS, top);
        for _ in 0..STEPS {
            let middle = low + (high - low) / 2;
            if sustains(middle, 1)? {
                low = middle;
            } else {
                high = middle;
            }
        }
        rate = low.max(1);
    }
    let mut confirmed = false;
    for _ in 0..CONFIRM_TRIES {
        confirmed = sustains(rate, CONFIRM_LENGTH)?;
        if confirmed || rate <= 1 {
            break;
        }
        rate = (rate * 9 / 10).max(1);
    }
    Ok(Found { rate, confirmed, ceiling: top, probes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_is_the_lower_of_the_dependency_and_the_cores() {
        let config = ServiceConfig { work_us: 200, ..ServiceConfig::default() };
        assert_eq!(ceiling(&config, 2), 10_000, "two cores over 200 µs");
        assert_eq!(ceiling(&ServiceConfig { work_us: 2, ..config.clone() }, 2), 32_000, "64 slots of 2 ms");
    }
}
