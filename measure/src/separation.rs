//! How two contestants' process medians compare under the lab's one noise rule, as one outcome a report can word:
//! slower, faster, overlapping, separate but within noise, or too few processes to say.
//!
//! Built on [`crate::compare`]: [`process_range`] (which also refuses too few processes), [`compare`] for the
//! noise line and [`separation_p`] for the exact p of a separation (Mann–Whitney at U = 0).

use serde::Serialize;

use crate::compare::{compare, process_range, separation_p};
use crate::metric_stats::MetricStats;

/// The outcome of comparing `a` with `b` on their process medians.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Separation {
    /// Told apart: `a` is slower (every process median of `a` above every one of `b`, the medians beyond noise).
    Slower,
    /// Told apart: `a` is faster.
    Faster,
    /// Not told apart: the ranges of their process medians overlap (touching counts).
    Overlap,
    /// Not told apart: the ranges are separate but the medians are within the noise threshold of each other.
    WithinNoise,
    /// No outcome: a side has fewer than [`crate::stats::MIN_PROCESSES`] processes (or a missing number).
    TooFewProcesses,
}

impl Separation {
    /// Whether the two sides are told apart (slower or faster).
    pub fn apart(self) -> bool {
        matches!(self, Separation::Slower | Separation::Faster)
    }
}

/// Compares `a` with `b` (values where lower is better, such as ms per million) under `noise_threshold`, with
/// the exact one-sided p of the separation ([`separation_p`]) when they are told apart.
pub fn separation(a: &MetricStats, b: &MetricStats, noise_threshold: f64) -> (Separation, Option<f64>) {
    let (Some((a_low, a_high)), Some((b_low, b_high))) = (process_range(a), process_range(b)) else {
        return (Separation::TooFewProcesses, None);
    };
    let comparison = compare(a, b, noise_threshold);
    let outcome = if !comparison.noise {
        if comparison.ratio > 1.0 {
            Separation::Slower
        } else {
            Separation::Faster
        }
    } else if a_high < b_low || b_high < a_low {
        Separation::WithinNoise
    } else {
        Separation::Overlap
    };
    (outcome, outcome.apart().then(|| separation_p(a.processes, Some(b.processes))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One process per value, each its own sample.
    fn processes(medians: &[f64]) -> MetricStats {
        let forks: Vec<Vec<f64>> = medians.iter().map(|m| vec![*m]).collect();
        crate::stats::summarize(&forks).expect("samples")
    }

    const BARE: [f64; 5] = [48.0, 50.0, 49.0, 51.0, 50.5];
    const SLOW: [f64; 5] = [80.0, 82.0, 79.0, 85.0, 81.0];

    #[test]
    fn five_against_five_separated_beyond_noise_is_told_apart_with_p_0_004() {
        let (outcome, p) = separation(&processes(&SLOW), &processes(&BARE), 0.2);
        assert_eq!(outcome, Separation::Slower);
        assert!((p.expect("apart") - 1.0 / 252.0).abs() < 1e-12, "5 + 5, U = 0");
        assert_eq!(separation(&processes(&BARE), &processes(&SLOW), 0.2).0, Separation::Faster);
    }

    #[test]
    fn overlapping_or_close_sides_are_not_told_apart_and_carry_no_p() {
        let bare = processes(&BARE);
        let copy = separation(&processes(&[47.0, 52.0, 60.0, 49.5, 80.0]), &bare, 0.2);
        assert_eq!(copy, (Separation::Overlap, None), "an A/A pair whose processes overlap");
        let near = separation(&processes(&[52.0, 53.0, 54.0, 55.0, 56.0]), &bare, 0.2);
        assert_eq!(near, (Separation::WithinNoise, None), "separated but within 20%");
    }

    #[test]
    fn fewer_than_three_processes_give_no_outcome() {
        let two = separation(&processes(&[80.0, 90.0]), &processes(&BARE), 0.2);
        assert_eq!(two, (Separation::TooFewProcesses, None));
        assert!(!Separation::TooFewProcesses.apart() && Separation::Faster.apart());
    }

    #[test]
    fn outcomes_serialize_as_snake_case_for_templates() {
        let text = serde_json::to_string(&[Separation::WithinNoise, Separation::TooFewProcesses]).expect("json");
        assert_eq!(text, r#"["within_noise","too_few_processes"]"#);
    }
}
