//! The tcp scenario's claims, as a table the harness judges ([`measure::judge`]); every claim has an id.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};

use crate::claim::pairwise;

/// `batches_per_sec`, and what it measures.
const BATCHES: (&str, &str) = (
    "batches_per_sec",
    "batches of 256 exchanges over 64 persistent connections completed per second, over \
                                  each timed iteration",
);

/// `cpu_us_per_call`, and what it measures here.
const CPU: (&str, &str) = (
    "cpu_us_per_call",
    "CPU of the client (trial) process only, per exchange, over each timed iteration; the \
                              server's CPU is apart (`server_cpu_us_per_call`)",
);

/// `round_trip_fraction`, and what it measures.
const ROUND_TRIP: (&str, &str) = (
    "round_trip_fraction",
    "batches per second over each timed iteration, as a fraction of the batches per second one exchange alone \
     allows (1 ÷ (⌈exchanges ÷ connections⌉ rounds × the median of 40 serial exchanges on a connection of their own, \
     measured in the same process before timing))",
);

/// The least share of what one exchange alone allows at which the round trip, not the family, is said to bound
/// the batches per second.
pub const ROUND_TRIP_SHARE: f64 = 0.6;

/// `timer_over_delay`, and what it measures.
const TIMER: (&str, &str) = (
    "timer_over_delay",
    "the median of 40 `tokio::time::sleep` calls of the server's delay on a current-thread tokio runtime (the server's \
     runtime and call), measured in each trial process before timing, over the delay",
);

/// The least multiple of its delay the server's timer must last for the timer to be called the larger part of the
/// cap on batches per second.
pub const TIMER_OVERSHOOT: f64 = 1.5;

/// The candidates whose batches per second the round-trip claim covers: every one but the trap, which serialises
/// its exchanges by construction.
pub const BOUND_BY_ROUND_TRIP: [&str; 5] =
    ["blocking-threads", "stream-tokio-tasks", "coroutine-may", "stream-spawn-blocking", "stream-block-in-place"];

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    let round_trip = BOUND_BY_ROUND_TRIP
        .iter()
        .map(|name| Comparison {
            a: Side::contestant(*name, Phase::Unphased),
            b: Side::value(1.0, "the batches per second one exchange alone allows"),
        })
        .collect();
    vec![
        ClaimSpec::new(
            "Batches per second are bound by the round trip of one exchange, whatever the family: every candidate \
             completes its rounds of one exchange per connection at 0.6 or more of the rate one exchange alone on a \
             connection of its own allows.",
            ROUND_TRIP.0,
            ROUND_TRIP.1,
            (Relation::AtLeast, ROUND_TRIP_SHARE),
            Basis::ProcessMedians,
            round_trip,
        )
        .with_id("round-trip-bounds-batches"),
        ClaimSpec::new(
            "The server's timer outlasts its delay: a `tokio::time::sleep` of the server's delay on a current-thread \
             runtime lasts at least 1.5× the delay in every candidate's processes, so the ideal that takes an \
             exchange to last exactly the delay is out of reach by construction.",
            TIMER.0,
            TIMER.1,
            (Relation::AtLeast, TIMER_OVERSHOOT),
            Basis::ProcessMedians,
            BOUND_BY_ROUND_TRIP
                .iter()
                .map(|name| Comparison {
                    a: Side::contestant(*name, Phase::Unphased),
                    b: Side::value(1.0, "the server's delay"),
                })
                .collect(),
        )
        .with_id("timer-outlasts-delay"),
        // "Blocking calls on the workers cut throughput ≥10×" held by construction (one worker serialises 64
        // connections' exchanges), so it is the `serialised_by_construction` check of `trap-blocking-in-task`, not
        // a claim. The claims below could go either way.
        pairwise(
            "tasks-cheaper-than-threads",
            "At 64 persistent connections, tokio tasks with async I/O cost less client CPU per exchange than a \
             thread per connection: `stream-tokio-tasks` below `blocking-threads` in client CPU µs per exchange.",
            CPU,
            (Relation::AtMost, 1.0),
            ("stream-tokio-tasks", "blocking-threads"),
        ),
        pairwise(
            "threads-keep-up-with-tasks",
            "A thread per connection keeps up with async I/O at 64 connections on one client core: \
             `blocking-threads` reaches at least half the batches/s of `stream-tokio-tasks`.",
            BATCHES,
            (Relation::AtLeast, 0.5),
            ("blocking-threads", "stream-tokio-tasks"),
        ),
        pairwise(
            "spawn-blocking-keeps-most-throughput",
            "Moving the blocking socket calls into `spawn_blocking` keeps most of async I/O's throughput: \
             `stream-spawn-blocking` reaches at least half the batches/s of `stream-tokio-tasks`.",
            BATCHES,
            (Relation::AtLeast, 0.5),
            ("stream-spawn-blocking", "stream-tokio-tasks"),
        ),
    ]
}
