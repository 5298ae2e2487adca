//! When each call arrives: the schedule, in microseconds from the run's start, made before the run so the load
//! generator only reads it. Latency counts from these instants, not from when a call was issued, so a contestant
//! that falls behind cannot hide it (no coordinated omission).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::clocks::duration_us;
use crate::service_config::{Pattern, ServiceConfig};

/// The arrival instants of a run of `config`, in µs from its start, ascending, over both phases.
pub fn schedule(config: &ServiceConfig) -> Vec<u64> {
    instants(config.rate, config.pattern, duration_us(config.healthy + config.after), config.seed)
}

/// `rate` arrivals per second spaced by `pattern` (Poisson gaps drawn from `seed`), in µs from the start,
/// ascending, every one before `end_us`: the schedule of any open-arrival run.
pub fn instants(rate: u64, pattern: Pattern, end_us: u64, seed: u64) -> Vec<u64> {
    let gap_us = 1e6 / rate.max(1) as f64;
    let mut out = Vec::with_capacity(usize::try_from(end_us / gap_us.max(1.0) as u64 + 1).unwrap_or(0));
    match pattern {
        Pattern::Constant => out.extend((0u64..).map(|i| (i as f64 * gap_us) as u64).take_while(|&at| at < end_us)),
        Pattern::Poisson => {
            let mut rng = StdRng::seed_from_u64(seed ^ 0x5EED_A771_7A15);
            let mut at = 0.0f64;
            loop {
                // Exponential gaps of mean `gap_us`: inverse transform of a uniform in (0, 1].
                let u: f64 = 1.0 - rng.random::<f64>();
                at += -u.ln() * gap_us;
                if at >= end_us as f64 {
                    break;
                }
                out.push(at as u64);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::limit::LimiterParams;

    fn config(rate: u64, pattern: Pattern) -> ServiceConfig {
        ServiceConfig {
            rate,
            pattern,
            healthy: Duration::from_millis(100),
            after: Duration::from_millis(100),
            deadline: Duration::from_millis(20),
            capacity: 500,
            capacity_after: 100,
            service: Duration::from_millis(5),
            jitter: Duration::ZERO,
            limits: LimiterParams {
                fixed_limit: 500,
                initial: 20,
                min: 20,
                max: 500,
                timeout: Duration::from_millis(20),
                no_load: Duration::from_millis(5),
                windowed: false,
            },
            little_limit: 400,
            unbounded_threads: 10,
            seed: 7,
        }
    }

    #[test]
    fn a_constant_schedule_has_rate_times_duration_arrivals_evenly_spaced() {
        let s = schedule(&config(10_000, Pattern::Constant));
        assert_eq!(s.len(), 2_000);
        assert_eq!(&s[..3], &[0, 100, 200]);
        assert!(s.windows(2).all(|w| w[1] - w[0] == 100));
    }

    #[test]
    fn a_poisson_schedule_is_seeded_ascending_and_near_its_mean_rate() {
        let a = schedule(&config(10_000, Pattern::Poisson));
        assert_eq!(a, schedule(&config(10_000, Pattern::Poisson)));
        assert!(a.windows(2).all(|w| w[1] >= w[0]));
        assert!(a.iter().all(|&t| t < 200_000));
        // 2,000 expected; a Poisson count's standard deviation is about 45.
        assert!((1_800..=2_200).contains(&a.len()), "{} arrivals", a.len());
    }
}
