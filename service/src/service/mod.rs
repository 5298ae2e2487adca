//! The service scenario (`service`): requests arrive on a seeded schedule whether or not earlier ones finished,
//! each does W µs of CPU work over k stages, calls a dependency of L ms under a concurrency bound and replies; in
//! every style as its experts write a service, at fixed arrival rates and a sweep of W. Latency counts from each
//! request's scheduled start.
//!
//! The folder, in the order it is read:
//!
//! - [`contestants`]: every style's request path, and one run of it ([`contestants::run`]).
//! - [`conformance`]: the checks every contestant passes for its figures to count, with the calls kit.
//! - [`routine`]: one trial: calibration, conformance, then the harness's loop.
//! - [`claims`]: the claim table; [`findings`]: the report's findings as judged rows.
//! - [`report`]: the report's figures, rendered with `templates/report.md`.
//!
//! - [`search`]: the sustainable-rate search a `rate_0` phase makes in each process before its timed runs.
//!
//! The phases, per work W: the search (`rate_0`), one fixed rate, and at the highest W and rate the dependency
//! losing capacity halfway, under each style's own bound and under AIMD (`loss_pct_90-aimd_0`, `-aimd_1`).
//! Where it stands against issue 55: the common rates as shares of the best style's sustainable rate and 80% of
//! each style's own (which need the rates an earlier run found), whether the parts' answers predicted the whole,
//! and `lab advise --service` are not here yet.

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod findings;
pub mod report;
pub mod routine;
pub mod search;

use measure::compare::Relation;
use measure::question::{Alternatives, Guard, Limit, Question};
use measure::record::{RunParams, TrialParams};
use measure::scenario::{
    ChartKind, ChartReference, ChartSpec, ParamSpec, ReferenceValue, Repetitions, Scenario, SeriesLine, SeriesRole,
};

use crate::analysis::{
    CPU_PER_REQUEST, GENERATOR_LAG, GOODPUT, GOODPUT_AFTER_LOSS, IN_TIME_SHARE, MOST_CALLS, MOST_OUTSTANDING, P99,
};
use contestants::Contestant;
use findings::{KEPT_SHARE, LAG_LIMIT_US};
use search::SUSTAINABLE_RATE;

/// CPU work per request a full run sweeps, µs.
const WORK_US: [u64; 3] = [2, 20, 200];
/// The work a `--quick` run sweeps.
const QUICK_WORK_US: [u64; 1] = [200];
/// Arrival rates a run sweeps, per second: 0 is the sustainable-rate search (each process finds the highest
/// rate its style answers 99% of within the deadline, then runs at it); 8,000 is 80% of what 200 µs of work
/// leaves two cores for, the load of the capacity-loss phase and its healthy control.
const RATES: [u64; 2] = [SEARCH, 8_000];
/// The `rate` level that asks for the sustainable-rate search.
pub const SEARCH: u64 = 0;
/// The shares of the dependency's slots lost halfway through a run, %: none, and the loss phase's.
const LOSS_PCT: [u64; 2] = [0, 90];
/// The admission policies: the style's natural bound alone (0), and AIMD's limit under it (1).
const AIMD: [u64; 2] = [0, 1];

/// The sustainable-rate search's phases of the default sweeps (a test holds them to the planner's).
const SEARCH_PHASES: [&str; 3] = [
    "work_us_2-rate_0-loss_pct_0-aimd_0",
    "work_us_20-rate_0-loss_pct_0-aimd_0",
    "work_us_200-rate_0-loss_pct_0-aimd_0",
];
/// The fixed-rate phases of the default sweeps with a healthy dependency.
const FIXED_PHASES: [&str; 3] = [
    "work_us_2-rate_8000-loss_pct_0-aimd_0",
    "work_us_20-rate_8000-loss_pct_0-aimd_0",
    "work_us_200-rate_8000-loss_pct_0-aimd_0",
];
/// The capacity-loss phases of the default sweeps: the styles' own bounds, then AIMD.
const LOSS_PHASES: [&str; 2] = ["work_us_200-rate_8000-loss_pct_90-aimd_0", "work_us_200-rate_8000-loss_pct_90-aimd_1"];

