//! Statistics over measured samples, with the process as the unit of evidence.
//!
//! Iterations inside one process agree far more than separate processes do, so pooling every iteration as an
//! independent sample overstates confidence. The descriptive figures (median, min, max) span every sample; the
//! verdicts compare the per-process medians, and need at least [`MIN_PROCESSES`] of them. The interval reports show
//! is a 95% hierarchical bootstrap ([`bootstrap_ci95`]: resample processes, then iterations within each), as
//! criterion reports 95%. Outlying processes and iterations are flagged with Tukey's fences, as criterion does.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::metric_stats::{MetricStats, Outliers};

pub use crate::metric_stats::MIN_PROCESSES;

/// Statistics of `samples` grouped by fork (each inner vector one process's measured samples, in fork order).
/// Returns `None` when there is no sample. Non-finite samples are ignored.
///
/// Median, min, max and mean span every sample of every fork. `fork_medians` has the median of each fork that
/// has at least one finite sample, in fork order (forks without one are left out), and `processes` counts them.
/// `ci999` is the half-width of the 99.9% Student-t interval of the mean of those per-process medians,
/// `t_critical_999(k − 1) × s / √k` over `k` processes with `s` their standard deviation (divisor `k − 1`); it is
/// 0 when `k <` [`MIN_PROCESSES`], where there is no interval ([`MetricStats::interval`] is `None`).
pub fn summarize(forks: &[Vec<f64>]) -> Option<MetricStats> {
    let finite_forks: Vec<Vec<f64>> =
        forks.iter().map(|fork| fork.iter().copied().filter(|v| v.is_finite()).collect()).collect();
    let mut pooled: Vec<f64> = finite_forks.iter().flatten().copied().collect();
    if pooled.is_empty() {
        return None;
    }
    pooled.sort_by(f64::total_cmp);
    let n = pooled.len();
    let mean = pooled.iter().sum::<f64>() / n as f64;
    let mut fork_medians = Vec::new();
    let mut fork_indices = Vec::new();
    for (index, fork) in finite_forks.iter().enumerate() {
        if let Some(m) = median(fork) {
            fork_medians.push(m);
            fork_indices.push(index);
        }
    }
    let processes = fork_medians.len();
    let ci999 = if processes >= MIN_PROCESSES { half_width_999(&fork_medians) } else { 0.0 };
    let iteration_fences = tukey_fences(&pooled);
    let outliers = Outliers {
        iterations_mild: pooled.iter().filter(|v| iteration_fences.grade(**v) == Some(Grade::Mild)).count(),
        iterations_severe: pooled.iter().filter(|v| iteration_fences.grade(**v) == Some(Grade::Severe)).count(),
        processes: if processes >= MIN_PROCESSES {
            let fences = tukey_fences(&sorted(&fork_medians));
            fork_medians
                .iter()
                .zip(&fork_indices)
                .filter(|(m, _)| fences.grade(**m).is_some())
                .map(|(_, i)| *i)
                .collect()
        } else {
            Vec::new()
        },
        // Modes need the metric's threshold, which the run's method knows: `calibration::mark_modes` marks them.
        modes: Vec::new(),
    };
    let kept: Vec<Vec<f64>> = finite_forks.into_iter().filter(|f| !f.is_empty()).collect();
    let ci95 = bootstrap_ci95(&kept, |resample| median(resample[0]));
    Some(MetricStats {
        median: median_of_sorted(&pooled),
        min: pooled[0],
        max: pooled[n - 1],
        ci999,
        ci95_low: ci95.map(|c| c.0),
        ci95_high: ci95.map(|c| c.1),
        samples: kept,
        n,
        mean,
        fork_medians,
        processes,
        outliers,
    })
}

/// Bootstrap resamples behind every 95% interval.
pub const BOOTSTRAP_RESAMPLES: usize = 1_000;

/// The seed of every bootstrap: fixed, so a report re-rendered from the same raw records is byte for byte the same.
const BOOTSTRAP_SEED: u64 = 0x5eed_ba5e;

/// A 95% hierarchical bootstrap interval (2.5th and 97.5th percentiles over [`BOOTSTRAP_RESAMPLES`]) of
/// `statistic`, which sees one pooled resample per side: for each side (a list of processes, each a list of
/// samples), draw as many processes as it has with replacement, then within each drawn process as many samples
/// as it has with replacement. `None` when a side has fewer than [`MIN_PROCESSES`] processes or the statistic
/// is never finite.
///
/// `bootstrap_ci95(&a, |r| median(r[0]))` is the interval of a median; with two sides,
/// `|r| Some(median(r[0])? / median(r[1])?)` that of a ratio of medians.
pub fn bootstrap_ci95<F>(sides: &[Vec<f64>], statistic: F) -> Option<(f64, f64)>
where
    F: Fn(&[&[f64]]) -> Option<f64>,
{
    bootstrap_sides_ci95(&[sides], statistic)
}

