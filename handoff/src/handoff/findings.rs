//! The handoff scenario's findings: every sentence its report states only where a judged verdict backs it, as
//! rows the harness judges with the one judge into `summary.findings` ([`measure::judge`]). Each row says that
//! one side stands beyond noise from another ([`beyond_noise`]: by more than the testbed's smallest detectable
//! ratio, on process medians), and the report reads it back by its id; nothing here looks at a number.

use measure::compare::Basis::ProcessMedians;
use measure::compare::Relation;
use measure::judge::{beyond_noise, Beyond, ClaimSpec, Comparison, Phase};
use measure::summary::{ClaimResult, Summary, Verdict};

use super::claims::{
    capacities, phase, BATCH_PAIRS, CLAIM_CAPACITY, CROSS_THREAD_PER_ITEM, CURRENT_THREAD, DEFINITION,
};
use super::contestants::{ab_variants, bare_pairs};
use super::HEADLINE;

/// The batched async channels whose closeness the advice on async code states.
pub const ASYNC_BATCHED: [&str; 3] = ["stream-tokio-batched", "stream-flume-batched", "stream-futures-batched"];

/// The wake-up figures a batched row slower than its twin is set beside: `(metric, what it measures, id stem,
/// words)`.
const WAKE_UPS: [(&str, &str, &str, &str); 2] = [
    (
        "ctx_switches_per_item",
        "context switches per item handed off, over each timed iteration",
        "switches",
        "context switches",
    ),
    ("cpu_system_ns_per_item", "system CPU ns per item handed off, over each timed iteration", "system", "system CPU"),
];

/// The id of the finding that `batched` (the batched twin of the channel `single`) cost more per item than
/// `single` at `capacity`.
pub fn batched_slower(single: &str, capacity: u64) -> String {
    format!("batched-slower-than-per-item-{single}-{capacity}")
}

/// The id of the finding that the batched twin of `single` spent more of `stem`'s figure (`switches` or
/// `system`, [`WAKE_UPS`]) per item than `single` at `capacity`.
pub fn batched_wakes_more(stem: &str, single: &str, capacity: u64) -> String {
    format!("batched-more-{stem}-than-per-item-{single}-{capacity}")
}

/// The id of the finding that `name`, a cross-thread per-item pair, cost less per item than the current-thread
/// pair at `capacity`.
pub fn faster_than_current_thread(name: &str, capacity: u64) -> String {
    format!("faster-than-current-thread-{name}-{capacity}")
}

/// The id of the finding that the batched async channels ([`ASYNC_BATCHED`]) are within noise of each other at
/// `capacity`.
pub fn async_alike(capacity: u64) -> String {
    format!("async-batched-alike-{capacity}")
}

/// The id of the finding that `contestant` is `beyond` (slower: [`Beyond::Above`]) its bare pair, or its pair's
/// A/A control (`control`), at `capacity`.
pub fn against(contestant: &str, beyond: Beyond, control: bool, capacity: u64) -> String {
    let way = if beyond == Beyond::Above { "slower" } else { "faster" };
    let other = if control { "control" } else { "bare" };
    format!("{way}-than-{other}-{contestant}-{capacity}")
}

/// The finding `id` of `summary`, when it holds: the report prints the sentence it backs only then.
pub fn holding<'a>(summary: &'a Summary, id: &str) -> Option<&'a ClaimResult> {
    summary.finding(id).filter(|f| f.verdict == Verdict::Holds)
}