/// The parameters of one value: name, help, default, `--quick` value, least and most accepted.
const SINGLE: [(&str, &str, u64, u64, u64, u64); 9] = [
    ("poisson", "1: seeded Poisson arrivals; 0: evenly spaced.", 1, 1, 0, 1),
    ("stages", "Stages the work passes through, each an equal share.", 3, 3, 1, 64),
    ("dependency-ms", "The dependency's service time per call.", 2, 2, 0, 10_000),
    (
        "dependency-bound",
        "The dependency's slots, and every style's bound on calls in flight (the blocking pools' size).",
        64,
        64,
        1,
        10_000,
    ),
    ("admission", "Requests inside the service at once; an arrival beyond is shed.", 256, 256, 1, 100_000),
    ("queue", "Capacity of each channel between stages.", 64, 64, 1, 100_000),
    ("deadline-ms", "A reply later than this after the scheduled start has timed out.", 20, 20, 1, 600_000),
    ("run-ms", "How long requests arrive for, per timed run.", 400, 300, 10, 600_000),
    ("probe-ms", "How long requests arrive for, per probing run of the sustainable-rate search.", 60, 40, 10, 60_000),
];

/// Every parameter: the four sweeps (a phase is `work_us_<W>-rate_<R>-loss_pct_<L>-aimd_<A>`, only the
/// combinations [`ServiceScenario::keeps_phase`] keeps), then [`SINGLE`].
fn params() -> Vec<ParamSpec> {
    let work = "CPU work per request, µs, each value its own phase.";
    let rate = "Arrivals per second, each value its own phase; 0: the sustainable-rate search, each process finding \
                the highest rate its style answers 99% of within the deadline, then running at it.";
    let loss = "The share of the dependency's slots lost halfway through the run, %, each value its own phase; a \
                loss is run only at the highest work and the highest rate.";
    let aimd = "1: admission by AIMD (a reply later than the deadline is a drop) under the style's own bound, 0: the \
                style's bound alone; AIMD only where the dependency loses capacity.";
    let sweeps = [
        ParamSpec::sweep("work-us", work, &WORK_US, &QUICK_WORK_US, 0, 100_000),
        ParamSpec::sweep("rate", rate, &RATES, &RATES, 0, 1_000_000),
        ParamSpec::sweep("loss-pct", loss, &LOSS_PCT, &LOSS_PCT, 0, 100),
        ParamSpec::sweep("aimd", aimd, &AIMD, &AIMD, 0, 1),
    ];
    let single = SINGLE
        .iter()
        .map(|&(name, help, default, quick, min, max)| ParamSpec::single(name, help, default, quick, min, max));
    sweeps.into_iter().chain(single).collect()
}

/// The deadline, on a chart of latencies in µs.
const DEADLINE: ChartReference =
    ChartReference { words: "deadline", value: ReferenceValue::Param { key: "deadline_ms", times: 1_000 } };

/// Where the coroutine contestants apply overload's `may` configuration (one carrier per CPU).
const APPLIES_MAY: [measure::runtime_size::Code; 1] = [measure::runtime_size::Code::new(
    "service/src/service/contestants/mod.rs",
    "overload::job::coroutine_config().apply()",
)];

/// The service scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServiceScenario;

