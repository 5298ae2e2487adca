//! The tcp scenario: 64 persistent connections to the loopback echo server (1 ms timer per exchange), batches of
//! 256 exchanges with one outstanding per connection, made by blocking threads, by tokio tasks with proper async
//! I/O, and by tokio tasks making blocking socket calls — directly on 1 worker, inside `spawn_blocking`, and
//! inside `block_in_place`.
//!
//! - [`mod@contestants`]: the registry and every contestant.
//! - [`claims`]: the claim table, every claim with an id.
//! - [`conformance`]: every contestant as the shared checks run it, at the conformance sizes.
//! - [`routine`]: one trial in its process (conformance, the round-trip probe ([`crate::round_trip`]: one exchange
//!   alone and the server's timer alone, which the report sets beside the batches per second), then the harness's
//!   loop).
//! - [`report`]: the ratios and wake-up figures, rendered into the discussion both network scenarios share
//!   (`network/src/templates/figures.md`, every word of it).
//! - `templates/report.md`: this scenario's report, which places the shared discussion.

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod report;
pub mod routine;

use measure::question::{Alternatives, Question};
use measure::scenario::{CalibrationSpec, ParamSpec, Scenario};

use crate::figures::bars;

/// The tcp scenario, as the lab's registry lists it.
///
/// The lab's standard repetitions ([`Repetitions::STANDARD`](measure::scenario::Repetitions::STANDARD)): five
/// processes of 1 warm-up, 3 measured and 1 accounting iteration: 30 processes of 5 iterations. The budget
/// (6 minutes): an iteration of 30 batches takes at most 1.2 s at the 25 batches/s the slowest candidate made
/// undisturbed, so at most 5 × 1.2 + 3 s (server start and the conformance checks, the three fault checks' servers
/// included) = 9 s per process, 45 s for the five candidates; `trap-blocking-in-task` runs 3 serial batches of
/// 0.3–0.7 s, at most 5 × 2.1 + 3 ≈ 13.5 s per process; about 59 s per set of six, about 4.9 minutes for the five
/// processes. The round-trip probe adds about 0.2 s a process (45 exchanges and 45 sleeps of about 2 ms each).
#[derive(Debug, Clone, Copy, Default)]
pub struct TcpScenario;

impl Scenario for TcpScenario {
    measure::scenario_files! {
        contestants: contestants::TcpContestant::ALL,
        run_trial: routine::run_trial,
        claim_table: claims::table(),
        discussion: report::discussion,
        name: "tcp",
        title: "TCP over loopback: persistent connections, blocking threads against async I/O, and blocking calls \
                inside the runtime",
        question: "With 64 persistent connections to a real loopback echo server (its own process, a 1 ms timer per \
         exchange) and batches of 256 exchanges, one outstanding per connection, how many batches per second do \
         blocking threads, tokio tasks with async I/O, and tokio tasks that make blocking socket calls (directly \
         on 1 worker, inside `spawn_blocking`, inside `block_in_place`) reach, what CPU does an exchange cost, \
         and how late does a 1 ms probe tick run beside them?",
        params: vec![
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
            crate::session::pinned_param(),
        ],
        headline_metric: "batches_per_sec",
        calibration: Some(CalibrationSpec {
            contestants: vec!["stream-tokio-tasks"],
            metrics: vec!["batches_per_sec", "cpu_us_per_call", "batch_p99_us"],
            params: Vec::new(),
            seconds_per_trial: 4.5,
            why: "one contestant over loopback TCP (4.5 s a process; http's 8.6 s is left out for time), for calls \
                  per second and CPU per call through a real socket",
        }),
        higher_is_better: true,
        table_metrics: vec![
            "batches_per_sec",
            "ideal_fraction",
            "round_trip_fraction",
            "batch_p50_us",
            "batch_p99_us",
            "cpu_us_per_call",
            "server_cpu_us_per_call",
            "cores_used",
            "ctx_switches_per_item",
            "wakeup_p50_us",
            "solo_exchange_p50_us",
            "timer_p50_us",
            "probe_delay_p50_us",
            "probe_delay_p99_us",
            "max_outstanding",
            "threads",
            "peak_rss_mib",
        ],
        charts: vec![
            bars(
                "batches-per-sec",
                "Batches of 256 exchanges per second (log scale)",
                "batches_per_sec",
                "batches/s",
                true,
            ),
            bars("probe-delay", "How late a 1 ms probe tick runs, p99 (log scale)", "probe_delay_p99_us", "µs", true),
        ],
        /// Three questions. The family question, each family's expert construction at equal construction (a unit
        /// per persistent connection, one exchange outstanding on each, one client core, tokio under its default
        /// cooperative budget), asked twice: on client CPU per exchange, which decides it (batches per second sit at
        /// the bound one exchange alone sets for every family, the `round-trip-bounds-batches` claim), and on
        /// batches per second, kept as its second question. Then, when the socket code is blocking, what calling
        /// it inside a task costs and which of tokio's remedies gets it back.
        questions: {
            let families = ["blocking-threads", "stream-tokio-tasks", "coroutine-may"];
            let ask = "Request/response over TCP from one client core: threads, tokio tasks or `may` coroutines?";
            vec![
                Question::new(
                    "family-cpu",
                    ask,
                    Alternatives::named(&families),
                    "cpu_us_per_call",
                    "client CPU per exchange (µs)",
                    false,
                )
                .of_families()
                .situation("request/response over TCP: client CPU per exchange"),
                Question::new(
                    "family",
                    ask,
                    Alternatives::named(&families),
                    "batches_per_sec",
                    "batches of exchanges per second",
                    true,
                )
                .of_families()
                .situation("request/response over TCP: batches per second"),
                Question::new(
                    "blocking-call",
                    "Blocking socket code inside tokio: what does calling it in a task cost, and which remedy gets the \
                     throughput back?",
                    Alternatives::named(&[
                        "stream-tokio-tasks",
                        "stream-spawn-blocking",
                        "stream-block-in-place",
                        "trap-blocking-in-task",
                    ]),
                    "batches_per_sec",
                    "batches of exchanges per second",
                    true,
                )
                .situation("blocking socket code inside tokio"),
            ]
        },
    }

    /// The server's core and the client's, every client runtime sized to the client's ([`crate::runtime_sizes`]).
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        crate::runtime_sizes::declared("network/src/tcp/contestants/coroutine_may.rs")
    }
}
