//! The handoff scenario's claims, as a table the harness judges ([`measure::judge`]): the cost claims compare
//! `ms_per_million` on the 99.9% intervals of per-process medians, and the bound claim compares every
//! contestant's exact high-water mark with its bound over the range of its samples, failing on a failed bound
//! check even when that stopped the contestant. The thresholds are the claims' own, each with its reason in its
//! text; they are never tuned to pass.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::phase::PhaseKey;
use measure::summary::Summary;

use super::contestants::standalone_pairs;
use super::HEADLINE;

/// The capacity most claims are judged at: the default, where a batched channel holds `messages` batches and a
/// per-item channel the same 256 items.
pub const CLAIM_CAPACITY: u64 = 256;

/// The loop without a hand-off.
pub const LOOP: &str = "baseline-loop";

/// The ring: the floor of a cross-thread hand-off (role `reference`), which every per-item row is set beside.
pub const RING: &str = "blocking-rtrb";

/// The current-thread tokio pair.
pub const CURRENT_THREAD: &str = "baseline-tokio-current-thread";

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
    ("baseline-tokio-current-thread", "baseline-tokio-current-thread-batched"),
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

/// What `ms_per_million` measures.
pub(crate) const DEFINITION: &str = "wall time per million items handed off, over each whole timed iteration";

/// How much cheaper batching must make every channel.
pub const BATCHING_FACTOR: f64 = 10.0;
/// How much a channel of one item must cost over the claim capacity.
pub const WAKEUP_FACTOR: f64 = 2.0;
/// How much receive-side batching must still cost over whole batches.
pub const RECEIVE_SIDE_FACTOR: f64 = 5.0;

/// The most the lab may take per item over the same pair as a standalone program outside its trial process: the
/// trial process should cost the hand-off nothing, within what separate processes of one program spread.
pub const STANDALONE_LIMIT: f64 = 1.1;

/// The id of the guard claim: the lab within [`STANDALONE_LIMIT`] of its standalone programs.
pub const STANDALONE_GUARD: &str = "lab-within-standalone";

/// The ids of [`table`]'s claims, in its order: the report's template reads each verdict by its id.
pub const IDS: [&str; 7] = [
    "batching-pays",
    "batching-needs-room",
    "current-thread-beats-cross-thread",
    "condvar-slowest-blocking",
    "capacity-one-wakes-per-item",
    "receive-side-batching-not-enough",
    STANDALONE_GUARD,
];

/// Every claim of the handoff scenario, as data.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    // Items a batched message carries at the claim's capacity: capacity / messages, at most `batch` (runs before
    // `messages` existed sent whole batches).
    let messages = summary.params.get("messages").and_then(|v| v.as_u64());
    let batch_text = match (batch(summary), messages) {
        (Some(batch), Some(messages)) => (CLAIM_CAPACITY / messages.max(1)).clamp(1, batch.max(1)).to_string(),
        (Some(batch), None) => batch.to_string(),
        (None, _) => "a batch of".to_string(),
    };
    let cost = |text: String, relation: (Relation, f64), comparisons: Vec<Comparison>| {
        ClaimSpec::new(text, HEADLINE, DEFINITION, relation, Basis::ProcessMedians, comparisons)
    };
    let pair = |a: &str, b: &str, capacity: u64| Comparison { a: at(a, capacity), b: at(b, capacity) };
    vec![
        cost(
            format!(
                "Batching pays: at capacity {CLAIM_CAPACITY}, where both variants hold the same items, sending \
                 {batch_text} items per message is at least {BATCHING_FACTOR}× cheaper per item than one item per \
                 message, for every channel (a message costs one channel operation and at most one wake-up whatever \
                 it carries)."
            ),
            (Relation::AtLeast, BATCHING_FACTOR),
            BATCH_PAIRS.iter().map(|(single, batched)| pair(single, batched, CLAIM_CAPACITY)).collect(),
        )
        .with_id("batching-pays"),
        cost(
            format!(
                "Batching needs room: at capacity {WIDE_CAPACITY}, where a batched channel holds several batches and \
                 the producer can run ahead instead of waiting for each batch to be taken, batching is at least \
                 {BATCHING_FACTOR}× cheaper per item than one item per message for every channel."
            ),
            (Relation::AtLeast, BATCHING_FACTOR),
            BATCH_PAIRS.iter().map(|(single, batched)| pair(single, batched, WIDE_CAPACITY)).collect(),
        )
        .with_id("batching-needs-room"),
        cost(
            format!(
                "At capacity {CLAIM_CAPACITY}, per item, the tokio pair on a current-thread runtime (both ends on one \
                 thread, nothing crosses threads) beats every per-item pair whose ends can run on different threads."
            ),
            (Relation::AtMost, 1.0),
            CROSS_THREAD_PER_ITEM.iter().map(|other| pair(CURRENT_THREAD, other, CLAIM_CAPACITY)).collect(),
        )
        .with_id("current-thread-beats-cross-thread"),
        cost(
            format!(
                "At capacity {CLAIM_CAPACITY}, per item, the hand-written Mutex + Condvar queue is the slowest \
                 blocking channel: slower than crossbeam, flume and std's sync_channel."
            ),
            (Relation::AtLeast, 1.0),
            BLOCKING_CRATES.iter().map(|other| pair(CONDVAR, other, CLAIM_CAPACITY)).collect(),
        )
        .with_id("condvar-slowest-blocking"),
        cost(
            format!(
                "A channel of one item forces a wake-up per item: for every cross-thread per-item pair, an item costs \
                 at least {WAKEUP_FACTOR}× as much at capacity 1 as at capacity {CLAIM_CAPACITY} (parking and waking \
                 a thread costs microseconds, a channel operation tens of nanoseconds)."
            ),
            (Relation::AtLeast, WAKEUP_FACTOR),
            CROSS_THREAD_PER_ITEM
                .iter()
                .map(|name| Comparison { a: at(name, 1), b: at(name, CLAIM_CAPACITY) })
                .collect(),
        )
        .with_id("capacity-one-wakes-per-item"),
        cost(
            format!(
                "Batching only the receiving side is not enough: at capacity {CLAIM_CAPACITY}, draining up to a batch \
                 per wake-up with `recv_many` (stream-tokio-recv-many) still costs at least {RECEIVE_SIDE_FACTOR}× per \
                 item what sending whole batches does (stream-tokio-batched), because every item still costs a send."
            ),
            (Relation::AtLeast, RECEIVE_SIDE_FACTOR),
            vec![pair("stream-tokio-recv-many", "stream-tokio-batched", CLAIM_CAPACITY)],
        )
        .with_id("receive-side-batching-not-enough"),
        cost(
            format!(
                "The lab's trial process costs the hand-off nothing: at capacity {CLAIM_CAPACITY}, each per-item pair \
                 that also ran as a standalone program outside the lab ({}) takes at most {STANDALONE_LIMIT}× the \
                 time per item of that program.",
                standalone_pairs().iter().map(|(lab, _)| format!("`{lab}`")).collect::<Vec<_>>().join(", ")
            ),
            (Relation::AtMost, STANDALONE_LIMIT),
            standalone_pairs().iter().map(|(lab, standalone)| pair(lab, standalone, CLAIM_CAPACITY)).collect(),
        )
        .with_id(STANDALONE_GUARD)
        .guarding(),
    ]
}

