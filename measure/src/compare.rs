//! Comparing two contestants' statistics honestly: a ratio, whether the difference is beyond noise, and the
//! verdict of a claim on them.
//!
//! The process is the unit of evidence. One rule decides a claim such as "a costs at most 2× what b costs"
//! ([`verdict`] on [`Basis::ProcessMedians`]): it **holds** when every process median of `a` is on the claimed
//! side of `factor ×` every process median of `b`, **fails** when every pairing is on the other side, and is
//! **inconclusive** otherwise. That is the exact one-sided Mann–Whitney test at U = 0, whose p is
//! `1 / C(k_a + k_b, k_a)` (0.05 at 3 + 3 processes, 0.004 at 5 + 5); against a fixed value it is a sign test,
//! `p = 2^-k`. A side measured in fewer than [`MIN_PROCESSES`] processes gives no verdict ("too few processes").
//! [`compare`] draws the one noise line every mark, sentence and table uses: two results are within noise when
//! their process-median ranges overlap or their ratio is within the noise threshold of 1. [`noise_threshold`] is
//! where a metric's threshold is looked up, with where it came from.

use serde::Serialize;

use crate::metric_stats::MetricStats;
use crate::setup::Method;
use crate::stats::MIN_PROCESSES;
use crate::verdict::Verdict;

/// How two results relate under the lab's one noise rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// `a.median / b.median`.
    pub ratio: f64,
    /// True when either side has fewer than [`MIN_PROCESSES`] processes, their process-median ranges overlap
    /// (touching counts), or the ratio is within the noise threshold of 1.
    pub noise: bool,
}

/// Compare `a` with `b` under `noise_threshold` (0.2 = 20%) by the lab's one noise rule: within noise when
/// either has fewer than [`MIN_PROCESSES`] processes, when the ranges of their process medians overlap, or when
/// `|ratio − 1| < noise_threshold`. The ratio is `a.median / b.median` (infinite or NaN when `b.median` is 0).
pub fn compare(a: &MetricStats, b: &MetricStats, noise_threshold: f64) -> Comparison {
    let ratio = a.median / b.median;
    let separated = match (process_range(a), process_range(b)) {
        (Some((a_low, a_high)), Some((b_low, b_high))) => a_high < b_low || b_high < a_low,
        _ => false,
    };
    let beyond_threshold = (ratio - 1.0).abs() >= noise_threshold; // false for a NaN ratio
    let noise = !separated || !beyond_threshold;
    Comparison { ratio, noise }
}

/// Whether `a` is better than `b` by median on a metric whose direction is `higher_is_better`.
pub fn better(a: f64, b: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        a > b
    } else {
        a < b
    }
}

/// A ratio of medians and whether the difference is within noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// `a.median / b.median`.
    pub value: f64,
    /// The process-median ranges overlap, or the ratio is within the noise threshold of 1 (the lab's one rule).
    pub noise: bool,
    /// Which part of the rule made it noise, when it is.
    pub why: Option<NoiseWhy>,
}

/// Why a difference is within noise, as a mark says it: the run cannot tell the two apart (too few processes,
/// or their process medians overlap), or it can and they are practically equal (within the noise threshold).
/// Kept apart because they mean different things to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoiseWhy {
    /// A side has fewer processes than a verdict needs.
    TooFewProcesses,
    /// The process-median ranges overlap.
    Overlap,
    /// The processes separate, but the ratio is within the noise threshold of 1.
    PracticallyEqual,
}

/// Compare `a` with `b` by the lab's one noise rule, [`compare`], saying why a difference is noise. `None` when
/// `b.median` is zero or either median is not finite, where a ratio means nothing.
pub fn ratio(a: &MetricStats, b: &MetricStats, threshold: f64) -> Option<Ratio> {
    if b.median == 0.0 || !a.median.is_finite() || !b.median.is_finite() {
        return None;
    }
    let c = compare(a, b, threshold);
    let why = c.noise.then(|| match (process_range(a), process_range(b)) {
        (Some((a_low, a_high)), Some((b_low, b_high))) if a_high < b_low || b_high < a_low => {
            NoiseWhy::PracticallyEqual
        }
        (Some(_), Some(_)) => NoiseWhy::Overlap,
        _ => NoiseWhy::TooFewProcesses,
    });
    Some(Ratio { value: c.ratio, noise: c.noise, why })
}

