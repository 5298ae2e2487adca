//! The primitives scenario: what one spawn + join, one uncontended permit or lock, and one oneshot hand-off cost
//! in each style, per operation, each in its own iteration of many operations.
//!
//! `ns_per_op` and CPU per operation come from timed iterations; allocations per operation
//! (`allocs_per_item`) from the accounting iteration.

pub mod contestants;
pub mod trial;

use std::fmt::Write as _;

use measure::compare::verdict_range_at_least;
use measure::record::TrialRequest;
use measure::scenario::{ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario, TrialError, TrialSink};
use measure::summary::{ClaimResult, ContestantInfo, Summary, Verdict};

use contestants::Contestant;

/// The primitives scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrimitivesScenario;

/// The headline metric: wall-clock nanoseconds per operation.
pub const HEADLINE: &str = "ns_per_op";

/// Processes a claim needs before it can hold or fail.
const MIN_PROCESSES: usize = 3;

impl Scenario for PrimitivesScenario {
    fn name(&self) -> &'static str {
        "primitives"
    }

    fn title(&self) -> &'static str {
        "Primitives: spawn and join, an uncontended permit, a oneshot"
    }

    fn question(&self) -> &'static str {
        "What does one operation of each style's building blocks cost? Spawning and joining a tokio task, an OS \
         thread and a rayon job; acquiring and releasing an uncontended tokio `Semaphore` permit against locking \
         and unlocking a `std::sync::Mutex`; and one value through a tokio `oneshot` against a std `sync_channel`. \
         Each is repeated many times in one iteration and reported per operation; each also has a criterion bench \
         (`cargo bench -p costs`)."
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

    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions { forks: 1, warmup: 1, iterations: 2, accounting: 1 }
        } else {
            Repetitions { forks: 3, warmup: 1, iterations: 5, accounting: 1 }
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

    fn claims(&self, summary: &Summary) -> Vec<ClaimResult> {
        vec![task_spawn_against_thread(summary)]
    }

    fn discussion(&self, summary: &Summary) -> String {
        pairs(summary)
    }
}

/// Spawning and joining a task costs at least 10× less than a thread.
fn task_spawn_against_thread(summary: &Summary) -> ClaimResult {
    let text = "Spawning and joining a tokio task costs at least 10× less wall time than spawning and joining an OS \
                thread (judged over every pairing of samples).";
    let stats = |name: &str| {
        summary.stats(name, HEADLINE).and_then(|s| {
            if s.fork_medians.len() < MIN_PROCESSES {
                Err(format!("`{name}` ran in {} process(es); a claim needs {MIN_PROCESSES}", s.fork_medians.len()))
            } else {
                Ok(s)
            }
        })
    };
    match (stats("blocking-thread-spawn-join"), stats("stream-tokio-spawn-join")) {
        (Ok(thread), Ok(task)) => {
            let (verdict, detail) = verdict_range_at_least(thread, task, 10.0);
            ClaimResult::new(text, verdict, format!("thread ÷ task: {detail}"))
        }
        (Err(e), _) | (_, Err(e)) => ClaimResult::new(text, Verdict::Inconclusive, e),
    }
}

/// Each stream primitive beside its blocking counterpart, as a ratio of medians.
fn pairs(summary: &Summary) -> String {
    let pairs = [
        ("spawn + join", "stream-tokio-spawn-join", "blocking-thread-spawn-join"),
        ("spawn + join (pool)", "stream-tokio-spawn-join", "blocking-rayon-spawn-join"),
        ("uncontended permit or lock", "stream-tokio-semaphore", "blocking-std-mutex"),
        ("one value through a channel", "stream-tokio-oneshot", "blocking-std-channel"),
    ];
    let mut out = String::from(
        "**Side by side.** Each stream primitive against its blocking counterpart, as medians of this run \
         (ratio: blocking ÷ stream).\n\n| operation | stream | ns | blocking | ns | ratio |\n|---|---|---:|---|---:|---:|\n",
    );
    let mut rows = 0;
    for (what, stream, blocking) in pairs {
        let (Some(s), Some(b)) = (summary.metric(stream, HEADLINE), summary.metric(blocking, HEADLINE)) else {
            continue;
        };
        let ratio = if s.median > 0.0 { format!("{:.2}×", b.median / s.median) } else { "—".to_string() };
        let _ = writeln!(out, "| {what} | `{stream}` | {:.0} | `{blocking}` | {:.0} | {ratio} |", s.median, b.median);
        rows += 1;
    }
    if rows == 0 {
        return "_No pair of primitives ran in both styles._".to_string();
    }
    out
}
