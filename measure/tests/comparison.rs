//! Tests comparing two contestants' statistics: ratios, the one noise rule and claim verdicts on process medians.

use measure::compare::{compare, verdict, Basis, Operand, Relation};
use measure::stats::summarize;
use measure::summary::{MetricStats, Verdict};
use testkit::fixture::processes as stats;

fn judge(a: &MetricStats, b: &MetricStats, relation: Relation, factor: f64) -> (Verdict, String) {
    let judged = verdict(Operand::Measured(a), Operand::Measured(b), relation, factor, Basis::ProcessMedians);
    (judged.verdict, judged.detail)
}

#[test]
fn clearly_different_results_are_not_noise() {
    let a = stats(&[20.0, 20.5, 19.5, 20.2, 19.8, 20.1, 19.9, 20.0]);
    let b = stats(&[10.0, 10.2, 9.8, 10.1, 9.9, 10.0, 10.05, 9.95]);
    let c = compare(&a, &b, 0.2);
    assert!((c.ratio - 2.0).abs() < 0.05);
    assert!(!c.noise);
    assert_eq!(judge(&a, &b, Relation::AtMost, 2.5).0, Verdict::Holds);
    assert_eq!(judge(&a, &b, Relation::AtMost, 1.5).0, Verdict::Fails);
    assert_eq!(judge(&a, &b, Relation::AtLeast, 1.5).0, Verdict::Holds);
    assert_eq!(judge(&a, &b, Relation::AtLeast, 2.5).0, Verdict::Fails);
}

#[test]
fn noisy_results_are_noise_and_inconclusive() {
    let a = stats(&[10.0, 30.0, 12.0, 28.0]);
    let b = stats(&[11.0, 29.0, 13.0, 27.0]);
    let c = compare(&a, &b, 0.05);
    assert!(c.noise);
    let (verdict, detail) = judge(&a, &b, Relation::AtMost, 1.0);
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(detail.starts_with("ratio "), "{detail}");
    assert!(detail.contains("process-median ratios"), "{detail}");
}

#[test]
fn a_single_process_is_never_enough_for_a_verdict() {
    let a = stats(&[6.0]);
    let b = stats(&[3.0]);
    assert_eq!(judge(&a, &b, Relation::AtMost, 2.0).0, Verdict::Inconclusive);
    assert_eq!(judge(&a, &b, Relation::AtLeast, 2.0).0, Verdict::Inconclusive);
    assert_eq!(judge(&a, &b, Relation::AtMost, 2.0).1, "ratio 2.00, claim ≤ 2.00: too few processes (1, 3 needed)");
}

#[test]
fn many_iterations_of_one_process_are_still_one_process() {
    let a = summarize(&[vec![6.0; 100]]).expect("samples");
    let b = summarize(&[vec![3.0; 100]]).expect("samples");
    assert_eq!(judge(&a, &b, Relation::AtMost, 2.0).0, Verdict::Inconclusive);
}

#[test]
fn a_wide_spread_that_still_separates_decides() {
    // The case the 99.9% t-interval over three processes could not decide: every process median of one side
    // beats every one of the other by far, with a spread of 40% between processes.
    let crossbeam = stats(&[16_321.0, 9_793.0, 9_596.0]);
    let flume = stats(&[364.0, 238.0, 365.0]);
    let c = compare(&crossbeam, &flume, 0.2);
    assert!(!c.noise, "31× with no overlap is not noise");
    assert_eq!(judge(&crossbeam, &flume, Relation::AtLeast, 2.0).0, Verdict::Holds);
}
