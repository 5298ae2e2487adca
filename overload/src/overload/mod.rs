//! The overload scenario: a simulated dependency loses capacity once the limit has settled (500 slots of 5 ms
//! drop to 100), and every limiter (fixed; AIMD on rejections and on 1.5×, 2× and 4× the no-load latency;
//! Gradient2; Vegas; each updated per call as Netflix's `SimpleLimiter` runs it)
//! runs in the stream, blocking and coroutine families, plus one unbounded stream and one unbounded thread
//! contestant.
//!
//! This file is the lab's view of it ([`OverloadScenario`]: parameters, contestants, metrics, charts). The
//! scenario's parts, in the order they are read:
//!
//! - [`contestants`]: every contestant (the registry in `contestants/mod.rs`, one file per construction).
//! - [`conformance`]: checks every contestant passes for its figures to count.
//! - [`claims`]: the claim table the harness judges.
//! - [`findings`]: the report's findings, judged rows beside the claims.
//! - [`advice`]: how it answers a user's shape of work in `lab advise`.
//! - `routine`: one trial in its own process: conformance, then the harness's loop over one run at a time,
//!   each verified and analysed once its clocks have stopped.
//! - [`figures`]: the report's figures (tables, ratios, derived numbers), computed from the summary before
//!   anything renders.
//! - [`report`]: those figures, with the verdicts of the claims and findings, rendered with
//!   `templates/report.md`.

pub mod advice;
pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod figures;
pub mod findings;
pub mod report;
mod routine;

use measure::compare::Relation;
use measure::question::{Alternatives, Guard, Limit, Question};
use measure::scenario::{CalibrationSpec, ChartKind, ChartSpec, ParamSpec, Scenario, SeriesLine, SeriesRole};

use crate::analysis::HEADLINE;
use crate::config::{AFTER_DROP_CEILING, LIMITERS};
use crate::policy::{family_questions, FamilyAsk};
use contestants::Contestant;

/// Calls per iteration unless `--calls` says otherwise.
const DEFAULT_CALLS: u64 = 50_000;

/// The family question at each limiter: on the batch job's tail after the loss (and on CPU per call).
const FAMILY: FamilyAsk = FamilyAsk {
    metric: HEADLINE,
    metric_words: "p99 after the drop, admission to reply (µs, the dependency's queue included)",
    higher_is_better: false,
    which: "keeps the dependency's tail latency lowest after the loss",
    cpu_words: "CPU per call (µs, every thread of the trial process, the dependency's timer threads included)",
    situation: "the batch job",
};

/// The overload scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct OverloadScenario;

