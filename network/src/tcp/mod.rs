//! The tcp scenario: 64 persistent connections to the loopback echo server (1 ms timer per exchange), batches of
//! 256 exchanges with one outstanding per connection, made by blocking threads, by tokio tasks with proper async
//! I/O, and by tokio tasks making blocking socket calls — directly on 1 worker, inside `spawn_blocking`, and
//! inside `block_in_place`.
//!
//! - [`mod@contestants`]: the registry and every contestant.
//! - [`exchange`]: one exchange in each way, and the job.
//! - [`runtime`]: the shape the tokio contestants share.
//! - [`trial`]: one trial in its process.

pub mod contestants;
pub mod exchange;
pub mod runtime;
pub mod trial;

use measure::record::TrialRequest;
use measure::scenario::{ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario, TrialError, TrialSink};
use measure::summary::{ContestantInfo, Summary};

use crate::discussion;
use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase};

/// The tcp scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct TcpScenario;

/// What `batches_per_sec` measures.
const BATCHES_DEFINITION: &str = "batches of 256 exchanges over 64 persistent connections completed per second, over \
                                  each timed iteration";

/// What `cpu_us_per_call` measures here.
const CPU_DEFINITION: &str = "CPU of the client (trial) process only, per exchange, over each timed iteration; the \
                              server's CPU is apart (`server_cpu_us_per_call`)";

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn claim_table() -> Vec<ClaimSpec> {
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
        ),
        ClaimSpec::new(
            "A thread per connection keeps up with async I/O at 64 connections on one client core: \
             `blocking-threads` reaches at least half the batches/s of `stream-tokio-tasks`.",
            "batches_per_sec",
            BATCHES_DEFINITION,
            (Relation::AtLeast, 0.5),
            Basis::Ranges,
            vec![Comparison::contestants("blocking-threads", "stream-tokio-tasks", Phase::Unphased)],
        ),
        ClaimSpec::new(
            "Moving the blocking socket calls into `spawn_blocking` keeps most of async I/O's throughput: \
             `trap-spawn-blocking` reaches at least half the batches/s of `stream-tokio-tasks`.",
            "batches_per_sec",
            BATCHES_DEFINITION,
            (Relation::AtLeast, 0.5),
            Basis::Ranges,
            vec![Comparison::contestants("trap-spawn-blocking", "stream-tokio-tasks", Phase::Unphased)],
        ),
    ]
}

impl Scenario for TcpScenario {
    fn name(&self) -> &'static str {
        "tcp"
    }

    fn title(&self) -> &'static str {
        "TCP over loopback: persistent connections, blocking threads against async I/O, and blocking calls inside the runtime"
    }

    fn question(&self) -> &'static str {
        "With 64 persistent connections to a real loopback echo server (its own process, a 1 ms timer per \
         exchange) and batches of 256 exchanges, one outstanding per connection, how many batches per second do \
         blocking threads, tokio tasks with async I/O, and tokio tasks that make blocking socket calls (directly \
         on 1 worker, inside `spawn_blocking`, inside `block_in_place`) reach, what CPU does an exchange cost, \
         and how late does a 1 ms probe tick run beside them?"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::single(
                "connections",
                "Persistent connections, one outstanding exchange each.",
                64,
                64,
                1,
                1_000,
            ),
            ParamSpec::single("exchanges", "Exchanges per batch, spread over the connections.", 256, 256, 1, 100_000),
            ParamSpec::single("batches", "Batches per iteration.", 30, 6, 1, 1_000_000),
            ParamSpec::single(
                "delay-us",
                "The server's timer per exchange, in microseconds.",
                1_000,
                1_000,
                0,
                1_000_000,
            ),
            ParamSpec::single(
                "pinned",
                "1 (the default): the server on one core, the client on one other, every client runtime sized to \
                 one core. 0: a labelled variant with nothing pinned, server and client sharing every core and the \
                 client runtimes sized to all of them (client CPU is still the trial process's alone).",
                1,
                1,
                0,
                1,
            ),
        ]
    }

    fn contestants(&self) -> Vec<ContestantInfo> {
        contestants::ALL.iter().map(|c| c.info()).collect()
    }

    fn headline_metric(&self) -> &'static str {
        "batches_per_sec"
    }

    fn higher_is_better(&self) -> bool {
        true
    }

    /// Five processes of 1 warm-up, 3 measured and 1 accounting iteration: 30 processes of 5 iterations. The
    /// budget (6 minutes): an iteration of 30 batches takes at most 1.2 s at the 25 batches/s the slowest
    /// candidate made undisturbed, so at most 5 × 1.2 + 2 s (server start and the conformance checks) = 8 s per
    /// process, 40 s for the five candidates; `trap-blocking-in-task` runs 3 serial batches of 0.3–0.7 s, at most
    /// 5 × 2.1 + 2 ≈ 12.5 s per process; about 53 s per set of six, about 4.4 minutes for the five processes.
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions::QUICK
        } else {
            Repetitions { forks: 5, warmup: 1, iterations: 3, accounting: 1 }
        }
    }

    fn table_metrics(&self) -> Vec<&'static str> {
        vec![
            "batches_per_sec",
            "ideal_fraction",
            "batch_p50_us",
            "batch_p99_us",
            "cpu_us_per_call",
            "server_cpu_us_per_call",
            "cores_used",
            "ctx_switches_per_item",
            "wakeup_p50_us",
            "probe_delay_p50_us",
            "probe_delay_p99_us",
            "max_outstanding",
            "threads",
            "peak_rss_mib",
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![
            ChartSpec {
                id: "batches-per-sec",
                title: "Batches of 256 exchanges per second (log scale)",
                metric: "batches_per_sec",
                unit: "batches/s",
                kind: ChartKind::Bars,
                log_scale: true,
            },
            ChartSpec {
                id: "probe-delay",
                title: "How late a 1 ms probe tick runs, p99 (log scale)",
                metric: "probe_delay_p99_us",
                unit: "µs",
                kind: ChartKind::Bars,
                log_scale: true,
            },
        ]
    }

    fn run_trial(&self, request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
        trial::run_trial(request, sink)
    }

    fn claim_table(&self, _summary: &Summary) -> Vec<ClaimSpec> {
        claim_table()
    }

    fn discussion(&self, summary: &Summary) -> String {
        discussion::discussion(
            summary,
            "stream-tokio-tasks",
            &["batches_per_sec", "cpu_us_per_call", "probe_delay_p99_us"],
        )
    }
}
