//! The backpressure scenario: every item makes one simulated 1 ms I/O call, and every contestant is told to
//! keep at most `limit` (16) calls outstanding. The question is whether each one does: the bounded shapes of
//! both families against a task per item and a thread per item with no admission at all. The exact
//! high-water mark of outstanding calls (`max_outstanding`) is reported beside a 1 ms sampler's
//! (`max_outstanding_sampled`) and throughput.
//!
//! Throughput, CPU, `spawn_ms` and `wall_ms` come from timed iterations, where nothing counts outstanding calls;
//! `max_outstanding`, `max_outstanding_sampled`, `threads`, the `outstanding` series and the figures derived
//! from it ([`MS_TO_PEAK`], [`MEAN_OUTSTANDING`]) come from an untimed accounting iteration in each process
//! (see [`crate::trial`]). A bounded contestant's accounting iteration runs [`ACCOUNTING_SHARE`]th of the items:
//! its bound caps what it can hold whatever the run's length. The unbounded contestants' accounting iterations
//! run every item, since how far they get depends on how long they keep issuing.
//!
//! The folder: this file (the scenario, its parameters and charts), `contestants/` (the registry: which of the
//! crate's contestants run, in report order, and which two have no admission), `claims.rs` (the claim table),
//! `conformance.rs` (the sizes the shared checks run at), `routine.rs` (one trial: the checks, then the
//! request's parameters as a [`crate::trial::TrialSpec`] run by the shared trial, and the series-derived
//! metrics), `findings.rs` (the rows behind the report's findings, judged into the summary's `findings`),
//! `figures.rs` (each report section's figures, read from the summary), `report.rs` (the context the templates
//! are rendered with) and `templates/` (`report.md`, every word of the discussion; `headline.md`). The constructions, the checks themselves and the trial are the
//! crate's building blocks, shared with the device scenario: [`crate::contestants`], [`crate::checks`] and
//! [`crate::trial`]. Tests: `tests/backpressure_findings.rs`.

mod claims;
mod conformance;
pub mod contestants;
mod figures;
mod findings;
mod report;
mod routine;

use measure::compare::Relation;
use measure::question::{Alternatives, Guard, Limit, Question};
use measure::scenario::{
    CalibrationSpec, ChartKind, ChartReference, ChartSpec, ParamSpec, ReferenceValue, Repetitions, Scenario,
    SeriesLine, SeriesRole,
};

pub(crate) use contestants::bounded_names;
pub use contestants::{BLOCKING_UNBOUNDED, CONTESTANTS, STREAM_UNBOUNDED};

/// The bound every bounded contestant keeps, as its charts draw it.
const BOUND: ChartReference =
    ChartReference { words: "bound", value: ReferenceValue::Param { key: "limit", times: 1 } };

/// The backpressure scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct BackpressureScenario;

/// The headline metric: the exact high-water mark of outstanding calls (lower is better: the bound is the
/// point).
pub const HEADLINE: &str = "max_outstanding";

/// The family questions' alternatives, at equal construction: every bounded shape that holds `limit` calls in
/// flight on the shared device and sums answers as they come, in each family (every stream as it comes: the
/// scenario runs none outside tokio's cooperative budget, and with at most `limit` = 16 calls outstanding fewer
/// answers can be ready at once than the budget's 128 operations per poll). `stream-buffered` is left out: it hands answers on in item order, which no other family does.
pub const FAMILIES: [&str; 8] = [
    "stream-buffer-unordered",
    "stream-tasks",
    "stream-flume-workers",
    "blocking-threads",
    "blocking-crossbeam-workers",
    "blocking-flume-workers",
    "blocking-std-workers",
    "coroutine-may",
];

/// Milliseconds from the start of the timed run to the first 1 ms sample at the highest outstanding count the
/// sampler saw: how fast a contestant piled calls up. Derived here from the `outstanding` series of every
/// iteration that carries one.
pub const MS_TO_PEAK: &str = "ms_to_peak";

