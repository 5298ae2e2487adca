//! Comparing two contestants' statistics honestly: a ratio, and whether the difference is beyond noise.
//!
//! [`verdict_at_most`] and [`verdict_at_least`] turn a claim such as "a costs at most 2× b" into a
//! [`Verdict`] from the [`ratio_bounds`] of the two confidence intervals, with the numbers behind it;
//! [`format_ratio`], [`format_or_na`] and [`times_or_na`] print figures the way claims and discussions show them.

use crate::summary::{MetricStats, Verdict};

/// How two results relate once their confidence intervals and the noise threshold are taken into account.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// `a.median / b.median`.
    pub ratio: f64,
    /// True when the 99.9% intervals of the means overlap or the relative difference is under the threshold.
    pub noise: bool,
}

/// Compare `a` with `b` under `noise_threshold` (0.2 = 20%).
///
/// The ratio is `a.median / b.median` (infinite or NaN when `b.median` is 0). The difference is noise when the
/// intervals `mean ± ci999` of `a` and `b` overlap (touching counts), or when `|ratio − 1| < noise_threshold`.
pub fn compare(a: &MetricStats, b: &MetricStats, noise_threshold: f64) -> Comparison {
    let ratio = a.median / b.median;
    let overlap = a.mean - a.ci999 <= b.mean + b.ci999 && b.mean - b.ci999 <= a.mean + a.ci999;
    let noise = overlap || (ratio - 1.0).abs() < noise_threshold;
    Comparison { ratio, noise }
}

/// The bounds within which `a / b` lies given both confidence intervals: `(low, high)`, using
/// `mean ± ci999`.
///
/// `low = max(0, a.mean − a.ci999) / (b.mean + b.ci999)` and `high = (a.mean + a.ci999) / (b.mean − b.ci999)`;
/// `high` is infinite when the denominator interval reaches zero (`b.mean − b.ci999 ≤ 0`), and the bounds are
/// `(0, ∞)` when all of it is at or below zero. Meant for non-negative metrics (times, counts, rates).
pub fn ratio_bounds(a: &MetricStats, b: &MetricStats) -> (f64, f64) {
    let b_low = b.mean - b.ci999;
    let b_high = b.mean + b.ci999;
    if b_high <= 0.0 {
        return (0.0, f64::INFINITY);
    }
    let low = (a.mean - a.ci999).max(0.0) / b_high;
    let high = if b_low <= 0.0 { f64::INFINITY } else { (a.mean + a.ci999) / b_low };
    (low, high)
}

/// The bounds within which `a / b` lies given both *ranges* (every measured sample): `(a.min / b.max,
/// a.max / b.min)`, the best and the worst pairing of samples; `high` is infinite when `b.min ≤ 0`.
///
/// For claims judged on a handful of samples, where a 99.9% confidence interval spans everything (three
/// samples: t = 31.6), the ranges are the honest bound: a claim that holds for every pairing holds for the
/// run.
pub fn range_bounds(a: &MetricStats, b: &MetricStats) -> (f64, f64) {
    if b.max <= 0.0 {
        return (0.0, f64::INFINITY);
    }
    let low = a.min.max(0.0) / b.max;
    let high = if b.min <= 0.0 { f64::INFINITY } else { a.max / b.min };
    (low, high)
}

/// Judges the claim "a ≤ factor × b" (for example "a costs at most 2× what b costs").
///
/// Holds when the high [`ratio_bounds`] is at most `factor`, fails when the low bound is above it, and is
/// inconclusive otherwise (or when a number is missing: NaN). The detail reads like
/// `ratio 1.43 (1.21–1.70 at 99.9%), claim ≤ 2.00`, with the ratio of medians first.
pub fn verdict_at_most(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    let (low, high) = ratio_bounds(a, b);
    (at_most(low, high, factor), detail(a, b, (low, high, "at 99.9%"), "≤", factor))
}

/// Judges the claim "a ≥ factor × b" (for example "a is at least 1.5× faster than b" on a rate metric).
///
/// Holds when the low [`ratio_bounds`] is at least `factor`, fails when the high bound is below it, and is
/// inconclusive otherwise. The detail reads like `ratio 1.43 (1.21–1.70 at 99.9%), claim ≥ 1.50`.
pub fn verdict_at_least(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    let (low, high) = ratio_bounds(a, b);
    (at_least(low, high, factor), detail(a, b, (low, high, "at 99.9%"), "≥", factor))
}