/// [`bootstrap_ci95`] over several sides at once (each a list of processes).
pub fn bootstrap_sides_ci95<F>(sides: &[&[Vec<f64>]], statistic: F) -> Option<(f64, f64)>
where
    F: Fn(&[&[f64]]) -> Option<f64>,
{
    if sides.iter().any(|side| side.len() < MIN_PROCESSES) {
        return None;
    }
    let mut rng = StdRng::seed_from_u64(BOOTSTRAP_SEED);
    let mut pools: Vec<Vec<f64>> =
        sides.iter().map(|side| Vec::with_capacity(side.iter().map(Vec::len).sum())).collect();
    let mut values = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for (side, pool) in sides.iter().zip(pools.iter_mut()) {
            pool.clear();
            for _ in 0..side.len() {
                let process = &side[rng.random_range(0..side.len())];
                for _ in 0..process.len() {
                    pool.push(process[rng.random_range(0..process.len())]);
                }
            }
        }
        let views: Vec<&[f64]> = pools.iter().map(Vec::as_slice).collect();
        if let Some(v) = statistic(&views).filter(|v| v.is_finite()) {
            values.push(v);
        }
    }
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some((quantile_of_sorted(&values, 0.025), quantile_of_sorted(&values, 0.975)))
}

/// The 95% hierarchical bootstrap interval of `a.median / b.median` from the samples both keep
/// ([`MetricStats::samples`]); `None` when either lacks them (a summary read back from JSON) or has fewer than
/// [`MIN_PROCESSES`] processes.
pub fn ratio_ci95(a: &MetricStats, b: &MetricStats) -> Option<(f64, f64)> {
    bootstrap_sides_ci95(&[&a.samples, &b.samples], |r| {
        let (a, b) = (median(r[0])?, median(r[1])?);
        (b != 0.0).then(|| a / b)
    })
}

/// `t_critical_999(k − 1) × s / √k` of `values` (`k ≥ 2`).
fn half_width_999(values: &[f64]) -> f64 {
    let k = values.len();
    let mean = values.iter().sum::<f64>() / k as f64;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (k - 1) as f64;
    t_critical_999(k - 1) * variance.sqrt() / (k as f64).sqrt()
}

/// How far outside Tukey's fences a value lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grade {
    /// Beyond 1.5 interquartile ranges from the quartiles, within 3.
    Mild,
    /// Beyond 3 interquartile ranges from the quartiles.
    Severe,
}

/// Tukey's inner (1.5 IQR) and outer (3 IQR) fences around the quartiles.
#[derive(Debug, Clone, Copy)]
struct Fences {
    q1: f64,
    q3: f64,
}

impl Fences {
    fn grade(self, v: f64) -> Option<Grade> {
        let iqr = self.q3 - self.q1;
        if v < self.q1 - 3.0 * iqr || v > self.q3 + 3.0 * iqr {
            Some(Grade::Severe)
        } else if v < self.q1 - 1.5 * iqr || v > self.q3 + 1.5 * iqr {
            Some(Grade::Mild)
        } else {
            None
        }
    }
}

/// The fences of non-empty, sorted `sorted` (quartiles by linear interpolation between order statistics).
fn tukey_fences(sorted: &[f64]) -> Fences {
    Fences { q1: quantile_of_sorted(sorted, 0.25), q3: quantile_of_sorted(sorted, 0.75) }
}

/// The `q` quantile of non-empty, sorted `sorted`, interpolating linearly between order statistics.
fn quantile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let low = position.floor() as usize;
    let high = position.ceil() as usize;
    sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64)
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// The two-sided Student t critical value for 99.9% confidence with `dof` degrees of freedom.
///
/// That is the 0.9995 quantile of Student's t with `dof` degrees of freedom (636.62 for 1, 3.646 for 30,
/// tending to the normal 3.2905). With 0 degrees of freedom (a single sample) the interval is unbounded, so
/// this returns `f64::INFINITY`; [`summarize`] never asks for it (it needs [`MIN_PROCESSES`] processes).
pub fn t_critical_999(dof: usize) -> f64 {
    if dof == 0 {
        return f64::INFINITY;
    }
    StudentsT::new(0.0, 1.0, dof as f64).map(|t| t.inverse_cdf(0.9995)).unwrap_or(f64::INFINITY)
}

/// Median of `values` (mean of the middle two for an even count); `None` if empty.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(median_of_sorted(&sorted))
}

