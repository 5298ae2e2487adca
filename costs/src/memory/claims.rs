//! The memory scenario's claims, as a table the harness judges ([`measure::judge`]): every claim compares
//! resident bytes per waiting unit on the ranges of processes, at 10,000 units.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};

use super::contestants::Contestant;
use super::{phase, HEADLINE};

/// What `rss_bytes_per_unit` measures.
const RSS_DEFINITION: &str =
    "resident bytes (VmRSS) added per waiting unit, read in the accounting iteration once every unit waits";

/// How many times a waiting thread's resident memory a task's must undercut.
pub const THREAD_OVER_TASK: f64 = 10.0;

/// The payload is "most" of a task's memory when the task holds less than this many times the payload; it is not
/// most of a thread's when adding it leaves the thread below this many times its empty figure.
pub const PAYLOAD_SHARE_FACTOR: f64 = 2.0;

/// A claim `id` on resident bytes per unit, judged on the ranges of processes.
fn claim(
    text: impl Into<String>,
    id: &'static str,
    relation: (Relation, f64),
    comparisons: Vec<Comparison>,
) -> ClaimSpec {
    ClaimSpec::new(text, HEADLINE, RSS_DEFINITION, relation, Basis::Ranges, comparisons).with_id(id)
}

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    let empty = Phase::Named(phase(10_000, 0));
    let kib = Phase::Named(phase(10_000, 1024));
    let task = |phase: &Phase| Side::contestant("stream-tokio-task", phase.clone());
    let payload = || Side::value(1024.0, "the 1 KiB payload");
    let coroutine = |phase: &Phase| Side {
        who: Who::Lowest(
            Contestant::ALL.iter().filter(|c| c.coroutine_config().is_some()).map(|c| c.info().name).collect(),
        ),
        phase: phase.clone(),
    };
    vec![
        claim(
            format!(
                "At 10,000 units without payload, a waiting thread (64 KiB or default stack) holds at least \
                 {THREAD_OVER_TASK}× the resident memory of a waiting tokio task."
            ),
            "thread-holds-tenfold-a-task",
            (Relation::AtLeast, THREAD_OVER_TASK),
            ["blocking-thread-64k", "blocking-thread"]
                .into_iter()
                .map(|thread| Comparison { a: Side::contestant(thread, empty.clone()), b: task(&empty) })
                .collect(),
        ),
        claim(
            format!(
                "At 10,000 units of 1 KiB, the payload is most of a waiting tokio task's resident memory: the task \
                 holds less than {PAYLOAD_SHARE_FACTOR}× its payload."
            ),
            "payload-is-most-of-a-task",
            (Relation::AtMost, PAYLOAD_SHARE_FACTOR),
            vec![Comparison { a: task(&kib), b: payload() }],
        ),
        claim(
            format!(
                "At 10,000 units, the 1 KiB payload is not most of a waiting thread's resident memory: a thread with \
                 a 64 KiB stack holding 1 KiB holds less than {PAYLOAD_SHARE_FACTOR}× what one holding nothing \
                 holds (were the payload most of it, adding it would more than double the figure)."
            ),
            "payload-is-not-most-of-a-thread",
            (Relation::AtMost, PAYLOAD_SHARE_FACTOR),
            vec![Comparison {
                a: Side::contestant("blocking-thread-64k", kib.clone()),
                b: Side::contestant("blocking-thread-64k", empty.clone()),
            }],
        ),
        claim(
            "At 10,000 units of 1 KiB, a waiting `may` coroutine holds less resident memory than a waiting OS \
             thread: the leanest coroutine (8 or 32 KiB stack, each on a fresh stack) holds less than a thread \
             with a 64 KiB stack (the expectation for Rust's counterpart of virtual threads). Both stacks \
             are mapped memory resident only where touched, so the stack's size matters less than the pages each \
             touches.",
            "coroutine-below-a-thread",
            (Relation::AtLeast, 1.0),
            vec![Comparison { a: Side::contestant("blocking-thread-64k", kib.clone()), b: coroutine(&kib) }],
        ),
    ]
}
