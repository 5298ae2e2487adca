//! `vegas`: the limit follows the queue estimated from the latency above the no-load latency, after Netflix's
//! `VegasLimit` (`concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/VegasLimit.java`)
//! and its `Log10RootFunction` (`limit/functions/Log10RootFunction.java`).

use std::time::Duration;

use super::algorithm::{bounds, estimate_limit, finite_within};
use super::{Decisions, LimitAlgorithm, Sample};

/// How a [`Vegas`] limit starts, moves and probes. Defaults are Netflix's; the step functions are Netflix's
/// defaults and fixed (`alpha = 3·L`, `beta = 6·L`, `threshold = L`, increase `+L`, decrease `−L`, where `L`
/// is [`log10_root`] of the current limit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VegasConfig {
    /// The limit before any sample (default 20).
    pub initial: usize,
    /// The lowest the limit goes (default 1, as Netflix's `VegasLimit`; the scenario sets 20).
    pub min: usize,
    /// The highest the limit goes (default 1000).
    pub max: usize,
    /// How much of each new estimate the limit takes (default 1.0: all of it).
    pub smoothing: f64,
    /// The no-load latency is re-probed every `jitter × probe_multiplier × limit` samples, jitter uniform in
    /// [0.5, 1) (default 30).
    pub probe_multiplier: usize,
    /// Seed of the probe jitter. Netflix draws it from `ThreadLocalRandom`; a seed keeps the algorithm
    /// deterministic, so the blocking and async contestants see the same probes.
    pub seed: u64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            initial: 20,
            min: 1,
            max: 1000,
            smoothing: 1.0,
            probe_multiplier: 30,
            seed: 0x5eed_1ab0_7e57_0001,
        }
    }
}

/// Netflix's `Log10RootFunction` since its December 2018 fix ("Fix Vegas log10 function"):
/// `max(1, floor(log10(limit)))` at every limit (before the fix it took `sqrt` from 1000 on, a step of 31).
pub fn log10_root(limit: usize) -> usize {
    limit.checked_ilog10().map_or(1, |l| (l as usize).max(1))
}

/// Delay-based limit after TCP Vegas: estimates the queue as `limit × (1 − no_load / latency)` and steps the
/// limit to keep it between `alpha` and `beta`.
///
/// On each sample, as Netflix's `VegasLimit._update` (latencies in nanoseconds, `L = log10_root(floor(limit))`):
///
/// ```text
/// probes += 1
/// if jitter × probe_multiplier × limit ≤ probes:  no_load = latency, probes = 0, new jitter; no change
/// if no_load unset or latency < no_load:          no_load = latency; no change
/// queue = ceil(limit × (1 − no_load / latency))
/// if dropped:                      next = limit − L
/// else if in_flight × 2 < limit:   no change (app-limited)
/// else if queue ≤ L:               next = limit + 6·L        (no queueing: grow fast)
/// else if queue < 3·L:             next = limit + L
/// else if queue > 6·L:             next = limit − L
/// else:                            no change
/// limit = (1 − smoothing) × limit + smoothing × clamp(next, 1, max)
/// ```
///
/// A zero latency counts as 1 ns (Netflix rejects it).
#[derive(Debug, Clone, PartialEq)]
pub struct Vegas {
    config: VegasConfig,
    estimate: f64,
    /// Nanoseconds; 0 until the first sample.
    rtt_noload: u64,
    probe_count: usize,
    probe_jitter: f64,
    rng: u64,
    decisions: Decisions,
}

impl Vegas {
    /// A Vegas limit. `initial` is clamped into `[1, max]` (`max` at least 1), `smoothing` into [0, 1] (a
    /// non-finite one becomes 1.0).
    pub fn new(config: VegasConfig) -> Vegas {
        let (initial, min, max) = bounds(config.initial, config.min, config.max);
        let smoothing = finite_within(config.smoothing, 0.0, 1.0, VegasConfig::default().smoothing);
        let config = VegasConfig { initial, min, max, smoothing, ..config };
        let mut vegas = Vegas {
            config,
            estimate: config.initial as f64,
            rtt_noload: 0,
            probe_count: 0,
            probe_jitter: 0.0,
            rng: config.seed,
            decisions: Decisions::default(),
        };
        vegas.reset_probe_jitter();
        vegas
    }