/// Whether `a` and `b` differ beyond noise by [`compare`]'s rule.
pub fn differs(a: &MetricStats, b: &MetricStats, noise_threshold: f64) -> bool {
    !compare(a, b, noise_threshold).noise
}

/// Whether two results whose medians stand at `ratio` (one over the other) are practically equal under
/// `noise_threshold` (0.2 = 20%): `|ratio − 1| < noise_threshold`, whatever their processes (false for a NaN
/// ratio). An answer's alternatives within it of the pick are practically equal ([`crate::question`]), and the
/// answers across core counts read the same test ([`crate::cores`]).
pub fn practically_equal(ratio: f64, noise_threshold: f64) -> bool {
    (ratio - 1.0).abs() < noise_threshold
}

/// Whether `a` differs from the fixed `value` beyond noise, by the same rule as [`compare`] with `value` as a
/// side whose every process reads `value`: at least [`MIN_PROCESSES`] processes, `value` outside the range of
/// `a`'s process medians, and `a.median / value` beyond the threshold.
pub fn differs_from_value(a: &MetricStats, value: f64, noise_threshold: f64) -> bool {
    let Some((low, high)) = process_range(a) else { return false };
    let ratio = a.median / value;
    (value < low || value > high) && (ratio - 1.0).abs() >= noise_threshold
}

/// The smallest and largest process median of `stats`, or `None` with fewer than [`MIN_PROCESSES`] processes
/// (or a missing number).
pub fn process_range(stats: &MetricStats) -> Option<(f64, f64)> {
    if stats.processes < MIN_PROCESSES || stats.fork_medians.len() < MIN_PROCESSES {
        return None;
    }
    let low = stats.fork_medians.iter().copied().fold(f64::INFINITY, f64::min);
    let high = stats.fork_medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (low.is_finite() && high.is_finite() && stats.fork_medians.iter().all(|m| m.is_finite())).then_some((low, high))
}

/// Why no verdict can be drawn on `a` against `b` whatever the numbers: fewer than [`MIN_PROCESSES`] processes
/// on a measured side. The text reads `too few processes (2, 3 needed)`.
pub fn too_few_processes(a: &Operand<'_>, b: &Operand<'_>) -> Option<String> {
    let fewest = [a, b].iter().filter_map(|o| o.stats()).map(|s| s.processes).min()?;
    (fewest < MIN_PROCESSES).then(|| format!("too few processes ({fewest}, {MIN_PROCESSES} needed)"))
}

/// Where a noise threshold came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdSource {
    /// The run's one threshold for every metric (`method.noise_threshold`, `--noise-threshold`), not measured on
    /// the testbed.
    UncalibratedDefault,
    /// The smallest detectable ratio of the metric's class, measured by A/A pairs on this testbed and recorded in
    /// the run's `method.sdr` ([`crate::calibration::Thresholds`]).
    Calibrated,
}

impl ThresholdSource {
    /// Where the threshold came from, as output prints it: `uncalibrated default`.
    pub fn describe(self) -> &'static str {
        match self {
            ThresholdSource::UncalibratedDefault => "uncalibrated default",
            ThresholdSource::Calibrated => "calibrated on this testbed",
        }
    }
}

/// The noise threshold one metric is judged under, and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NoiseThreshold {
    /// The threshold as a fraction (0.2 = 20%): a smaller change cannot be told from noise.
    pub value: f64,
    /// Where it came from.
    pub source: ThresholdSource,
}

/// The noise threshold the judge draws its line at for `metric` (bare or phase-prefixed) in a run made with
/// `method`: its class's smallest detectable ratio from the run's calibration, else the run's uncalibrated default
/// (`method.noise_threshold`). The same lookup as the judge's ([`crate::calibration::Thresholds::for_metric`]).
pub fn noise_threshold(method: &Method, metric: &str) -> NoiseThreshold {
    let threshold = method.thresholds().for_metric(metric);
    let source =
        if threshold.calibrated() { ThresholdSource::Calibrated } else { ThresholdSource::UncalibratedDefault };
    NoiseThreshold { value: threshold.fraction(), source }
}

/// How a claim's ratio is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The lab's rule: every process median of one side against every process median of the other (exact
    /// Mann–Whitney at U = 0; a sign test against a fixed value).
    ProcessMedians,
    /// Every pairing of samples (`a.min / b.max` to `a.max / b.min`): for claims about every sample, not a typical one. Its p is
    /// the process-median test's, which the separation of every sample implies.
    Ranges,
    /// The worst sample decides, as for a bound: `a ≤ factor × b` holds when the largest sample of `a` is within
    /// `factor ×` the smallest of `b` and fails otherwise (`a ≥`: the smallest against the largest). No p: one
    /// sample beyond the line is the finding.
    WorstSample,
}