/// [`verdict_at_most`] on the [`range_bounds`]: holds when every pairing of samples satisfies the claim, fails
/// when none does. The detail reads like `ratio 0.61 (0.40–0.73 over every pairing of samples), claim ≤ 0.50`.
pub fn verdict_range_at_most(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    let (low, high) = range_bounds(a, b);
    (at_most(low, high, factor), detail(a, b, (low, high, "over every pairing of samples"), "≤", factor))
}

/// [`verdict_at_least`] on the [`range_bounds`].
pub fn verdict_range_at_least(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    let (low, high) = range_bounds(a, b);
    (at_least(low, high, factor), detail(a, b, (low, high, "over every pairing of samples"), "≥", factor))
}

/// "ratio ≤ factor" given the ratio lies in `[low, high]`.
fn at_most(low: f64, high: f64, factor: f64) -> Verdict {
    if high <= factor {
        Verdict::Holds
    } else if low > factor {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    }
}

/// "ratio ≥ factor" given the ratio lies in `[low, high]`.
fn at_least(low: f64, high: f64, factor: f64) -> Verdict {
    if low >= factor {
        Verdict::Holds
    } else if high < factor {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    }
}

/// `ratio R (L–H <how>), claim OP F`.
fn detail(a: &MetricStats, b: &MetricStats, (low, high, how): (f64, f64, &str), op: &str, factor: f64) -> String {
    format!(
        "ratio {} ({}–{} {how}), claim {op} {}",
        format_ratio(a.median / b.median),
        format_ratio(low),
        format_ratio(high),
        format_ratio(factor)
    )
}

/// A ratio with three significant digits (at least two decimals below 10, none from 100 up): `1.43`, `14.3`,
/// `143`, `0.0143`; `∞` for infinity and `n/a` for NaN.
pub fn format_ratio(x: f64) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞".to_string() } else { "-∞".to_string() };
    }
    if x == 0.0 {
        return "0.00".to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

/// [`format_ratio`] of a figure that may be missing: `n/a` when it is.
pub fn format_or_na(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), format_ratio)
}

