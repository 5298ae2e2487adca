//! The backpressure scenario's claims and report, judged and rendered from made-up summaries: each claim's
//! verdict moves with the figures it rests on, and each finding is written only when its verdict or the noise
//! rule backs it.

use std::collections::BTreeMap;

use device::backpressure::{BLOCKING_UNBOUNDED, CONTESTANTS, STREAM_UNBOUNDED};
use device::BackpressureScenario;
use measure::record::Status;
use measure::scenario::Scenario;
use measure::summary::{Check, ClaimResult, ContestantSummary, Method, MetricStats, Summary, Verdict};
use testkit::fixture::{self, contestant, method, processes};
use testkit::text::{holds, lacks};

const MAX_OUT: &str = "max_outstanding";
const SAMPLED: &str = "max_outstanding_sampled";
const OPS: &str = "ops_per_sec";

/// Statistics of five processes of one sample each, as the lab runs (against a fixed value, such as the bound,
/// three would give p = 0.125, too weak for a verdict): `min`, `median`, `max` and one halfway on either side.
fn stats(min: f64, median: f64, max: f64) -> MetricStats {
    processes(&[min, (min + median) / 2.0, median, (median + max) / 2.0, max])
}

/// A run where every contestant ran cleanly: bounded ones kept exactly 16 at 15,000 calls/s, the unbounded
/// stream reached 90,000 and the thread per item 60.
fn summary() -> Summary {
    let contestants = CONTESTANTS
        .iter()
        .map(|c| {
            let info = c.info();
            let (out, sampled, ops, rss, mean, cores) = match info.name.as_str() {
                STREAM_UNBOUNDED => (90_000.0, 60_000.0, 150_000.0, 60.0, 30_000.0, 1.9),
                BLOCKING_UNBOUNDED => (60.0, 50.0, 20_000.0, 8.0, 25.0, 1.2),
                _ => (16.0, 16.0, 15_000.0, 6.0, 16.0, 0.2),
            };
            let metrics = BTreeMap::from([
                (MAX_OUT.to_string(), stats(out, out, out)),
                (SAMPLED.to_string(), stats(sampled, sampled, sampled)),
                (OPS.to_string(), stats(ops * 0.99, ops, ops * 1.01)),
                ("ideal_fraction".to_string(), stats(ops / 16_000.0, ops / 16_000.0, ops / 16_000.0)),
                ("peak_rss_mib".to_string(), stats(rss, rss, rss)),
                ("cpu_us_per_call".to_string(), stats(10.0, 12.0, 14.0)),
                ("threads".to_string(), stats(18.0, 18.0, 18.0)),
                ("wall_ms".to_string(), stats(6_500.0, 6_600.0, 6_700.0)),
                ("idle_call_ms".to_string(), stats(1.05, 1.06, 1.07)),
                ("cut_short".to_string(), stats(0.0, 0.0, 0.0)),
                ("ms_to_peak".to_string(), stats(20.0, 25.0, 30.0)),
                ("mean_outstanding".to_string(), stats(mean, mean, mean)),
                ("cores_used".to_string(), stats(cores, cores, cores)),
            ]);
            let checks = if c.bounded() {
                vec![Check::new("sum_exact", true, "ok"), Check::new("bounded_outstanding", true, "at most 16")]
            } else {
                vec![Check::new("sum_exact", true, "ok")]
            };
            ContestantSummary { description: info.description, checks, ..contestant(&info.name, info.family, metrics) }
        })
        .collect();
    let mut params = BTreeMap::new();
    params.insert("items".to_string(), 100_000u64.into());
    params.insert("limit".to_string(), 16u64.into());
    params.insert("service_us".to_string(), 1_000u64.into());
    params.insert("budget_ms".to_string(), 60_000u64.into());
    Summary {
        method: Method { forks: 5, trial_timeout_s: 300.0, ..method() },
        params,
        ..fixture::summary("backpressure", contestants)
    }
}

/// Set `metric` of `name` to the range `min..=max` (median halfway).
fn set(summary: &mut Summary, name: &str, metric: &str, min: f64, max: f64) {
    if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == name) {
        c.metrics.insert(metric.to_string(), stats(min, (min + max) / 2.0, max));
    }
}

/// Mark `name` as not run cleanly.
fn break_contestant(summary: &mut Summary, name: &str, status: Status, reason: &str) {
    if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == name) {
        c.status = status;
        c.reason = Some(reason.to_string());
    }
}

/// Every claim judged against `summary`.
fn claims(summary: &Summary) -> Vec<ClaimResult> {
    measure::judge::judge_all(summary, &BackpressureScenario.claim_table(summary))
}