/// Median of non-empty, sorted `sorted`.
fn median_of_sorted(sorted: &[f64]) -> f64 {
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn t_critical_matches_tables() {
        assert!((t_critical_999(1) - 636.62).abs() < 1e-2, "{}", t_critical_999(1));
        assert!((t_critical_999(14) - 4.140).abs() < 1e-2, "{}", t_critical_999(14));
        assert!((t_critical_999(30) - 3.646).abs() < 1e-2, "{}", t_critical_999(30));
        assert!((t_critical_999(100_000) - 3.2905).abs() < 1e-2, "{}", t_critical_999(100_000));
        assert_eq!(t_critical_999(0), f64::INFINITY);
    }

    #[test]
    fn t_critical_decreases_with_dof() {
        let mut last = f64::INFINITY;
        for dof in 1..200 {
            let t = t_critical_999(dof);
            assert!(t < last && t > 3.29, "dof {dof}: {t}");
            last = t;
        }
    }

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
    }

    #[test]
    fn the_interval_is_over_process_medians_not_pooled_iterations() {
        let s = summarize(&[vec![1.0, 2.0, 3.0], vec![4.0, 5.0], vec![6.0, 6.0, 6.0]]).unwrap();
        assert_eq!((s.n, s.processes), (8, 3));
        assert_eq!((s.median, s.min, s.max), (4.5, 1.0, 6.0));
        assert_eq!(s.fork_medians, vec![2.0, 4.5, 6.0]);
        // medians 2, 4.5, 6: mean 4.1667, sd 2.0207, t(2) = 31.599
        let expected = 31.599 * 2.0207 / 3f64.sqrt();
        assert!((s.ci999 - expected).abs() < 1e-2, "{} vs {expected}", s.ci999);
        let (low, high) = s.interval().unwrap();
        assert!((low + high) / 2.0 - 12.5 / 3.0 < 1e-9);
    }

    #[test]
    fn fewer_than_three_processes_have_no_interval() {
        let s = summarize(&[vec![1.0, 2.0, 3.0, 4.0, 5.0], vec![4.0, 5.0, 6.0]]).unwrap();
        assert_eq!((s.n, s.processes, s.ci999), (8, 2, 0.0));
        assert_eq!(s.interval(), None);
    }

    #[test]
    fn summarize_single_and_empty() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[vec![], vec![f64::NAN, f64::INFINITY]]), None);
        let s = summarize(&[vec![], vec![7.5]]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max, s.mean, s.ci999), (1, 7.5, 7.5, 7.5, 7.5, 0.0));
        assert_eq!(s.fork_medians, vec![7.5]);
        assert_eq!(s.interval(), None, "one sample is no interval");
    }

    #[test]
    fn summarize_ignores_non_finite() {
        let s = summarize(&[vec![1.0, f64::NAN, 3.0], vec![f64::NEG_INFINITY]]).unwrap();
        assert_eq!(s.n, 2);
        assert_eq!(s.median, 2.0);
        assert_eq!(s.fork_medians, vec![2.0]);
    }

    #[test]
    fn tukey_fences_flag_an_outlying_process_and_iterations() {
        let forks = vec![
            vec![10.0, 10.1, 9.9],
            vec![10.2, 10.0, 9.8],
            vec![9.9, 10.1, 10.0],
            vec![30.0, 31.0, 29.0],
            vec![10.0, 10.1, 9.9],
            vec![10.0, 10.2, 9.9],
        ];
        let s = summarize(&forks).unwrap();
        assert_eq!(s.outliers.processes, vec![3], "the fourth process is far from the others");
        assert_eq!(s.outliers.iterations_severe, 3, "its three iterations are beyond 3 IQR");
        let calm = summarize(&[vec![1.0, 1.1], vec![1.05, 1.0], vec![1.1, 1.0]]).unwrap();
        assert!(calm.outliers.is_empty());
    }

    #[test]
    fn the_bootstrap_interval_brackets_the_median_and_needs_three_processes() {
        let s = summarize(&[vec![10.0, 11.0, 9.0], vec![12.0, 11.0, 13.0], vec![10.5, 10.0, 11.0]]).unwrap();
        let (low, high) = s.ci95().unwrap();
        assert!(low <= s.median && s.median <= high, "{low} {} {high}", s.median);
        assert!(low >= s.min && high <= s.max);
        let again = summarize(&[vec![10.0, 11.0, 9.0], vec![12.0, 11.0, 13.0], vec![10.5, 10.0, 11.0]]).unwrap();
        assert_eq!(s.ci95(), again.ci95(), "seeded: the same samples give the same interval");
        assert_eq!(summarize(&[vec![1.0, 2.0], vec![3.0]]).unwrap().ci95(), None);
    }

    #[test]
    fn a_ratio_interval_contains_the_ratio_of_medians() {
        let a = summarize(&[vec![20.0, 21.0], vec![19.0, 20.0], vec![22.0, 20.0]]).unwrap();
        let b = summarize(&[vec![10.0, 10.5], vec![9.5, 10.0], vec![11.0, 10.0]]).unwrap();
        let (low, high) = ratio_ci95(&a, &b).unwrap();
        assert!(low <= a.median / b.median && a.median / b.median <= high, "{low}–{high}");
        assert!(low > 1.5 && high < 2.5);
    }

    #[test]
    fn identical_samples_have_zero_ci() {
        let s = summarize(&[vec![2.0; 10], vec![2.0; 10], vec![2.0; 10]]).unwrap();
        assert_eq!(s.ci999, 0.0);
        assert_eq!(s.interval(), Some((2.0, 2.0)));
        assert!(s.min <= s.median && s.median <= s.max);
    }
}
