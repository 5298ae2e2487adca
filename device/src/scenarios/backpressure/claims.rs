//! The backpressure scenario's falsifiable claims, fixed before any measurement and never tuned to pass.
//!
//! A full run makes one seconds-long timed iteration and one accounting iteration in each of two processes, so
//! every claim is judged on the *range* of those iterations (the worst and the best pairing of samples; the
//! outstanding counts from the accounting iterations, throughput from the timed ones), as the overload scenario
//! does: it holds when every iteration satisfies it, fails when none does, and is inconclusive in between or
//! when a contestant it needs did not run cleanly.

use measure::compare::{format_ratio, verdict_range_at_most};
use measure::summary::{ClaimResult, MetricStats, Summary, Verdict};

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

/// Every claim, judged against `summary`.
pub(crate) fn claims(summary: &Summary) -> Vec<ClaimResult> {
    vec![
        bounded_hold(summary),
        unbounded_stream_piles_up(summary),
        bounded_throughput_alike(summary),
        threads_throttle_but_do_not_bound(summary),
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

fn bounded_hold(summary: &Summary) -> ClaimResult {
    let text = "Every bounded contestant of both families kept at most the bound + 1 calls outstanding (exact \
                high-water mark, worst iteration)";
    let Some(limit) = summary.param("limit") else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no `limit`");
    };
    let ceiling = limit + 1.0;
    let parts = bounded_names().into_iter().map(|name| {
        // A failed bound check is a failure of this claim, whatever else stopped the contestant.
        let failed_check = summary.contestant(&name).and_then(|c| {
            c.checks.iter().find(|k| !k.passed && (k.name == "bounded_outstanding" || k.name == "small_run_bound"))
        });
        if let Some(check) = failed_check {
            return (Verdict::Fails, format!("{name}: its `{}` check failed: {}", check.name, check.detail));
        }
        match summary.stats(&name, MAX_OUT) {
            Ok(s) => {
                let verdict = if s.max <= ceiling { Verdict::Holds } else { Verdict::Fails };
                (verdict, format!("{name}: {}", range(s)))
            }
            Err(e) => (Verdict::Inconclusive, e),
        }
    });
    let claim = ClaimResult::all_of(text, parts);
    ClaimResult::new(
        text,
        claim.verdict,
        format!("bound {} + 1 = {}; most outstanding per iteration: {}", count(limit), count(ceiling), claim.detail),
    )
}

fn unbounded_stream_piles_up(summary: &Summary) -> ClaimResult {
    let text = "Cheap concurrency still needs admission control: without it, the stream family's task per item \
                reached at least 100× the bound in calls outstanding (the JVM's virtual threads reached 18,289 \
                against a bound of 16)";
    let (Some(limit), Some(items)) = (summary.param("limit"), summary.param("items")) else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no `limit` or `items`");
    };
    let floor = UNBOUNDED_FACTOR * limit;
    if items < floor {
        return ClaimResult::new(
            text,
            Verdict::Inconclusive,
            format!(
                "{} items cannot make {} outstanding ({}× the bound of {}): the run cannot tell",
                count(items),
                count(floor),
                format_ratio(UNBOUNDED_FACTOR),
                count(limit)
            ),
        );
    }
    match summary.stats(STREAM_UNBOUNDED, MAX_OUT) {
        Ok(s) => {
            let verdict = if s.min >= floor {
                Verdict::Holds
            } else if s.max < floor {
                Verdict::Fails
            } else {
                Verdict::Inconclusive
            };
            ClaimResult::new(
                text,
                verdict,
                format!(
                    "{STREAM_UNBOUNDED}: {} calls outstanding at most (per iteration), {}× the bound of {} at the \
                     median, {:.0}% of the {} items; claim ≥ {}",
                    range(s),
                    fig(s.median / limit),
                    count(limit),
                    100.0 * s.median / items,
                    count(items),
                    count(floor)
                ),
            )
        }
        Err(e) => ClaimResult::new(text, Verdict::Inconclusive, e),
    }
}

fn bounded_throughput_alike(summary: &Summary) -> ClaimResult {
    let text = "With the same bound and the same device, the style does not matter: every bounded contestant's \
                throughput is within 15% of every other's";
    let mut ranges: Vec<(String, &MetricStats)> = Vec::new();
    let mut missing = Vec::new();
    for name in bounded_names() {
        match summary.stats(&name, OPS) {
            Ok(s) => ranges.push((name, s)),
            Err(e) => missing.push(e),
        }
    }
    let by = |pick: fn(&MetricStats) -> f64, largest: bool| {
        ranges.iter().map(|(n, s)| (n.as_str(), pick(s))).reduce(|a, b| {
            if (b.1 > a.1) == largest && b.1 != a.1 {
                b
            } else {
                a
            }
        })
    };
    let (Some(slowest), Some(fastest)) = (by(|s| s.median, false), by(|s| s.median, true)) else {
        return ClaimResult::new(text, Verdict::Inconclusive, format!("no bounded results: {}", missing.join("; ")));
    };
    let (Some(low_min), Some(high_max), Some(high_min), Some(low_max)) =
        (by(|s| s.min, false), by(|s| s.max, true), by(|s| s.min, true), by(|s| s.max, false))
    else {
        return ClaimResult::new(text, Verdict::Inconclusive, "no bounded results");
    };
    // Worst pairing: the fastest iteration of any against the slowest of any. Best pairing: the slowest
    // contestant's fastest iteration against the fastest contestant's slowest one.
    let worst = high_max.1 / low_min.1;
    let best = high_min.1 / low_max.1;
    let verdict = if !missing.is_empty() {
        if best > BOUNDED_SPREAD {
            Verdict::Fails
        } else {
            Verdict::Inconclusive
        }
    } else if worst <= BOUNDED_SPREAD {
        Verdict::Holds
    } else if best > BOUNDED_SPREAD {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    };
    let list: Vec<String> = ranges.iter().map(|(n, s)| format!("{n} {}", count(s.median))).collect();
    let mut detail = format!(
        "calls per second (medians): {}; spread of medians {}× ({} against {}), {}–{}× over every pairing of \
         iterations; claim ≤ {}×",
        list.join(", "),
        format_ratio(fastest.1 / slowest.1),
        fastest.0,
        slowest.0,
        format_ratio(best.max(1.0)),
        format_ratio(worst),
        format_ratio(BOUNDED_SPREAD)
    );
    if !missing.is_empty() {
        detail.push_str(&format!("; missing: {}", missing.join("; ")));
    }
    ClaimResult::new(text, verdict, detail)
}

