//! The chain's claim table: each claim is judged as its text says.

mod chain_common;

use chain::chain::claims::{table, BATCH_PAIRS, STANDALONE_GUARD};
use chain_common::{summary_with, LOOP};
use measure::judge::judge;
use measure::record::Status;
use measure::summary::{ClaimResult, Family, Summary, Verdict};

/// The claim of the table named `id`, judged on `summary`.
fn judged(summary: &Summary, id: &str) -> ClaimResult {
    let spec = table(summary).into_iter().find(|c| c.id == id);
    let Some(spec) = spec else { panic!("no claim `{id}` in the table") };
    judge(summary, &spec)
}

#[test]
fn the_fastest_stream_is_judged_against_the_loop() {
    let summary =
        summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 1.5), ("stream-tokio-stream-adapters", 0, 1.8)]);
    let claim = judged(&summary, "fastest-stream-near-loop-at-work-0");
    assert_eq!(claim.verdict, Verdict::Holds, "{}", claim.detail);
    assert!(claim.detail.contains("stream-futures-adapters"), "{}", claim.detail);
    let slow = summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 5.0)]);
    assert_eq!(judged(&slow, "fastest-stream-near-loop-at-work-0").verdict, Verdict::Fails);
}

#[test]
fn batching_takes_the_worst_pair() {
    let mut medians: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 0, 5.0)).collect();
    let summary = summary_with(&medians);
    assert_eq!(judged(&summary, "batching-tenfold-in-every-family").verdict, Verdict::Holds);
    medians[0] = ("blocking-crossbeam-batched", 0, 50.0);
    let claim = judged(&summary_with(&medians), "batching-tenfold-in-every-family");
    assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
}

#[test]
fn a_missing_contestant_makes_a_claim_inconclusive() {
    let mut summary = summary_with(&[]);
    summary.contestants.retain(|c| c.name != "stream-tokio-stream-adapters");
    let claim = judged(&summary, "yielding-source-costs-more");
    assert_eq!(claim.verdict, Verdict::Inconclusive);
    assert!(claim.detail.contains("did not run"), "{}", claim.detail);
    assert_eq!(table(&summary).len(), 5);
}

#[test]
fn a_broken_contestant_cannot_make_the_fastest_stream_claim_hold() {
    let mut summary = summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 1.5)]);
    for c in summary.contestants.iter_mut().filter(|c| c.family == Family::Stream) {
        c.status = Status::Failed;
        c.checks.push(measure::summary::Check::new("checksum", false, "sum 41 instead of 42"));
    }
    let claim = judged(&summary, "fastest-stream-near-loop-at-work-0");
    assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
}

#[test]
fn the_guard_flags_a_lab_loop_shown_slower_than_its_standalone_program() {
    let with_standalone = |standalone: f64| {
        let mut summary = summary_with(&[(LOOP, 0, 50.0)]);
        let metrics = [("work_0.ms_per_million".to_string(), testkit::fixture::stats(standalone))].into();
        summary.contestants.push(testkit::fixture::contestant("baseline-loop-standalone", Family::Baseline, metrics));
        summary
    };
    let slow = judged(&with_standalone(30.0), STANDALONE_GUARD);
    assert_eq!((slow.verdict, slow.guard), (Verdict::Fails, true), "{}", slow.detail);
    assert_eq!(judged(&with_standalone(48.0), STANDALONE_GUARD).verdict, Verdict::Holds);
    let missing = judged(&summary_with(&[]), STANDALONE_GUARD);
    assert_eq!(missing.verdict, Verdict::Inconclusive, "{}", missing.detail);
}
