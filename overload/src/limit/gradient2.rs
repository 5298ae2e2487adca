//! `gradient2`: the limit follows the ratio of a long-term to the latest latency, after Netflix's
//! `Gradient2Limit` (`concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/Gradient2Limit.java`,
//! the version with `rttTolerance`, whose short RTT is the latest sample).

use std::time::Duration;

use super::algorithm::{bounds, estimate_limit, finite_within};
use super::exp_avg::ExpAvg;
use super::{Decisions, LimitAlgorithm, Sample};

/// How a [`Gradient2`] limit starts, moves and is bounded. Defaults are Netflix's except `min` and `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gradient2Config {
    /// The limit before any sample (default 20).
    pub initial: usize,
    /// The lowest the limit goes (default 1, as the other adaptive limits here; Netflix's builder defaults to
    /// 20, which would equal the initial limit and forbid backing off below it).
    pub min: usize,
    /// The highest the limit goes (default 1000; Netflix's builder defaults to 200).
    pub max: usize,
    /// How much of each new estimate the limit takes (default 0.2): `limit × (1 − s) + estimate × s`.
    pub smoothing: f64,
    /// Samples in the long-term latency average (default 600): its factor is `2 / (long_window + 1)`.
    pub long_window: usize,
    /// Samples plainly averaged before the long-term average turns exponential (default 10, Netflix's fixed
    /// warm-up).
    pub warmup_window: usize,
    /// How much slower than the long-term average a call may be before the limit shrinks (default 1.5;
    /// Netflix requires at least 1.0).
    pub tolerance: f64,
    /// How much each estimate adds on top of `limit × gradient` (default 4): the queueing allowed for.
    pub queue_size: usize,
}

impl Default for Gradient2Config {
    fn default() -> Self {
        Gradient2Config {
            initial: 20,
            min: 1,
            max: 1000,
            smoothing: 0.2,
            long_window: 600,
            warmup_window: 10,
            tolerance: 1.5,
            queue_size: 4,
        }
    }
}

/// Delay-based limit: shrinks when the latest latency exceeds `tolerance ×` the long-term average.
///
/// On each sample, as Netflix's `Gradient2Limit._update` (latencies in nanoseconds):
///
/// ```text
/// short = latency;  long = long_avg.add(latency)
/// if long / short > 2:               long_avg ×= 0.95        (recovering after load; `long` below is unscaled)
/// if in_flight < estimate / 2:       return floor(estimate)  (app-limited: no change)
/// gradient = clamp(tolerance × long / short, 0.5, 1.0)
/// next     = estimate × gradient + queue_size
/// estimate = clamp(estimate × (1 − smoothing) + next × smoothing, min, max)
/// ```
///
/// So with a steady latency the estimate grows by `smoothing × queue_size` (0.8) per sample, and a latency
/// beyond `tolerance ×` the long average pulls it toward `smoothing × queue_size / (smoothing × (1 − gradient))`.
/// A drop is treated as Netflix does: the flag is ignored, its latency counts like any other (a timeout is
/// slow, so it shrinks the limit through the gradient). A zero latency counts as 1 ns so ratios stay finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient2 {
    config: Gradient2Config,
    estimate: f64,
    long_rtt: ExpAvg,
    last_rtt: f64,
    decisions: Decisions,
}

impl Gradient2 {
    /// A Gradient2 limit. Bounds are made consistent rather than rejected: `min` is at least 1, `max` at least
    /// `min`, `initial` is clamped into `[min, max]`, `smoothing` into [0, 1] and `tolerance` to at least 1.0
    /// (non-finite values take the defaults).
    pub fn new(config: Gradient2Config) -> Gradient2 {
        let defaults = Gradient2Config::default();
        let (initial, min, max) = bounds(config.initial, config.min, config.max);
        let smoothing = finite_within(config.smoothing, 0.0, 1.0, defaults.smoothing);
        let tolerance = finite_within(config.tolerance, 1.0, f64::INFINITY, defaults.tolerance);
        let config = Gradient2Config { initial, min, max, smoothing, tolerance, ..config };
        Gradient2 {
            config,
            estimate: config.initial as f64,
            long_rtt: ExpAvg::new(config.long_window, config.warmup_window),
            last_rtt: 0.0,
            decisions: Decisions::default(),
        }
    }

