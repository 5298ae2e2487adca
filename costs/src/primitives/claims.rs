//! The primitives scenario's claims, as a table the harness judges ([`measure::judge`]).

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase};

use super::HEADLINE;

/// How many times a thread's spawn + join a task's must undercut.
pub const THREAD_OVER_TASK: f64 = 10.0;

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    vec![ClaimSpec::new(
        format!(
            "Spawning and joining an OS thread costs at least {THREAD_OVER_TASK}× the wall time of spawning and \
             joining a tokio task."
        ),
        HEADLINE,
        "wall-clock nanoseconds per operation over each timed iteration of many operations",
        (Relation::AtLeast, THREAD_OVER_TASK),
        Basis::Ranges,
        vec![Comparison::contestants("blocking-thread-spawn-join", "stream-tokio-spawn-join", Phase::Unphased)],
    )
    .with_id("thread-spawn-costs-tenfold-a-task")]
}