/// A question asked at some phases only.
trait AtPhases {
    /// The same question, asked at `phases` only.
    fn at(self, phases: &[&'static str]) -> Question;
}

impl AtPhases for Question {
    fn at(mut self, phases: &[&'static str]) -> Question {
        self.phases = phases.to_vec();
        self
    }
}

/// The guard every question carries: a figure from a run whose schedule was not kept is not an answer.
fn schedule_kept() -> Guard {
    Guard {
        metric: GENERATOR_LAG,
        words: "the load generator's p99 lag behind the schedule (µs)",
        relation: Relation::AtMost,
        limit: Limit::Value(LAG_LIMIT_US),
        why: "a latency measured while the load generator fell behind its schedule understates the tail",
    }
}

/// The guard of the tail and CPU questions: a style that does not answer its callers in time is no answer.
fn served() -> Guard {
    Guard {
        metric: IN_TIME_SHARE,
        words: "share of the arrivals answered within the deadline",
        relation: Relation::AtLeast,
        limit: Limit::Value(KEPT_SHARE),
        why: "a short tail or a low cost bought by shedding or timing out callers serves nobody",
    }
}

impl Scenario for ServiceScenario {
    measure::scenario_files! {
        contestants: Contestant::ALL,
        run_trial: routine::run_trial,
        claim_table: claims::table,
        finding_table: findings::table,
        discussion: report::render,
        name: "service",
        title: "A service at saturation: open arrivals through CPU stages and a bounded dependency call, in every style",
        question: "A service whose requests arrive whether or not the last one finished: each does some CPU work over \
                   a few stages, calls a dependency with bounded concurrency, and replies. Which style answers the \
                   most requests within the deadline, keeps the tail lowest, and costs the least CPU per request, as \
                   the work per request grows? Requests arrive on a seeded schedule (Poisson by default); latency \
                   counts from each one's scheduled start, so a style that falls behind cannot hide it.",
        params: params(),
        headline_metric: GOODPUT,
        higher_is_better: true,
        trade_off_metrics: vec![(P99, false), (CPU_PER_REQUEST, false)],
        table_metrics: vec![
            GOODPUT,
            IN_TIME_SHARE,
            "latency_p50_us",
            P99,
            "latency_p999_us",
            "shed_per_sec",
            "timed_out_per_sec",
            CPU_PER_REQUEST,
            "cores_used",
            GENERATOR_LAG,
            MOST_OUTSTANDING,
            MOST_CALLS,
        ],
        charts: vec![
            ChartSpec {
                id: "goodput",
                title: "Requests answered within the deadline per second (dashed: arrivals)",
                metric: GOODPUT,
                unit: "requests per second",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[ChartReference { words: "arrivals", value: ReferenceValue::Param { key: "rate", times: 1 } }],
            },
            ChartSpec {
                id: "p99",
                title: "p99 from the scheduled start (log scale; dashed: the deadline)",
                metric: P99,
                unit: "µs, scheduled start to reply",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[DEADLINE],
            },
            ChartSpec {
                id: "cpu",
                title: "CPU per request, the whole process",
                metric: CPU_PER_REQUEST,
                unit: "µs per request",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[],
            },
            ChartSpec {
                id: "tail-over-time",
                title: "p99 from the scheduled start, per 50 ms window of arrivals (log scale; dashed: the deadline)",
                metric: P99,
                unit: "µs",
                kind: ChartKind::Series {
                    series: &[SeriesLine { series: "caller_p99_us", words: "p99", role: SeriesRole::P99 }],
                },
                log_scale: true,
                references: &[DEADLINE],
            },
            ChartSpec {
                id: "inside-over-time",
                title: "Requests inside the service, the most per 50 ms window of arrivals (dashed: the admission \
                        bound)",
                metric: MOST_OUTSTANDING,
                unit: "requests",
                kind: ChartKind::Series {
                    series: &[SeriesLine { series: routine::INSIDE, words: "requests inside", role: SeriesRole::Measured }],
                },
                log_scale: false,
                references: &[ChartReference {
                    words: "admission bound",
                    value: ReferenceValue::Param { key: "admission", times: 1 },
                }],
            },
        ],
        questions: vec![
            Question::new(
                "service-sustainable",
                "Which style sustains the highest arrival rate, answering 99% within the deadline, at each work?",
                Alternatives::Candidates,
                SUSTAINABLE_RATE,
                "the highest arrival rate answered 99% within the deadline, found per process (per second)",
                true,
            )
            .of_families()
            .situation("a service under open arrivals: the rate it sustains")
            .guarded(schedule_kept())
            .guarded(served())
            .at(&SEARCH_PHASES),
            Question::new(
                "service-goodput",
                "Which style answers the most requests within the deadline, at each work and arrival rate?",
                Alternatives::Candidates,
                GOODPUT,
                "requests answered within the deadline per second",
                true,
            )
            .of_families()
            .situation("a service under open arrivals: requests served in time")
            .guarded(schedule_kept())
            .at(&FIXED_PHASES),
            Question::new(
                "service-loss",
                "When the dependency loses capacity, which style and policy answers the most requests in time after \
                 the loss?",
                Alternatives::Candidates,
                GOODPUT_AFTER_LOSS,
                "requests answered within the deadline per second after the dependency's loss",
                true,
            )
            .of_families()
            .situation("a service whose dependency loses capacity: requests served in time")
            .guarded(schedule_kept())
            .at(&LOSS_PHASES),
            Question::new(
                "service-tail",
                "Which style keeps the p99 from the scheduled start lowest, while answering 99% within the deadline?",
                Alternatives::Candidates,
                P99,
                "p99 from the scheduled start (µs)",
                false,
            )
            .of_families()
            .situation("a service under open arrivals: its tail")
            .guarded(schedule_kept())
            .guarded(served())
            .at(&FIXED_PHASES),
            Question::new(
                "service-cpu",
                "Which style costs the least CPU per request, while answering 99% within the deadline?",
                Alternatives::Candidates,
                CPU_PER_REQUEST,
                "CPU per request (µs, the whole process)",
                false,
            )
            .of_families()
            .situation("a service under open arrivals: CPU per request")
            .guarded(schedule_kept())
            .guarded(served())
            .at(&FIXED_PHASES),
        ],
    }

    /// A loss only at the highest work and the highest rate (never the search); AIMD only where there is a loss.
    fn keeps_phase(&self, phase: &TrialParams, params: &RunParams) -> bool {
        let level = |key: &str| phase.get(key).copied().unwrap_or(0);
        let highest = |key: &str| params.get(key).and_then(|levels| levels.iter().max()).copied().unwrap_or(0);
        let loss = level("loss_pct") > 0;
        let at_the_top =
            level("rate") != SEARCH && level("rate") == highest("rate") && level("work_us") == highest("work_us");
        (!loss || at_the_top) && (loss || level("aimd") == 0)
    }

    fn repetitions(&self, quick: bool) -> Repetitions {
        // One timed run of 1 s and one accounting run a quarter as long per process; a warm-up buys nothing in a
        // run of thousands of requests.
        Repetitions { forks: if quick { 1 } else { 5 }, warmup: 0, iterations: 1, accounting: 1 }
    }

    /// tokio's runtime and `may`'s carriers, each one per CPU.
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("service/src/service/contestants/mod.rs", "Builder::new_multi_thread()")),
            RuntimeSize::may_per_core(Code::new("overload/src/job.rs", "CoroutineConfig::per_core()"))
                .relying_on(&APPLIES_MAY),
        ]
    }
}

