//! Comparing two contestants' statistics honestly: a ratio, and whether the difference is beyond noise.

use crate::summary::MetricStats;

/// How two results relate once their confidence intervals and the noise threshold are taken into account.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// `a.median / b.median`.
    pub ratio: f64,
    /// True when the 99.9% intervals of the means overlap or the relative difference is under the threshold.
    pub noise: bool,
}

/// Compare `a` with `b` under `noise_threshold` (0.2 = 20%).
pub fn compare(a: &MetricStats, b: &MetricStats, noise_threshold: f64) -> Comparison {
    let _ = (a, b, noise_threshold);
    unimplemented!()
}

/// The bounds within which `a / b` lies given both confidence intervals: `(low, high)`, using
/// `mean ± ci999`; the low bound of a ratio whose denominator interval reaches zero is 0 and the high is infinite.
pub fn ratio_bounds(a: &MetricStats, b: &MetricStats) -> (f64, f64) {
    let _ = (a, b);
    unimplemented!()
}