/// The claim with id `id`, judged against `summary`.
fn claim_by_id(summary: &Summary, id: &str) -> ClaimResult {
    claims(summary).into_iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no claim {id}"))
}

/// Asserts the claim `id` of `summary` judges `verdict` and its detail says `says`.
#[track_caller]
fn claim_says(summary: &Summary, id: &str, verdict: Verdict, says: &str) {
    let claim = claim_by_id(summary, id);
    assert_eq!(claim.verdict, verdict, "{}", claim.detail);
    assert!(claim.detail.contains(says), "{}", claim.detail);
}

/// The discussion of `summary` with its claims and findings judged, as the harness renders it.
fn judged(summary: &Summary) -> String {
    let mut summary = summary.clone();
    summary.claims = claims(&summary);
    summary.findings = BackpressureScenario.findings(&summary);
    BackpressureScenario.discussion(&summary)
}

/// The judged discussion of the clean run with `metric` of `name` set to the range `min..=max`.
fn judged_with(name: &str, metric: &str, min: f64, max: f64) -> String {
    let mut s = summary();
    set(&mut s, name, metric, min, max);
    judged(&s)
}

#[test]
fn every_claim_holds_on_a_clean_run() {
    for claim in claims(&summary()) {
        assert_eq!(claim.verdict, Verdict::Holds, "{}: {}", claim.text, claim.detail);
    }
}

#[test]
fn the_unbounded_stream_must_reach_a_hundred_times_the_bound() {
    let mut s = summary();
    set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 1_000.0, 1_500.0);
    assert_eq!(claim_by_id(&s, "unbounded-stream-piles-up").verdict, Verdict::Fails);
    set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 1_000.0, 2_000.0);
    assert_eq!(claim_by_id(&s, "unbounded-stream-piles-up").verdict, Verdict::Inconclusive);
    set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 1_600.0, 2_000.0);
    assert_eq!(claim_by_id(&s, "unbounded-stream-piles-up").verdict, Verdict::Holds);
    break_contestant(&mut s, STREAM_UNBOUNDED, Status::Timeout, "killed");
    let claim = claim_by_id(&s, "unbounded-stream-piles-up");
    assert_eq!(claim.verdict, Verdict::Inconclusive);
    assert!(claim.detail.contains("did not run cleanly (timeout)"), "{}", claim.detail);
}

#[test]
fn too_few_items_cannot_judge_the_unbounded_stream() {
    let mut s = summary();
    s.params.insert("items".to_string(), 1_000u64.into());
    claim_says(&s, "unbounded-stream-piles-up", Verdict::Inconclusive, "cannot tell");
}

#[test]
fn bounded_throughput_must_agree_within_fifteen_percent() {
    let mut s = summary();
    set(&mut s, "stream-buffered", OPS, 12_000.0, 12_500.0);
    claim_says(&s, "bounded-throughput-alike", Verdict::Fails, "vs stream-buffered");
    set(&mut s, "stream-buffered", OPS, 12_000.0, 15_000.0);
    assert_eq!(claim_by_id(&s, "bounded-throughput-alike").verdict, Verdict::Inconclusive);
    set(&mut s, "stream-buffered", OPS, 14_000.0, 15_000.0);
    assert_eq!(claim_by_id(&s, "bounded-throughput-alike").verdict, Verdict::Holds);
    break_contestant(&mut s, "blocking-threads", Status::Skipped, "no threads");
    claim_says(&s, "bounded-throughput-alike", Verdict::Inconclusive, "blocking-threads did not run cleanly (skipped)");
}

#[test]
fn the_thread_per_item_claim_needs_both_parts() {
    let mut s = summary();
    set(&mut s, BLOCKING_UNBOUNDED, MAX_OUT, 20_000.0, 30_000.0);
    let claim = claim_by_id(&s, "thread-per-item-throttled");
    assert_eq!(claim.verdict, Verdict::Fails, "too many: {}", claim.detail);
    set(&mut s, BLOCKING_UNBOUNDED, MAX_OUT, 5_000.0, 12_000.0);
    assert_eq!(claim_by_id(&s, "thread-per-item-throttled").verdict, Verdict::Inconclusive);
    break_contestant(&mut s, BLOCKING_UNBOUNDED, Status::Skipped, "no threads");
    assert_eq!(claim_by_id(&s, "thread-per-item-throttled").verdict, Verdict::Inconclusive);
}

#[test]
fn the_headline_note_gives_both_unbounded_peaks() {
    assert_eq!(
        BackpressureScenario.headline_notes(&summary()),
        vec!["Without admission control, `stream-unbounded` reached 90,000 calls outstanding (5,625× the bound); \
             `blocking-unbounded` reached 60 calls outstanding (3.75× the bound)."
            .to_string()]
    );
}

