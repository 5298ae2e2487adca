//! `aimd`: additive increase, multiplicative decrease, after Netflix's `AIMDLimit`
//! (`concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/AIMDLimit.java`, the version
//! with `minLimit`/`maxLimit`).

use std::time::Duration;

use super::algorithm::{bounds, finite_within};
use super::{Decisions, LimitAlgorithm, Sample};

/// How an [`Aimd`] limit starts, moves and is bounded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimdConfig {
    /// The limit before any sample (default 20, Netflix's).
    pub initial: usize,
    /// The lowest the limit goes (default 20, Netflix's builder default).
    pub min: usize,
    /// The highest the limit goes (default 500: the scenario's fixed bound; Netflix's builder defaults to 200).
    pub max: usize,
    /// The factor a drop multiplies the limit by, rounded down (default 0.9; kept within [0.5, 1.0), the range
    /// Netflix's builder accepts).
    pub backoff: f64,
    /// A call slower than this (strictly) counts as a drop (Netflix's `timeout`, default 5 s there). The plain
    /// `aimd` sets the scenario's `--timeout-ms`; the `aimd-latency-<k>x` variants set `k ×` the measured no-load
    /// latency, which makes slowness the overload signal.
    pub latency_threshold: Duration,
    /// Which algorithm this is, for reports: `"aimd"` or an `aimd-latency-<k>x` name.
    pub name: &'static str,
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig {
            initial: 20,
            min: 20,
            max: 500,
            backoff: 0.9,
            latency_threshold: Duration::from_secs(5),
            name: "aimd",
        }
    }
}

/// Loss-based limit: +1 per good call while the gate is at least half used, × `backoff` per drop or slow call.
///
/// On each sample, as Netflix's `AIMDLimit._update`:
///
/// ```text
/// if dropped or latency > latency_threshold:  limit = floor(limit × backoff)
/// else if in_flight × 2 ≥ limit:              limit = limit + 1
/// limit = clamp(limit, min, max)
/// ```
///
/// The limit is an integer between steps, as in Netflix (so 9 backs off to 8, not 8.1).
#[derive(Debug, Clone, PartialEq)]
pub struct Aimd {
    config: AimdConfig,
    limit: usize,
    decisions: Decisions,
}

impl Aimd {
    /// An AIMD limit. Bounds are made consistent rather than rejected: `min` is at least 1, `max` at least
    /// `min`, `initial` is clamped into `[min, max]`, and a `backoff` outside [0.5, 1.0) is clamped into it (a
    /// non-finite one becomes 0.9).
    pub fn new(config: AimdConfig) -> Aimd {
        let (initial, min, max) = bounds(config.initial, config.min, config.max);
        let backoff = finite_within(config.backoff, 0.5, 1.0 - f64::EPSILON, AimdConfig::default().backoff);
        let config = AimdConfig { initial, min, max, backoff, ..config };
        Aimd { config, limit: config.initial, decisions: Decisions::default() }
    }

    /// The configuration in force, after [`new`](Self::new) made its bounds consistent.
    pub fn config(&self) -> &AimdConfig {
        &self.config
    }
}

impl Default for Aimd {
    fn default() -> Self {
        Aimd::new(AimdConfig::default())
    }
}

