//! The handoff scenario's falsifiable claims, judged on the 99.9% confidence bounds of `ms_per_million` ratios
//! with [`measure::compare::verdict_at_most`] and [`measure::compare::verdict_at_least`], except the bound
//! claim, which compares every measured high-water mark with the contestant's bound exactly. A claim whose
//! contestant or phase did not run (or failed) is inconclusive and says so. The thresholds are the claims' own,
//! each with its reason in its text; they are never tuned to pass.

use measure::compare::{verdict_at_least, verdict_at_most};
use measure::summary::{ClaimResult, MetricStats, Summary, Verdict};

use crate::contestants;
use crate::job::HandoffConfig;
use crate::HEADLINE;

/// The capacity most claims are judged at: the default, where a batched channel holds one batch and a
/// per-item channel the same 256 items.
pub const CLAIM_CAPACITY: u64 = 256;

/// The loop without a hand-off.
pub const LOOP: &str = "baseline-loop";

/// The current-thread tokio pair.
pub const CURRENT_THREAD: &str = "stream-tokio-current-thread";

/// The hand-written queue.
pub const CONDVAR: &str = "blocking-condvar";

/// The blocking channel crates the Condvar queue is compared with.
pub const BLOCKING_CRATES: [&str; 3] = ["blocking-crossbeam", "blocking-flume", "blocking-std"];

/// Every channel: its per-item and batched contestants.
pub const BATCH_PAIRS: [(&str, &str); 10] = [
    ("blocking-crossbeam", "blocking-crossbeam-batched"),
    ("blocking-flume", "blocking-flume-batched"),
    ("blocking-std", "blocking-std-batched"),
    ("blocking-condvar", "blocking-condvar-batched"),
    ("stream-tokio", "stream-tokio-batched"),
    ("stream-tokio-current-thread", "stream-tokio-current-thread-batched"),
    ("stream-flume", "stream-flume-batched"),
    ("stream-futures", "stream-futures-batched"),
    ("stream-bridge-blocking-send", "stream-bridge-blocking-send-batched"),
    ("blocking-bridge-blocking-recv", "blocking-bridge-blocking-recv-batched"),
];

/// Per-item contestants whose producer and consumer run on different threads.
pub const CROSS_THREAD_PER_ITEM: [&str; 10] = [
    "blocking-crossbeam",
    "blocking-flume",
    "blocking-std",
    "blocking-condvar",
    "stream-tokio",
    "stream-tokio-recv-many",
    "stream-flume",
    "stream-futures",
    "stream-bridge-blocking-send",
    "blocking-bridge-blocking-recv",
];

/// The widest capacity of the default sweep: room for 16 batches of 256.
pub const WIDE_CAPACITY: u64 = 4096;

/// Every claim, judged against `summary`.
pub fn claims(summary: &Summary) -> Vec<ClaimResult> {
    vec![
        batching_pays(summary),
        batching_pays_with_room(summary),
        current_thread_beats_cross_thread(summary),
        outstanding_within_bound(summary),
        condvar_is_slowest(summary),
        capacity_one_costs_a_wakeup(summary),
        receive_side_batching_is_not_enough(summary),
    ]
}

/// The phase of capacity `capacity`.
pub fn phase(capacity: u64) -> String {
    format!("capacity_{capacity}")
}

/// The headline statistics of `contestant` at `capacity`, or why there are none.
pub fn stats<'a>(summary: &'a Summary, contestant: &str, capacity: u64) -> Result<&'a MetricStats, String> {
    metric_stats(summary, contestant, capacity, HEADLINE)
}

/// The statistics of `metric` for `contestant` at `capacity`, or why there are none.
pub fn metric_stats<'a>(
    summary: &'a Summary,
    contestant: &str,
    capacity: u64,
    metric: &str,
) -> Result<&'a MetricStats, String> {
    let phase = phase(capacity);
    if !summary.phases.contains(&phase) {
        return Err(format!("phase {phase} did not run"));
    }
    summary.stats(contestant, &format!("{phase}.{metric}"))
}

/// The capacities of the run's phases, in order.
pub fn capacities(summary: &Summary) -> Vec<u64> {
    summary.phases.iter().filter_map(|p| p.strip_prefix("capacity_")?.parse().ok()).collect()
}

/// The `batch` parameter of the run.
pub fn batch(summary: &Summary) -> Option<u64> {
    summary.params.get("batch").and_then(|v| v.as_u64())
}

