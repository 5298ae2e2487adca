//! Tests of the figures the details page prints against a reference: ratios and why one is noise
//! ([`measure::compare::ratio`]), and each family's best ([`measure::question::best`], [`family_bests`]).
#![allow(clippy::unwrap_used)]

use measure::compare::{ratio, NoiseWhy};
use measure::question::{best, best_candidate, family_bests, reference};
use measure::record::Status;
use measure::summary::{ContestantSummary, Family, MetricStats, Role, Summary};
use testkit::fixture::{contestant, processes, stats, summary};

/// A contestant that ran cleanly with `role` and statistics `stats` on metric `ms`.
fn with_role(name: &str, family: Family, role: Role, stats: MetricStats) -> ContestantSummary {
    ContestantSummary { role, ..contestant(name, family, [("ms".to_string(), stats)].into()) }
}

/// A run of these contestants without phases.
fn summary_of(contestants: Vec<ContestantSummary>) -> Summary {
    summary("ratios", contestants)
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
fn a_pathology_is_never_a_familys_best_and_the_baseline_is_the_reference() {
    let summary = summary_of(vec![
        with_role("loop", Family::Baseline, Role::Floor, stats(0.5)),
        with_role("one-message", Family::Stream, Role::Pathology, stats(1.0)),
        with_role("flume", Family::Stream, Role::Candidate, stats(80.0)),
        with_role("crossbeam", Family::Blocking, Role::Candidate, stats(40.0)),
    ]);
    assert_eq!(best_candidate(&summary, Some(Family::Stream), "ms", false).unwrap().contestant.name, "flume");
    let names: Vec<&str> = family_bests(&summary, "ms", false).iter().map(|e| e.contestant.name.as_str()).collect();
    assert_eq!(names, ["loop", "flume", "crossbeam"], "baseline first, then streams, then blocking");
    let reference = reference(&summary, "ms", false).unwrap();
    assert!(reference.is_baseline);
    assert_eq!(reference.entry.contestant.name, "loop");
}
