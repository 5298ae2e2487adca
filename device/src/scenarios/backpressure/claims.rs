//! The backpressure scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run makes one seconds-long timed iteration and one accounting iteration in each of three processes, so
//! every claim is judged on the *range* of those iterations (the worst and the best pairing of samples; the
//! outstanding counts from the accounting iterations, throughput from the timed ones), as the overload scenario
//! does: it holds when every iteration satisfies it, fails when none does, and is inconclusive in between or
//! when a contestant it needs did not run cleanly. A failed bound check fails the bound claim even when it
//! stopped the contestant.

use measure::compare::{format_ratio, Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::references;
use measure::summary::{MetricStats, Summary};

use super::{BLOCKING_UNBOUNDED, CONTESTANTS, STREAM_UNBOUNDED};
use crate::contestants::Contestant;

/// The throughput metric.
pub(crate) const OPS: &str = "ops_per_sec";
/// The exact high-water mark of outstanding calls.
pub(crate) const MAX_OUT: &str = "max_outstanding";
/// How many times the bound the unbounded stream contestant must reach.
pub(crate) const UNBOUNDED_FACTOR: f64 = 100.0;
/// Largest spread of throughput between bounded contestants, as a ratio.
pub(crate) const BOUNDED_SPREAD: f64 = 1.15;
/// Thread-per-item's outstanding calls as a share of stream-unbounded's, at most.
pub(crate) const THREAD_SHARE: f64 = 0.1;
/// The published study's unbounded figure, in `measure/references.json`.
pub(crate) const STUDY_UNBOUNDED: &str = "unbounded virtual threads";

/// What `max_outstanding` measures.
const MAX_OUT_DEFINITION: &str = "exact high-water mark of calls issued and not yet answered, per iteration";

/// Every claim of the backpressure scenario, as data.
pub(crate) fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let limit = summary.param("limit");
    let items = summary.param("items");
    let no_limit = || limit.is_none().then(|| "the run has no `limit`".to_string());
    let named = |name: &str| Side::contestant(name, Phase::Unphased);
    let bounded = bounded_names();
    let study = references::figure("backpressure", STUDY_UNBOUNDED);
    let study_text = match (study, study.and_then(|f| f.baseline_figure())) {
        (Some(f), Some(b)) => format!(
            " (the published JVM study's unbounded virtual threads reached {}× its bound: {} against {})",
            format_ratio(f.value / b.value),
            count(f.value),
            count(b.value)
        ),
        _ => String::new(),
    };
    let floor = limit.map(|l| l * UNBOUNDED_FACTOR);
    let too_few_items = match (items, floor) {
        (Some(items), Some(floor)) if items < floor => Some(format!(
            "{} items cannot make {} outstanding ({}× the bound): the run cannot tell",
            count(items),
            count(floor),
            format_ratio(UNBOUNDED_FACTOR)
        )),
        (None, _) => Some("the run has no `items`".to_string()),
        _ => None,
    };
    let pairs = bounded
        .iter()
        .flat_map(|a| bounded.iter().filter(move |b| *b != a).map(move |b| Comparison { a: named(a), b: named(b) }))
        .collect();
    vec![
        ClaimSpec::new(
            format!(
                "Cheap concurrency still needs admission control: without it, the stream family's task per item \
                 reached at least {}× the bound in calls outstanding{study_text}",
                format_ratio(UNBOUNDED_FACTOR)
            ),
            MAX_OUT,
            MAX_OUT_DEFINITION,
            (Relation::AtLeast, UNBOUNDED_FACTOR),
            Basis::Ranges,
            limit
                .map(|l| Comparison { a: named(STREAM_UNBOUNDED), b: Side::value(l, "the bound") })
                .into_iter()
                .collect(),
        )
        .undecidable_if(no_limit().or(too_few_items)),
        ClaimSpec::new(
            format!(
                "With the same bound and the same device, the style does not matter: every bounded contestant's \
                 throughput is at most {}× every other's",
                format_ratio(BOUNDED_SPREAD)
            ),
            OPS,
            "calls answered per second over the steady window (whole run where there was none)",
            (Relation::AtMost, BOUNDED_SPREAD),
            Basis::Ranges,
            pairs,
        ),
        ClaimSpec::new(
            format!(
                "A thread per item is throttled by thread creation: `blocking-unbounded` kept at most {}× as many \
                 calls outstanding as `stream-unbounded`",
                format_ratio(THREAD_SHARE)
            ),
            MAX_OUT,
            MAX_OUT_DEFINITION,
            (Relation::AtMost, THREAD_SHARE),
            Basis::Ranges,
            vec![Comparison { a: named(BLOCKING_UNBOUNDED), b: named(STREAM_UNBOUNDED) }],
        ),
    ]
}

