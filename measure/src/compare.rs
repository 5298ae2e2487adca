//! Comparing two contestants' statistics honestly: a ratio, and whether the difference is beyond noise.
//!
//! The process is the unit of evidence: intervals are over per-process medians ([`MetricStats::interval`]) and a
//! contestant measured in fewer than [`MIN_PROCESSES`] processes has none, so every verdict on it is
//! inconclusive ("too few processes") and never holds or fails. [`verdict_at_most`] and [`verdict_at_least`]
//! turn a claim such as "a costs at most 2× b" into a [`Verdict`] from the [`ratio_bounds`] of the two
//! intervals, with the numbers behind it; the `verdict_range_*` functions judge on every pairing of samples;
//! [`format_ratio`], [`format_or_na`] and [`times_or_na`] print figures the way claims and discussions show them.

use crate::stats::MIN_PROCESSES;
use crate::summary::{MetricStats, Verdict};

/// How two results relate once their confidence intervals and the noise threshold are taken into account.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// `a.median / b.median`.
    pub ratio: f64,
    /// True when either has no interval (too few processes), the 99.9% intervals overlap, or the relative
    /// difference is under the threshold.
    pub noise: bool,
}

/// Compare `a` with `b` under `noise_threshold` (0.2 = 20%).
///
/// The ratio is `a.median / b.median` (infinite or NaN when `b.median` is 0). The difference is noise when
/// either has no [`MetricStats::interval`] (fewer than [`MIN_PROCESSES`] processes), when the intervals overlap
/// (touching counts), or when `|ratio − 1| < noise_threshold`.
pub fn compare(a: &MetricStats, b: &MetricStats, noise_threshold: f64) -> Comparison {
    let ratio = a.median / b.median;
    let overlap = match (a.interval(), b.interval()) {
        (Some((a_low, a_high)), Some((b_low, b_high))) => a_low <= b_high && b_low <= a_high,
        _ => true,
    };
    let noise = overlap || (ratio - 1.0).abs() < noise_threshold;
    Comparison { ratio, noise }
}

/// The bounds within which `a / b` lies given both 99.9% intervals over per-process medians: `(low, high)`, or
/// `None` when either has fewer than [`MIN_PROCESSES`] processes.
///
/// `low = max(0, a.low) / b.high` and `high = a.high / b.low`; `high` is infinite when the denominator interval
/// reaches zero (`b.low ≤ 0`), and the bounds are `(0, ∞)` when all of it is at or below zero. Meant for
/// non-negative metrics (times, counts, rates).
pub fn ratio_bounds(a: &MetricStats, b: &MetricStats) -> Option<(f64, f64)> {
    let (a_low, a_high) = a.interval()?;
    let (b_low, b_high) = b.interval()?;
    if b_high <= 0.0 {
        return Some((0.0, f64::INFINITY));
    }
    let low = a_low.max(0.0) / b_high;
    let high = if b_low <= 0.0 { f64::INFINITY } else { a_high / b_low };
    Some((low, high))
}

/// The bounds within which `a / b` lies given both *ranges* (every measured sample): `(a.min / b.max,
/// a.max / b.min)`, the best and the worst pairing of samples; `high` is infinite when `b.min ≤ 0`.
///
/// For claims judged on a handful of samples, where a 99.9% confidence interval spans everything (three
/// processes: t = 31.6), the ranges are the honest bound: a claim that holds for every pairing holds for the
/// run. The verdicts still need [`MIN_PROCESSES`] processes on each side.
pub fn range_bounds(a: &MetricStats, b: &MetricStats) -> (f64, f64) {
    if b.max <= 0.0 {
        return (0.0, f64::INFINITY);
    }
    let low = a.min.max(0.0) / b.max;
    let high = if b.min <= 0.0 { f64::INFINITY } else { a.max / b.min };
    (low, high)
}