    /// The configuration in force, after [`new`](Self::new) made its bounds consistent.
    pub fn config(&self) -> &VegasConfig {
        &self.config
    }

    /// The no-load latency the queue is estimated against (zero before any sample).
    pub fn rtt_noload(&self) -> Duration {
        Duration::from_nanos(self.rtt_noload)
    }

    /// Draws the next probe jitter, uniform in [0.5, 1) (SplitMix64).
    fn reset_probe_jitter(&mut self) {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
        self.probe_jitter = 0.5 + 0.5 * unit;
    }

    fn should_probe(&self) -> bool {
        self.probe_jitter * self.config.probe_multiplier as f64 * self.estimate <= self.probe_count as f64
    }

    fn update_estimate(&mut self, rtt: u64, sample: &Sample) -> usize {
        let estimate = self.estimate;
        let queue = (estimate * (1.0 - self.rtt_noload as f64 / rtt as f64)).ceil();
        let step = log10_root(self.limit()) as f64;

        let next = if sample.dropped {
            estimate - step
        } else if (sample.in_flight as f64) * 2.0 < estimate {
            self.decisions.app_limited += 1;
            return self.limit();
        } else {
            let (alpha, beta, threshold) = (3.0 * step, 6.0 * step, step);
            if queue <= threshold {
                estimate + beta
            } else if queue < alpha {
                estimate + step
            } else if queue > beta {
                estimate - step
            } else {
                self.decisions.holds += 1;
                return self.limit();
            }
        };

        let before = self.limit();
        let next = next.clamp(self.config.min as f64, self.config.max as f64);
        self.estimate = (1.0 - self.config.smoothing) * estimate + self.config.smoothing * next;
        self.decisions.count_move(before, self.limit());
        self.limit()
    }

    /// One sample: the new limit.
    fn update(&mut self, sample: &Sample) -> usize {
        let rtt = u64::try_from(sample.latency.as_nanos()).unwrap_or(u64::MAX).max(1);

        self.probe_count += 1;
        if self.should_probe() {
            self.reset_probe_jitter();
            self.probe_count = 0;
            self.rtt_noload = rtt;
            self.decisions.probes += 1;
            return self.limit();
        }

        if self.rtt_noload == 0 || rtt < self.rtt_noload {
            self.rtt_noload = rtt;
            self.decisions.new_minimums += 1;
            return self.limit();
        }

        self.update_estimate(rtt, sample)
    }
}

estimate_limit!(Vegas, VegasConfig, "vegas");