/// Names of the bounded contestants, in report order.
pub(crate) fn bounded_names() -> Vec<String> {
    CONTESTANTS.iter().filter(|c| c.bounded()).map(Contestant::name).collect()
}

/// `16,000`: a count or rate rounded to a whole number, with thousands separators.
pub(crate) use measure::units::count;

/// A figure to three significant digits without trailing zeros, with thousands separators from 100 up:
/// `1`, `1.06`, `0.281`, `25`, `5,625`.
pub(crate) fn fig(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 100.0 {
        return count(x);
    }
    let text = format_ratio(x);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `16` or `16–17`: a contestant's range over its iterations.
pub(crate) fn range(s: &MetricStats) -> String {
    if count(s.min) == count(s.max) {
        count(s.max)
    } else {
        format!("{}–{}", count(s.min), count(s.max))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{Check, ContestantSummary, Environment, Method, Verdict};

    use super::*;

    pub(crate) fn stats(min: f64, median: f64, max: f64) -> MetricStats {
        measure::stats::summarize(&[vec![min], vec![median], vec![max]]).expect("samples")
    }

    /// Every claim judged against `summary`.
    fn claims(summary: &Summary) -> Vec<measure::summary::ClaimResult> {
        measure::judge::judge_all(summary, &table(summary))
    }

    fn unbounded_stream_piles_up(summary: &Summary) -> measure::summary::ClaimResult {
        claims(summary).swap_remove(0)
    }

    fn bounded_throughput_alike(summary: &Summary) -> measure::summary::ClaimResult {
        claims(summary).swap_remove(1)
    }

    /// Both thread-per-item claims, as one verdict.
    fn threads_throttle_but_do_not_bound(summary: &Summary) -> measure::summary::ClaimResult {
        let claims = claims(summary);
        measure::summary::ClaimResult::all_of(
            "thread per item",
            claims[2..].iter().map(|c| (c.verdict, c.detail.clone())),
        )
    }

    /// A run where every contestant ran cleanly: bounded ones kept exactly 16 at 15,000 calls/s, the unbounded
    /// stream reached 90,000 and the thread per item 60.
    pub(crate) fn summary() -> Summary {
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
                    ("max_outstanding_sampled".to_string(), stats(sampled, sampled, sampled)),
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
                ContestantSummary {
                    name: info.name,
                    family: info.family,
                    role: Default::default(),
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: if c.bounded() {
                        vec![Check::new("sum_exact", true, "ok"), Check::new("bounded_outstanding", true, "at most 16")]
                    } else {
                        vec![Check::new("sum_exact", true, "ok")]
                    },
                    metrics,
                    skipped_phases: BTreeMap::new(),
                    disturbed: Default::default(),
                }
            })
            .collect();
        let mut params = BTreeMap::new();
        params.insert("items".to_string(), 100_000u64.into());
        params.insert("limit".to_string(), 16u64.into());
        params.insert("service_us".to_string(), 1_000u64.into());
        params.insert("budget_ms".to_string(), 60_000u64.into());
        Summary {
            scenario: "backpressure".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment { cores: 2, ..Environment::default() },
            method: Method {
                quick: false,
                forks: 2,
                warmup: 0,
                iterations: 1,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 300.0,
            },
            params,
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec![],
        }
    }

    /// Set `metric` of `name` to the range `min..=max` (median halfway).
    pub(crate) fn set(summary: &mut Summary, name: &str, metric: &str, min: f64, max: f64) {
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == name) {
            c.metrics.insert(metric.to_string(), stats(min, (min + max) / 2.0, max));
        }
    }

    /// Mark `name` as not run cleanly.
    pub(crate) fn break_contestant(summary: &mut Summary, name: &str, status: Status, reason: &str) {
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == name) {
            c.status = status;
            c.reason = Some(reason.to_string());
        }
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
        assert_eq!(unbounded_stream_piles_up(&s).verdict, Verdict::Fails);
        set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 1_000.0, 2_000.0);
        assert_eq!(unbounded_stream_piles_up(&s).verdict, Verdict::Inconclusive);
        set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 1_600.0, 2_000.0);
        assert_eq!(unbounded_stream_piles_up(&s).verdict, Verdict::Holds);
        break_contestant(&mut s, STREAM_UNBOUNDED, Status::Timeout, "killed");
        let claim = unbounded_stream_piles_up(&s);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.contains("did not run cleanly (timeout)"), "{}", claim.detail);
    }

    #[test]
    fn too_few_items_cannot_judge_the_unbounded_stream() {
        let mut s = summary();
        s.params.insert("items".to_string(), 1_000u64.into());
        let claim = unbounded_stream_piles_up(&s);
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
        assert!(claim.detail.contains("cannot tell"), "{}", claim.detail);
    }

    #[test]
    fn bounded_throughput_must_agree_within_fifteen_percent() {
        let mut s = summary();
        set(&mut s, "stream-buffered", OPS, 12_000.0, 12_500.0);
        let claim = bounded_throughput_alike(&s);
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("vs stream-buffered"), "{}", claim.detail);
        set(&mut s, "stream-buffered", OPS, 12_000.0, 15_000.0);
        assert_eq!(bounded_throughput_alike(&s).verdict, Verdict::Inconclusive);
        set(&mut s, "stream-buffered", OPS, 14_000.0, 15_000.0);
        assert_eq!(bounded_throughput_alike(&s).verdict, Verdict::Holds);
        break_contestant(&mut s, "blocking-threads", Status::Skipped, "no threads");
        let claim = bounded_throughput_alike(&s);
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
        assert!(claim.detail.contains("blocking-threads did not run cleanly (skipped)"), "{}", claim.detail);
    }

    #[test]
    fn the_thread_per_item_claim_needs_both_parts() {
        let mut s = summary();
        set(&mut s, BLOCKING_UNBOUNDED, MAX_OUT, 20_000.0, 30_000.0);
        let claim = threads_throttle_but_do_not_bound(&s);
        assert_eq!(claim.verdict, Verdict::Fails, "too many: {}", claim.detail);
        set(&mut s, BLOCKING_UNBOUNDED, MAX_OUT, 5_000.0, 12_000.0);
        assert_eq!(threads_throttle_but_do_not_bound(&s).verdict, Verdict::Inconclusive);
        break_contestant(&mut s, BLOCKING_UNBOUNDED, Status::Skipped, "no threads");
        assert_eq!(threads_throttle_but_do_not_bound(&s).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(12_345.0), "12,345");
        assert_eq!(count(16.0), "16");
        assert_eq!(count(1_000_000.4), "1,000,000");
        assert_eq!(count(999.6), "1,000");
        assert_eq!(count(-1_234.0), "-1,234");
        assert_eq!(range(&stats(16.0, 16.0, 16.0)), "16");
        assert_eq!(range(&stats(16.0, 16.5, 17.0)), "16–17");
    }
}
