//! The device scenario: every item makes one simulated 10 ms I/O call through one shared client, with
//! 1,000, 10,000 or 100,000 calls in flight (each level a phase); the answers are summed. The ideal ceiling is
//! in-flight / 10 ms calls per second.
//!
//! Throughput, CPU per call, `spawn_ms` and the budget figures come from the timed iteration of each process,
//! where nothing counts outstanding calls; `max_outstanding`, `threads` and memory per waiting call
//! (`live_heap_bytes_per_call`, `rss_bytes_per_call`) from an untimed accounting iteration of the same length
//! after it (see [`crate::trial`]).
//!
//! The folder: this file (the scenario's parameters, charts and in-flight levels: [`levels`], read by the claims
//! and the report); `contestants/` (the registry: which of the crate's contestants run, in report order, and the
//! best of a family at a level); `claims.rs` (the claim table); `findings.rs` (the rows behind the report's
//! findings, judged into the summary's `findings`); `standing.rs` (where the blocking family stands in the family
//! answers); `figures.rs` (each report section's figures, read from the summary); `report.rs` (the context
//! `templates/report.md` and `templates/headline.md` are rendered with); `conformance.rs` (the sizes the shared
//! checks run at); `advice.rs` (how it answers a user's shape in `lab advise`); `routine.rs` (one trial: the
//! checks, then the request's parameters as a [`crate::trial::TrialSpec`], run by the shared trial). The constructions, the call, the job, the trial and
//! the checks themselves are the crate's building blocks, shared with the backpressure scenario (listed in the
//! crate's doc). Tests: `device/tests/device_*.rs`.

mod advice;
mod claims;
mod conformance;
pub mod contestants;
mod figures;
mod findings;
mod report;
mod routine;
mod standing;

use measure::phase::PhaseKey;
use measure::question::{Alternatives, Question};
use measure::scenario::{CalibrationSpec, ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario};
use measure::summary::Summary;

pub use contestants::CONTESTANTS;

/// The device scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeviceScenario;

/// The constructions the report's advice allows, on the shared device: every candidate but a driver of many futures
/// in one task left under tokio's cooperative budget (the report advises `unconstrained` or a task per call for
/// those). A task per call stays as it comes: each task spends its own budget on a single call.
pub const ADVISED: [&str; 9] = [
    "stream-buffered-unconstrained",
    "stream-buffer-unordered-unconstrained",
    "stream-buffer-unordered-per-worker-unconstrained",
    "stream-thread-per-core-unconstrained",
    "stream-tasks",
    "stream-tasks-unconstrained",
    "blocking-threads",
    "coroutine-may-1-carrier",
    "coroutine-may-2-carriers",
];

/// The family question's alternatives, at equal construction: each family's constructions on the shared device
/// with the same bound and no cooperative budget on any driver (a blocking thread and a `may` coroutine have none;
/// every stream runs inside `unconstrained`). `stream-buffered-unconstrained` is left out: it hands answers on in
/// item order, which no other family does.
pub const FAMILIES: [&str; 7] = [
    "stream-buffer-unordered-unconstrained",
    "stream-buffer-unordered-per-worker-unconstrained",
    "stream-thread-per-core-unconstrained",
    "stream-tasks-unconstrained",
    "blocking-threads",
    "coroutine-may-1-carrier",
    "coroutine-may-2-carriers",
];

/// The headline metric: calls answered per second.
pub const HEADLINE: &str = "ops_per_sec";

/// Share of the target in flight at which memory is read for `live_heap_bytes_per_call`.
pub const HEAP_READ_AT: f64 = 0.9;

/// The ideal calls per second at `level` in flight: `level / service time`.
pub(crate) fn ideal(summary: &Summary, level: u64) -> Option<f64> {
    Some(level as f64 * 1e3 / summary.param("service_ms")?)
}

/// The run's in-flight levels with their phase names (`in_flight_10000`), lowest first.
pub(crate) fn levels(summary: &Summary) -> Vec<(u64, &str)> {
    let level = |phase: &str| PhaseKey::parse(phase)?.level("in_flight");
    let mut levels: Vec<(u64, &str)> =
        summary.phases.iter().filter_map(|p| level(p).map(|l| (l, p.as_str()))).collect();
    levels.sort_unstable();
    levels
}

