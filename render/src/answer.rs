//! What a report answers, computed from the run alone and shared by the report and the index: per phase, the
//! pick among candidates (every candidate within noise of the best, never a registry-order tie-break), what
//! the pathologies and traps cost against it, the trade-offs it makes on further metrics, and per dimension
//! whether the choice changes the result beyond noise with everything else equal.
//!
//! Only [`Role::Candidate`] rows are ever picked; floors are the reference the pick is measured against, and
//! pathologies and traps are shown as what they cost. Every "beyond noise" here is the lab's one rule,
//! [`measure::compare::compare`].

use std::collections::BTreeMap;

use measure::compare::differs;
use measure::scenario::Dimension;
use measure::summary::{ContestantSummary, MetricStats, Role, Summary};

use crate::analysis::{metric_key, phases, ranked, Entry};

/// Whether `a` is better than `b` by median on a metric whose direction is `higher_is_better`.
pub(crate) fn better(a: f64, b: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        a > b
    } else {
        a < b
    }
}

/// The answer at one phase.
#[derive(Debug, Clone)]
pub(crate) struct PhaseAnswer<'s> {
    /// The phase, or `None` without a sweep.
    pub(crate) phase: Option<&'s str>,
    /// The pick: the best candidate, then every other candidate within noise of it, best first.
    pub(crate) picks: Vec<Entry<'s>>,
    /// Pathologies and traps that ran, with their median as a multiple of the pick's (always "worse" or within
    /// noise: a pathology that beats the pick is still reported as it is).
    pub(crate) avoid: Vec<(Entry<'s>, f64, bool)>,
    /// The best floor that ran, and the pick's median as a multiple of it with whether that is beyond noise.
    pub(crate) floor: Option<(Entry<'s>, f64, bool)>,
    /// Trade-offs: metric, the candidate that beats the pick beyond noise on it, its median, the pick's median.
    pub(crate) trade_offs: Vec<(String, &'s ContestantSummary, f64, f64)>,
}

impl PhaseAnswer<'_> {
    /// The pick's best entry.
    pub(crate) fn pick(&self) -> Entry<'_> {
        self.picks[0]
    }

    /// Whether several candidates tie.
    pub(crate) fn is_tie(&self) -> bool {
        self.picks.len() > 1
    }
}

/// The answer at every phase where a candidate measured the headline metric.
pub(crate) fn phase_answers<'s>(
    summary: &'s Summary,
    metric: &str,
    higher_is_better: bool,
    trade_off_metrics: &[(&str, bool)],
) -> Vec<PhaseAnswer<'s>> {
    let threshold = summary.method.noise_threshold;
    let mut answers = Vec::new();
    for phase in phases(summary) {
        let key = metric_key(phase, metric);
        let candidates = ranked(summary, &key, higher_is_better, Role::Candidate);
        let Some(best) = candidates.first().copied() else { continue };
        let picks: Vec<Entry<'s>> =
            candidates.iter().copied().filter(|e| !differs(e.stats, best.stats, threshold)).collect();
        let ratio = |e: &Entry<'_>| e.stats.median / best.stats.median;
        let mut avoid: Vec<(Entry<'s>, f64, bool)> = [Role::Pathology, Role::Trap]
            .into_iter()
            .flat_map(|role| ranked(summary, &key, higher_is_better, role))
            .map(|e| (e, ratio(&e), differs(e.stats, best.stats, threshold)))
            .collect();
        avoid.sort_by(|a, b| a.0.contestant.name.cmp(&b.0.contestant.name));
        let floor = ranked(summary, &key, higher_is_better, Role::Floor)
            .into_iter()
            .find(|e| e.contestant.family == measure::summary::Family::Baseline)
            .map(|f| (f, best.stats.median / f.stats.median, differs(best.stats, f.stats, threshold)));
        let mut trade_offs = Vec::new();
        for (other_metric, other_higher) in trade_off_metrics {
            let other_key = metric_key(phase, other_metric);
            let Some(pick_stats) = best.contestant.metrics.get(&other_key) else { continue };
            let beats: Option<(&ContestantSummary, &MetricStats)> = candidates
                .iter()
                .filter_map(|e| e.contestant.metrics.get(&other_key).map(|s| (e.contestant, s)))
                .filter(|(_, s)| {
                    better(s.median, pick_stats.median, *other_higher) && differs(s, pick_stats, threshold)
                })
                .reduce(|a, b| if better(b.1.median, a.1.median, *other_higher) { b } else { a });
            if let Some((who, stats)) = beats {
                trade_offs.push((other_metric.to_string(), who, stats.median, pick_stats.median));
            }
        }
        answers.push(PhaseAnswer { phase, picks, avoid, floor, trade_offs });
    }
    answers
}