/// Why no verdict can be drawn on `a` against `b` whatever the numbers: fewer than [`MIN_PROCESSES`] processes
/// on either side. The text reads `too few processes (2 of a, 3 needed)`.
pub fn too_few_processes(a: &MetricStats, b: &MetricStats) -> Option<String> {
    let fewest = a.processes.min(b.processes);
    (fewest < MIN_PROCESSES).then(|| format!("too few processes ({fewest}, {MIN_PROCESSES} needed)"))
}

/// How a ratio is judged: on the 99.9% intervals or on the ranges of every sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The 99.9% intervals over per-process medians ([`ratio_bounds`]).
    Intervals,
    /// Every pairing of samples ([`range_bounds`]).
    Ranges,
    /// The worst sample decides, as for a bound: `a ≤ factor × b` holds when the largest sample of `a` is within
    /// `factor ×` the smallest of `b` and fails otherwise (`a ≥`: the smallest against the largest).
    WorstSample,
}

/// Which way a ratio claim points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `a ≤ factor × b`.
    AtMost,
    /// `a ≥ factor × b`.
    AtLeast,
}

/// Judges `a` against `factor × b` by `relation` on `basis`: holds when every value the bounds allow satisfies
/// it, fails when none does, inconclusive in between, when a number is missing (NaN), or with too few processes
/// on either side. The detail reads like `ratio 1.43 (1.21–1.70 at 99.9%), claim ≤ 2.00`.
pub fn verdict(a: &MetricStats, b: &MetricStats, relation: Relation, factor: f64, basis: Basis) -> (Verdict, String) {
    let op = match relation {
        Relation::AtMost => "≤",
        Relation::AtLeast => "≥",
    };
    if let Some(why) = too_few_processes(a, b) {
        let ratio = format_ratio(a.median / b.median);
        return (Verdict::Inconclusive, format!("ratio {ratio}, claim {op} {}: {why}", format_ratio(factor)));
    }
    let (low, high, how) = match basis {
        Basis::Intervals => match ratio_bounds(a, b) {
            Some((low, high)) => (low, high, "at 99.9%"),
            None => (f64::NAN, f64::NAN, "at 99.9%"),
        },
        Basis::Ranges => {
            let (low, high) = range_bounds(a, b);
            (low, high, "over every pairing of samples")
        }
        Basis::WorstSample => {
            let (low, high) = range_bounds(a, b);
            // One sample beyond the line decides: the worst pairing is both bounds.
            match relation {
                Relation::AtMost => (high, high, "worst sample"),
                Relation::AtLeast => (low, low, "worst sample"),
            }
        }
    };
    let verdict = match relation {
        Relation::AtMost => at_most(low, high, factor),
        Relation::AtLeast => at_least(low, high, factor),
    };
    (verdict, detail(a, b, (low, high, how), op, factor))
}

/// Judges the claim "a ≤ factor × b" (for example "a costs at most 2× what b costs") on the 99.9% intervals:
/// [`verdict`] with [`Relation::AtMost`] and [`Basis::Intervals`].
pub fn verdict_at_most(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    verdict(a, b, Relation::AtMost, factor, Basis::Intervals)
}

/// Judges the claim "a ≥ factor × b" (for example "a is at least 1.5× faster than b" on a rate metric) on the
/// 99.9% intervals: [`verdict`] with [`Relation::AtLeast`] and [`Basis::Intervals`].
pub fn verdict_at_least(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    verdict(a, b, Relation::AtLeast, factor, Basis::Intervals)
}

/// [`verdict_at_most`] on the [`range_bounds`]: holds when every pairing of samples satisfies the claim, fails
/// when none does. The detail reads like `ratio 0.61 (0.40–0.73 over every pairing of samples), claim ≤ 0.50`.
pub fn verdict_range_at_most(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    verdict(a, b, Relation::AtMost, factor, Basis::Ranges)
}