/// The high-water mark of outstanding calls as the 1 ms sampler saw it (the exact one is `max_outstanding`).
pub(crate) const SAMPLED: &str = "max_outstanding_sampled";

/// Mean of the 1 ms samples of outstanding calls over the timed run: with throughput, Little's law gives how
/// long a call spent from admission to answer. Derived here from the `outstanding` series of every iteration
/// that carries one.
pub const MEAN_OUTSTANDING: &str = "mean_outstanding";

/// A bounded contestant's accounting iteration runs one item in this many ([`crate::trial::TrialSpec::accounting_items`]).
pub const ACCOUNTING_SHARE: u64 = 10;

/// The published study's unbounded figure, in `measure/references.json`.
const STUDY_UNBOUNDED: &str = "unbounded virtual threads";

impl Scenario for BackpressureScenario {
    measure::scenario_files! {
        contestants: CONTESTANTS,
        run_trial: routine::run,
        claim_table: claims::table,
        finding_table: findings::table,
        discussion: report::discussion,
        headline_notes: report::headline_notes,
        name: "backpressure",
        title: "Backpressure: does a bound of 16 outstanding 1 ms calls hold, in every shape of both styles?",
        question: "Every item makes one simulated 1 ms I/O call through a shared client, and every contestant is asked \
                   to keep at most 16 calls outstanding. Does each bounded shape keep that bound (stream `buffered` \
                   and `buffer_unordered`, tasks behind a semaphore, worker tasks fed by a bounded channel; a pool of \
                   16 threads, worker threads fed by bounded crossbeam, flume or std channels), and how far do the \
                   shapes with no admission control go: a tokio task per item spawned at once, and an OS thread per \
                   item capped only by what the OS allows? `max_outstanding` is the exact high-water mark of calls \
                   issued and not yet answered; `max_outstanding_sampled` is what a 1 ms sampler saw. Both are counted \
                   in an untimed accounting iteration after the timed one in each process (a tenth of the items for a \
                   bounded contestant, whose bound caps what it can hold whatever the run's length; every item for the \
                   two unbounded ones); throughput and CPU come from the timed iteration, where nothing counts \
                   outstanding calls. In the published JVM study (see the published reference below) the bounded \
                   contestants kept their bound while the unbounded virtual-thread version ran far past it: cheap \
                   concurrency still needs admission control.",
        params: vec![
            ParamSpec::single("items", "Items per iteration, one call each.", 30_000, 10_000, 1, 10_000_000),
            ParamSpec::single(
                "limit",
                "The bound on outstanding calls of every bounded contestant.",
                16,
                16,
                1,
                10_000,
            ),
            ParamSpec::single("service-us", "Duration of one call, in microseconds.", 1_000, 1_000, 10, 10_000_000),
            ParamSpec::single(
                "budget-ms",
                "Time budget of one iteration: a run still going then is cut short, and says so.",
                60_000,
                15_000,
                10,
                600_000,
            ),
        ],
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec!["stream-buffered", "blocking-threads"],
            metrics: vec!["ops_per_sec", "cpu_us_per_call"],
            params: vec![("items", 20000)],
            seconds_per_trial: 2.0,
            why: "a stream and a thread pool under the bound of 16, at 20,000 items (a third of the run's: 1.25 s an \
                  iteration instead of 3.75), so the calibration fits; shorter runs spread more, so the ratio errs \
                  large",
        }),
        table_metrics: vec![
            "max_outstanding",
            "max_outstanding_sampled",
            "ops_per_sec",
            MEAN_OUTSTANDING,
            "ideal_fraction",
            MS_TO_PEAK,
            "cpu_us_per_call",
            "threads",
            "peak_rss_mib",
            "spawn_ms",
            "cut_short",
            "completed_fraction",
            "idle_call_ms",
            "wall_ms",
        ],
        charts: vec![
            ChartSpec {
                id: "max-outstanding",
                title: "Most calls outstanding at once, exact (log scale; dashed: the bound)",
                metric: "max_outstanding",
                unit: "calls outstanding",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[BOUND],
            },
            ChartSpec {
                id: "throughput",
                title: "Calls answered per second (log scale; dashed: what the bound allows)",
                metric: "ops_per_sec",
                unit: "calls per second",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[ChartReference {
                    words: "ceiling: bound ÷ service time",
                    value: ReferenceValue::Quotient { numerator: "limit", denominator: "service_us", times: 1_000_000 },
                }],
            },
            ChartSpec {
                id: "outstanding-over-time",
                title: "Calls outstanding over time (first accounting iteration; log scale; dashed: the bound)",
                metric: "max_outstanding_sampled",
                unit: "calls outstanding",
                kind: ChartKind::Series {
                    series: &[SeriesLine {
                        series: "outstanding",
                        words: "calls outstanding",
                        role: SeriesRole::Measured,
                    }],
                },
                log_scale: true,
                references: &[BOUND],
            },
        ],
        /// The backpressure question: a construction that lets more than the bound out cannot be the answer, and
        /// among those that hold it, the least CPU per call decides.
        questions: {
            let bound = Guard {
                metric: "max_outstanding",
                words: "most calls outstanding",
                relation: Relation::AtMost,
                limit: Limit::Param { param: "limit", factor: 1.0 },
                why: "the bound is the point: a construction that lets more out does not apply backpressure",
            };
            let family = |id, ask, metric, words, higher| {
                Question::new(id, ask, Alternatives::named(&FAMILIES), metric, words, higher)
                    .of_families()
                    .guarded(bound.clone())
            };
            vec![
                Question::new(
                    "bound",
                    "Does my bound hold, and which construction holds it at the least CPU per call?",
                    Alternatives::Candidates,
                    "cpu_us_per_call",
                    "CPU per call (µs)",
                    false,
                )
                .situation("a bound of 16 outstanding calls")
                .guarded(bound.clone()),
                family(
                    "family",
                    "Under the same bound, at equal construction (`limit` calls in flight, each on the shared device, \
                     answers summed as they come, every stream as it comes under tokio's cooperative budget): \
                     tokio streams and tasks, threads, or `may` coroutines, on calls answered per second?",
                    "ops_per_sec",
                    "calls answered per second",
                    true,
                )
                .situation("a bound of 16 outstanding calls: which family, on throughput"),
                family(
                    "family-cpu",
                    "Under the same bound, at equal construction: which family answers at the least CPU per call?",
                    "cpu_us_per_call",
                    "CPU per call (µs)",
                    false,
                )
                .situation("a bound of 16 outstanding calls: which family, on CPU per call"),
            ]
        },
    }

    fn repetitions(&self, quick: bool) -> Repetitions {
        // A bounded timed iteration lasts items × ~1.06 ms / limit (2.0 s at 30,000 items), its accounting
        // iteration a tenth of that; the unbounded contestants' last a few seconds at most. Five fresh processes
        // (the lab's default: a separation of 5 + 5 process medians has p = 0.004) of one timed and one accounting
        // iteration keep eleven contestants near 3 minutes; a warm-up buys nothing in a run this long. The items
        // were cut from 60,000 so that `lab all` fits its 45 minutes: the bound is checked on every one of 30,000
        // calls still, and calls per second, the class of the rates compared here, is the one the calibration tells
        // apart best (1.02× on the 2-core testbed).
        crate::trial::repetitions(quick, 5)
    }

    /// tokio's runtime and `may`'s carriers, each one per CPU.
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("device/src/contestants/stream.rs", "std::thread::available_parallelism()")),
            RuntimeSize::may_per_core(Code::new(
                "device/src/contestants/coroutine.rs",
                "pipelines::coroutine::carriers_per_core()",
            )),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::record::TrialRequest;
    use measure::scenario::{CollectingSink, TrialError};

    #[test]
    fn the_family_questions_compare_bounded_constructions_of_every_family_under_the_bound_on_both_metrics() {
        let questions = BackpressureScenario.questions();
        let family: Vec<_> = questions.iter().filter(|q| q.family).collect();
        let metrics: Vec<&str> = family.iter().map(|q| q.metric).collect();
        assert_eq!(metrics, ["ops_per_sec", "cpu_us_per_call"]);
        let bounded = contestants::bounded_names();
        for q in family {
            assert_eq!(q.guards.first().map(|g| g.metric), Some("max_outstanding"), "{}: the bound guards it", q.id);
            let Alternatives::Named(names) = &q.alternatives else { panic!("{} names its alternatives", q.id) };
            for name in names {
                assert!(bounded.contains(name), "{name}: the same admission (a bound of `limit`) as every other");
            }
            assert!(!names.iter().any(|n| n == "stream-buffered"), "in item order, unlike every other family");
            for family in ["stream", "blocking", "coroutine"] {
                assert!(names.iter().any(|n| n.starts_with(family)), "{}: {family} among {names:?}", q.id);
            }
        }
    }

    #[test]
    fn parameters_are_sane() {
        let params = BackpressureScenario.params();
        let names: Vec<&str> = params.iter().map(|p| p.name).collect();
        assert_eq!(names, ["items", "limit", "service-us", "budget-ms"]);
        for p in &params {
            assert!(!p.sweep, "{} is a single value", p.name);
            for v in p.default.iter().chain(&p.quick) {
                assert!((p.min..=p.max).contains(v), "{} = {v} outside {}..={}", p.name, p.min, p.max);
            }
        }
        let get = |name: &str| params.iter().find(|p| p.name == name).map(|p| (p.default[0], p.quick[0]));
        assert_eq!(get("items"), Some((30_000, 10_000)));
        assert_eq!(get("limit"), Some((16, 16)));
        assert_eq!(get("service-us"), Some((1_000, 1_000)));
        assert_eq!(get("budget-ms"), Some((60_000, 15_000)));
    }

    #[test]
    fn the_table_has_every_metric_the_report_needs() {
        let metrics = BackpressureScenario.table_metrics();
        for m in [
            "max_outstanding",
            "max_outstanding_sampled",
            "ops_per_sec",
            "ideal_fraction",
            "cpu_us_per_call",
            "threads",
            "peak_rss_mib",
            "spawn_ms",
            "cut_short",
            "wall_ms",
        ] {
            assert!(metrics.contains(&m), "{m} missing");
        }
        assert_eq!(metrics[0], HEADLINE);
        assert!(!BackpressureScenario.higher_is_better());
    }

    #[test]
    fn the_full_run_fits_its_budget() {
        let full = BackpressureScenario.repetitions(false);
        let quick = BackpressureScenario.repetitions(true);
        assert_eq!((full.forks, full.warmup, full.iterations, full.accounting), (5, 0, 1, 1));
        assert_eq!((quick.forks, quick.warmup, quick.iterations, quick.accounting), (1, 0, 1, 1));
        // 9 bounded contestants × 5 forks × (30,000 + 3,000) × 1.06 ms / 16, plus the two unbounded ones:
        // well under 3 minutes.
        let bounded_s = 9.0 * 5.0 * 33_000.0 * 1.06e-3 / 16.0;
        assert!(bounded_s < 120.0, "{bounded_s} s");
    }

    #[test]
    fn an_unknown_contestant_is_refused() {
        let request = TrialRequest {
            scenario: "backpressure".to_string(),
            contestant: "nobody".to_string(),
            ..crate::trial::test_request()
        };
        let result = BackpressureScenario.run_trial(&request, &mut CollectingSink::default());
        assert!(matches!(result, Err(TrialError::UnknownContestant(name)) if name == "nobody"));
    }
}