fn batching_pays(summary: &Summary) -> ClaimResult {
    let batch = batch(summary).map_or_else(|| "a batch of".to_string(), |b| b.to_string());
    let text = format!(
        "Batching pays: at capacity {CLAIM_CAPACITY}, where both variants hold the same items, sending {batch} items \
         per message is at least 10× cheaper per item than one item per message, for every channel (a message \
         costs one channel operation and at most one wake-up whatever it carries)."
    );
    ClaimResult::all_of(
        text,
        BATCH_PAIRS.iter().map(|(single, batched)| pair_verdict(summary, single, batched, 10.0, true, CLAIM_CAPACITY)),
    )
}

fn batching_pays_with_room(summary: &Summary) -> ClaimResult {
    let text = format!(
        "Batching needs room: at capacity {WIDE_CAPACITY}, where a batched channel holds 16 batches instead of one \
         and the producer can run ahead instead of waiting for each batch to be taken, batching is at least 10× \
         cheaper per item than one item per message for every channel."
    );
    ClaimResult::all_of(
        text,
        BATCH_PAIRS.iter().map(|(single, batched)| pair_verdict(summary, single, batched, 10.0, true, WIDE_CAPACITY)),
    )
}

fn current_thread_beats_cross_thread(summary: &Summary) -> ClaimResult {
    let text = format!(
        "At capacity {CLAIM_CAPACITY}, per item, the tokio pair on a current-thread runtime (both ends on one \
         thread, nothing crosses threads) beats every per-item pair whose ends can run on different threads."
    );
    ClaimResult::all_of(
        text,
        CROSS_THREAD_PER_ITEM
            .iter()
            .map(|other| pair_verdict(summary, CURRENT_THREAD, other, 1.0, false, CLAIM_CAPACITY)),
    )
}

fn condvar_is_slowest(summary: &Summary) -> ClaimResult {
    let text = format!(
        "At capacity {CLAIM_CAPACITY}, per item, the hand-written Mutex + Condvar queue is the slowest blocking \
         channel: slower than crossbeam, flume and std's sync_channel."
    );
    ClaimResult::all_of(
        text,
        BLOCKING_CRATES.iter().map(|other| pair_verdict(summary, CONDVAR, other, 1.0, true, CLAIM_CAPACITY)),
    )
}

fn capacity_one_costs_a_wakeup(summary: &Summary) -> ClaimResult {
    let text = format!(
        "A channel of one item forces a wake-up per item: for every cross-thread per-item pair, an item costs at \
         least 2× as much at capacity 1 as at capacity {CLAIM_CAPACITY} (parking and waking a thread costs \
         microseconds, a channel operation tens of nanoseconds)."
    );
    ClaimResult::all_of(
        text,
        CROSS_THREAD_PER_ITEM.iter().map(|name| {
            match (stats(summary, name, 1), stats(summary, name, CLAIM_CAPACITY)) {
                (Ok(one), Ok(wide)) => {
                    let (verdict, detail) = verdict_at_least(one, wide, 2.0);
                    (verdict, format!("{name} {:.1} vs {:.1} ms/M: {detail}", one.median, wide.median))
                }
                (Err(why), _) | (_, Err(why)) => (Verdict::Inconclusive, why),
            }
        }),
    )
}

fn receive_side_batching_is_not_enough(summary: &Summary) -> ClaimResult {
    let text = format!(
        "Batching only the receiving side is not enough: at capacity {CLAIM_CAPACITY}, draining up to a batch per \
         wake-up with `recv_many` (stream-tokio-recv-many) still costs at least 5× per item what sending whole \
         batches does (stream-tokio-batched), because every item still costs a send."
    );
    let (verdict, detail) =
        pair_verdict(summary, "stream-tokio-recv-many", "stream-tokio-batched", 5.0, true, CLAIM_CAPACITY);
    ClaimResult::new(text, verdict, detail)
}