/// What one dimension does to the headline, over every phase.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DimensionFinding {
    /// The dimension's name, such as `limiter`.
    pub(crate) name: String,
    /// Comparisons made: pairs of levels (each the best candidate of its level) with everything else equal.
    pub(crate) comparisons: usize,
    /// How many of them are beyond noise.
    pub(crate) beyond_noise: usize,
    /// How many of them could not be told from noise whatever the numbers: a side with fewer than
    /// [`measure::stats::MIN_PROCESSES`] processes.
    pub(crate) undecidable: usize,
    /// The largest factor beyond noise, as (phase, better contestant, its level, worse contestant, its level,
    /// factor ≥ 1).
    pub(crate) largest: Option<(Option<String>, String, String, String, String, f64)>,
}

/// For each dimension, compare the best candidate of each of its levels with every other level's best, within
/// groups of candidates that share their levels on every other dimension ("everything else equal"), at each
/// phase. A dimension with no such pair anywhere is left out.
pub(crate) fn dimension_findings(
    summary: &Summary,
    metric: &str,
    higher_is_better: bool,
    dimensions: &[Dimension],
) -> Vec<DimensionFinding> {
    let threshold = summary.method.noise_threshold;
    let mut findings = Vec::new();
    for (index, dimension) in dimensions.iter().enumerate() {
        let mut finding = DimensionFinding {
            name: dimension.name.to_string(),
            comparisons: 0,
            beyond_noise: 0,
            undecidable: 0,
            largest: None,
        };
        for phase in phases(summary) {
            let key = metric_key(phase, metric);
            // Context (levels on the other dimensions) → level on this one → best candidate of that level.
            let mut groups: BTreeMap<Vec<String>, BTreeMap<String, Entry<'_>>> = BTreeMap::new();
            for entry in ranked(summary, &key, higher_is_better, Role::Candidate) {
                let name = &entry.contestant.name;
                let Some(level) = dimension.levels.get(name) else { continue };
                let context: Vec<String> = dimensions
                    .iter()
                    .enumerate()
                    .filter(|(other, _)| *other != index)
                    .map(|(_, d)| d.levels.get(name).cloned().unwrap_or_default())
                    .collect();
                // `ranked` is best first, so the first entry of a level is its best.
                groups.entry(context).or_default().entry(level.clone()).or_insert(entry);
            }
            for levels in groups.values() {
                let bests: Vec<(&String, &Entry<'_>)> = levels.iter().collect();
                for (i, (level_a, a)) in bests.iter().enumerate() {
                    for (level_b, b) in &bests[i + 1..] {
                        finding.comparisons += 1;
                        if measure::compare::process_range(a.stats).is_none()
                            || measure::compare::process_range(b.stats).is_none()
                        {
                            finding.undecidable += 1;
                        }
                        if !differs(a.stats, b.stats, threshold) {
                            continue;
                        }
                        finding.beyond_noise += 1;
                        let (winner, winner_level, loser, loser_level) =
                            if better(a.stats.median, b.stats.median, higher_is_better) {
                                (a, level_a, b, level_b)
                            } else {
                                (b, level_b, a, level_a)
                            };
                        let ratio = winner.stats.median / loser.stats.median;
                        let factor = if ratio >= 1.0 { ratio } else { 1.0 / ratio };
                        if finding.largest.as_ref().is_none_or(|l| factor > l.5) {
                            finding.largest = Some((
                                phase.map(str::to_string),
                                winner.contestant.name.clone(),
                                (*winner_level).clone(),
                                loser.contestant.name.clone(),
                                (*loser_level).clone(),
                                factor,
                            ));
                        }
                    }
                }
            }
        }
        if finding.comparisons > 0 {
            findings.push(finding);
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use testkit::fixture::processes;

    use crate::analysis::tests::{contestant_with_role, summary_of};
    use measure::summary::Family;

    fn dims(pairs: &[(&str, &str, &str)]) -> Vec<Dimension> {
        let mut family = Dimension { name: "family", levels: BTreeMap::new() };
        let mut limiter = Dimension { name: "limiter", levels: BTreeMap::new() };
        for (name, f, l) in pairs {
            family.levels.insert(name.to_string(), f.to_string());
            limiter.levels.insert(name.to_string(), l.to_string());
        }
        vec![limiter, family]
    }

    #[test]
    fn the_limiter_matters_and_the_family_does_not() {
        let summary = summary_of(vec![
            contestant_with_role("stream-fixed", Family::Stream, Role::Candidate, processes(&[26.0, 26.5, 26.2])),
            contestant_with_role("blocking-fixed", Family::Blocking, Role::Candidate, processes(&[26.4, 26.1, 26.8])),
            contestant_with_role("stream-aimd", Family::Stream, Role::Candidate, processes(&[9.8, 9.7, 9.9])),
            contestant_with_role("blocking-aimd", Family::Blocking, Role::Candidate, processes(&[9.9, 9.6, 9.8])),
        ]);
        let dimensions = dims(&[
            ("stream-fixed", "stream", "fixed"),
            ("blocking-fixed", "blocking", "fixed"),
            ("stream-aimd", "stream", "aimd"),
            ("blocking-aimd", "blocking", "aimd"),
        ]);
        let findings = dimension_findings(&summary, "ms", false, &dimensions);
        let limiter = findings.iter().find(|f| f.name == "limiter").unwrap();
        let family = findings.iter().find(|f| f.name == "family").unwrap();
        assert!(limiter.largest.is_some());
        assert_eq!((limiter.comparisons, limiter.beyond_noise), (2, 2));
        assert_eq!(family.beyond_noise, 0, "stream and blocking agree within noise for each limiter");
        assert_eq!(family.comparisons, 2);
        let answers = phase_answers(&summary, "ms", false, &[]);
        let names: Vec<&str> = answers[0].picks.iter().map(|e| e.contestant.name.as_str()).collect();
        assert_eq!(names.len(), 2, "the two aimd rows tie: any of them, {names:?}");
        assert!(names.contains(&"stream-aimd") && names.contains(&"blocking-aimd"));
    }

    #[test]
    fn one_process_cannot_say_a_choice_does_not_matter() {
        let summary = summary_of(vec![
            contestant_with_role("stream", Family::Stream, Role::Candidate, processes(&[10.0])),
            contestant_with_role("blocking", Family::Blocking, Role::Candidate, processes(&[10.5])),
        ]);
        let dimensions = vec![Dimension {
            name: "family",
            levels: [("stream", "stream"), ("blocking", "blocking")]
                .into_iter()
                .map(|(n, l)| (n.to_string(), l.to_string()))
                .collect(),
        }];
        let family = &dimension_findings(&summary, "ms", false, &dimensions)[0];
        assert_eq!((family.comparisons, family.beyond_noise, family.undecidable), (1, 0, 1));
    }

    #[test]
    fn a_pathology_is_never_the_pick_and_is_shown_with_its_cost() {
        let summary = summary_of(vec![
            contestant_with_role("one-message", Family::Stream, Role::Pathology, processes(&[1.0, 1.1, 1.0])),
            contestant_with_role("own-timer", Family::Stream, Role::Floor, processes(&[0.5, 0.5, 0.5])),
            contestant_with_role("crossbeam", Family::Blocking, Role::Candidate, processes(&[40.0, 41.0, 39.0])),
            contestant_with_role("flume", Family::Stream, Role::Candidate, processes(&[80.0, 82.0, 79.0])),
        ]);
        let answers = phase_answers(&summary, "ms", false, &[]);
        let answer = &answers[0];
        assert_eq!(answer.pick().contestant.name, "crossbeam");
        assert!(!answer.is_tie());
        assert_eq!(answer.avoid.len(), 1);
        assert_eq!(answer.avoid[0].0.contestant.name, "one-message");
        assert!(answer.floor.is_none(), "a floor that is not a baseline is not the cost floor");
    }
}