impl Basis {
    /// What a verdict on this basis was drawn from, as reports print it.
    pub fn describe(self) -> &'static str {
        match self {
            Basis::ProcessMedians => "process medians: every pairing on one side (exact Mann–Whitney, U = 0)",
            Basis::Ranges => "the ranges of every measured sample: every pairing on one side",
            Basis::WorstSample => "the worst measured sample, as for a bound",
        }
    }
}

/// Which way a ratio claim points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `a ≤ factor × b`.
    AtMost,
    /// `a ≥ factor × b`.
    AtLeast,
}

/// One side of a comparison: a measured contestant, or a fixed value (a bound, an ideal, a published ratio).
#[derive(Debug, Clone, Copy)]
pub enum Operand<'a> {
    /// A contestant's statistics.
    Measured(&'a MetricStats),
    /// A value known exactly.
    Fixed(f64),
}

impl Operand<'_> {
    /// The statistics of a measured side.
    pub fn stats(&self) -> Option<&MetricStats> {
        match self {
            Operand::Measured(s) => Some(s),
            Operand::Fixed(_) => None,
        }
    }

    /// The median (or the value).
    pub fn median(&self) -> f64 {
        match self {
            Operand::Measured(s) => s.median,
            Operand::Fixed(v) => *v,
        }
    }

    /// The values a rule compares: process medians, every sample's range ends, or the value.
    fn values(&self, basis: Basis) -> Vec<f64> {
        match (self, basis) {
            (Operand::Fixed(v), _) => vec![*v],
            (Operand::Measured(s), Basis::ProcessMedians) => s.fork_medians.clone(),
            (Operand::Measured(s), Basis::Ranges | Basis::WorstSample) => vec![s.min, s.max],
        }
    }

    /// Processes behind it: `None` for a fixed value.
    fn processes(&self) -> Option<usize> {
        self.stats().map(|s| s.processes)
    }
}

/// A verdict with the numbers behind it and its p.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// Holds, fails or inconclusive.
    pub verdict: Verdict,
    /// `ratio R (process-median ratios L–H), claim OP F, p = P`.
    pub detail: String,
    /// The exact one-sided p of a separation (Mann–Whitney at U = 0, or a sign test against a value); `None`
    /// for the worst-sample basis and when nothing could be judged.
    pub p: Option<f64>,
}

/// The exact one-sided p of complete separation of `k_a` against `k_b` process medians: `1 / C(k_a + k_b, k_a)`
/// (Mann–Whitney at U = 0); against a fixed value (`k_b = None`) the sign test's `2^-k_a`.
pub fn separation_p(k_a: usize, k_b: Option<usize>) -> f64 {
    match k_b {
        None => 0.5f64.powi(k_a as i32),
        Some(k_b) => {
            // C(n, k) as a float product, exact for the small counts the lab runs.
            let (n, k) = (k_a + k_b, k_a.min(k_b));
            let mut c = 1.0;
            for i in 0..k {
                c = c * (n - i) as f64 / (i + 1) as f64;
            }
            1.0 / c
        }
    }
}