fn outstanding_within_bound(summary: &Summary) -> ClaimResult {
    let text = "Every contestant that hands items off keeps outstanding work (items sent minus items received, exact \
                high-water mark) within what its channel holds plus one message in each end's hand, at every \
                capacity.";
    let Some(batch) = batch(summary).and_then(|b| usize::try_from(b).ok()) else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no `batch` parameter");
    };
    let mut checked = 0;
    let mut at_bound = 0;
    let mut over = Vec::new();
    for contestant in contestants::contestants() {
        let name = contestant.info().name;
        for capacity in capacities(summary) {
            let Ok(capacity_items) = usize::try_from(capacity) else { continue };
            let messages = summary.params.get("messages").and_then(|v| v.as_u64()).unwrap_or(1) as usize;
            let config = HandoffConfig { capacity: capacity_items, batch, messages };
            let (Some(bound), Ok(max)) =
                (contestant.bound(&config), metric_stats(summary, &name, capacity, "max_outstanding"))
            else {
                continue;
            };
            checked += 1;
            let high = max.max;
            if high > bound as f64 {
                over.push(format!("{name} at capacity {capacity}: {high} > {bound}"));
            } else if high == bound as f64 {
                at_bound += 1;
            }
        }
    }
    if checked == 0 {
        return ClaimResult::new(text, Verdict::Inconclusive, "no contestant measured `max_outstanding`");
    }
    if over.is_empty() {
        ClaimResult::new(
            text,
            Verdict::Holds,
            format!(
                "{checked} contestant × capacity combinations, every measured high-water mark within its bound; \
                 {at_bound} of them reached it exactly at least once (the channel full and a message in each hand), \
                 so the bounds are tight as well as safe"
            ),
        )
    } else {
        ClaimResult::new(text, Verdict::Fails, format!("over the bound: {}", over.join("; ")))
    }
}

/// `a ≥ factor × b` (`at_least`) or `a ≤ factor × b` at `capacity`, with the numbers behind it.
fn pair_verdict(summary: &Summary, a: &str, b: &str, factor: f64, at_least: bool, capacity: u64) -> (Verdict, String) {
    match (stats(summary, a, capacity), stats(summary, b, capacity)) {
        (Ok(sa), Ok(sb)) => {
            let (verdict, detail) =
                if at_least { verdict_at_least(sa, sb, factor) } else { verdict_at_most(sa, sb, factor) };
            (verdict, format!("{a} {} vs {b} {} ms/M: {detail}", short(sa.median), short(sb.median)))
        }
        (Err(why), _) | (_, Err(why)) => (Verdict::Inconclusive, why),
    }
}