#[test]
fn a_clean_run_tells_what_held_and_what_piled_up() {
    let text = judged(&summary());
    assert!(
        text.contains("All 9 bounded contestants, in every family, stayed within the bound of 16 (+ 1 tolerated)"),
        "{text}"
    );
    holds(
        &text,
        &[
            "exactly 16 calls outstanding",
            "It reached 90,000 calls outstanding",
            "5,625× the bound",
            "(median; the same in every iteration)",
            "peak 25 ms into the run",
            "unbounded virtual-thread version reached 1,143× its bound",
            "16–17",
            "Choose the admission before the style",
        ],
    );
    // 30,000 outstanding at 150,000/s: 200 ms in the system, on 1.9 of 2 cores.
    holds(
        &text,
        &[
            "a call spent about 200 ms from admission to answer, 189× an uncontended",
            "kept 1.9 of the machine's 2 cores busy",
        ],
    );
    // 25 outstanding at 20,000/s: 1.25 ms, within 1.5× of 1.06 ms, so no waiting is claimed.
    holds(
        &text,
        &[
            "a call spent about 1.25 ms from admission to answer, 1.18×",
            "The count swung widely: 60 at its peak, 25 on average",
            "It did: `stream-buffered` answered 15,000",
        ],
    );
    assert!(!text.contains("without full results"), "{text}");
    assert!(!text.contains("NaN") && !text.contains('∞'), "{text}");
}

#[test]
fn every_contestant_that_did_not_run_cleanly_is_named_with_its_reason() {
    let mut s = summary();
    break_contestant(&mut s, "blocking-threads", Status::Skipped, "the OS allows 10 threads");
    break_contestant(&mut s, "stream-tasks", Status::Failed, "bounded_outstanding failed");
    break_contestant(&mut s, BLOCKING_UNBOUNDED, Status::Timeout, "killed after 300 s");
    set(&mut s, "stream-flume-workers", "cut_short", 0.0, 1.0);
    let text = judged(&s);
    holds(
        &text,
        &[
            "`blocking-threads` was skipped: the OS allows 10 threads",
            "`stream-tasks` failed: bounded_outstanding failed",
            "`blocking-unbounded` timed out: killed after 300 s",
            "`stream-flume-workers` was cut short",
            "7 of the 9 bounded contestants ran cleanly",
        ],
    );
    assert!(!text.contains("A thread per item, no admission"), "{text}");
}

#[test]
fn a_broken_bound_is_not_called_kept() {
    let mut s = summary();
    set(&mut s, "blocking-flume-workers", MAX_OUT, 16.0, 30.0);
    if let Some(c) = s.contestants.iter_mut().find(|c| c.name == "blocking-flume-workers") {
        c.checks.retain(|k| k.name != "bounded_outstanding");
        c.checks.push(Check::new("bounded_outstanding", false, "30 outstanding, bound 16 + 1"));
    }
    let text = judged(&s);
    assert!(text.contains("The bound did not hold everywhere: `blocking-flume-workers` (16–30)"), "{text}");
    lacks(&text, &["stayed within the bound", "Choose the admission before the style"]);
    assert!(text.contains("Not every bounded shape passed its bound check"), "{text}");
}

#[test]
fn families_read_naturally() {
    let mut s = summary();
    for name in ["blocking-threads", "blocking-crossbeam-workers", "blocking-flume-workers", "blocking-std-workers"] {
        break_contestant(&mut s, name, Status::Skipped, "no threads");
    }
    let text = judged(&s);
    assert!(
        text.contains(
            "5 of the 9 bounded contestants ran cleanly; those, in the stream and coroutine families, stayed"
        ),
        "{text}"
    );
}

#[test]
fn the_plus_one_is_named_when_used() {
    let text = judged_with("stream-buffered", MAX_OUT, 16.0, 17.0);
    holds(&text, &["`stream-buffered` reached the bound + 1", "16–17 calls outstanding"]);
}

#[test]
fn a_bound_judged_from_too_few_processes_is_not_called_kept() {
    let mut s = summary();
    if let Some(c) = s.contestants.iter_mut().find(|c| c.name == "coroutine-may") {
        c.metrics.insert(MAX_OUT.to_string(), processes(&[16.0, 16.0]));
    }
    let text = judged(&s);
    holds(&text, &["Whether `coroutine-may` kept the bound of 16 (+ 1 tolerated) in every iteration is not settled"]);
    lacks(&text, &["stayed within the bound", "None used the one extra call"]);
}