/// Judges `a` against `factor × b` by `relation` on `basis` (see the module documentation). Inconclusive when
/// a number is missing (NaN) or a measured side has fewer than [`MIN_PROCESSES`] processes.
pub fn verdict(a: Operand<'_>, b: Operand<'_>, relation: Relation, factor: f64, basis: Basis) -> Judged {
    let op = match relation {
        Relation::AtMost => "≤",
        Relation::AtLeast => "≥",
    };
    let ratio = format_ratio(a.median() / b.median());
    if let Some(why) = too_few_processes(&a, &b) {
        return Judged {
            verdict: Verdict::Inconclusive,
            detail: format!("ratio {ratio}, claim {op} {}: {why}", format_ratio(factor)),
            p: None,
        };
    }
    let (a_values, b_values) = (a.values(basis), b.values(basis));
    let finite = |v: &[f64]| !v.is_empty() && v.iter().all(|x| x.is_finite());
    if !finite(&a_values) || !finite(&b_values) {
        return Judged {
            verdict: Verdict::Inconclusive,
            detail: format!("ratio {ratio}, claim {op} {}: a figure is missing", format_ratio(factor)),
            p: None,
        };
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (a_low, a_high, b_low, b_high) = (min(&a_values).max(0.0), max(&a_values), min(&b_values), max(&b_values));
    // The ratios of the best and the worst pairing.
    let low = if b_high <= 0.0 { 0.0 } else { a_low / b_high };
    let high = if b_low <= 0.0 { f64::INFINITY } else { a_high / b_low };
    let (low, high, how) = match basis {
        Basis::ProcessMedians => (low, high, "process-median ratios"),
        Basis::Ranges => (low, high, "over every pairing of samples"),
        Basis::WorstSample => match relation {
            Relation::AtMost => (high, high, "worst sample"),
            Relation::AtLeast => (low, low, "worst sample"),
        },
    };
    let verdict = match relation {
        Relation::AtMost => at_most(low, high, factor),
        Relation::AtLeast => at_least(low, high, factor),
    };
    let p = match (basis, verdict) {
        (Basis::WorstSample, _) | (_, Verdict::Inconclusive) => None,
        _ => {
            let (k_a, k_b) = (a.processes(), b.processes());
            match (k_a, k_b) {
                (Some(k_a), k_b) => Some(separation_p(k_a, k_b)),
                (None, Some(k_b)) => Some(separation_p(k_b, None)),
                (None, None) => None,
            }
        }
    };
    let p_text = p.map(|p| format!(", p = {}", format_p(p))).unwrap_or_default();
    let detail = format!(
        "ratio {ratio} ({}–{} {how}), claim {op} {}{p_text}",
        format_ratio(low),
        format_ratio(high),
        format_ratio(factor)
    );
    Judged { verdict, detail, p }
}

/// A p value as reports print it: two significant digits, `0.05`, `0.0079`.
pub fn format_p(p: f64) -> String {
    if p >= 0.1 {
        format!("{p:.2}")
    } else {
        let digits = (-p.log10().floor()) as usize + 1;
        format!("{p:.digits$}")
    }
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

/// Whether positive figures `a` and `b`, neither of them a contestant's statistics (a bound, an ideal, a count
/// derived from parameters), are within the noise threshold of each other: the larger at most
/// `1 + threshold` times the smaller. Two contestants are compared with [`compare`] or [`differs`] instead.
pub fn within_noise(a: f64, b: f64, threshold: f64) -> bool {
    !beyond_noise(a.max(b), a.min(b), threshold)
}

/// Whether figure `a` exceeds figure `b` by more than the threshold: `a > b × (1 + threshold)`; for figures
/// that are not both contestants' statistics (see [`within_noise`]).
pub fn beyond_noise(a: f64, b: f64, threshold: f64) -> bool {
    a > b * (1.0 + threshold)
}

/// A ratio with three significant digits (at least two decimals below 10, none from 100 up): `1.43`, `14.3`,
/// `143`, `0.0143`; `∞` for infinity and `n/a` for NaN.
pub fn format_ratio(x: f64) -> String {
    if let Some(word) = crate::units::not_finite(x, "n/a") {
        return word;
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

    /// One process per value, each its own sample.
    fn processes(medians: &[f64]) -> MetricStats {
        let forks: Vec<Vec<f64>> = medians.iter().map(|m| vec![*m]).collect();
        crate::stats::summarize(&forks).expect("samples")
    }

    fn judge(a: &[f64], b: &[f64], relation: Relation, factor: f64) -> Judged {
        verdict(
            Operand::Measured(&processes(a)),
            Operand::Measured(&processes(b)),
            relation,
            factor,
            Basis::ProcessMedians,
        )
    }

    #[test]
    fn five_against_five_separated_by_twice_holds_with_p_0_004() {
        let j = judge(&[20.0, 21.0, 19.0, 22.0, 20.5], &[10.0, 9.5, 10.5, 9.0, 10.2], Relation::AtLeast, 1.5);
        assert_eq!(j.verdict, Verdict::Holds, "{}", j.detail);
        assert!((j.p.expect("p") - 1.0 / 252.0).abs() < 1e-12);
        assert!(j.detail.ends_with("claim ≥ 1.50, p = 0.0040"), "{}", j.detail);
    }

    #[test]
    fn one_overlapping_pair_is_inconclusive() {
        // 14 ≥ 1.5 × 9.5 fails for the pairing (14, 10.5): not every pairing is on the claimed side.
        let j = judge(&[20.0, 21.0, 14.0, 22.0, 20.5], &[10.0, 9.5, 10.5, 9.0, 10.2], Relation::AtLeast, 1.5);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{}", j.detail);
        assert_eq!(j.p, None);
    }

    #[test]
    fn separated_the_other_way_fails() {
        let j = judge(&[20.0, 21.0, 19.0, 22.0, 20.5], &[10.0, 9.5, 10.5, 9.0, 10.2], Relation::AtMost, 1.5);
        assert_eq!(j.verdict, Verdict::Fails, "{}", j.detail);
        assert!((j.p.expect("p") - 1.0 / 252.0).abs() < 1e-12);
    }

    #[test]
    fn three_against_three_has_p_0_05() {
        let j = judge(&[3.0, 3.1, 2.9], &[1.0, 1.1, 0.9], Relation::AtLeast, 2.0);
        assert_eq!(j.verdict, Verdict::Holds);
        assert!((j.p.expect("p") - 0.05).abs() < 1e-12);
    }

    #[test]
    fn a_fixed_value_is_a_sign_test() {
        let a = processes(&[16.0, 15.0, 16.0, 14.0, 16.0]);
        let j = verdict(Operand::Measured(&a), Operand::Fixed(17.0), Relation::AtMost, 1.0, Basis::ProcessMedians);
        assert_eq!(j.verdict, Verdict::Holds);
        assert!((j.p.expect("p") - 1.0 / 32.0).abs() < 1e-12);
        let j = verdict(Operand::Fixed(17.0), Operand::Measured(&a), Relation::AtLeast, 1.0, Basis::ProcessMedians);
        assert_eq!(j.verdict, Verdict::Holds, "the value may stand on either side");
        let j = verdict(Operand::Measured(&a), Operand::Fixed(15.5), Relation::AtMost, 1.0, Basis::ProcessMedians);
        assert_eq!(j.verdict, Verdict::Inconclusive, "the value lies within the process medians");
    }

    #[test]
    fn ties_at_the_line_hold_and_equal_sides_do_not_separate() {
        let j = judge(&[2.0, 2.0, 2.0], &[1.0, 1.0, 1.0], Relation::AtMost, 2.0);
        assert_eq!(j.verdict, Verdict::Holds, "a ratio exactly at the factor satisfies ≤");
        let same = processes(&[5.0, 5.0, 5.0]);
        assert!(compare(&same, &same, 0.2).noise);
    }

    #[test]
    fn fewer_than_three_processes_never_hold_or_fail() {
        let two = crate::stats::summarize(&[vec![100.0, 100.0], vec![100.0, 100.0]]).expect("samples");
        let floor = processes(&[1.0, 1.0, 1.0]);
        for basis in [Basis::ProcessMedians, Basis::Ranges] {
            for relation in [Relation::AtMost, Relation::AtLeast] {
                let j = verdict(Operand::Measured(&two), Operand::Measured(&floor), relation, 2.0, basis);
                assert_eq!(j.verdict, Verdict::Inconclusive, "{}", j.detail);
                assert!(j.detail.contains("too few processes (2, 3 needed)"), "{}", j.detail);
            }
        }
    }

    #[test]
    fn one_sample_over_a_bound_fails_it() {
        let bound = Operand::Fixed(17.0);
        let over = processes(&[16.0, 16.0, 18.0]);
        let j = verdict(Operand::Measured(&over), bound, Relation::AtMost, 1.0, Basis::WorstSample);
        assert_eq!(j.verdict, Verdict::Fails, "{}", j.detail);
        assert_eq!(j.detail, "ratio 0.941 (1.06–1.06 worst sample), claim ≤ 1.00");
        let within = processes(&[16.0, 17.0, 17.0]);
        assert_eq!(
            verdict(Operand::Measured(&within), bound, Relation::AtMost, 1.0, Basis::WorstSample).verdict,
            Verdict::Holds
        );
    }

    #[test]
    fn range_verdicts_need_every_pairing_of_samples() {
        let range = |min: f64, median: f64, max: f64| processes(&[min, median, max]);
        let fixed = range(20.0, 25.0, 30.0);
        let on = |a: &MetricStats, relation, factor| {
            verdict(Operand::Measured(a), Operand::Measured(&fixed), relation, factor, Basis::Ranges).verdict
        };
        assert_eq!(on(&range(5.0, 6.0, 9.0), Relation::AtMost, 0.5), Verdict::Holds);
        assert_eq!(on(&range(5.0, 6.0, 12.0), Relation::AtMost, 0.5), Verdict::Inconclusive);
        assert_eq!(on(&range(16.0, 18.0, 20.0), Relation::AtMost, 0.5), Verdict::Fails);
        assert_eq!(on(&range(150.0, 160.0, 170.0), Relation::AtLeast, 5.0), Verdict::Holds);
    }

    #[test]
    fn nan_is_inconclusive() {
        let mut a = processes(&[1.0, 1.0, 1.0]);
        a.median = f64::NAN;
        a.fork_medians = vec![f64::NAN; 3];
        let b = processes(&[1.0, 1.1, 0.9]);
        let j = verdict(Operand::Measured(&a), Operand::Measured(&b), Relation::AtMost, 1.0, Basis::ProcessMedians);
        assert_eq!(j.verdict, Verdict::Inconclusive);
    }

    #[test]
    fn the_noise_rule_is_overlap_or_threshold() {
        let a = processes(&[20.0, 21.0, 19.0]);
        let b = processes(&[10.0, 11.0, 9.0]);
        let c = compare(&a, &b, 0.2);
        assert!(!c.noise, "separated and 2× apart");
        assert!(compare(&processes(&[10.0, 30.0, 12.0]), &processes(&[11.0, 29.0, 13.0]), 0.05).noise, "overlap");
        assert!(
            compare(&processes(&[100.0, 101.0, 102.0]), &processes(&[110.0, 111.0, 112.0]), 0.2).noise,
            "under 20%"
        );
        assert!(compare(&processes(&[6.0]), &processes(&[3.0]), 0.2).noise, "one process is no evidence");
        assert!(differs(&a, &b, 0.2));
        assert!(differs_from_value(&a, 10.0, 0.2));
        assert!(!differs_from_value(&a, 19.5, 0.2));
    }

    #[test]
    fn every_metric_has_the_run_s_uncalibrated_default_until_calibrated() {
        let method = Method {
            quick: false,
            forks: 3,
            noise_threshold: 0.15,
            ..crate::summary::tests::summary(Vec::new()).method
        };
        for metric in ["ms_per_million", "work_64.cpu_ns_per_item", "after_drop.latency_p99_us"] {
            let threshold = noise_threshold(&method, metric);
            assert!((threshold.value - 0.15).abs() < 1e-12, "{metric}: {}", threshold.value);
            assert_eq!(threshold.source.describe(), "uncalibrated default");
        }
        let json = serde_json::to_value(noise_threshold(&method, "ms_per_million")).expect("json");
        assert_eq!(json["source"], serde_json::json!("uncalibrated_default"));
    }

    #[test]
    fn a_calibrated_class_gives_its_metrics_the_measured_ratio() {
        let method = Method {
            quick: false,
            forks: 5,
            noise_threshold: 0.2,
            sdr: [("per_item".to_string(), 1.07)].into_iter().collect(),
            ..crate::summary::tests::summary(Vec::new()).method
        };
        let per_item = noise_threshold(&method, "ms_per_million");
        assert!((per_item.value - 0.07).abs() < 1e-9, "{}", per_item.value);
        assert_eq!(per_item.source, ThresholdSource::Calibrated);
        let other = noise_threshold(&method, "after_drop.latency_p99_us");
        assert_eq!(other.source, ThresholdSource::UncalibratedDefault, "a class the calibration did not give");
    }

    #[test]
    fn separation_p_values() {
        assert!((separation_p(3, Some(3)) - 0.05).abs() < 1e-12);
        assert!((separation_p(5, Some(5)) - 1.0 / 252.0).abs() < 1e-12);
        assert!((separation_p(5, None) - 1.0 / 32.0).abs() < 1e-12);
        assert_eq!(format_p(0.05), "0.050");
        assert_eq!(format_p(1.0 / 252.0), "0.0040");
        assert_eq!(format_p(0.125), "0.12");
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
        for (value, text) in [
            (1.4321, "1.43"),
            (14.321, "14.3"),
            (143.21, "143"),
            (0.014321, "0.0143"),
            (0.0, "0.00"),
            (f64::INFINITY, "∞"),
            (f64::NAN, "n/a"),
        ] {
            assert_eq!(format_ratio(value), text, "{value:?}");
        }
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