impl Scenario for DeviceScenario {
    measure::scenario_files! {
        contestants: CONTESTANTS,
        run_trial: routine::run,
        claim_table: claims::table,
        finding_table: findings::table,
        discussion: report::discussion,
        headline_notes: report::headline_notes,
        advise: advice::advise,
        name: "device",
        title: "Device: one 10 ms I/O call per item through a shared client, 1,000 to 100,000 in flight",
        question: "How many calls per second, at what CPU and memory per call, does each style sustain when every item \
         waits on one simulated 10 ms I/O call through a shared client, with 1,000, 10,000 or 100,000 calls in \
         flight? The ceiling is in-flight / 10 ms (100,000, 1,000,000 and 10,000,000 calls per second). The \
         client is the overload scenario's simulated dependency with unlimited capacity: a call's completion is \
         fired by the client's own two timer threads, precise to well under a millisecond, and the same calls \
         are awaited by tasks or blocked on by threads. Two traps are exposed rather than fallen into: tokio's \
         cooperative budget against `FuturesUnordered` (every stream contestant runs both as it comes and \
         inside `tokio::task::coop::unconstrained`), and 100,000 OS threads, which this machine cannot make. \
         The published JVM study's figures at 100,000 and 10,000 in flight are in the published reference \
         below, as shares of their ideal.",
        params: vec![
            ParamSpec::sweep(
                "in-flight",
                "Calls in flight (the bound of every contestant); each value is a phase.",
                &[1_000, 10_000, 100_000],
                &[1_000, 10_000],
                1,
                1_000_000,
            ),
            ParamSpec::single("rounds", "Calls per iteration, as a multiple of in-flight.", 6, 5, 1, 10_000),
            ParamSpec::single("service-ms", "Duration of one call, in milliseconds.", 10, 10, 1, 10_000),
            ParamSpec::single(
                "budget-ms",
                "Time budget of one iteration: a run still going then is cut short, and says so.",
                2_000,
                1_000,
                10,
                600_000,
            ),
        ],
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec!["stream-buffer-unordered", "blocking-threads", "coroutine-may-2-carriers"],
            metrics: vec!["ops_per_sec", "cpu_us_per_call", "live_heap_bytes_per_call"],
            params: vec![("in_flight", 1000)],
            seconds_per_trial: 1.5,
            why: "one candidate per family at 1,000 calls in flight, the level every family reaches: at 10,000 and \
                  100,000 an iteration lasts its whole budget, too long for twice five processes",
        }),
        higher_is_better: true,
        table_metrics: vec![
            "ops_per_sec",
            "ideal_fraction",
            "cpu_us_per_call",
            "ops_per_sec_whole_run",
            "cpu_us_per_call_whole_run",
            "max_outstanding",
            "live_heap_bytes_per_call",
            "rss_bytes_per_call",
            "peak_rss_mib",
            "cut_short",
            "completed_fraction",
            "steady_window",
            "idle_call_ms",
            "spawn_ms",
            "dependency_cpu_us_per_call",
            "cores_used",
            "ctx_switches_per_call",
            "threads",
            "wall_ms",
        ],
        charts: vec![
            ChartSpec {
                id: "throughput",
                title: "Calls per second against calls in flight (log axes; black dashed: the ideal)",
                metric: "ops_per_sec",
                unit: "calls per second",
                kind: ChartKind::SweepWithReference {
                    reference: "ideal_ops_per_sec",
                    label: "ideal: calls in flight ÷ service time",
                },
                log_scale: true,
                references: &[],
            },
            ChartSpec {
                id: "cpu-per-call",
                title: "CPU per call against calls in flight (log axes; device timer threads included)",
                metric: "cpu_us_per_call",
                unit: "µs of CPU per call",
                kind: ChartKind::Sweep,
                log_scale: true,
                references: &[],
            },
            ChartSpec {
                id: "memory-per-call",
                title: "Memory per waiting call: live heap (log scale)",
                metric: "live_heap_bytes_per_call",
                unit: "bytes per outstanding call",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[],
            },
            ChartSpec {
                id: "resident-per-call",
                title: "Resident memory per waiting call (a thread's touched stack counts here, not as heap)",
                metric: "rss_bytes_per_call",
                unit: "bytes per outstanding call",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[],
            },
        ],
        /// What a user sizing a shared I/O client asks: which construction serves the most calls at each number in
        /// flight, and which spends the least CPU doing it, among the constructions the report's own advice allows
        /// (no driver of many futures left under tokio's cooperative budget: [`ADVISED`]); and, asked of families at
        /// equal construction ([`FAMILIES`]: the shared device, the same bound, no cooperative budget on any
        /// driver), which family, on both metrics.
        questions: {
            let question = |id, ask, names: &[&str], metric, metric_words, higher_is_better| {
                Question::new(id, ask, Alternatives::named(names), metric, metric_words, higher_is_better)
            };
            vec![
                question(
                    "throughput",
                    "A shared I/O client of 10 ms calls with this many in flight: which construction serves the most \
                     calls per second (no driver of many futures left under tokio's cooperative budget, as this \
                     report advises)?",
                    &ADVISED,
                    HEADLINE,
                    "calls answered per second",
                    true,
                )
                .situation("a shared 10 ms I/O client: throughput"),
                question(
                    "cpu",
                    "And which serves them at the least CPU per call?",
                    &ADVISED,
                    "cpu_us_per_call",
                    "CPU per call (µs)",
                    false,
                )
                .situation("the same client: CPU per call"),
                question(
                    "family",
                    "At equal construction (the shared device, the same bound, no cooperative budget on any driver): \
                     tokio tasks and streams, threads, or `may` coroutines, on calls per second?",
                    &FAMILIES,
                    HEADLINE,
                    "calls answered per second",
                    true,
                )
                .of_families()
                .situation("a shared 10 ms I/O client: which family, on throughput"),
                question(
                    "family-cpu",
                    "At equal construction: which family serves the calls at the least CPU per call?",
                    &FAMILIES,
                    "cpu_us_per_call",
                    "CPU per call (µs)",
                    false,
                )
                .of_families()
                .situation("a shared 10 ms I/O client: which family, on CPU per call"),
            ]
        },
    }

    fn repetitions(&self, quick: bool) -> Repetitions {
        // The lab's five processes, as every scenario: at three, a separation of 3 + 3 process medians has p = 0.05
        // and one against a fixed value p = 0.125, too weak for a claim to hold. The budget is 2 s, cut from 4 so
        // that `lab all` fits its 45 minutes at five processes: at 100,000 in flight every contestant is bound by
        // the CPU, not by the device, and meets the budget in both its timed and its accounting iteration (8.6 s of
        // a trial's 8.9 at 4 s; conformance 0.3 s), so the budget, not the checks or the start, is what a trial
        // costs there. A 2 s window still holds 150,000 or more calls at that level, and calls per second is the
        // class the calibration tells apart best (1.02× on the 2-core testbed, against 1.22× for a cost per item),
        // so halving the window costs the least in the smallest detectable ratio of anything the run could cut.
        crate::trial::repetitions(quick, Repetitions::STANDARD.forks)
    }

    /// tokio's runtime, one worker per CPU; `may`'s carriers fixed by each coroutine contestant (1 or 2).
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("device/src/contestants/stream.rs", "std::thread::available_parallelism()")),
            RuntimeSize::may_fixed(
                "1 or 2, as each coroutine contestant's name says",
                Code::new("device/src/device/contestants/mod.rs", "carriers: Some(1)"),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_read_from_the_phase_names_lowest_first() {
        let mut summary = testkit::fixture::summary("device", Vec::new());
        summary.phases = ["in_flight_10000", "in_flight_x", "rounds_6", "in_flight_1000"].map(String::from).to_vec();
        assert_eq!(levels(&summary), vec![(1_000, "in_flight_1000"), (10_000, "in_flight_10000")]);
    }
}
