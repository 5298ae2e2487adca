//! Statistics over measured samples, with the process as the unit of evidence.
//!
//! Iterations inside one process agree far more than separate processes do, so pooling every iteration as an
//! independent sample overstates confidence. The descriptive figures (median, min, max) span every sample; the
//! 99.9% interval is over the per-process medians, and needs at least [`MIN_PROCESSES`] of them. Outlying
//! processes and iterations are flagged with Tukey's fences, as criterion does.

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::summary::{MetricStats, Outliers};

/// Fewest processes an interval (and so a verdict) is drawn from: with fewer there is no interval.
pub const MIN_PROCESSES: usize = 3;

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
    };
    Some(MetricStats {
        median: median_of_sorted(&pooled),
        min: pooled[0],
        max: pooled[n - 1],
        ci999,
        n,
        mean,
        fork_medians,
        processes,
        outliers,
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
    fn identical_samples_have_zero_ci() {
        let s = summarize(&[vec![2.0; 10], vec![2.0; 10], vec![2.0; 10]]).unwrap();
        assert_eq!(s.ci999, 0.0);
        assert_eq!(s.interval(), Some((2.0, 2.0)));
        assert!(s.min <= s.median && s.median <= s.max);
    }
}
