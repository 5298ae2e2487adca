//! The backpressure scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run makes one seconds-long timed iteration and one accounting iteration in each of five processes, so
//! every claim is judged on the *range* of those iterations (the worst and the best pairing of samples; the
//! outstanding counts from the accounting iterations, throughput from the timed ones), as the overload scenario
//! does: it holds when every iteration satisfies it, fails when none does, and is inconclusive in between or
//! when a contestant it needs did not run cleanly. A failed bound check fails the bound claim even when it
//! stopped the contestant.

use measure::compare::{format_ratio, Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::references;
use measure::summary::Summary;
use measure::units::count;

use super::{bounded_names, BLOCKING_UNBOUNDED, STREAM_UNBOUNDED, STUDY_UNBOUNDED};

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
/// Id of the claim that a task per item with no admission piles calls up.
pub(crate) const UNBOUNDED_PILES_UP: &str = "unbounded-stream-piles-up";
/// Id of the claim that every bounded contestant's throughput is alike.
pub(crate) const BOUNDED_ALIKE: &str = "bounded-throughput-alike";
/// Id of the claim that a thread per item is throttled by thread creation.
pub(crate) const THREADS_THROTTLED: &str = "thread-per-item-throttled";

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
        .with_id(UNBOUNDED_PILES_UP)
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
        )
        .with_id(BOUNDED_ALIKE),
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
        )
        .with_id(THREADS_THROTTLED),
    ]
}