fn threads_throttle_but_do_not_bound(summary: &Summary) -> ClaimResult {
    let text = "A thread per item is throttled by thread creation, not bounded by it: `blocking-unbounded` went \
                past the bound + 1, yet kept at most a tenth as many calls outstanding as `stream-unbounded`";
    let Some(limit) = summary.param("limit") else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no `limit`");
    };
    let ceiling = limit + 1.0;
    let threads = summary.stats(BLOCKING_UNBOUNDED, MAX_OUT);
    let past = match threads {
        Ok(t) => {
            let verdict = if t.min > ceiling {
                Verdict::Holds
            } else if t.max <= ceiling {
                Verdict::Fails
            } else {
                Verdict::Inconclusive
            };
            (verdict, format!("{BLOCKING_UNBOUNDED} reached {} against a bound + 1 of {}", range(t), count(ceiling)))
        }
        Err(ref e) => (Verdict::Inconclusive, e.clone()),
    };
    let share = match (threads, summary.stats(STREAM_UNBOUNDED, MAX_OUT)) {
        (Ok(t), Ok(s)) => {
            let (verdict, detail) = verdict_range_at_most(t, s, THREAD_SHARE);
            (verdict, format!("{BLOCKING_UNBOUNDED} {} against {STREAM_UNBOUNDED} {}: {detail}", range(t), range(s)))
        }
        (Err(e), _) | (_, Err(e)) => (Verdict::Inconclusive, e),
    };
    ClaimResult::all_of(text, [past, share])
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{Check, ContestantSummary, Environment, Method};

    use super::*;

    pub(crate) fn stats(min: f64, median: f64, max: f64) -> MetricStats {
        MetricStats { median, min, max, ci999: max - min, n: 3, mean: median, fork_medians: vec![min, median, max] }
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
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: vec![Check::new("sum_exact", true, "ok")],
                    metrics,
                    skipped_phases: BTreeMap::new(),
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
    fn a_bounded_contestant_past_the_bound_fails_the_bound_claim() {
        let mut s = summary();
        set(&mut s, "blocking-std-workers", MAX_OUT, 16.0, 17.0);
        assert_eq!(bounded_hold(&s).verdict, Verdict::Holds, "17 is the bound + 1");
        set(&mut s, "blocking-std-workers", MAX_OUT, 16.0, 18.0);
        let claim = bounded_hold(&s);
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("fails — blocking-std-workers: 16–18"), "{}", claim.detail);
        assert!(claim.detail.starts_with("bound 16 + 1 = 17"), "{}", claim.detail);
    }

    #[test]
    fn a_failed_bound_check_fails_the_claim_even_without_figures() {
        let mut s = summary();
        break_contestant(&mut s, "stream-tasks", Status::Failed, "bounded_outstanding failed");
        assert_eq!(bounded_hold(&s).verdict, Verdict::Inconclusive, "no figures, no failed check");
        if let Some(c) = s.contestants.iter_mut().find(|c| c.name == "stream-tasks") {
            c.checks.push(Check::new("bounded_outstanding", false, "most calls outstanding at once 40, bound 16 + 1"));
        }
        let claim = bounded_hold(&s);
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("at once 40"), "{}", claim.detail);
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
        assert!(claim.detail.contains("against stream-buffered"), "{}", claim.detail);
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
        set(&mut s, BLOCKING_UNBOUNDED, MAX_OUT, 16.0, 17.0);
        let claim = threads_throttle_but_do_not_bound(&s);
        assert_eq!(claim.verdict, Verdict::Fails, "kept the bound: {}", claim.detail);
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
        assert_eq!(count(18_289.0), "18,289");
        assert_eq!(count(16.0), "16");
        assert_eq!(count(1_000_000.4), "1,000,000");
        assert_eq!(count(999.6), "1,000");
        assert_eq!(count(-1_234.0), "-1,234");
        assert_eq!(range(&stats(16.0, 16.0, 16.0)), "16");
        assert_eq!(range(&stats(16.0, 16.5, 17.0)), "16–17");
    }
}