/// [`verdict_at_least`] on the [`range_bounds`].
pub fn verdict_range_at_least(a: &MetricStats, b: &MetricStats, factor: f64) -> (Verdict, String) {
    verdict(a, b, Relation::AtLeast, factor, Basis::Ranges)
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

/// Whether `a` exceeds `b` by more than the run's noise threshold: `a > b × (1 + threshold)`. Prose uses this
/// (with the run's `noise_threshold`) instead of thresholds of its own, so words and verdicts draw the same line.
pub fn beyond_noise(a: f64, b: f64, threshold: f64) -> bool {
    a > b * (1.0 + threshold)
}

/// Whether positive `a` and `b` are within the noise threshold of each other: the larger at most
/// `1 + threshold` times the smaller.
pub fn within_noise(a: f64, b: f64, threshold: f64) -> bool {
    !beyond_noise(a.max(b), a.min(b), threshold)
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

    /// Three processes with medians `mean − spread`, `mean`, `mean + spread` (each its own sample), so the
    /// interval is `mean ± t(2) × spread / √3`.
    fn stats(mean: f64, spread: f64) -> MetricStats {
        crate::stats::summarize(&[vec![mean - spread], vec![mean], vec![mean + spread]]).expect("samples")
    }

    /// Stats whose interval is exactly `mean ± ci`.
    fn interval(mean: f64, ci: f64) -> MetricStats {
        let mut s = stats(mean, 0.0);
        s.ci999 = ci;
        s.min = mean - ci;
        s.max = mean + ci;
        s
    }

    #[test]
    fn overlapping_intervals_are_noise() {
        let c = compare(&interval(10.0, 2.0), &interval(13.0, 2.0), 0.05);
        assert!((c.ratio - 10.0 / 13.0).abs() < 1e-12);
        assert!(c.noise);
    }

    #[test]
    fn separated_intervals_beyond_threshold_are_not_noise() {
        let c = compare(&interval(10.0, 1.0), &interval(20.0, 1.0), 0.2);
        assert_eq!(c.ratio, 0.5);
        assert!(!c.noise);
    }

    #[test]
    fn small_relative_difference_is_noise_even_when_separated() {
        let c = compare(&interval(100.0, 0.1), &interval(110.0, 0.1), 0.2);
        assert!(c.noise);
        let c = compare(&interval(100.0, 0.1), &interval(110.0, 0.1), 0.05);
        assert!(!c.noise);
    }

    #[test]
    fn without_an_interval_every_difference_is_noise() {
        let one = crate::stats::summarize(&[vec![1.0, 1.0, 1.0]]).expect("samples");
        let c = compare(&one, &interval(100.0, 0.1), 0.2);
        assert!(c.noise, "one process is no evidence of a difference");
    }

    #[test]
    fn bounds_from_intervals() {
        let (low, high) = ratio_bounds(&interval(10.0, 1.0), &interval(5.0, 1.0)).expect("intervals");
        assert!((low - 9.0 / 6.0).abs() < 1e-12);
        assert!((high - 11.0 / 4.0).abs() < 1e-12);
        let (low, high) = ratio_bounds(&interval(1.0, 2.0), &interval(5.0, 1.0)).expect("intervals");
        assert_eq!(low, 0.0);
        assert!((high - 3.0 / 4.0).abs() < 1e-12);
    }

    #[test]
    fn denominator_reaching_zero_has_infinite_high() {
        let (low, high) = ratio_bounds(&interval(10.0, 1.0), &interval(1.0, 1.0)).expect("intervals");
        assert!((low - 9.0 / 2.0).abs() < 1e-12);
        assert_eq!(high, f64::INFINITY);
        assert_eq!(ratio_bounds(&interval(10.0, 1.0), &interval(0.0, 0.0)), Some((0.0, f64::INFINITY)));
    }

    #[test]
    fn at_most_verdicts() {
        // ratio in [1.5, 2.75]
        let (a, b) = (interval(10.0, 1.0), interval(5.0, 1.0));
        assert_eq!(verdict_at_most(&a, &b, 3.0).0, Verdict::Holds);
        assert_eq!(verdict_at_most(&a, &b, 1.4).0, Verdict::Fails);
        assert_eq!(verdict_at_most(&a, &b, 2.0).0, Verdict::Inconclusive);
        let (_, detail) = verdict_at_most(&a, &b, 3.0);
        assert_eq!(detail, "ratio 2.00 (1.50–2.75 at 99.9%), claim ≤ 3.00");
    }

    #[test]
    fn at_least_verdicts() {
        let (a, b) = (interval(10.0, 1.0), interval(5.0, 1.0));
        assert_eq!(verdict_at_least(&a, &b, 1.5).0, Verdict::Holds);
        assert_eq!(verdict_at_least(&a, &b, 3.0).0, Verdict::Fails);
        assert_eq!(verdict_at_least(&a, &b, 2.0).0, Verdict::Inconclusive);
        assert!(verdict_at_least(&a, &b, 1.5).1.contains("claim ≥ 1.50"));
    }

    #[test]
    fn unbounded_denominator_is_inconclusive_or_fails() {
        let (a, b) = (interval(10.0, 1.0), interval(1.0, 2.0));
        let (verdict, detail) = verdict_at_most(&a, &b, 2.0);
        assert_eq!(verdict, Verdict::Fails);
        assert!(detail.contains('∞'), "{detail}");
        assert_eq!(verdict_at_most(&a, &b, 100.0).0, Verdict::Inconclusive);
        assert_eq!(verdict_at_least(&a, &b, 2.0).0, Verdict::Holds);
    }

    #[test]
    fn nan_is_inconclusive() {
        let mut a = interval(1.0, 0.0);
        a.median = f64::NAN;
        a.fork_medians = vec![f64::NAN; 3];
        let b = interval(1.0, 0.1);
        assert_eq!(verdict_at_most(&a, &b, 1.0).0, Verdict::Inconclusive);
        assert_eq!(verdict_at_least(&a, &b, 1.0).0, Verdict::Inconclusive);
    }

    #[test]
    fn fewer_than_three_processes_never_hold_or_fail() {
        let two = crate::stats::summarize(&[vec![100.0, 100.0], vec![100.0, 100.0]]).expect("samples");
        let floor = interval(1.0, 0.01);
        for basis in [Basis::Intervals, Basis::Ranges] {
            for relation in [Relation::AtMost, Relation::AtLeast] {
                let (v, detail) = verdict(&two, &floor, relation, 2.0, basis);
                assert_eq!(v, Verdict::Inconclusive, "{detail}");
                assert!(detail.contains("too few processes (2, 3 needed)"), "{detail}");
            }
        }
    }

    #[test]
    fn one_sample_over_a_bound_fails_it() {
        let samples = |values: [f64; 3]| crate::stats::summarize(&values.map(|v| vec![v])).expect("samples");
        let bound = samples([17.0; 3]);
        let over = verdict(&samples([16.0, 16.0, 18.0]), &bound, Relation::AtMost, 1.0, Basis::WorstSample);
        assert_eq!(over.0, Verdict::Fails, "{}", over.1);
        assert_eq!(over.1, "ratio 0.941 (1.06–1.06 worst sample), claim ≤ 1.00");
        let within = verdict(&samples([16.0, 17.0, 17.0]), &bound, Relation::AtMost, 1.0, Basis::WorstSample);
        assert_eq!(within.0, Verdict::Holds);
    }

    #[test]
    fn range_verdicts_need_every_pairing_to_hold_and_every_pairing_to_fail() {
        let range = |min: f64, median: f64, max: f64| {
            crate::stats::summarize(&[vec![min], vec![median], vec![max]]).expect("samples")
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
    fn prose_draws_the_line_at_the_noise_threshold() {
        assert!(beyond_noise(1.25, 1.0, 0.2));
        assert!(!beyond_noise(1.2, 1.0, 0.2));
        assert!(within_noise(1.0, 1.15, 0.2));
        assert!(!within_noise(1.3, 1.0, 0.2));
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