#[test]
fn a_peak_in_the_first_millisecond_is_said_only_when_every_iteration_had_it() {
    let text = judged(&summary());
    holds(&text, &["The sampler saw its peak 25 ms into the run"]);
    let text = judged_with(STREAM_UNBOUNDED, "ms_to_peak", 0.0, 0.0);
    holds(&text, &["The sampler saw its peak within the first millisecond"]);
    let text = judged_with(STREAM_UNBOUNDED, "ms_to_peak", 0.0, 2.0);
    lacks(&text, &["within the first millisecond"]);
}

#[test]
fn a_missed_peak_is_reported_and_an_unmissed_one_is_not() {
    let text = judged(&summary());
    assert!(text.contains("It missed part of the peak of `stream-unbounded` (the sampler saw 60,000 of 90,000, 67%)"));
    assert!(!text.contains("`blocking-threads` (the sampler saw"), "{text}");
    let mut s = summary();
    set(&mut s, STREAM_UNBOUNDED, SAMPLED, 89_000.0, 89_000.0);
    set(&mut s, BLOCKING_UNBOUNDED, SAMPLED, 60.0, 60.0);
    let text = judged(&s);
    assert!(text.contains("the sampler saw at least 99% of every contestant's exact peak"), "{text}");
    set(&mut s, STREAM_UNBOUNDED, SAMPLED, 90_000.0, 90_000.0);
    set(&mut s, BLOCKING_UNBOUNDED, SAMPLED, 60.0, 60.0);
    let text = judged(&s);
    assert!(text.contains("the sampler saw every contestant's exact peak"), "{text}");
}

#[test]
fn memory_per_task_is_bracketed_when_not_every_item_was_outstanding() {
    let text = judged(&summary());
    assert!(text.contains("That is about 629 bytes per outstanding call."), "{text}");
    let text = judged_with(STREAM_UNBOUNDED, MAX_OUT, 20_000.0, 20_000.0);
    holds(
        &text,
        &[
            "566 bytes per spawned task if all 100,000 were still held",
            "2,831 per outstanding call if only those 20,000 were",
        ],
    );
    assert!(!text.contains("until it runs out of items"), "{text}");
}

#[test]
fn a_loose_unbounded_figure_is_called_loose() {
    assert!(!judged(&summary()).contains("figure is loose"));
    let text = judged_with(STREAM_UNBOUNDED, MAX_OUT, 6_000.0, 21_000.0);
    holds(
        &text,
        &[
            "ranged from 6,000 to 21,000 calls outstanding (3.5× apart",
            "from one study to the other. Its own iterations",
        ],
    );
}

#[test]
fn uneven_bounded_throughput_is_not_called_alike() {
    let mut s = summary();
    set(&mut s, "blocking-std-workers", OPS, 9_000.0, 9_000.0);
    let text = judged(&s);
    assert!(text.contains("the shape changed throughput"), "{text}");
    lacks(&text, &["throughput was alike", "barely changed throughput"]);
    set(&mut s, "stream-buffer-unordered", OPS, 12_000.0, 12_000.0);
    let text = judged(&s);
    assert!(text.contains("Yet `stream-buffered` answered 15,000 calls per second"), "{text}");
    assert!(!text.contains("It did:"), "{text}");
}

#[test]
fn an_unbounded_stream_no_faster_is_not_called_faster() {
    let text = judged_with(STREAM_UNBOUNDED, OPS, 15_000.0, 15_000.0);
    assert!(!text.contains("It also finished sooner"), "{text}");
    assert!(text.contains("bought no throughput"), "{text}");
}

#[test]
fn an_empty_summary_says_little_and_does_not_panic() {
    let mut s = summary();
    s.contestants.clear();
    let text = judged(&s);
    assert!(text.contains("No bounded contestant ran cleanly"), "{text}");
    s.params.clear();
    assert!(judged(&s).is_empty() || !judged(&s).contains("NaN"));
}

#[test]
fn a_finding_is_absent_when_its_claim_is_inconclusive() {
    let mut s = summary();
    s.claims = claims(&s);
    s.findings = BackpressureScenario.findings(&s);
    assert!(BackpressureScenario.discussion(&s).contains("throughput was alike"));
    fixture::inconclusive(&mut s);
    let text = BackpressureScenario.discussion(&s);
    lacks(
        &text,
        &[
            "Choose the admission before the style",
            "kept its bound (that claim holds)",
            "throughput was alike",
            "barely changed throughput",
            "the shape changed throughput",
            "held back only by what threads cost",
        ],
    );
    // The bound is a conformance check, not a claim: it is reported as checked whatever the verdicts.
    holds(
        &text,
        &["kept its bound (every bound check passed)", "is not settled by this run (that claim: inconclusive)"],
    );
}

