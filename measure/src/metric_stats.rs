//! The statistics of one metric for one contestant ([`MetricStats`], with its [`Outliers`]): the type
//! [`crate::stats`] computes and [`crate::summary`] carries, kept below both so that neither depends on the other.
//! `measure::summary::MetricStats` and `measure::stats::MIN_PROCESSES` stay where they were (re-exported).

use serde::{Deserialize, Serialize};

/// Fewest processes an interval (and so a verdict) is drawn from: with fewer there is no interval.
pub const MIN_PROCESSES: usize = 3;

/// Statistics of one metric for one contestant: every measured sample, and one median per process.
///
/// Invariant: `min <= median <= max` and `n >= 1`. The process is the unit of evidence: verdicts and the noise
/// rule read `fork_medians` ([`crate::compare`]); `ci95_low`–`ci95_high` is a 95% hierarchical bootstrap
/// interval of the median (processes resampled, then iterations within each), absent with fewer than
/// [`MIN_PROCESSES`] processes. `ci999` is kept for the contract: the half-width of the 99.9%
/// Student-t interval of the mean of the process medians (0 with fewer processes); no verdict or mark uses it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricStats {
    /// Median of all samples.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Half-width of the 99.9% Student-t interval of the mean of the per-process medians (0: no interval); shown
    /// for the contract only.
    pub ci999: f64,
    /// Low end of the 95% hierarchical bootstrap interval of the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95_low: Option<f64>,
    /// High end of the 95% hierarchical bootstrap interval of the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95_high: Option<f64>,
    /// Number of samples.
    pub n: usize,
    /// Mean of all samples.
    pub mean: f64,
    /// Median of each fork's samples, in fork order: the spread across processes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fork_medians: Vec<f64>,
    /// Number of processes with a sample (the length of `fork_medians`).
    #[serde(default)]
    pub processes: usize,
    /// Processes and iterations beyond Tukey's fences.
    #[serde(default, skip_serializing_if = "Outliers::is_empty")]
    pub outliers: Outliers,
    /// Every finite sample, grouped by process, for bootstrap intervals of ratios when a report is rendered from
    /// raw records; not written to the summary JSON (empty when read back from it).
    #[serde(skip)]
    pub samples: Vec<Vec<f64>>,
}

impl MetricStats {
    /// The 99.9% Student-t interval of the mean of the per-process medians, `(low, high)`, or `None` with fewer
    /// than [`MIN_PROCESSES`] processes. Kept for the contract's `ci999`; verdicts and marks use
    /// the process medians themselves.
    pub fn interval(&self) -> Option<(f64, f64)> {
        if self.processes < MIN_PROCESSES || self.fork_medians.is_empty() {
            return None;
        }
        let centre = self.fork_medians.iter().sum::<f64>() / self.fork_medians.len() as f64;
        Some((centre - self.ci999, centre + self.ci999))
    }

    /// The 95% bootstrap interval of the median, when there is one.
    pub fn ci95(&self) -> Option<(f64, f64)> {
        self.ci95_low.zip(self.ci95_high)
    }
}

/// Samples beyond Tukey's fences (1.5 interquartile ranges beyond the quartiles: mild; 3: severe), as criterion
/// flags them, and process medians that fall into separated groups (modes). Flagged, never dropped: every
/// statistic still includes them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outliers {
    /// Measured iterations beyond the inner fences of all samples, within the outer ones.
    #[serde(default)]
    pub iterations_mild: usize,
    /// Measured iterations beyond the outer fences of all samples.
    #[serde(default)]
    pub iterations_severe: usize,
    /// Forks (by index) whose median lies beyond the inner fences of the per-process medians.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<usize>,
    /// The process medians' modes, when they fall into two separated groups (positions in `fork_medians`, the
    /// lower group first): the contestant is then two populations, and its pooled median describes neither
    /// ([`crate::calibration::modes`]). Empty for one population, and in runs made before modes were marked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Vec<usize>>,
}

impl Outliers {
    /// Whether nothing was flagged.
    pub fn is_empty(&self) -> bool {
        self.iterations_mild == 0 && self.iterations_severe == 0 && self.processes.is_empty() && self.modes.is_empty()
    }
}
