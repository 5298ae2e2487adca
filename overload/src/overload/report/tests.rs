//! The overload report rendered from fixture runs: each sentence appears exactly when its verdict holds.

use measure::scenario::Scenario;
use measure::summary::Verdict;

use super::*;
use crate::analysis::HEADLINE;
use crate::fixture::{p99, run, run_in, set};

/// `summary` with its claims and findings judged.
fn judged(mut summary: Summary) -> Summary {
    summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
    summary.findings = measure::judge::judge_all(&summary, &super::super::findings::table(&summary));
    summary
}

/// `summary`, its claims and findings judged as they stand, rendered.
fn rendered(summary: &Summary) -> String {
    render(&judged(summary.clone()))
}

#[test]
fn findings_follow_the_verdicts_that_hold() {
    // Five processes: the near-ceiling claim is against a fixed value, which three cannot decide (p = 0.125).
    let text = render(&judged(run_in(5, p99, 19_000.0)));
    assert!(!text.contains("could not be rendered"), "{text}");
    assert!(text.contains("Every adaptive limiter lowered the tail beyond noise here"), "{text}");
    assert!(text.contains("- `aimd-latency-1.5x`: 0.200× the fixed bound's p99; below it beyond noise"), "{text}");
    assert!(text.contains("at least 0.85× the ceiling here"), "{text}");
    assert!(text.contains("after the drop to 100 slots, 20000"), "{text}");
    // AIMD's backoff from its configuration, on every sample (unwindowed, as Netflix's SimpleLimiter).
    assert!(text.contains("multiplies its limit by 0.9 on every dropped or slow call"), "{text}");
    assert!(text.contains("| `WindowedLimit` window | 1 s (minimum and maximum)"), "{text}");
    assert!(!text.contains("stayed below 0.85× the ceiling"), "{text}");
}

#[test]
fn a_finding_is_absent_when_its_claim_is_inconclusive() {
    let mut summary = judged(run(p99, 19_000.0));
    for claim in &mut summary.claims {
        claim.verdict = Verdict::Inconclusive;
    }
    let text = super::render(&summary);
    assert!(!text.contains("Every adaptive limiter lowered"), "{text}");
    assert!(!text.contains("it holds (") && !text.contains("it does not hold"), "{text}");
    assert!(text.contains("- `vegas`: this run cannot tell (tail: inconclusive, longer run: inconclusive)."));
    assert!(!text.contains("the ceiling here"), "{text}");
}

#[test]
fn a_limiter_as_slow_as_the_fixed_bound_is_named_as_no_protection_and_the_published_sentence_fails_for_it() {
    // Gradient2 at the fixed bound's p99, and its run as long as the fixed bound's. Five processes: the
    // near-ceiling claim is against a fixed value, which three cannot decide (p = 0.125).
    let mut summary = run_in(5, |n| if n.ends_with("gradient2") { 100_000.0 } else { p99(n) }, 10_000.0);
    for name in ["stream-gradient2", "blocking-gradient2", "coroutine-gradient2"] {
        set(&mut summary, name, "wall_ms", 2_000.0);
    }
    let text = render(&judged(summary));
    assert!(
        text.contains(
            "- `gradient2`: 1.00× the fixed bound's p99; not below it beyond noise in every family (p = 0.0040)."
        ),
        "{text}"
    );
    assert!(text.contains("An adaptive limit is not protection by itself: `gradient2` did not lower the tail"));
    assert!(
        text.contains(
            "- `gradient2`: it does not hold: the tail was not protected (p99 1.00× the fixed bound's, p = \
             0.0040) and the run was not longer beyond noise (run time 1.00×, p = 0.0040)."
        ),
        "{text}"
    );
    assert!(
        text.contains("- `aimd-latency-2x`: it holds (p = 0.0040): p99 0.200× and run time 1.50× the fixed bound's."),
        "{text}"
    );
    // 10,000 calls/s against a ceiling of 20,000: below the near-ceiling claim's 0.85 in both families.
    assert!(text.contains("In every family it stayed below 0.85× the ceiling"), "{text}");
}

#[test]
fn a_limiter_the_tail_question_excluded_for_under_use_is_said_to_buy_its_tail_with_idle_slots() {
    let mut summary = judged(run_in(5, p99, 19_000.0));
    for name in ["stream-vegas", "blocking-vegas", "coroutine-vegas"] {
        set(&mut summary, name, "before_drop.ops_per_sec", 10_000.0);
    }
    for name in ["stream-fixed", "blocking-fixed", "coroutine-fixed", "stream-aimd", "blocking-aimd"] {
        set(&mut summary, name, "before_drop.ops_per_sec", 90_000.0);
    }
    summary.questions = measure::question::answer_all(&summary, &crate::OverloadScenario.questions());
    let text = rendered(&summary);
    assert!(text.contains("`vegas`: 0.200× the fixed bound's p99; below it beyond noise in every family (p = 0.0040); but it never filled the healthy dependency"), "{text}");
    assert!(text.contains("though its tail is short because it never filled the healthy dependency"), "{text}");
    assert!(
        !text.contains("`aimd`: 0.200× the fixed bound's p99; below it beyond noise in every family (p = 0.0040); but"),
        "{text}"
    );
}

