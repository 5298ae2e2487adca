//! The tcp scenario's claims, as a table the harness judges ([`measure::judge`]); every claim has an id.

use measure::compare::Relation;
use measure::judge::ClaimSpec;

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

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    vec![
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
