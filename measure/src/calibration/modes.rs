//! Modes: a contestant whose process medians fall into separated groups (rayon's spawn and join at 79–83 ns in
//! some processes and 216–220 ns in others) is two populations, and its pooled median describes neither.
//!
//! The rule ([`modes`]), on the process medians sorted: take the largest gap between neighbours that leaves at
//! least [`MODE_MIN_GROUP`] processes on each side; the processes fall into two modes when that gap is at least
//! [`MODE_GAP_FACTOR`] times the wider of the two groups' own spreads (both in log space, so as ratios) *and* the
//! gap itself is a ratio at least the metric's threshold (what the judge could tell apart between two
//! contestants, [`super::Thresholds`]). One gap, two groups: simple enough to state beside every verdict.

use serde::Serialize;

use super::class::class_of;
use crate::compare::format_ratio;
use crate::metric_stats::MetricStats;
use crate::summary::Summary;

/// How many times the wider group's spread the gap between the groups must be.
pub const MODE_GAP_FACTOR: f64 = 3.0;

/// Fewest processes in each group.
pub const MODE_MIN_GROUP: usize = 2;

/// The modes of `medians` (process medians, in fork order) under the rule of the module documentation, at
/// `ratio` (the metric's threshold, such as 1.08): two groups of positions in `medians`, the lower first, each in
/// fork order; empty when the processes are one population, when there are fewer than `2 ×`
/// [`MODE_MIN_GROUP`], or when a median is not a positive number.
pub fn modes(medians: &[f64], ratio: f64) -> Vec<Vec<usize>> {
    let n = medians.len();
    if n < 2 * MODE_MIN_GROUP || medians.iter().any(|m| !(m.is_finite() && *m > 0.0)) {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| medians[i].total_cmp(&medians[j]));
    let logs: Vec<f64> = order.iter().map(|&i| medians[i].ln()).collect();
    let Some((cut, gap)) =
        (MODE_MIN_GROUP..=n - MODE_MIN_GROUP).map(|c| (c, logs[c] - logs[c - 1])).max_by(|a, b| a.1.total_cmp(&b.1))
    else {
        return Vec::new();
    };
    let spread = (logs[cut - 1] - logs[0]).max(logs[n - 1] - logs[cut]);
    let gap_ratio = medians[order[cut]] / medians[order[cut - 1]];
    if gap <= 0.0 || gap < MODE_GAP_FACTOR * spread || gap_ratio < ratio {
        return Vec::new();
    }
    let mut low = order[..cut].to_vec();
    let mut high = order[cut..].to_vec();
    low.sort_unstable();
    high.sort_unstable();
    vec![low, high]
}

/// Mark the modes of every classed metric of every contestant of `summary` ([`crate::metric_stats::Outliers::modes`]),
/// each at its own threshold: what reports and verdicts read.
pub fn mark_modes(summary: &mut Summary) {
    let method = summary.method.clone();
    for contestant in &mut summary.contestants {
        for (key, stats) in &mut contestant.metrics {
            if class_of(key).is_none() {
                continue;
            }
            let ratio = method.thresholds().for_metric(key).ratio;
            stats.outliers.modes = modes(&stats.fork_medians, ratio);
        }
    }
}

/// One mode of a contestant's metric, as a report names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mode {
    /// Its processes, numbered from 1 as reports number forks.
    pub processes: Vec<usize>,
    /// Its lowest process median.
    pub low: f64,
    /// Its highest process median.
    pub high: f64,
}

/// The modes marked on `stats`, each with its processes and range; empty when it is one population.
pub fn groups(stats: &MetricStats) -> Vec<Mode> {
    stats
        .outliers
        .modes
        .iter()
        .filter_map(|group| {
            let values: Vec<f64> = group.iter().filter_map(|&i| stats.fork_medians.get(i).copied()).collect();
            let low = values.iter().copied().fold(f64::INFINITY, f64::min);
            let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (!values.is_empty()).then(|| Mode { processes: group.iter().map(|i| i + 1).collect(), low, high })
        })
        .collect()
}

/// The modes of `stats` in the words a verdict's detail carries, `processes 2, 4 at 79.0–83.0 and 1, 3, 5 at
/// 216–220`; `None` for one population.
pub fn describe(stats: &MetricStats) -> Option<String> {
    let found = groups(stats);
    (found.len() > 1).then(|| {
        let words: Vec<String> = found
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let processes: Vec<String> = m.processes.iter().map(ToString::to_string).collect();
                let range = if m.low == m.high {
                    format_ratio(m.low)
                } else {
                    format!("{}–{}", format_ratio(m.low), format_ratio(m.high))
                };
                let lead = if i == 0 { "processes " } else { "" };
                format!("{lead}{} at {range}", processes.join(", "))
            })
            .collect();
        words.join(" and ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_separated_groups_are_named_lower_first_in_fork_order() {
        // rayon's spawn and join: two processes near 80 ns, three near 218.
        let medians = [216.0, 79.0, 220.0, 83.0, 218.0];
        assert_eq!(modes(&medians, 1.2), vec![vec![1, 3], vec![0, 2, 4]]);
    }

    #[test]
    fn one_population_has_no_modes() {
        assert!(modes(&[100.0, 101.0, 99.5, 100.4, 102.0], 1.05).is_empty());
        // An even spread has no gap much wider than the groups.
        assert!(modes(&[80.0, 100.0, 120.0, 140.0, 160.0], 1.05).is_empty());
    }

    #[test]
    fn a_gap_below_the_threshold_is_no_mode_however_tight_the_groups() {
        let tight = [100.0, 100.1, 103.0, 103.1, 103.05];
        assert!(modes(&tight, 1.05).is_empty(), "3% apart, threshold 5%");
        assert_eq!(modes(&tight, 1.02).len(), 2, "beyond a 2% threshold it is two groups");
    }

    #[test]
    fn a_lone_process_is_an_outlier_not_a_mode() {
        assert!(modes(&[100.0, 101.0, 100.5, 99.0, 250.0], 1.05).is_empty());
        assert!(modes(&[100.0, 250.0, 251.0], 1.05).is_empty(), "too few processes");
        assert!(modes(&[0.0, 0.0, 5.0, 5.0], 1.05).is_empty(), "zero has no ratio");
    }

    #[test]
    fn groups_carry_their_processes_from_1_and_their_ranges() {
        let mut stats = crate::stats::summarize(&[vec![216.0], vec![79.0], vec![220.0], vec![83.0]]).expect("stats");
        stats.outliers.modes = modes(&stats.fork_medians, 1.2);
        let found = groups(&stats);
        assert_eq!(found[0], Mode { processes: vec![2, 4], low: 79.0, high: 83.0 });
        assert_eq!(found[1], Mode { processes: vec![1, 3], low: 216.0, high: 220.0 });
        assert_eq!(describe(&stats).as_deref(), Some("processes 2, 4 at 79.0–83.0 and 1, 3 at 216–220"));
        stats.outliers.modes.clear();
        assert_eq!(describe(&stats), None);
    }
}
