//! Statistics over measured samples: median, min, max, mean and the 99.9% confidence interval.

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::summary::MetricStats;

/// Statistics of `samples` grouped by fork (each inner vector one fork's measured samples, in fork order).
/// Median, min, max, mean and the CI span every sample of every fork. Returns `None` when there is no sample.
/// Non-finite samples are ignored.
///
/// `ci999` is `t_critical_999(n - 1) × s / √n` with `s` the sample standard deviation (divisor `n - 1`), and 0
/// when `n == 1`. `fork_medians` has the median of each fork that has at least one finite sample, in fork
/// order (forks without one are left out).
pub fn summarize(forks: &[Vec<f64>]) -> Option<MetricStats> {
    let mut pooled: Vec<f64> = forks.iter().flatten().copied().filter(|v| v.is_finite()).collect();
    if pooled.is_empty() {
        return None;
    }
    pooled.sort_by(f64::total_cmp);
    let n = pooled.len();
    let mean = pooled.iter().sum::<f64>() / n as f64;
    let ci999 = if n > 1 {
        let variance = pooled.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
        t_critical_999(n - 1) * variance.sqrt() / (n as f64).sqrt()
    } else {
        0.0
    };
    let fork_medians = forks
        .iter()
        .filter_map(|fork| {
            let finite: Vec<f64> = fork.iter().copied().filter(|v| v.is_finite()).collect();
            median(&finite)
        })
        .collect();
    Some(MetricStats {
        median: median_of_sorted(&pooled),
        min: pooled[0],
        max: pooled[n - 1],
        ci999,
        n,
        mean,
        fork_medians,
    })
}

/// The two-sided Student t critical value for 99.9% confidence with `dof` degrees of freedom.
///
/// That is the 0.9995 quantile of Student's t with `dof` degrees of freedom (636.62 for 1, 3.646 for 30,
/// tending to the normal 3.2905). With 0 degrees of freedom (a single sample) the interval is unbounded, so
/// this returns `f64::INFINITY`; [`summarize`] does not use it then and reports a `ci999` of 0 instead.
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
    fn summarize_pools_forks() {
        let s = summarize(&[vec![1.0, 2.0, 3.0], vec![4.0, 5.0]]).unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 5.0);
        assert_eq!(s.mean, 3.0);
        assert_eq!(s.fork_medians, vec![2.0, 4.5]);
        // sd = sqrt(2.5), t(4) = 8.610
        let expected = 8.610 * 2.5f64.sqrt() / 5f64.sqrt();
        assert!((s.ci999 - expected).abs() < 1e-2, "{} vs {expected}", s.ci999);
    }

    #[test]
    fn summarize_single_and_empty() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[vec![], vec![f64::NAN, f64::INFINITY]]), None);
        let s = summarize(&[vec![], vec![7.5]]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max, s.mean, s.ci999), (1, 7.5, 7.5, 7.5, 7.5, 0.0));
        assert_eq!(s.fork_medians, vec![7.5]);
    }

    #[test]
    fn summarize_ignores_non_finite() {
        let s = summarize(&[vec![1.0, f64::NAN, 3.0], vec![f64::NEG_INFINITY]]).unwrap();
        assert_eq!(s.n, 2);
        assert_eq!(s.median, 2.0);
        assert_eq!(s.fork_medians, vec![2.0]);
    }

    #[test]
    fn identical_samples_have_zero_ci() {
        let s = summarize(&[vec![2.0; 10]]).unwrap();
        assert_eq!(s.ci999, 0.0);
        assert!(s.min <= s.median && s.median <= s.max);
    }
}