    /// The configuration in force, after [`new`](Self::new) made its bounds consistent.
    pub fn config(&self) -> &Gradient2Config {
        &self.config
    }

    /// The long-term latency average (Netflix's `getRttNoLoad`), zero before any sample.
    pub fn long_rtt(&self) -> Duration {
        Duration::from_nanos(self.long_rtt.get() as u64)
    }

    /// The latest sample's latency (Netflix's `getLastRtt`), zero before any sample.
    pub fn last_rtt(&self) -> Duration {
        Duration::from_nanos(self.last_rtt as u64)
    }

    /// One sample: the new limit.
    fn update(&mut self, sample: &Sample) -> usize {
        let queue_size = self.config.queue_size as f64;
        let short = (sample.latency.as_nanos() as f64).max(1.0);
        self.last_rtt = short;
        let long = self.long_rtt.add(short);

        // Latency back to normal after a long overload: pull the long average down faster than its window.
        if long / short > 2.0 {
            self.long_rtt.scale(0.95);
        }

        // App-limited: too few calls in flight for the latency to say anything about the limit.
        if (sample.in_flight as f64) < self.estimate / 2.0 {
            self.decisions.app_limited += 1;
            return self.limit();
        }

        let before = self.limit();
        let gradient = (self.config.tolerance * long / short).clamp(0.5, 1.0);
        let next = self.estimate * gradient + queue_size;
        let smoothed = self.estimate * (1.0 - self.config.smoothing) + next * self.config.smoothing;
        self.estimate = smoothed.clamp(self.config.min as f64, self.config.max as f64);
        self.decisions.count_move(before, self.limit());
        self.limit()
    }
}

