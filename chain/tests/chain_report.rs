//! The chain's report: every figure comes from the summary, a missing phase is said, and each finding appears
//! only under the verdict of the claim (found by id) that backs it.

mod chain_common;

use chain::chain::report::discussion;
use chain_common::{judged, summary_with, LOOP};
use measure::summary::Verdict;
use testkit::text::holds;

#[test]
fn every_figure_comes_from_the_summary() {
    let summary = judged(summary_with(&[(LOOP, 0, 1.25), ("stream-futures-adapters", 0, 1.875), (LOOP, 64, 40.0)]));
    let text = discussion(&summary);
    holds(&text, &["1.25", "1.50×"]); // stream-futures-adapters / loop
    assert!(text.contains("40.0"), "{text}");
    assert!(text.contains("### What to pick"));
}

#[test]
fn an_unjudged_claim_is_said_not_invented() {
    let text = discussion(&summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 5.0)]));
    assert!(text.contains("within 2× of the loop: not judged"), "{text}");
    assert!(!text.contains("could not be rendered"), "{text}");
}

#[test]
fn a_missing_phase_is_said_not_invented() {
    let mut summary = summary_with(&[]);
    summary.phases.clear();
    assert_eq!(discussion(&summary), "No `work_<n>` phase ran, so there is nothing to discuss.\n");
}

#[test]
fn the_almost_a_loop_finding_is_printed_only_when_its_claim_holds() {
    let render =
        |stream: f64| discussion(&judged(summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, stream)])));
    let close = render(1.5);
    assert!(close.contains("compiles to almost a loop"), "{close}");
    let far = render(5.0);
    assert!(!far.contains("compiles to almost a loop"), "{far}");
    holds(&far, &["within 2× of the loop: fails", "did not stay within 2× of the loop in this run (that claim fails)"]);
}

#[test]
fn pass_batches_is_recommended_only_when_batching_holds() {
    let mut summary = judged(summary_with(&[(LOOP, 0, 1.0)]));
    let set = |summary: &mut measure::summary::Summary, verdict: Verdict| {
        let claim = summary.claims.iter_mut().find(|c| c.id == "batching-tenfold-in-every-family");
        let Some(claim) = claim else { panic!("the batching claim is in the table") };
        claim.verdict = verdict;
    };
    set(&mut summary, Verdict::Fails);
    let text = discussion(&summary);
    assert!(!text.contains("pass batches, not items"), "{text}");
    assert!(text.contains("this run does not show that batching pays in every channel family"), "{text}");
    set(&mut summary, Verdict::Holds);
    assert!(discussion(&summary).contains("pass batches, not items"));
}

#[test]
fn the_fastest_batched_pipeline_is_named_among_every_batched_one_in_the_committed_run() {
    // The committed run's fastest batched pipeline at work 0 is a fused one, which the batching claim's pairs
    // leave out; the report once named the fastest of the pairs instead.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/chain.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let summary: measure::summary::Summary = serde_json::from_str(&text).expect("the committed summary");
    let fastest = summary
        .contestants
        .iter()
        .filter(|c| c.name.ends_with("-batched"))
        .filter_map(|c| c.metrics.get("work_0.ms_per_million").map(|s| (c.name.as_str(), s.median)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(name, _)| name.to_string())
        .expect("a batched pipeline ran");
    let text = discussion(&judged(summary));
    assert!(text.contains(&format!("the fastest batched pipeline here, `{fastest}`")), "{fastest}: {text}");
}

#[test]
fn the_loop_stands_beside_its_standalone_program_at_every_work() {
    let mut summary = summary_with(&[(LOOP, 0, 50.0), (LOOP, 64, 400.0)]);
    let mut standalone = summary.contestant(LOOP).expect("the loop").clone();
    standalone.name = "baseline-loop-standalone".to_string();
    standalone.metrics.insert("work_0.ms_per_million".to_string(), testkit::fixture::stats(30.0));
    standalone.metrics.insert("work_64.ms_per_million".to_string(), testkit::fixture::stats(390.0));
    summary.contestants.push(standalone);
    let text = discussion(&judged(summary));
    holds(
        &text,
        &[
            "### The lab against a standalone program",
            "| `baseline-loop` | `baseline-loop-standalone` | `work_0` | 50.0 | 30.0 | **1.67×** | 1.25 | 1.25 |",
            "| `baseline-loop` | `baseline-loop-standalone` | `work_64` | 400 | 390 | 1.03× | 1.25 | 1.25 |",
            "Above 1.10×: `baseline-loop` at `work_0`",
        ],
    );
    let none = discussion(&judged(summary_with(&[])));
    assert!(none.contains("The standalone programs did not run in this run"), "{none}");
}

#[test]
fn the_spinning_finding_names_a_contestant_only_when_both_its_findings_hold() {
    let summary = summary_with(&[(LOOP, 0, 1.0), ("blocking-crossbeam", 0, 60.0)]);
    let sentence = "`blocking-crossbeam` kept 1.25 cores busy yet took 60.0× the loop's time";
    assert!(!discussion(&summary).contains(sentence), "not judged, not said");
    let mut judged = measure::scenario::judged(&chain::chain::ChainScenario, summary.clone());
    let (cores, slower) = chain::chain::findings::spinning_ids("blocking-crossbeam").unwrap_or_default();
    let mut set = |id: &str, verdict: Verdict| {
        let finding = judged.findings.iter_mut().find(|f| f.id == id);
        let Some(finding) = finding else { panic!("`{id}` is in the finding table") };
        (finding.verdict, finding.holds) = (verdict, verdict == Verdict::Holds);
    };
    set(&cores, Verdict::Holds);
    set(&slower, Verdict::Inconclusive);
    assert!(!discussion(&judged).contains(sentence), "one finding short, not said");
    let mut both = judged.clone();
    let finding = both.findings.iter_mut().find(|f| f.id == slower);
    let Some(finding) = finding else { panic!("`{slower}` is in the finding table") };
    (finding.verdict, finding.holds) = (Verdict::Holds, true);
    assert!(discussion(&both).contains(sentence), "{}", discussion(&both));
}