fn short(x: f64) -> String {
    measure::compare::format_ratio(x)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Method};

    use super::*;

    fn stats_of(median: f64) -> MetricStats {
        let ci = median * 0.01;
        MetricStats { median, min: median - ci, max: median + ci, ci999: ci, n: 12, mean: median, fork_medians: vec![] }
    }

    /// A summary where every registered contestant ran at capacities 1 and 256 with the given
    /// `(name, capacity, ms_per_million)` medians (absent ones get 100 ms/M), a `max_outstanding` of half its
    /// bound, and a few other metrics for the discussion.
    pub(crate) fn summary_with(medians: &[(&str, u64, f64)]) -> Summary {
        let capacities = [1u64, 256];
        let contestants = contestants::contestants()
            .iter()
            .map(|c| {
                let info = c.info();
                let mut metrics = BTreeMap::new();
                for capacity in capacities {
                    let median = medians
                        .iter()
                        .find(|(n, cap, _)| *n == info.name && *cap == capacity)
                        .map_or(100.0, |(_, _, m)| *m);
                    let phase = phase(capacity);
                    metrics.insert(format!("{phase}.ms_per_million"), stats_of(median));
                    metrics.insert(format!("{phase}.cpu_ns_per_item"), stats_of(median * 1.5));
                    metrics.insert(format!("{phase}.cores_used"), stats_of(1.25));
                    metrics.insert(format!("{phase}.ctx_switches_per_item"), stats_of(0.125));
                    metrics.insert(format!("{phase}.cpu_system_ns_per_item"), stats_of(10.0));
                    let config = HandoffConfig { capacity: capacity as usize, batch: 256, messages: 16 };
                    if let Some(bound) = c.bound(&config) {
                        metrics.insert(format!("{phase}.max_outstanding"), stats_of(bound as f64 / 2.0));
                        metrics.insert(format!("{phase}.max_outstanding_sampled"), stats_of(bound as f64 / 4.0));
                    }
                }
                ContestantSummary {
                    name: info.name,
                    family: info.family,
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics,
                    skipped_phases: Default::default(),
                }
            })
            .collect();
        Summary {
            scenario: "handoff".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment { cores: 2, ..Environment::default() },
            method: Method {
                quick: false,
                forks: 3,
                warmup: 1,
                iterations: 4,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 300.0,
            },
            params: BTreeMap::from([
                ("items".to_string(), serde_json::Value::from(1_000_000)),
                ("small_items".to_string(), serde_json::Value::from(50_000)),
                ("batch".to_string(), serde_json::Value::from(256)),
                ("capacity".to_string(), serde_json::Value::from(vec![1, 256])),
            ]),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: capacities.iter().map(|c| phase(*c)).collect(),
        }
    }

    #[test]
    fn batching_holds_only_when_every_channel_gains_tenfold() {
        let mut medians: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 256, 5.0)).collect();
        assert_eq!(batching_pays(&summary_with(&medians)).verdict, Verdict::Holds);
        medians[3] = ("blocking-condvar-batched", 256, 50.0);
        let claim = batching_pays(&summary_with(&medians));
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("fails — blocking-condvar"), "{}", claim.detail);
    }

    #[test]
    fn batching_with_room_is_judged_at_the_wide_capacity() {
        let mut summary = summary_with(&[]);
        assert_eq!(batching_pays_with_room(&summary).verdict, Verdict::Inconclusive, "no capacity_4096 phase");
        for c in &mut summary.contestants {
            let per_item = c.metrics.get("capacity_256.ms_per_million").cloned();
            if let Some(stats) = per_item {
                let scaled = if c.name.ends_with("-batched") { stats_of(stats.median / 20.0) } else { stats };
                c.metrics.insert("capacity_4096.ms_per_million".to_string(), scaled);
            }
        }
        summary.phases.push(phase(WIDE_CAPACITY));
        assert_eq!(batching_pays_with_room(&summary).verdict, Verdict::Holds);
        assert_eq!(batching_pays(&summary).verdict, Verdict::Fails, "at capacity 256 nothing was batched faster");
    }

    #[test]
    fn the_current_thread_pair_must_beat_every_cross_thread_pair() {
        let summary = summary_with(&[(CURRENT_THREAD, 256, 50.0)]);
        assert_eq!(current_thread_beats_cross_thread(&summary).verdict, Verdict::Holds);
        let summary = summary_with(&[(CURRENT_THREAD, 256, 50.0), ("blocking-crossbeam", 256, 20.0)]);
        assert_eq!(current_thread_beats_cross_thread(&summary).verdict, Verdict::Fails);
    }

    #[test]
    fn the_condvar_queue_must_be_slower_than_each_crate() {
        let summary = summary_with(&[(CONDVAR, 256, 500.0)]);
        assert_eq!(condvar_is_slowest(&summary).verdict, Verdict::Holds);
        let summary = summary_with(&[(CONDVAR, 256, 500.0), ("blocking-std", 256, 900.0)]);
        assert_eq!(condvar_is_slowest(&summary).verdict, Verdict::Fails);
    }

    #[test]
    fn capacity_one_is_compared_with_capacity_256() {
        let slow: Vec<(&str, u64, f64)> = CROSS_THREAD_PER_ITEM.iter().map(|n| (*n, 1, 1000.0)).collect();
        assert_eq!(capacity_one_costs_a_wakeup(&summary_with(&slow)).verdict, Verdict::Holds);
        assert_eq!(capacity_one_costs_a_wakeup(&summary_with(&[])).verdict, Verdict::Fails);
    }

    #[test]
    fn outstanding_work_is_judged_against_each_bound() {
        let mut summary = summary_with(&[]);
        assert_eq!(outstanding_within_bound(&summary).verdict, Verdict::Holds);
        let crossbeam = summary.contestants.iter_mut().find(|c| c.name == "blocking-crossbeam");
        if let Some(c) = crossbeam {
            c.metrics.insert("capacity_256.max_outstanding".to_string(), stats_of(300.0));
        }
        let claim = outstanding_within_bound(&summary);
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("blocking-crossbeam at capacity 256"), "{}", claim.detail);
    }

    #[test]
    fn a_missing_phase_or_contestant_is_inconclusive() {
        let mut summary = summary_with(&[]);
        summary.contestants.retain(|c| c.name != "stream-tokio-recv-many");
        let claim = receive_side_batching_is_not_enough(&summary);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.contains("did not run"), "{}", claim.detail);
        summary.phases.retain(|p| p != "capacity_256");
        let claim = batching_pays(&summary);
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
        assert_eq!(claims(&summary).len(), 7);
    }
}