impl Scenario for OverloadScenario {
    measure::scenario_files! {
        contestants: Contestant::all(),
        run_trial: routine::run_trial,
        claim_table: claims::table,
        finding_table: findings::table,
        discussion: report::render,
        advise: advice::advise,
        name: "overload",
        title: "Overload: a dependency loses capacity mid-run, under a fixed bound and adaptive limits, in both styles",
        question: "When a dependency suddenly serves fewer concurrent calls, what happens to latency, throughput, \
                   failed calls and queued work under a fixed concurrency bound, under adaptive limits configured as \
                   Netflix's concurrency-limits configures them by default (each algorithm updated on every call, as \
                   its `SimpleLimiter` runs it: AIMD cutting on the dependency's rejections, AIMD on a timeout of \
                   1.5×, 2× and 4× the no-load latency, Gradient2, Vegas), and with no bound at all, written as a \
                   demand-driven stream, as a pool of blocking threads and as a pool of `may` coroutines? A simulated \
                   dependency with 500 concurrent slots of 5 ms (±0.5 ms of seeded jitter) that queues what it cannot \
                   serve, as the published JVM experiment's did (latency includes its queue; `--queue-limit N` rejects \
                   beyond N queued instead), drops to 100 slots once the limit has settled: a healthy phase of at \
                   least 300 ms that ends when the limit has stopped drifting (checked on its exact history), not at a \
                   call count. Latency runs from admission at the gate to the caller seeing the reply, as Netflix \
                   measures it; what a caller sees, the gate wait included, is reported beside it. The published JVM \
                   experiment made 200,000 calls, the drop at the 100,000th; here a run makes fewer (`--calls`: 50,000 \
                   by default, 12,000 with `--quick`; the discussion gives this run's count, and `--calls 200000` \
                   gives the after-drop phase the published length). Latency, throughput, calls outstanding (counted \
                   from every call's record) and the limiter's decisions come from a timed run in each process, where \
                   no instrument runs (a watcher thread polls the gate's limit every 2 ms to trigger the drop, the \
                   same for every family); threads, allocations and heap from an untimed accounting run of a twentieth \
                   of the calls after it, which drops at its half-way call.",
        params: vec![
            ParamSpec::single(
                "calls",
                "Calls per iteration; capacity drops once the limit has settled (`healthy-ms`, `settle-ms`), the \
                 rest of the calls go to the degraded dependency (the published run made 200,000).",
                DEFAULT_CALLS,
                12_000,
                100,
                10_000_000,
            ),
        ]
        .into_iter()
        .chain(crate::config::dependency_params())
        .chain([
            ParamSpec::single(
                "queue-limit",
                "Calls the dependency queues before rejecting with an overload error, as a real service answers \
                 503. 0 (default): it queues without limit, as the published experiment's dependency did, so \
                 latency includes its queue and `aimd`'s only loss signal is a call slower than `timeout-ms`; \
                 N (100 was the earlier default, one service time of the degraded capacity): a labelled variant \
                 that gives `aimd` a rejection to cut on, but caps the queue a fixed bound can build.",
                0,
                0,
                0,
                10_000_000,
            ),
            ParamSpec::single(
                "healthy-ms",
                "The healthy phase lasts at least this long before the capacity may drop.",
                300,
                80,
                1,
                3_600_000,
            ),
            ParamSpec::single(
                "settle-ms",
                "The span over which the limit must have stopped drifting before the drop (`settle-drift-pct`).",
                200,
                50,
                1,
                3_600_000,
            ),
            ParamSpec::single(
                "settle-drift-pct",
                "The limit has settled when its mean over the second half of `settle-ms` is within this many per \
                 cent of its mean over the first half (a limit still climbing or falling is not; a steady \
                 oscillation is).",
                10,
                10,
                0,
                100,
            ),
            ParamSpec::single(
                "healthy-max-ms",
                "The drop happens by this time whatever the limit does (a run that reaches it fails its \
                 `settled_before_drop` check).",
                5_000,
                2_000,
                1,
                3_600_000,
            ),
            ParamSpec::single(
                "drop-at-call",
                "0 (default): the capacity drops once the limit has settled. N: a timed run's capacity drops when \
                 call N is issued, settled or not, as the published experiment's did (`--calls 200000 \
                 --drop-at-call 100000` is its size; `settled_before_drop` then says whether each limit had settled \
                 by that call). Not the default: on the lab's 2 shared cores it took about 3× the default run's \
                 time per process (stream-fixed, blocking-aimd and coroutine-vegas: 32 s against 11 s), about 16 \
                 minutes at 5 processes, beyond the 6-minute budget.",
                0,
                0,
                0,
                10_000_000,
            ),
            ParamSpec::single(
                "windowed",
                "1: wrap every adaptive limiter in the lab's short window (at least 10 samples and twice the \
                 smallest latency), a labelled variant; 0 (default): each updates on every sample, as Netflix's \
                 `SimpleLimiter` runs it. Windowed AIMD climbs one per window (about 10 ms), so it needs seconds \
                 and a few hundred thousand calls to settle before the drop (`--calls 300000`); a run whose calls \
                 end first fails `settled_before_drop`.",
                0,
                0,
                0,
                1,
            ),
        ])
        .chain(crate::config::limit_params(
            "The adaptive limiters' ceiling (default: the fixed bound), and their blocking and coroutine pools' size.",
        ))
        .chain([
            ParamSpec::single(
                "timeout-ms",
                "`aimd` counts a call slower than this as a drop (a timeout; Netflix's default 5 s).",
                5_000,
                5_000,
                1,
                3_600_000,
            ),
            ParamSpec::single(
                "unbounded-threads",
                "Threads of blocking-unbounded (the OS caps what is possible).",
                10_000,
                2_000,
                1,
                100_000,
            ),
        ])
        .collect(),
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec!["stream-aimd", "blocking-fixed"],
            metrics: vec!["latency_p99_us", "caller_latency_p99_us", "ops_per_sec", "cpu_us_per_call"],
            params: Vec::new(),
            seconds_per_trial: 2.8,
            why: "an adaptive limiter and a fixed bound, through the dependency's loss of capacity: tail latency after \
                  a transition, the class whose noise is the tail's",
        }),
        // Not the callers' latency: in a closed loop a pool's callers wait by its size (Little's law: the pool ÷
        // calls per second), while the stream holds one pending acquire, so it is not comparable across families
        // (the service scenario counts every family's callers from one schedule).
        trade_off_metrics: vec![("after_drop.ops_per_sec", true), ("after_drop.errors", false)],
        // Nine, so the results table's second part stays 8 columns wide; the report's discussion gives the other
        // figures per contestant in tables of its own (`templates/report.md`). What a caller sees, gate wait
        // included, is left out: in a closed loop a pool's callers wait about pool size ÷ throughput (Little's law)
        // while the stream holds one pending acquire, so that column would compare pool sizes, not families.
        table_metrics: vec![
            "after_drop.latency_p99_us",
            "before_drop.ops_per_sec",
            "after_drop.ops_per_sec",
            "after_drop.errors",
            "limit_at_drop",
            "limit_at_end",
            "after_drop.limit_mean",
            "wall_ms",
            "cpu_us_per_call",
        ],
        charts: vec![
            ChartSpec {
                id: "after-drop-p99",
                title: "p99 latency of calls issued after the drop (log scale)",
                metric: "after_drop.latency_p99_us",
                unit: "µs, admission to reply seen",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[],
            },
            ChartSpec {
                id: "after-drop-throughput",
                title: "Throughput after the drop (dashed: the ceiling, capacity after the drop ÷ service time)",
                metric: "after_drop.ops_per_sec",
                unit: "calls per second",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[AFTER_DROP_CEILING],
            },
            ChartSpec {
                id: "wall",
                title: "Whole run, wall time",
                metric: "wall_ms",
                unit: "ms",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[],
            },
            ChartSpec {
                id: "p99-over-time",
                title:
                    "p50 and p99 latency per 100 ms window, by completion time (first measured iteration; log scale)",
                metric: "latency_p99_us",
                unit: "µs",
                kind: ChartKind::Series {
                    series: &[
                        SeriesLine { series: "p50_latency_us", words: "p50", role: SeriesRole::P50 },
                        SeriesLine { series: "p99_latency_us", words: "p99", role: SeriesRole::P99 },
                    ],
                },
                log_scale: true,
                references: &[],
            },
            ChartSpec {
                id: "limit-over-time",
                title: "Per 100 ms window: the most calls outstanding, the limit's peak, the most in service and the \
                        capacity (log scale)",
                metric: "max_outstanding",
                unit: "calls",
                kind: ChartKind::Series {
                    series: &[
                        SeriesLine { series: "limit", words: "the limit's peak", role: SeriesRole::Limit },
                        SeriesLine { series: "capacity", words: "capacity", role: SeriesRole::Limit },
                        SeriesLine {
                            series: "outstanding",
                            words: "most calls outstanding",
                            role: SeriesRole::Measured,
                        },
                        SeriesLine { series: "in_service", words: "most calls in service", role: SeriesRole::Measured },
                    ],
                },
                log_scale: true,
                references: &[],
            },
        ],
        /// The batch job's two questions of policy, as the published experiment asked them: what the others
        /// sharing the dependency suffer after the loss (its p99, admission to reply, its queue included), guarded
        /// against a limiter that never filled the healthy dependency; and how long the job takes. Then the family
        /// question at each limiter apart ([`FAMILY`]): every family goes through the same gate, so only under one
        /// limit are the families built alike.
        questions: {
            let under_use = Guard {
                metric: "before_drop.ops_per_sec",
                words: "throughput before the drop",
                relation: Relation::AtLeast,
                limit: Limit::Counterpart { suffix: "fixed", factor: claims::UNDER_USE },
                why: "a limit that never filled the healthy dependency keeps its tail short by leaving it idle",
            };
            vec![
                Question::new(
                    "batch-tail",
                    "A batch job against a dependency that loses capacity: which admission policy keeps the \
                     dependency's tail latency down after the loss?",
                    Alternatives::Candidates,
                    HEADLINE,
                    "p99 after the drop, admission to reply (µs, the dependency's queue included)",
                    false,
                )
                .situation("a batch job whose dependency loses capacity: its tail")
                .guarded(under_use),
                Question::new(
                    "batch-time",
                    "Which admission policy finishes that batch job soonest?",
                    Alternatives::Candidates,
                    "wall_ms",
                    "the whole job's wall time (ms)",
                    false,
                )
                .situation("the same batch job: its run time"),
            ]
            .into_iter()
            .chain(family_questions(&LIMITERS, &FAMILY, &[]))
            .collect()
        },
    }

    // Five processes, as every scenario runs: a timed iteration lasts seconds (a healthy phase of at least 300 ms,
    // then the rest of 50,000 calls at the degraded ceiling of 20,000 calls/s or below; unwindowed Vegas settles
    // near 50 before the drop, so its runs take about 5 s), and the first process also runs its conformance
    // checks side by side after them (about 0.4 s). One process of each of the 24 contestants took 67 s on the lab's 2 cores, so
    // five take about 5.6 minutes, within the six-minute budget (the calls are not trimmed for it: fewer calls
    // shorten the after-drop phase, so the adaptive limiters' transient after the drop would weigh more in their
    // p99). A warm-up buys nothing in a run this long.
    crate::config::shared_scenario_methods!(
        "overload/src/overload/contestants/stream.rs",
        "Builder::new_multi_thread().build()"
    );
}
