//! The http scenario: HTTP/1.1 over loopback with keep-alive against the hyper server in its own process (a
//! 10 ms timer per call) on its own core, 500 calls in flight (60 per connection per iteration), made by blocking
//! clients (a thread per connection with a hand-written client; `ureq` on threads), stream clients (hyper's
//! client and `reqwest`, driven by `buffer_unordered`; the hand-written client in a tokio task per connection)
//! and `may` coroutines (the hand-written client again), every client on one other core.
//!
//! - [`mod@contestants`]: the registry and every contestant.
//! - [`claims`]: the claim table, every claim with an id.
//! - [`conformance`]: every contestant as the shared checks run it, at the conformance sizes.
//! - [`routine`]: one trial in its process (conformance, then the harness's loop).
//! - [`report`]: the ratios and wake-up figures, rendered into the discussion both network scenarios share
//!   (`network/src/templates/figures.md`, every word of it).
//! - `templates/report.md`: this scenario's report, which places the shared discussion.

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod report;
pub mod routine;

use measure::question::{Alternatives, Question};
use measure::scenario::{ParamSpec, Scenario};

use crate::figures::bars;

/// The http scenario, as the lab's registry lists it.
///
/// The lab's standard repetitions ([`Repetitions::STANDARD`](measure::scenario::Repetitions::STANDARD)): five
/// processes of 1 warm-up, 3 measured and 1 accounting iteration: 25 processes of 5 iterations. An iteration is
/// 30,000 calls over 500 connections, 60 a connection: about 0.75 s at the server's ceiling of 50k calls/s
/// (500 ÷ 10 ms) plus about 0.4 s to start, connect and prime the connections. It was 50,000 (100 a connection)
/// until `http` was cut to help `lab all` fit its 45 minutes: in the sitting at `275a2ee` an iteration took
/// 1.25 s and `http` 3.9 minutes, and its classes are among those the calibration tells apart best (calls per
/// second 1.02×, latency 1.03×). A connection's start, about one call's client CPU, is then 1.7% of a
/// connection's calls instead of 1%, the same for every client.
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpScenario;

impl Scenario for HttpScenario {
    measure::scenario_files! {
        contestants: contestants::HttpContestant::ALL,
        run_trial: routine::run_trial,
        claim_table: claims::table(),
        discussion: report::discussion,
        name: "http",
        title: "HTTP/1.1 over loopback: blocking clients on threads against stream clients, 500 calls in flight",
        question: "With 500 HTTP/1.1 calls in flight over keep-alive connections (60 calls each per iteration) to a \
                   real loopback hyper server (its own process on its own core, a 10 ms timer per call), with every \
                   client on one other core and its runtime sized to it, what client CPU per call, throughput against \
                   the server's ceiling (in flight ÷ delay) and latency does each client reach: a thread per \
                   connection with a hand-written client, the same client in a tokio task or a `may` coroutine per \
                   connection, `ureq` on threads, hyper's client or `reqwest` driven by `buffer_unordered`?",
        params: vec![
            ParamSpec::single(
                "requests",
                "Calls per iteration (60 per connection by default, so a connection's start is a small share).",
                30_000,
                10_000,
                1,
                100_000_000,
            ),
            ParamSpec::single(
                "in-flight",
                "Calls in flight (threads or buffer_unordered's limit); a --quick smoke run uses 100.",
                500,
                100,
                1,
                10_000,
            ),
            ParamSpec::single(
                "delay-us",
                "The server's timer per call, in microseconds.",
                10_000,
                10_000,
                0,
                10_000_000,
            ),
            crate::session::pinned_param(),
        ],
        headline_metric: "cpu_us_per_call",
        table_metrics: vec![
            "cpu_us_per_call",
            "server_cpu_us_per_call",
            "ops_per_sec",
            "cores_used",
            "ctx_switches_per_item",
            "wakeup_p50_us",
            "ideal_fraction",
            "latency_p50_us",
            "latency_p99_us",
            "probe_delay_p99_us",
            "max_outstanding",
            "threads",
            "peak_rss_mib",
        ],
        charts: vec![
            bars("cpu-per-call", "Client CPU per call", "cpu_us_per_call", "µs per call", false),
            bars("ops-per-sec", "Calls per second", "ops_per_sec", "calls/s", false),
        ],
        /// Two questions, as the published JVM study keeps them apart: which family, with the client code held equal
        /// (the lab's small hand-written client on a thread, a tokio task or a `may` coroutine per connection, each
        /// with the same calls in flight: the family question, decided on client CPU per call, the scenario's
        /// primary metric), and
        /// which client library (each library on its own family's runtime). A comparison across the two would rank a
        /// production library against a minimal client, which the study warns "cannot be transferred to a production
        /// HTTP client".
        questions: {
            let on_cpu = |id, ask, names: &[&str]| {
                Question::new(id, ask, Alternatives::named(names), "cpu_us_per_call", "client CPU per call (µs)", false)
            };
            vec![
                on_cpu(
                    "family",
                    "With the client code held equal (the same small hand-written HTTP/1.1 client), which family costs \
                     the least client CPU per call: a thread, a tokio task or a `may` coroutine per connection?",
                    &["blocking-std", "stream-tokio-tasks", "coroutine-may"],
                )
                .of_families()
                .situation("HTTP calls, the client code held equal"),
                on_cpu(
                    "library",
                    "Which HTTP client library costs the least client CPU per call: `ureq`, `hyper` or `reqwest`?",
                    &["blocking-ureq", "stream-hyper", "stream-reqwest"],
                )
                .situation("an HTTP client library"),
            ]
        },
    }

    /// The server's core and the client's, every client runtime sized to the client's ([`crate::runtime_sizes`]).
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        crate::runtime_sizes::declared("network/src/http/contestants/coroutine_may.rs")
    }
}