/// Every finding of the handoff scenario, as data: at the claim capacity, each batched channel against its
/// per-item twin and its wake-up figures, and each cross-thread per-item pair against the current-thread pair; at
/// the widest, the batched async channels against each other; at every capacity of the run, each lab contestant
/// and per-cause A/B variant against its bare pair and its A/A control (a variant against the control only as
/// slower, all the report reads of it). A row whose sides did not both run is left out, as the report shows no
/// figure for it.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let caps = capacities(summary);
    let ran = |name: &str, capacity: u64| summary.median_in(name, &phase(capacity), HEADLINE).is_some();
    let ms = (HEADLINE, DEFINITION);
    let mut rows = Vec::new();
    let c = CLAIM_CAPACITY;
    for (single, batched) in BATCH_PAIRS.iter().filter(|(s, b)| ran(s, c) && ran(b, c)) {
        let text = format!("At capacity {c}, `{batched}` costs more per item than `{single}`, beyond noise.");
        rows.push(beyond(summary, ms, (batched, single, c), Beyond::Above, text, batched_slower(single, c)));
        for (metric, definition, stem, words) in WAKE_UPS {
            let text = format!("At capacity {c}, `{batched}` has more {words} per item than `{single}`, beyond noise.");
            let id = batched_wakes_more(stem, single, c);
            rows.push(beyond(summary, (metric, definition), (batched, single, c), Beyond::Above, text, id));
        }
    }
    for name in CROSS_THREAD_PER_ITEM.iter().filter(|n| ran(n, c) && ran(CURRENT_THREAD, c)) {
        let text = format!("At capacity {c}, `{name}` costs less per item than `{CURRENT_THREAD}`, beyond noise.");
        let id = faster_than_current_thread(name, c);
        rows.push(beyond(summary, ms, (name, CURRENT_THREAD, c), Beyond::Below, text, id));
    }
    if let Some(&wide) = caps.iter().max() {
        // Within noise of each other: each no more than the noise line above every other.
        let (_, factor) = beyond_noise(&summary.method, HEADLINE, Beyond::Above);
        let names = ASYNC_BATCHED.iter();
        let pairs = names.clone().flat_map(|a| names.clone().filter(move |b| a != *b).map(move |b| (*a, *b)));
        let comparisons = pairs.map(|(a, b)| Comparison::contestants(a, b, Phase::Named(phase(wide)))).collect();
        let text = format!(
            "At capacity {wide}, the batched async channels ({}) are within the testbed's smallest detectable ratio \
             of each other per item.",
            ASYNC_BATCHED.map(|n| format!("`{n}`")).join(", ")
        );
        let spec = ClaimSpec::new(text, HEADLINE, DEFINITION, (Relation::AtMost, factor), ProcessMedians, comparisons);
        rows.push(spec.with_id(async_alike(wide)));
    }
    let variants = ab_variants();
    for (lab, bare) in bare_pairs() {
        let control = variants.iter().find(|v| v.lab == lab && v.control).map(|v| v.name.as_str());
        let ours = variants.iter().filter(|v| v.lab == lab).map(|v| (v.name.as_str(), v.control));
        for (name, is_control) in [(lab, false)].into_iter().chain(ours) {
            let others = [(bare.as_str(), false)].into_iter().chain(control.filter(|_| !is_control).map(|c| (c, true)));
            for (other, of_control) in others {
                for &capacity in caps.iter().filter(|&&cap| ran(name, cap) && ran(other, cap)) {
                    // A variant is read against the control only as slower (a cause the lab pays for).
                    let ways =
                        if of_control && name != lab { &[Beyond::Above][..] } else { &[Beyond::Above, Beyond::Below] };
                    for &way in ways {
                        let words = if way == Beyond::Above { "slower" } else { "faster" };
                        let text = format!("At capacity {capacity}, `{name}` is {words} than `{other}`, beyond noise.");
                        let id = against(name, way, of_control, capacity);
                        rows.push(beyond(summary, ms, (name, other, capacity), way, text, id));
                    }
                }
            }
        }
    }
    rows
}

/// The row `text` (id `id`): `a` stands `way` from `b` at `capacity` beyond noise on `metric` (defined by
/// `definition`), judged on process medians.
fn beyond(
    summary: &Summary,
    (metric, definition): (&'static str, &'static str),
    (a, b, capacity): (&str, &str, u64),
    way: Beyond,
    text: String,
    id: String,
) -> ClaimSpec {
    let comparisons = vec![Comparison::contestants(a, b, Phase::Named(phase(capacity)))];
    let relation = beyond_noise(&summary.method, metric, way);
    ClaimSpec::new(text, metric, definition, relation, ProcessMedians, comparisons).with_id(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::claims::tests::{judged_run as judged, summary_with};

    #[test]
    fn every_id_is_unique_and_each_row_the_report_reads_is_declared() {
        let summary = summary_with(&[]);
        let rows = table(&summary);
        let ids: std::collections::BTreeSet<String> = rows.iter().map(|r| r.id.to_string()).collect();
        assert_eq!(ids.len(), rows.len(), "ids repeat");
        assert!(ids.contains(&batched_slower("blocking-flume", CLAIM_CAPACITY)));
        assert!(ids.contains(&batched_wakes_more("switches", "blocking-flume", CLAIM_CAPACITY)));
        assert!(ids.contains(&async_alike(256)), "at the widest capacity of the run");
        for (lab, _) in bare_pairs() {
            for capacity in [1, 256] {
                for way in [Beyond::Above, Beyond::Below] {
                    assert!(ids.contains(&against(lab, way, false, capacity)), "{lab} at {capacity}");
                }
            }
        }
    }

    #[test]
    fn a_batched_row_is_slower_only_beyond_noise_and_only_its_own_figures_decide() {
        let slower = judged(summary_with(&[("blocking-flume-batched", 256, 200.0)]));
        assert!(slower.finding_holds(&batched_slower("blocking-flume", 256)), "2× its twin");
        assert!(!slower.finding_holds(&batched_slower("blocking-crossbeam", 256)), "equal to its twin");
        assert!(!slower.finding_holds(&batched_wakes_more("switches", "blocking-flume", 256)), "equal switches");
        let near = judged(summary_with(&[("blocking-flume-batched", 256, 110.0)]));
        assert!(!near.finding_holds(&batched_slower("blocking-flume", 256)), "10% is within the noise line");
        assert!(near.finding_holds(&async_alike(256)), "the async batched rows are equal");
    }

    #[test]
    fn a_pair_is_cheaper_than_the_current_thread_pair_only_beyond_noise() {
        let summary = judged(summary_with(&[("blocking-std", 256, 50.0), ("blocking-flume", 256, 90.0)]));
        assert!(summary.finding_holds(&faster_than_current_thread("blocking-std", 256)), "half its cost");
        assert!(!summary.finding_holds(&faster_than_current_thread("blocking-flume", 256)), "within the noise line");
        assert!(!summary.finding_holds(&faster_than_current_thread("stream-tokio", 256)), "equal");
    }
}