/// The limit `L > 1` at which Vegas's queue estimate `L × fraction` first reaches its α, `3·log10 L`, when every
/// latency it sees is `fraction` above the smallest: where the service time's own spread alone holds the limit,
/// whatever the capacity. `None` when the estimate is never below α (a fraction too large) or never reaches it (no
/// spread at all).
pub fn equilibrium(fraction: f64) -> Option<f64> {
    let gap = |l: f64| l * fraction - 3.0 * l.log10();
    let (mut low, mut high) = (2.0f64, 1e7f64);
    if fraction.is_nan() || fraction <= 0.0 || gap(low) >= 0.0 || gap(high) <= 0.0 {
        return None;
    }
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if gap(mid) < 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(micros: u64, in_flight: usize) -> Sample {
        Sample::new(Duration::from_micros(micros), in_flight, false)
    }

    #[test]
    fn log10_root_matches_netflix() {
        for (limit, expected) in
            [(0, 1), (1, 1), (9, 1), (10, 1), (99, 1), (100, 2), (999, 2), (1000, 3), (1024, 3), (10_000, 4)]
        {
            assert_eq!(log10_root(limit), expected, "log10_root({limit})");
        }
    }

    #[test]
    fn first_sample_sets_the_no_load_latency_then_no_queue_grows_by_beta() {
        let mut v = Vegas::default();
        assert_eq!(v.on_sample(&sample(10_000, 20)), 20);
        assert_eq!(v.rtt_noload(), Duration::from_millis(10));
        // queue = ceil(20 × (1 − 1)) = 0 ≤ threshold 1: + beta (6) = 26.
        assert_eq!(v.on_sample(&sample(10_000, 20)), 26);
        // 13 × 2 = 26 is not < 26: + 6 = 32.
        assert_eq!(v.on_sample(&sample(10_000, 13)), 32);
        // 15 × 2 = 30 < 32: app-limited, unchanged.
        assert_eq!(v.on_sample(&sample(10_000, 15)), 32);
    }

    #[test]
    fn steps_by_where_the_estimated_queue_falls() {
        let mut v = Vegas::default();
        v.on_sample(&sample(10_000, 20));
        v.on_sample(&sample(10_000, 20));
        v.on_sample(&sample(10_000, 20));
        assert_eq!(v.limit(), 32);
        // 20 ms: queue = ceil(32 × 0.5) = 16 > beta 6: − 1.
        assert_eq!(v.on_sample(&sample(20_000, 32)), 31);
        // 10.5 ms: queue = ceil(31 × (1 − 10/10.5)) = ceil(1.476) = 2, between threshold 1 and alpha 3: + 1.
        assert_eq!(v.on_sample(&sample(10_500, 32)), 32);
        // 12 ms: queue = ceil(32 × (1 − 10/12)) = ceil(5.33) = 6, within [alpha 3, beta 6]: unchanged.
        assert_eq!(v.on_sample(&sample(12_000, 32)), 32);
        // A drop backs off even when app-limited.
        let dropped = Sample { dropped: true, ..sample(10_000, 1) };
        assert_eq!(v.on_sample(&dropped), 31);
        // A faster call only lowers the no-load latency.
        assert_eq!(v.on_sample(&sample(5_000, 31)), 31);
        assert_eq!(v.rtt_noload(), Duration::from_millis(5));
    }

    #[test]
    fn stays_within_one_and_max() {
        let mut capped = Vegas::new(VegasConfig { max: 30, ..VegasConfig::default() });
        capped.on_sample(&sample(10_000, 20));
        assert_eq!(capped.on_sample(&sample(10_000, 20)), 26);
        // 26 + 6 = 32, clamped to 30.
        assert_eq!(capped.on_sample(&sample(10_000, 26)), 30);

        let mut floored = Vegas::new(VegasConfig { initial: 2, ..VegasConfig::default() });
        floored.on_sample(&sample(10_000, 2));
        let dropped = Sample { dropped: true, ..sample(10_000, 2) };
        assert_eq!(floored.on_sample(&dropped), 1);
        assert_eq!(floored.on_sample(&dropped), 1);
    }

    #[test]
    fn probes_the_no_load_latency_again_after_jitter_times_multiplier_times_limit_samples() {
        let mut v = Vegas::new(VegasConfig { probe_multiplier: 1, ..VegasConfig::default() });
        v.on_sample(&sample(5_000, 1));
        assert_eq!(v.rtt_noload(), Duration::from_millis(5));
        // App-limited samples keep the limit at 20; a probe comes within [0.5, 1) × 1 × 20 samples.
        let mut probed_at = None;
        for n in 2..=21 {
            v.on_sample(&sample(9_000, 1));
            if v.rtt_noload() == Duration::from_millis(9) {
                probed_at = Some(n);
                break;
            }
        }
        let n = probed_at.expect("no probe within 20 samples");
        assert!((10..=20).contains(&n), "probed at sample {n}");
    }

    #[test]
    fn the_same_seed_gives_the_same_limits() {
        let script: Vec<Sample> =
            (0..2000u64).map(|i| sample(5_000 + (i * 7919) % 9_000, 10 + (i % 50) as usize)).collect();
        let mut a = Vegas::default();
        let mut b = Vegas::default();
        for s in &script {
            assert_eq!(a.on_sample(s), b.on_sample(s));
        }
        assert_eq!(a, b);
    }

    #[test]
    fn vegas_meets_its_alpha_where_the_arithmetic_says() {
        // A tenth of every latency read as queueing: L / 10 = 3·log10 L near L = 51.
        let limit = equilibrium(0.1).expect("an equilibrium");
        assert!((limit * 0.1 - 3.0 * limit.log10()).abs() < 1e-6 && (50.0..53.0).contains(&limit), "{limit}");
        assert!(equilibrium(0.0).is_none(), "no spread: the estimate never reaches α");
        assert!(equilibrium(2.0).is_none(), "above α from the start");
    }
}
