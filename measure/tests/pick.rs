//! Tests of the analysis every report prints ([`measure::pick`]): ratios and noise, the best contestant, the
//! pick among candidates with what pathologies cost, and what each dimension does to the headline.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use measure::pick::{best, dimension_findings, phase_answers, ratio, Analysis, NoiseWhy};
use measure::record::Status;
use measure::scenario::Dimension;
use measure::summary::{ContestantSummary, Family, MetricStats, Role, Summary};
use testkit::fixture::{contestant, processes, stats, summary};

/// A contestant that ran cleanly with `role` and statistics `stats` on metric `ms`.
fn with_role(name: &str, family: Family, role: Role, stats: MetricStats) -> ContestantSummary {
    ContestantSummary { role, ..contestant(name, family, [("ms".to_string(), stats)].into()) }
}

/// A candidate of `family` whose processes had `medians` on `ms`.
fn candidate(name: &str, family: Family, medians: &[f64]) -> ContestantSummary {
    with_role(name, family, Role::Candidate, processes(medians))
}

/// A run of these contestants without phases.
fn summary_of(contestants: Vec<ContestantSummary>) -> Summary {
    summary("pick", contestants)
}

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
fn a_clear_difference_is_not_noise() {
    let r = ratio(&stats(21.0), &stats(10.0), 0.2).unwrap();
    assert!((r.value - 2.1).abs() < 1e-9);
    assert!(!r.noise);
    assert_eq!(r.why, None);
}

#[test]
fn overlapping_process_medians_are_noise() {
    let a = processes(&[21.0, 9.0, 25.0]);
    let b = processes(&[10.0, 12.0, 8.0]);
    assert_eq!(ratio(&a, &b, 0.2).unwrap().why, Some(NoiseWhy::Overlap), "one process of a lies among b's");
}

#[test]
fn a_difference_under_the_threshold_is_noise() {
    assert_eq!(ratio(&stats(105.0), &stats(100.0), 0.2).unwrap().why, Some(NoiseWhy::PracticallyEqual));
    assert_eq!(ratio(&processes(&[50.0]), &stats(10.0), 0.2).unwrap().why, Some(NoiseWhy::TooFewProcesses));
}

#[test]
fn a_zero_reference_has_no_ratio() {
    assert!(ratio(&stats(1.0), &processes(&[0.0, 0.0, 0.0]), 0.2).is_none());
}

#[test]
fn best_skips_failed_contestants_and_respects_direction() {
    let failed = ContestantSummary {
        status: Status::Failed,
        ..with_role("blocking", Family::Blocking, Role::Candidate, stats(1.0))
    };
    let summary = summary_of(vec![
        with_role("loop", Family::Baseline, Role::Floor, stats(10.0)),
        with_role("stream", Family::Stream, Role::Candidate, stats(21.0)),
        failed,
    ]);
    assert_eq!(best(&summary, None, "ms", false).unwrap().contestant.name, "loop");
    assert_eq!(best(&summary, None, "ms", true).unwrap().contestant.name, "stream");
    assert!(best(&summary, Some(Family::Blocking), "ms", false).is_none());
}

#[test]
fn the_limiter_matters_and_the_family_does_not() {
    let summary = summary_of(vec![
        candidate("stream-fixed", Family::Stream, &[26.0, 26.5, 26.2]),
        candidate("blocking-fixed", Family::Blocking, &[26.4, 26.1, 26.8]),
        candidate("stream-aimd", Family::Stream, &[9.8, 9.7, 9.9]),
        candidate("blocking-aimd", Family::Blocking, &[9.9, 9.6, 9.8]),
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
    assert_eq!(Analysis::of(&summary, "ms", false, &[], &dimensions).comparisons(), (4, 2));
}

#[test]
fn one_process_cannot_say_a_choice_does_not_matter() {
    let summary = summary_of(vec![
        candidate("stream", Family::Stream, &[10.0]),
        candidate("blocking", Family::Blocking, &[10.5]),
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
        with_role("one-message", Family::Stream, Role::Pathology, processes(&[1.0, 1.1, 1.0])),
        with_role("own-timer", Family::Stream, Role::Floor, processes(&[0.5, 0.5, 0.5])),
        candidate("crossbeam", Family::Blocking, &[40.0, 41.0, 39.0]),
        candidate("flume", Family::Stream, &[80.0, 82.0, 79.0]),
    ]);
    let analysis = Analysis::of(&summary, "ms", false, &[], &[]);
    let answer = analysis.at(None).unwrap();
    assert_eq!(answer.pick().contestant.name, "crossbeam");
    assert!(!answer.is_tie());
    assert_eq!(answer.avoid.len(), 1);
    assert_eq!(answer.avoid[0].entry.contestant.name, "one-message");
    assert!(answer.floor.is_none(), "a floor that is not a baseline is not the cost floor");
    let costs = analysis.avoid_costs();
    assert_eq!((costs[0].name.as_str(), costs[0].role, costs[0].factors.len()), ("one-message", Role::Pathology, 1));
}