impl LimitAlgorithm for Aimd {
    fn name(&self) -> &'static str {
        self.config.name
    }

    fn decisions(&self) -> Decisions {
        self.decisions
    }

    fn limit(&self) -> usize {
        self.limit
    }

    fn on_sample(&mut self, sample: &Sample) -> usize {
        let current = self.limit;
        let next = if sample.dropped || sample.latency > self.config.latency_threshold {
            // Truncation toward zero, as Java's `(int)` cast; the product is finite and non-negative.
            (current as f64 * self.config.backoff).floor() as usize
        } else if sample.in_flight.saturating_mul(2) >= current {
            current.saturating_add(1)
        } else {
            self.decisions.app_limited += 1;
            return current;
        };
        self.limit = next.clamp(self.config.min, self.config.max);
        self.decisions.count_move(current, self.limit);
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ms: u64, in_flight: usize, dropped: bool) -> Sample {
        Sample::new(Duration::from_millis(ms), in_flight, dropped)
    }

    /// Feeds `aimd` each `(latency ms, in flight, dropped)` sample and checks the limit it returns.
    fn expect(aimd: &mut Aimd, steps: &[(u64, usize, bool, usize)]) {
        for (i, &(ms, in_flight, dropped, limit)) in steps.iter().enumerate() {
            assert_eq!(aimd.on_sample(&sample(ms, in_flight, dropped)), limit, "step {i}");
        }
    }

    /// The settings these scripted tests were written for: a floor of 1, a ceiling of 1000, slow above 10 ms.
    fn loose() -> AimdConfig {
        AimdConfig { min: 1, max: 1000, latency_threshold: Duration::from_millis(10), ..AimdConfig::default() }
    }

    #[test]
    fn grows_by_one_only_when_at_least_half_the_limit_is_in_flight() {
        let mut aimd = Aimd::new(loose());
        assert_eq!(aimd.limit(), 20);
        // 10 × 2 = 20 ≥ 20: grow; then 10 × 2 = 20 < 21: app-limited, unchanged; then 11 × 2 = 22 ≥ 21: grow.
        expect(&mut aimd, &[(5, 10, false, 21), (5, 10, false, 21), (5, 11, false, 22), (5, 1, false, 22)]);
    }

    #[test]
    fn backs_off_on_a_slow_call_and_on_a_drop_whatever_the_in_flight() {
        let mut aimd = Aimd::new(loose());
        assert_eq!(aimd.on_sample(&sample(5, 20, false)), 21);
        // 11 ms > 10 ms threshold: floor(21 × 0.9) = floor(18.9) = 18, even while app-limited.
        assert_eq!(aimd.on_sample(&sample(11, 1, false)), 18);
        // Exactly the threshold is not slow: 9 × 2 = 18 ≥ 18, grow.
        assert_eq!(aimd.on_sample(&sample(10, 9, false)), 19);
        // A fast drop still backs off: floor(19 × 0.9) = floor(17.1) = 17.
        assert_eq!(aimd.on_sample(&sample(1, 19, true)), 17);
        // Integer steps below 10: each backoff removes one (9 → 8, not 8.1).
        let mut small = Aimd::new(AimdConfig { initial: 9, ..loose() });
        assert_eq!(small.on_sample(&sample(1, 9, true)), 8);
        assert_eq!(small.on_sample(&sample(1, 8, true)), 7);
    }

    #[test]
    fn stays_within_min_and_max() {
        let mut floor_one = Aimd::new(AimdConfig { initial: 1, ..loose() });
        // floor(1 × 0.9) = 0, clamped to min 1.
        assert_eq!(floor_one.on_sample(&sample(50, 1, true)), 1);

        let mut bounded = Aimd::new(AimdConfig { initial: 6, min: 5, max: 7, ..loose() });
        // Up to the ceiling and no further, then floor(7 × 0.9) = 6, floor(6 × 0.9) = 5, floor(5 × 0.9) = 4
        // clamped to 5.
        let steps = [(1, 6, false, 7), (1, 7, false, 7), (1, 7, true, 6), (1, 7, true, 5), (1, 7, true, 5)];
        expect(&mut bounded, &steps);
    }

    #[test]
    fn inconsistent_bounds_are_made_consistent() {
        let aimd = Aimd::new(AimdConfig { initial: 0, min: 0, max: 0, backoff: 1.5, ..loose() });
        assert_eq!(aimd.limit(), 1);
        assert_eq!(aimd.config().min, 1);
        assert_eq!(aimd.config().max, 1);
        assert!(aimd.config().backoff < 1.0);
        let high = Aimd::new(AimdConfig { initial: 5000, ..loose() });
        assert_eq!(high.limit(), 1000);
        let defaults = Aimd::default();
        assert_eq!((defaults.config().min, defaults.config().max, defaults.limit()), (20, 500, 20));
    }

    #[test]
    fn every_sample_is_counted_as_one_decision() {
        let mut aimd = Aimd::new(loose());
        aimd.on_sample(&sample(5, 20, false)); // grow
        aimd.on_sample(&sample(5, 1, false)); // app-limited
        aimd.on_sample(&sample(1, 20, true)); // drop: back off
        let mut capped = Aimd::new(AimdConfig { initial: 7, min: 5, max: 7, ..loose() });
        capped.on_sample(&sample(1, 7, false)); // at the ceiling: hold
        let d = aimd.decisions();
        assert_eq!((d.increases, d.app_limited, d.decreases, d.holds), (1, 1, 1, 0));
        assert_eq!(capped.decisions().holds, 1);
    }
}
