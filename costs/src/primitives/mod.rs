//! The primitives scenario: what one spawn + join, one uncontended permit or lock, and one oneshot hand-off cost
//! in each style, per operation, each in its own iteration of many operations.
//!
//! `ns_per_op` and CPU per operation come from timed iterations; allocations per operation
//! (`allocs_per_item`) from the accounting iteration.

pub mod contestants;
pub mod trial;

use std::fmt::Write as _;

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase};
use measure::record::TrialRequest;
use measure::scenario::{ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario, TrialError, TrialSink};
use measure::summary::{ContestantInfo, Summary};

use contestants::Contestant;

/// The primitives scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrimitivesScenario;

/// The headline metric: wall-clock nanoseconds per operation.
pub const HEADLINE: &str = "ns_per_op";

impl Scenario for PrimitivesScenario {
    fn name(&self) -> &'static str {
        "primitives"
    }

    fn title(&self) -> &'static str {
        "Primitives: spawn and join, an uncontended permit, a oneshot"
    }

    fn question(&self) -> &'static str {
        "What does one operation of each style's building blocks cost? Spawning and joining a tokio task, an OS \
         thread, a rayon job (entered from outside its pool, and from a worker inside it) and a `may` coroutine; \
         acquiring and releasing an uncontended tokio `Semaphore` permit and a `may` `Semphore` permit against \
         locking and unlocking a `std::sync::Mutex`; and one value through a tokio `oneshot`, a `may` channel made \
         for it and a std `sync_channel`. Tasks and coroutines start their loop from inside their runtime, as an \
         application would. Each is repeated many times in one iteration and reported per operation; each also \
         has a criterion bench (`cargo bench -p costs`)."
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![ParamSpec::single(
            "ops",
            "Operations per iteration (spawning a thread does 20× fewer).",
            100_000,
            20_000,
            20,
            100_000_000,
        )]
    }

    fn contestants(&self) -> Vec<ContestantInfo> {
        Contestant::ALL.iter().map(Contestant::info).collect()
    }

    fn headline_metric(&self) -> &'static str {
        HEADLINE
    }

    /// Five processes of one warm-up, five timed and one accounting iteration: the committed full run took 0.8
    /// minutes for 7 contestants at 3 processes, so 11 at 5 take about 0.8 × 11 / 7 × 5 / 3 ≈ 2.1 minutes.
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions { forks: 1, warmup: 1, iterations: 2, accounting: 1 }
        } else {
            Repetitions { forks: 5, warmup: 1, iterations: 5, accounting: 1 }
        }
    }

    fn table_metrics(&self) -> Vec<&'static str> {
        vec!["ns_per_op", "cpu_ns_per_item", "allocs_per_item", "alloc_bytes_per_item", "ctx_switches_per_item", "ops"]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![ChartSpec {
            id: "ns-per-op",
            title: "Nanoseconds per operation (log scale)",
            metric: HEADLINE,
            unit: "ns per operation",
            kind: ChartKind::Bars,
            log_scale: true,
        }]
    }

    fn run_trial(&self, request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
        trial::run_trial(request, sink)
    }

    fn claim_table(&self, _summary: &Summary) -> Vec<ClaimSpec> {
        claim_table()
    }

    fn discussion(&self, summary: &Summary) -> String {
        pairs(summary)
    }
}

/// How many times a thread's spawn + join a task's must undercut.
pub const THREAD_OVER_TASK: f64 = 10.0;

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn claim_table() -> Vec<ClaimSpec> {
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
    )]
}

/// Each stream primitive beside its blocking and coroutine counterparts, as medians and ratios to the stream's.
fn pairs(summary: &Summary) -> String {
    let rows_of = [
        ("spawn + join", "stream-tokio-spawn-join", "blocking-thread-spawn-join", "coroutine-may-spawn-join"),
        (
            "spawn + join (pool, entered from outside)",
            "stream-tokio-spawn-join",
            "blocking-rayon-spawn-join",
            "coroutine-may-spawn-join",
        ),
        (
            "spawn + join (pool, from a worker)",
            "stream-tokio-spawn-join",
            "blocking-rayon-spawn-join-inside",
            "coroutine-may-spawn-join",
        ),
        ("uncontended permit or lock", "stream-tokio-semaphore", "blocking-std-mutex", "coroutine-may-semaphore"),
        ("one value through a channel", "stream-tokio-oneshot", "blocking-std-channel", "coroutine-may-oneshot"),
    ];
    let mut out = String::from(
        "**Side by side.** Each stream primitive against its blocking and coroutine counterparts, as medians of \
         this run (ratios: blocking ÷ stream, coroutine ÷ stream). rayon appears twice: entering the pool from \
         outside on every operation wakes a worker and blocks the caller until the job is done, which a task \
         spawned from a task and a `rayon::scope` started on a worker do not.\n\n| operation | stream | ns | \
         blocking | ns | ratio | coroutine | ns | ratio |\n|---|---|---:|---|---:|---:|---|---:|---:|\n",
    );
    let mut rows = 0;
    let ns = |name: &str| summary.metric(name, HEADLINE).map(|s| s.median);
    for (what, stream, blocking, coroutine) in rows_of {
        let Some(s) = ns(stream) else { continue };
        let cell = |name: &str| match ns(name) {
            Some(v) => {
                let ratio = if s > 0.0 { format!("{:.2}×", v / s) } else { "—".to_string() };
                (format!("{v:.0}"), ratio)
            }
            None => ("—".to_string(), "—".to_string()),
        };
        let ((b, br), (c, cr)) = (cell(blocking), cell(coroutine));
        if b == "—" && c == "—" {
            continue;
        }
        let _ =
            writeln!(out, "| {what} | `{stream}` | {s:.0} | `{blocking}` | {b} | {br} | `{coroutine}` | {c} | {cr} |");
        rows += 1;
    }
    if rows == 0 {
        return "_No primitive ran in more than one style._".to_string();
    }
    out
}
