//! The tcp scenario's claims, as a table the harness judges ([`measure::judge`]); every claim has an id.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase};

/// What `batches_per_sec` measures.
const BATCHES_DEFINITION: &str = "batches of 256 exchanges over 64 persistent connections completed per second, over \
                                  each timed iteration";

/// What `cpu_us_per_call` measures here.
const CPU_DEFINITION: &str = "CPU of the client (trial) process only, per exchange, over each timed iteration; the \
                              server's CPU is apart (`server_cpu_us_per_call`)";

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    vec![
        // "Blocking calls on the workers cut throughput ≥10×" held by construction (one worker serialises 64
        // connections' exchanges), so it is the `serialised_by_construction` check of `trap-blocking-in-task`, not
        // a claim. The claims below could go either way.
        ClaimSpec::new(
            "At 64 persistent connections, tokio tasks with async I/O cost less client CPU per exchange than a \
             thread per connection: `stream-tokio-tasks` below `blocking-threads` in client CPU µs per exchange.",
            "cpu_us_per_call",
            CPU_DEFINITION,
            (Relation::AtMost, 1.0),
            Basis::Ranges,
            vec![Comparison::contestants("stream-tokio-tasks", "blocking-threads", Phase::Unphased)],
        )
        .with_id("tasks-cheaper-than-threads"),
        ClaimSpec::new(
            "A thread per connection keeps up with async I/O at 64 connections on one client core: \
             `blocking-threads` reaches at least half the batches/s of `stream-tokio-tasks`.",
            "batches_per_sec",
            BATCHES_DEFINITION,
            (Relation::AtLeast, 0.5),
            Basis::Ranges,
            vec![Comparison::contestants("blocking-threads", "stream-tokio-tasks", Phase::Unphased)],
        )
        .with_id("threads-keep-up-with-tasks"),
        ClaimSpec::new(
            "Moving the blocking socket calls into `spawn_blocking` keeps most of async I/O's throughput: \
             `stream-spawn-blocking` reaches at least half the batches/s of `stream-tokio-tasks`.",
            "batches_per_sec",
            BATCHES_DEFINITION,
            (Relation::AtLeast, 0.5),
            Basis::Ranges,
            vec![Comparison::contestants("stream-spawn-blocking", "stream-tokio-tasks", Phase::Unphased)],
        )
        .with_id("spawn-blocking-keeps-most-throughput"),
    ]
}