#[test]
fn pairs_fed_differently_are_listed_with_the_measure_and_the_limits() {
    let mut summary = run(p99, 19_000.0);
    set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
    set(&mut summary, "stream-vegas", "limit_at_drop", 60.0);
    set(&mut summary, "blocking-vegas", "limit_at_drop", 50.0);
    let text = rendered(&summary);
    assert!(
        text.contains(
            "- stream-vegas / blocking-vegas: windows 400 vs 200 (more than 1.25× apart, p = 0.050); mean \
             limit after the drop 100 vs 100, limit at the drop 60 vs 50\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("- blocking-vegas / coroutine-vegas: windows 200 vs 400 (more than 1.25× apart, p = 0.050)\n")
    );
    assert!(!text.contains("Every pair was fed alike"), "{text}");
    assert!(!text.contains("did not tell apart"), "{text}");
}

#[test]
fn every_pair_fed_alike_is_said_with_its_p_only_when_every_pair_is_judged_alike() {
    let mut summary = run(p99, 19_000.0);
    let text = rendered(&summary);
    assert!(text.contains("within 1.25×). Every pair was fed alike (p = 0.050).\n\n**The published peer.**"), "{text}");
    // Medians 100 and 200, 2× apart, but one blocking process at 110, within 1.25× of the stream's: the pair
    // is neither alike nor apart, so neither sentence is said and the pair is listed as not told apart.
    spread_of(&mut summary, "blocking-aimd", "after_drop.in_flight_at_admission_mean", [110.0, 200.0, 210.0]);
    let text = rendered(&summary);
    assert!(!text.contains("Every pair was fed alike"), "{text}");
    assert!(!text.contains("Pairs whose feeds differed"), "{text}");
    assert!(
        text.contains(
            "within 1.25×). Pairs this run did not tell apart, with the limits each side reached: their process \
             medians neither all within 1.25× of each other nor all more than 1.25× apart, so they are stated \
             neither as fed alike nor as fed differently:\n- stream-aimd / blocking-aimd: after-drop mean in flight at admission 100 vs 200\n- blocking-aimd / coroutine-aimd: \
             after-drop mean in flight at admission 200 vs 100\n\n**The published peer.**"
        ),
        "{text}"
    );
}

#[test]
fn pairs_apart_and_pairs_not_told_apart_are_two_paragraphs() {
    let mut summary = run(p99, 19_000.0);
    set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
    spread_of(&mut summary, "blocking-aimd", "after_drop.in_flight_at_admission_mean", [110.0, 200.0, 210.0]);
    let text = rendered(&summary);
    assert!(text.contains("windows 200 vs 400 (more than 1.25× apart, p = 0.050)\n\nPairs this run did not"), "{text}");
    assert!(text.contains("200 vs 100\n\n**The published peer.**"), "{text}");
}

#[test]
fn the_unbounded_threads_say_which_run_each_count_comes_from() {
    let mut summary = run(p99, 19_000.0);
    summary.params.insert("unbounded_threads".to_string(), serde_json::Value::from(10_000));
    set(&mut summary, "blocking-unbounded", "threads", 5_004.0);
    set(&mut summary, "blocking-unbounded", "max_outstanding", 9_000.0);
    let text = rendered(&summary);
    // 100,000 calls: 10,000 threads in a timed run; the accounting run makes 5,000 calls, so 5,000 threads.
    assert!(text.contains("`blocking-unbounded` issues them from 10000 threads"), "{text}");
    assert!(text.contains("`threads` figure in the tables at the end of this section, 5004, counts"), "{text}");
    assert!(text.contains("starts 5000 threads of its own, beside 4 of the trial's"), "{text}");
}

/// `summary` with `metric` of `name` read from the run's processes spanning `values`, `[min, median, max]`
/// ([`crate::fixture::range_in`]: three processes are `values` themselves).
fn spread_of(summary: &mut Summary, name: &str, metric: &str, values: [f64; 3]) {
    let forks = summary.method.forks as usize;
    if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == name) {
        c.metrics.insert(metric.to_string(), crate::fixture::range_in(forks, values));
    }
}

#[test]
fn a_limiter_the_run_cannot_decide_leaves_its_policy_finding_unsettled() {
    // Vegas's p99 straddles the noise threshold below the fixed bound's 100 ms (1 / 1.2 of it) in the stream
    // family: neither below it beyond noise nor not.
    let mut summary = run(p99, 19_000.0);
    spread_of(&mut summary, "stream-vegas", HEADLINE, [75_000.0, 85_000.0, 95_000.0]);
    let text = render(&judged(summary));
    assert!(text.contains("- `vegas`: 0.200–0.850× the fixed bound's p99; this run cannot tell"), "{text}");
    assert!(text.contains("- `vegas`: this run cannot tell (tail: inconclusive, longer run: holds)."), "{text}");
    assert!(text.contains("Check the limiter you choose against"), "{text}");
}

#[test]
fn every_sentence_renders_whole() {
    let text = render(&judged(run(p99, 19_000.0)));
    assert!(!text.contains("  "), "doubled space: {text}");
    assert!(!text.contains("{{") && !text.contains("{%"), "{text}");
    assert!(!text.to_lowercase().contains("the issue"), "{text}");
}

#[test]
fn the_dependency_is_said_to_reject_beyond_its_queue_only_when_the_run_set_a_queue_limit() {
    let mut summary = run(p99, 19_000.0);
    let text = rendered(&summary);
    assert!(text.contains("rejects a call when 100 already queue (`queue-limit`)"), "{text}");
    assert!(!text.contains("queues every call it cannot serve, without limit"), "{text}");
    summary.params.insert("queue_limit".to_string(), serde_json::Value::from(0));
    let text = rendered(&summary);
    assert!(text.contains("queues every call it cannot serve, without limit (`queue-limit` 0)"), "{text}");
    assert!(!text.contains("rejects a call when"), "{text}");
}