estimate_limit!(Gradient2, Gradient2Config, "gradient2");

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ms: f64, in_flight: usize) -> Sample {
        Sample::new(Duration::from_micros((ms * 1000.0).round() as u64), in_flight, false)
    }

    fn assert_close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() < 1e-6, "estimate {actual}, expected {expected}");
    }

    #[test]
    fn steady_latency_grows_the_estimate_by_smoothing_times_queue_size() {
        let mut g = Gradient2::default();
        // gradient = clamp(1.5 × 1, 0.5, 1) = 1: next = e + 4, e' = 0.8 e + 0.2 (e + 4) = e + 0.8.
        for (n, expected_limit) in [(1, 20), (2, 21), (3, 22), (4, 23), (5, 24), (6, 24)] {
            assert_eq!(g.on_sample(&sample(10.0, 20)), expected_limit, "sample {n}");
            assert_close(g.estimated_limit(), 20.0 + 0.8 * n as f64);
        }
        for _ in 6..10 {
            g.on_sample(&sample(10.0, 20));
        }
        assert_close(g.estimated_limit(), 28.0);
        assert_eq!(g.long_rtt(), Duration::from_millis(10));
    }

    #[test]
    fn latency_doubling_shrinks_the_limit() {
        let mut g = Gradient2::default();
        for _ in 0..10 {
            g.on_sample(&sample(10.0, 28));
        }
        assert_close(g.estimated_limit(), 28.0);
        // Warmed up, long = 10 ms. Now 20 ms: long = 10 (1 − f) + 20 f with f = 2/601 = 10.0332779 ms,
        // gradient = 1.5 × 10.0332779 / 20 = 0.7524958, next = 28 × 0.7524958 + 4 = 25.0698835,
        // estimate = 0.8 × 28 + 0.2 × 25.0698835 = 27.4139767.
        assert_eq!(g.on_sample(&sample(20.0, 28)), 27);
        assert_close(g.estimated_limit(), 27.413_976_705_490_85);
        // It keeps shrinking while the long average lags (20 samples: 27.41 → 22.06), then the long average
        // catches up past 20 ms / 1.5 and growth resumes: a doubled latency that persists becomes the baseline.
        let mut previous = g.estimated_limit();
        for _ in 0..19 {
            g.on_sample(&sample(20.0, 28));
            assert!(g.estimated_limit() < previous);
            previous = g.estimated_limit();
        }
        assert_eq!(g.limit(), 22);
    }

    #[test]
    fn a_rise_within_tolerance_still_grows() {
        let mut g = Gradient2::default();
        for _ in 0..10 {
            g.on_sample(&sample(10.0, 28));
        }
        // 14 ms < 1.5 × 10 ms: gradient clamps to 1, the estimate grows by 0.8.
        g.on_sample(&sample(14.0, 28));
        assert_close(g.estimated_limit(), 28.8);
    }

    #[test]
    fn app_limited_samples_leave_the_limit_unchanged() {
        let mut g = Gradient2::default();
        // 9 < 20 / 2: unchanged, even with a slow call.
        assert_eq!(g.on_sample(&sample(10.0, 9)), 20);
        assert_eq!(g.on_sample(&sample(80.0, 9)), 20);
        assert_close(g.estimated_limit(), 20.0);
        // 10 is not < 10: updated. long = (10 + 80 + 10) / 3 ≥ short, gradient 1: + 0.8.
        g.on_sample(&sample(10.0, 10));
        assert_close(g.estimated_limit(), 20.8);
    }

    #[test]
    fn long_rtt_decays_when_latency_returns_to_normal() {
        let mut g = Gradient2::default();
        for _ in 0..10 {
            g.on_sample(&sample(100.0, 20));
        }
        assert_eq!(g.long_rtt(), Duration::from_millis(100));
        // long = 100 (1 − f) + 10 f = 99.7004992 ms, ratio 9.97 > 2: stored × 0.95 = 94.7154742 ms.
        g.on_sample(&sample(10.0, 20));
        let long_ms = g.long_rtt().as_secs_f64() * 1000.0;
        assert!((long_ms - 94.715_474_2).abs() < 1e-4, "long {long_ms} ms");
        assert_eq!(g.last_rtt(), Duration::from_millis(10));
    }

    #[test]
    fn stays_within_min_and_max() {
        let mut capped = Gradient2::new(Gradient2Config { max: 22, ..Gradient2Config::default() });
        for _ in 0..20 {
            assert!(capped.on_sample(&sample(10.0, 22)) <= 22);
        }
        assert_eq!(capped.limit(), 22);

        let mut floored = Gradient2::new(Gradient2Config { min: 15, ..Gradient2Config::default() });
        for _ in 0..10 {
            floored.on_sample(&sample(10.0, 30));
        }
        // The latency keeps climbing: the gradient stays at 0.5, which alone would settle near 8.
        for step in 0..200 {
            let limit = floored.on_sample(&sample(20.0 * (1.0 + step as f64), 30));
            assert!((15..=1000).contains(&limit), "limit {limit}");
        }
        assert_eq!(floored.limit(), 15);
    }

    #[test]
    fn a_drop_counts_only_through_its_latency() {
        let mut with_drop = Gradient2::default();
        let mut without = Gradient2::default();
        for ms in [10.0, 12.0, 30.0, 9.0, 50.0] {
            let plain = sample(ms, 25);
            let dropped = Sample { dropped: true, ..plain };
            assert_eq!(with_drop.on_sample(&dropped), without.on_sample(&plain));
        }
        assert_eq!(with_drop, without);
    }

    #[test]
    fn zero_latency_keeps_the_estimate_finite() {
        let mut g = Gradient2::default();
        g.on_sample(&sample(0.0, 20));
        g.on_sample(&sample(0.0, 20));
        assert!(g.estimated_limit().is_finite());
        assert_eq!(g.limit(), 21);
    }
}