/// `contestant` at capacity `capacity`.
fn at(contestant: &str, capacity: u64) -> Side {
    Side::contestant(contestant, Phase::Named(phase(capacity)))
}

/// The phase of capacity `capacity` (`capacity_256`), as [`PhaseKey`] writes it.
pub fn phase(capacity: u64) -> String {
    PhaseKey::default().with("capacity", capacity).to_string()
}

/// The capacities of the run's phases, in the run's order: the level of `capacity` each phase runs at.
pub fn capacities(summary: &Summary) -> Vec<u64> {
    summary.levels("capacity")
}

/// The `batch` parameter of the run.
pub fn batch(summary: &Summary) -> Option<u64> {
    summary.params.get("batch").and_then(|v| v.as_u64())
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::summary::{ContestantSummary, Method, MetricStats, Verdict};
    use testkit::fixture::{contestant, method, stats_spread, summary};

    use super::*;

    fn stats_of(median: f64) -> MetricStats {
        stats_spread(median, 0.001)
    }

    /// A summary where every registered contestant ran at capacities 1 and 256 with the given
    /// `(name, capacity, ms_per_million)` medians (absent ones get 100 ms/M), a `max_outstanding` of half its
    /// bound, and a few other metrics for the discussion.
    pub(crate) fn summary_with(medians: &[(&str, u64, f64)]) -> Summary {
        let capacities = [1u64, 256];
        let contestants = crate::handoff::contestants::contestants()
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
                    let config = crate::job::HandoffConfig { capacity: capacity as usize, batch: 256, messages: 16 };
                    if let Some(bound) = c.bound(&config) {
                        metrics.insert(format!("{phase}.max_outstanding"), stats_of(bound as f64 / 2.0));
                        metrics.insert(format!("{phase}.max_outstanding_sampled"), stats_of(bound as f64 / 4.0));
                    }
                }
                ContestantSummary { description: info.description, ..contestant(&info.name, info.family, metrics) }
            })
            .collect();
        Summary {
            method: Method { warmup: 1, iterations: 4, trial_timeout_s: 300.0, ..method() },
            params: BTreeMap::from([
                ("items".to_string(), serde_json::Value::from(1_000_000)),
                ("small_items".to_string(), serde_json::Value::from(50_000)),
                ("batch".to_string(), serde_json::Value::from(256)),
                ("capacity".to_string(), serde_json::Value::from(vec![1, 256])),
            ]),
            phases: capacities.iter().map(|c| phase(*c)).collect(),
            ..summary("handoff", contestants)
        }
    }

    /// `summary` with its claims and findings judged, as the harness judges a run before rendering it.
    pub(crate) fn judged_run(summary: Summary) -> Summary {
        measure::scenario::judged(&crate::handoff::HandoffScenario, summary)
    }

    fn judged(index: usize, summary: &Summary) -> measure::summary::ClaimResult {
        measure::judge::judge(summary, &table(summary)[index])
    }

    /// The verdict on claim `index` of [`summary_with`]`(medians)`.
    fn verdict_of(index: usize, medians: &[(&str, u64, f64)]) -> Verdict {
        judged(index, &summary_with(medians)).verdict
    }

    #[test]
    fn ids_lists_the_table_ids_in_order() {
        let table = table(&summary_with(&[]));
        let ids: Vec<&str> = table.iter().map(|c| c.id.as_ref()).collect();
        assert_eq!(ids, IDS, "IDS lists the table's ids in order");
    }

    #[test]
    fn batching_holds_only_when_every_channel_gains_tenfold() {
        let mut medians: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 256, 5.0)).collect();
        assert_eq!(verdict_of(0, &medians), Verdict::Holds);
        medians[3] = ("blocking-condvar-batched", 256, 50.0);
        let claim = judged(0, &summary_with(&medians));
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("fails — blocking-condvar"), "{}", claim.detail);
    }

    #[test]
    fn batching_with_room_is_judged_at_the_wide_capacity() {
        let mut summary = summary_with(&[]);
        assert_eq!(judged(1, &summary).verdict, Verdict::Inconclusive, "no capacity_4096 phase");
        for c in &mut summary.contestants {
            let per_item = c.metrics.get("capacity_256.ms_per_million").cloned();
            if let Some(stats) = per_item {
                let scaled = if c.name.ends_with("-batched") { stats_of(stats.median / 20.0) } else { stats };
                c.metrics.insert("capacity_4096.ms_per_million".to_string(), scaled);
            }
        }
        summary.phases.push(phase(WIDE_CAPACITY));
        assert_eq!(judged(1, &summary).verdict, Verdict::Holds);
        assert_eq!(judged(0, &summary).verdict, Verdict::Fails, "at capacity 256 nothing was batched faster");
    }

    #[test]
    fn the_current_thread_pair_must_beat_every_cross_thread_pair() {
        assert_eq!(verdict_of(2, &[(CURRENT_THREAD, 256, 50.0)]), Verdict::Holds);
        assert_eq!(verdict_of(2, &[(CURRENT_THREAD, 256, 50.0), ("blocking-crossbeam", 256, 20.0)]), Verdict::Fails);
    }

    #[test]
    fn the_condvar_queue_must_be_slower_than_each_crate() {
        assert_eq!(verdict_of(3, &[(CONDVAR, 256, 500.0)]), Verdict::Holds);
        assert_eq!(verdict_of(3, &[(CONDVAR, 256, 500.0), ("blocking-std", 256, 900.0)]), Verdict::Fails);
    }

    #[test]
    fn capacity_one_is_compared_with_capacity_256() {
        let slow: Vec<(&str, u64, f64)> = CROSS_THREAD_PER_ITEM.iter().map(|n| (*n, 1, 1000.0)).collect();
        assert_eq!(verdict_of(4, &slow), Verdict::Holds);
        assert_eq!(verdict_of(4, &[]), Verdict::Fails);
    }

    /// [`summary_with`], with every standalone program at capacity 256 beside its lab twin at `lab` ms/M against
    /// `standalone`.
    fn with_standalone(lab: f64, standalone: f64) -> Summary {
        let pairs = standalone_pairs();
        let medians: Vec<(&str, u64, f64)> = pairs.iter().map(|(l, _)| (l.as_str(), 256, lab)).collect();
        let mut summary = summary_with(&medians);
        for (_, name) in &pairs {
            let metrics = BTreeMap::from([(format!("{}.ms_per_million", phase(256)), stats_of(standalone))]);
            summary.contestants.push(contestant(name, measure::summary::Family::Blocking, metrics));
        }
        summary
    }

    #[test]
    fn the_guard_fails_when_the_lab_is_shown_slower_than_its_standalone_programs_by_more_than_the_limit() {
        let index = IDS.iter().position(|id| *id == STANDALONE_GUARD).expect("the guard is in the table");
        let slow = judged(index, &with_standalone(50.0, 30.0));
        assert_eq!((slow.verdict, slow.guard), (Verdict::Fails, true), "{}", slow.detail);
        assert_eq!(judged(index, &with_standalone(31.0, 30.0)).verdict, Verdict::Holds);
        let missing = judged(index, &summary_with(&[]));
        assert_eq!(missing.verdict, Verdict::Inconclusive, "without the standalone programs it cannot tell");
        assert!(missing.detail.contains("blocking-crossbeam-standalone did not run"), "{}", missing.detail);
        assert!(table(&summary_with(&[])).iter().filter(|c| c.guard).map(|c| c.id.as_ref()).eq([STANDALONE_GUARD]));
    }

    #[test]
    fn a_missing_phase_or_contestant_is_inconclusive() {
        let mut summary = summary_with(&[]);
        summary.contestants.retain(|c| c.name != "stream-tokio-recv-many");
        let claim = judged(5, &summary);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.contains("did not run"), "{}", claim.detail);
        summary.phases.retain(|p| p != "capacity_256");
        let claim = judged(0, &summary);
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
        assert_eq!(table(&summary).len(), 7);
    }
}
