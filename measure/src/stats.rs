//! Statistics over measured samples: median, min, max, mean and the 99.9% confidence interval.

use crate::summary::MetricStats;

/// Statistics of `samples` grouped by fork (each inner vector one fork's measured samples, in fork order).
/// Median, min, max, mean and the CI span every sample of every fork. Returns `None` when there is no sample.
/// Non-finite samples are ignored.
pub fn summarize(forks: &[Vec<f64>]) -> Option<MetricStats> {
    let _ = forks;
    unimplemented!()
}

/// The two-sided Student t critical value for 99.9% confidence with `dof` degrees of freedom.
pub fn t_critical_999(dof: usize) -> f64 {
    let _ = dof;
    unimplemented!()
}

/// Median of `values` (mean of the middle two for an even count); `None` if empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let _ = values;
    unimplemented!()
}