#[test]
fn ordering_is_called_within_or_beyond_noise_only_where_a_finding_says_so() {
    // Medians 1.25× apart, but the ordered contestant's processes overlap the unordered one's: neither within the
    // noise band nor beyond it, so the report says neither.
    let mut s = summary();
    set(&mut s, "stream-buffered", OPS, 10_000.0, 20_000.0);
    set(&mut s, "stream-buffer-unordered", OPS, 12_000.0, 12_000.0);
    let text = judged(&s);
    lacks(&text, &["It did: `stream-buffered`", "beyond noise): a gap", "within noise)"]);
    // The same medians with separate processes: beyond noise.
    set(&mut s, "stream-buffered", OPS, 14_900.0, 15_100.0);
    let text = judged(&s);
    assert!(text.contains("(1.25×, beyond noise)"), "{text}");
    // Every process within the band: within noise.
    set(&mut s, "stream-buffered", OPS, 12_100.0, 12_300.0);
    let text = judged(&s);
    assert!(text.contains("It did: `stream-buffered` answered 12,200 calls per second"), "{text}");
}

#[test]
fn every_rendered_sentence_is_whole() {
    let mut broken = summary();
    break_contestant(&mut broken, "blocking-threads", Status::Skipped, "the OS allows 10 threads");
    set(&mut broken, STREAM_UNBOUNDED, SAMPLED, 10_000.0, 10_000.0);
    for s in [summary(), broken] {
        let text = judged(&s);
        for bad in ["  ", "()", " .", " ,", "..", "NaN", "∞", "{{", "{%", "× ×"] {
            assert!(!text.contains(bad), "{bad:?} in {text}");
        }
        assert_eq!(text.matches('(').count(), text.matches(')').count(), "{text}");
    }
}

#[test]
fn one_process_is_too_few_to_call_a_peak_whole_or_the_study_matched() {
    let mut s = summary();
    for c in &mut s.contestants {
        for stats in c.metrics.values_mut() {
            *stats = processes(&[stats.median]);
        }
    }
    set(&mut s, STREAM_UNBOUNDED, SAMPLED, 60_000.0, 60_000.0);
    if let Some(c) = s.contestants.iter_mut().find(|c| c.name == STREAM_UNBOUNDED) {
        c.metrics.insert(SAMPLED.to_string(), processes(&[60_000.0]));
    }
    let text = judged(&s);
    assert!(text.contains("from too few processes to tell a missed peak from noise"), "{text}");
    assert!(!text.contains("no peak was short enough"), "{text}");
    assert!(text.contains("from too few processes to compare with that"), "{text}");
    assert!(!text.contains("about the same as that"), "{text}");
    assert!(text.contains("from too few processes to tell them apart"), "{text}");
    assert!(!text.contains("bought no throughput"), "{text}");
    assert!(text.contains("from too few processes to compare the two"), "{text}");
    assert!(!text.contains("not much of a brake"), "{text}");
    assert!(text.contains("from too few processes to tell whether ordering cost anything"), "{text}");
    assert!(!text.contains("It did:"), "{text}");
}

#[test]
fn the_findings_are_judged_rows_with_ids_of_their_own() {
    let s = summary();
    let findings = BackpressureScenario.findings(&s);
    let ids: Vec<&str> = findings.iter().map(|f| f.id.as_str()).collect();
    let unique: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "finding ids repeat: {ids:?}");
    let verdict = |id: &str| findings.iter().find(|f| f.id == id).map(|f| f.verdict);
    // 90,000 of 100,000 items outstanding, every iteration: within 20% of the items on both sides.
    assert_eq!(verdict("unbounded-stream-ran-out-not-below"), Some(Verdict::Holds));
    assert_eq!(verdict("unbounded-stream-ran-out-not-above"), Some(Verdict::Holds));
    // The sampler saw 60,000 of 90,000 in every iteration: a missed peak, judged on every sample.
    assert_eq!(verdict("sampler-missed-stream-unbounded"), Some(Verdict::Holds));
    assert_eq!(verdict("sampler-missed-stream-buffered"), Some(Verdict::Fails));
    // At 20,000 of 100,000 it did not run out of items, and the report does not say it did.
    let mut s = summary();
    set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 20_000.0, 20_000.0);
    let findings = BackpressureScenario.findings(&s);
    let ran_out = findings.iter().find(|f| f.id == "unbounded-stream-ran-out-not-below").expect("judged");
    assert_eq!(ran_out.verdict, Verdict::Fails, "{}", ran_out.detail);
}