/// `a / b` as [`format_ratio`] followed by `×`, such as `1.43×`; `n/a` when either is missing or `b` is not
/// positive.
pub fn times_or_na(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{}×", format_ratio(a / b)),
        _ => "n/a".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(mean: f64, ci999: f64) -> MetricStats {
        MetricStats { median: mean, min: mean - ci999, max: mean + ci999, ci999, n: 10, mean, fork_medians: vec![] }
    }

    #[test]
    fn overlapping_intervals_are_noise() {
        let c = compare(&stats(10.0, 2.0), &stats(13.0, 2.0), 0.05);
        assert!((c.ratio - 10.0 / 13.0).abs() < 1e-12);
        assert!(c.noise);
    }

    #[test]
    fn separated_intervals_beyond_threshold_are_not_noise() {
        let c = compare(&stats(10.0, 1.0), &stats(20.0, 1.0), 0.2);
        assert_eq!(c.ratio, 0.5);
        assert!(!c.noise);
    }

    #[test]
    fn small_relative_difference_is_noise_even_when_separated() {
        let c = compare(&stats(100.0, 0.1), &stats(110.0, 0.1), 0.2);
        assert!(c.noise);
        let c = compare(&stats(100.0, 0.1), &stats(110.0, 0.1), 0.05);
        assert!(!c.noise);
    }

    #[test]
    fn bounds_from_intervals() {
        let (low, high) = ratio_bounds(&stats(10.0, 1.0), &stats(5.0, 1.0));
        assert!((low - 9.0 / 6.0).abs() < 1e-12);
        assert!((high - 11.0 / 4.0).abs() < 1e-12);
        let (low, high) = ratio_bounds(&stats(1.0, 2.0), &stats(5.0, 1.0));
        assert_eq!(low, 0.0);
        assert!((high - 3.0 / 4.0).abs() < 1e-12);
    }

    #[test]
    fn denominator_reaching_zero_has_infinite_high() {
        let (low, high) = ratio_bounds(&stats(10.0, 1.0), &stats(1.0, 1.0));
        assert!((low - 9.0 / 2.0).abs() < 1e-12);
        assert_eq!(high, f64::INFINITY);
        assert_eq!(ratio_bounds(&stats(10.0, 1.0), &stats(0.0, 0.0)), (0.0, f64::INFINITY));
    }

    #[test]
    fn at_most_verdicts() {
        // ratio in [1.5, 2.75]
        let (a, b) = (stats(10.0, 1.0), stats(5.0, 1.0));
        assert_eq!(verdict_at_most(&a, &b, 3.0).0, Verdict::Holds);
        assert_eq!(verdict_at_most(&a, &b, 1.4).0, Verdict::Fails);
        assert_eq!(verdict_at_most(&a, &b, 2.0).0, Verdict::Inconclusive);
        let (_, detail) = verdict_at_most(&a, &b, 3.0);
        assert_eq!(detail, "ratio 2.00 (1.50–2.75 at 99.9%), claim ≤ 3.00");
    }

    #[test]
    fn at_least_verdicts() {
        let (a, b) = (stats(10.0, 1.0), stats(5.0, 1.0));
        assert_eq!(verdict_at_least(&a, &b, 1.5).0, Verdict::Holds);
        assert_eq!(verdict_at_least(&a, &b, 3.0).0, Verdict::Fails);
        assert_eq!(verdict_at_least(&a, &b, 2.0).0, Verdict::Inconclusive);
        assert!(verdict_at_least(&a, &b, 1.5).1.contains("claim ≥ 1.50"));
    }

    #[test]
    fn unbounded_denominator_is_inconclusive_or_fails() {
        let (a, b) = (stats(10.0, 1.0), stats(1.0, 2.0));
        let (verdict, detail) = verdict_at_most(&a, &b, 2.0);
        assert_eq!(verdict, Verdict::Fails);
        assert!(detail.contains('∞'), "{detail}");
        assert_eq!(verdict_at_most(&a, &b, 100.0).0, Verdict::Inconclusive);
        assert_eq!(verdict_at_least(&a, &b, 2.0).0, Verdict::Holds);
    }

    #[test]
    fn nan_is_inconclusive() {
        let a = stats(f64::NAN, 0.0);
        let b = stats(1.0, 0.1);
        assert_eq!(verdict_at_most(&a, &b, 1.0).0, Verdict::Inconclusive);
        assert_eq!(verdict_at_least(&a, &b, 1.0).0, Verdict::Inconclusive);
    }

    #[test]
    fn range_verdicts_need_every_pairing_to_hold_and_every_pairing_to_fail() {
        let range = |min: f64, median: f64, max: f64| MetricStats {
            median,
            min,
            max,
            ci999: f64::INFINITY,
            n: 3,
            mean: median,
            fork_medians: vec![],
        };
        let fixed = range(20.0, 25.0, 30.0);
        assert_eq!(verdict_range_at_most(&range(5.0, 6.0, 9.0), &fixed, 0.5).0, Verdict::Holds);
        assert_eq!(verdict_range_at_most(&range(5.0, 6.0, 12.0), &fixed, 0.5).0, Verdict::Inconclusive);
        assert_eq!(verdict_range_at_most(&range(16.0, 18.0, 20.0), &fixed, 0.5).0, Verdict::Fails);
        assert_eq!(verdict_range_at_least(&range(150.0, 160.0, 170.0), &fixed, 5.0).0, Verdict::Holds);
        assert_eq!(verdict_range_at_least(&range(90.0, 95.0, 99.0), &fixed, 5.0).0, Verdict::Fails);
        let (_, detail) = verdict_range_at_most(&range(10.0, 12.0, 15.0), &range(20.0, 24.0, 30.0), 0.5);
        assert_eq!(detail, "ratio 0.500 (0.333–0.750 over every pairing of samples), claim ≤ 0.500");
    }

    #[test]
    fn ratio_formatting() {
        assert_eq!(format_ratio(1.4321), "1.43");
        assert_eq!(format_ratio(14.321), "14.3");
        assert_eq!(format_ratio(143.21), "143");
        assert_eq!(format_ratio(0.014321), "0.0143");
        assert_eq!(format_ratio(0.0), "0.00");
        assert_eq!(format_ratio(f64::INFINITY), "∞");
        assert_eq!(format_ratio(f64::NAN), "n/a");
    }

    #[test]
    fn missing_figures_are_not_available() {
        assert_eq!(format_or_na(Some(14.321)), "14.3");
        assert_eq!(format_or_na(None), "n/a");
        assert_eq!(times_or_na(Some(3.0), Some(2.0)), "1.50×");
        assert_eq!(times_or_na(Some(3.0), Some(0.0)), "n/a");
        assert_eq!(times_or_na(None, Some(2.0)), "n/a");
    }
}