#[cfg(test)]
mod tests {
    use measure::phase::PhaseKey;

    use super::*;

    /// The phases a run of the default sweeps (`quick` or not) plans, as the lab plans them.
    fn planned(quick: bool) -> Vec<String> {
        let specs = params();
        let params: RunParams =
            specs.iter().map(|p| (p.key(), if quick { p.quick.clone() } else { p.default.clone() })).collect();
        let mut phases = vec![(PhaseKey::default(), TrialParams::new())];
        for spec in specs.iter().filter(|s| s.sweep) {
            phases = phases
                .into_iter()
                .flat_map(|(key, levels)| {
                    params[&spec.key()].iter().map(move |&v| {
                        let mut levels = levels.clone();
                        levels.insert(spec.key(), v);
                        (key.clone().with(&spec.key(), v), levels)
                    })
                })
                .collect();
        }
        phases
            .into_iter()
            .filter(|(_, levels)| ServiceScenario.keeps_phase(levels, &params))
            .map(|(k, _)| k.to_string())
            .collect()
    }

    #[test]
    fn a_full_run_searches_and_runs_a_fixed_rate_at_every_work_and_loses_capacity_once() {
        let phases = planned(false);
        let named: Vec<&str> = SEARCH_PHASES.iter().chain(&FIXED_PHASES).chain(&LOSS_PHASES).copied().collect();
        assert_eq!(phases.len(), named.len(), "{phases:?}");
        assert!(named.iter().all(|n| phases.iter().any(|p| p == n)), "{phases:?}");
    }

    #[test]
    fn a_quick_run_keeps_one_phase_of_each_kind() {
        let phases = planned(true);
        assert_eq!(phases, [SEARCH_PHASES[2], FIXED_PHASES[2], LOSS_PHASES[0], LOSS_PHASES[1]]);
    }
}
