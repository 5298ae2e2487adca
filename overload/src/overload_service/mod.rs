//! The overload service scenario (`overload-service`): calls *arrive* on a schedule, whether or not earlier ones
//! finished, as a server's requests do, against the overload scenario's dependency (500 slots of 5 ms) that
//! drops to 100 slots after a fixed healthy phase. Every call has a deadline from its scheduled start; a reply
//! after it has timed out and is the loss signal the limiters see. Each limiter (fixed at the healthy capacity,
//! fixed at the bound Little's law sizes for the deadline, AIMD, Gradient2, Vegas, updated per call) and no limit
//! at all, in the stream, blocking and coroutine families, at arrival rates below
//! and above the capacity left after the drop.
//!
//! The parts, in the order they are read:
//!
//! - [`contestants`]: every contestant, and what one call's handler does in every family.
//! - [`conformance`]: the runs every contestant passes for its figures to count.
//! - [`routine`]: one trial: conformance runs, then the harness's loop; [`arrivals`](crate::arrivals) makes the
//!   schedule, [`book`](crate::book) keeps every arrival's fate, [`service_analysis`](crate::service_analysis)
//!   turns them into figures after the run.
//! - [`claims`]: the claim table the harness judges.
//! - [`figures`]: the report's figures, computed from the summary before anything renders.
//! - [`report`]: those figures and the claims' verdicts, rendered with `templates/report.md`.

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod figures;
pub mod report;
pub mod routine;

use measure::compare::Relation;
use measure::phase::PhaseKey;
use measure::question::{Alternatives, Guard, Limit, Question};
use measure::scenario::{
    CalibrationSpec, ChartKind, ChartReference, ChartSpec, ParamSpec, ReferenceValue, Scenario, SeriesLine, SeriesRole,
};
use measure::units::count;

use crate::config::AFTER_DROP_CEILING;
use crate::policy::{family_questions, FamilyAsk};
use crate::service_analysis::{CALLER_P99_AFTER, GOODPUT_AFTER};
use crate::service_config::DEFAULTS;
use contestants::{ServiceContestant, LIMITERS};

/// The arrival rates a full run sweeps, per second.
const RATES: [u64; 2] = [15_000, 30_000];
/// The arrival rates a `--quick` run sweeps.
const QUICK_RATES: [u64; 1] = [30_000];

/// The family question at each limiter: on callers served within their deadline (and on CPU per call).
const FAMILY: FamilyAsk = FamilyAsk {
    metric: GOODPUT_AFTER,
    metric_words: "calls answered within the deadline per second after the drop",
    higher_is_better: true,
    which: "serves the most callers within their deadline after the loss",
    cpu_words: "CPU per arrival (µs, every thread of the trial process, the dependency's timer threads included; \
                shed arrivals count)",
    situation: "the service",
};

/// The rate phases of the scenario's own sweeps (full and `--quick`) that are controls for the questions of
/// admission: arrivals below the after-drop ceiling its default parameters set (`capacity-after` ÷ `service-ms`),
/// which the dependency serves without any admission control, each with why. A run at other rates is judged
/// by its claims, which read its own parameters.
pub fn controls() -> Vec<(String, String)> {
    let ceiling = DEFAULTS.capacity_after * 1_000 / DEFAULTS.service_ms.max(1);
    let mut rates: Vec<u64> = RATES.iter().chain(&QUICK_RATES).copied().filter(|&r| r < ceiling).collect();
    rates.dedup();
    rates
        .into_iter()
        .map(|rate| {
            let why = format!(
                "{} arrivals per second is below the after-drop ceiling ({} slots ÷ {} ms = {} calls per second): \
                 the dependency can serve every arrival in time with no admission control at all, so no policy has \
                 anything to protect",
                count(rate as f64),
                DEFAULTS.capacity_after,
                DEFAULTS.service_ms,
                count(ceiling as f64)
            );
            (PhaseKey::default().with("rate", rate).to_string(), why)
        })
        .collect()
}

/// A limiter that fills the healthy dependency less than this share of the fixed bound's goodput before the
/// drop is under-using it.
pub const UNDER_USE: f64 = 0.9;
/// A limiter whose goodput after the drop is below this share of what the dependency could serve at the rate
/// (the lesser of the rate and its ceiling) cannot be the answer on tail latency.
pub const SERVED_FLOOR: f64 = 0.8;

/// Each call's deadline, on a chart of latencies in µs.
const DEADLINE: ChartReference =
    ChartReference { words: "deadline", value: ReferenceValue::Param { key: "deadline_ms", times: 1_000 } };

/// The overload service scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServiceScenario;

impl Scenario for ServiceScenario {
    measure::scenario_files! {
        contestants: ServiceContestant::all(),
        run_trial: routine::run_trial,
        claim_table: claims::table,
        discussion: report::render,
        name: "overload-service",
        title: "Overload, as a service: steady arrivals against a dependency that loses capacity, measured from the \
                caller's schedule",
        question: "A service whose dependency loses capacity under steady traffic: which admission policy keeps \
                   callers served? Calls arrive on a schedule (`rate` per second, evenly spaced, or a seeded Poisson \
                   process with `--poisson 1`) whether or not earlier calls finished, for a healthy phase of fixed \
                   length and then a phase after the dependency drops from 500 slots of 5 ms (±0.5 ms) to 100; it \
                   queues what it cannot serve. Every call has a deadline counted from its scheduled start; a reply \
                   after it has timed out, and that is the loss the limiters see. Latency runs from the scheduled \
                   start to the caller seeing the reply, in every family, the gate included, so a contestant that \
                   falls behind its arrivals cannot hide it. A full limit sheds the arrival at once (Netflix's \
                   `SimpleLimiter`); the unbounded contestants call for every arrival. The rates sit below and above \
                   the after-drop ceiling (100 slots / 5 ms = 20,000 calls/s) and far below the healthy one (100,000 \
                   calls/s).",
        params: vec![
            ParamSpec::sweep(
                "rate",
                "Arrivals per second, each value its own phase (the after-drop ceiling is 20,000/s).",
                &RATES,
                &QUICK_RATES,
                1,
                1_000_000,
            ),
            ParamSpec::single(
                "poisson",
                "1: seeded Poisson arrivals of the same mean rate; 0: evenly spaced.",
                0,
                0,
                0,
                1,
            ),
            ParamSpec::single(
                "healthy-ms",
                "Length of the healthy phase; the capacity drops at its end.",
                400,
                150,
                10,
                600_000,
            ),
            ParamSpec::single("after-ms", "Length of the phase after the drop.", 800, 250, 10, 600_000),
            ParamSpec::single(
                "deadline-ms",
                "A call answered later than this after its scheduled start has timed out (4× the service time).",
                DEFAULTS.deadline_ms,
                DEFAULTS.deadline_ms,
                1,
                600_000,
            ),
        ]
        .into_iter()
        .chain(crate::config::dependency_params())
        .chain(crate::config::limit_params(
            "The adaptive limiters' ceiling (default: the fixed bound), and the blocking pools' size.",
        ))
        .chain([ParamSpec::single(
            "unbounded-threads",
            "Threads of blocking-unbounded's pool (10× a servlet container's default 200).",
            2_000,
            2_000,
            1,
            100_000,
        )])
        .collect(),
        headline_metric: GOODPUT_AFTER,
        calibration: Some(CalibrationSpec {
            contestants: vec!["stream-aimd", "blocking-fixed"],
            metrics: vec!["after_drop.caller_latency_p99_us", "after_drop.goodput_per_sec", "cpu_us_per_call"],
            params: vec![("rate", 30000)],
            seconds_per_trial: 1.9,
            why: "an adaptive limiter and a fixed bound under arrivals above the capacity left, the callers' p99 and \
                  goodput after the drop",
        }),
        higher_is_better: true,
        trade_off_metrics: vec![
            (CALLER_P99_AFTER, false),
            ("after_drop.shed_per_sec", false),
            ("cpu_us_per_call", false),
        ],
        table_metrics: vec![
            "before_drop.goodput_per_sec",
            GOODPUT_AFTER,
            "after_drop.goodput_share",
            "after_drop.caller_latency_p50_us",
            CALLER_P99_AFTER,
            "after_drop.shed_per_sec",
            "after_drop.timed_out_per_sec",
            "after_drop.limit_mean",
            "cpu_us_per_call",
        ],
        charts: vec![
            ChartSpec {
                id: "goodput",
                title: "Calls answered within the deadline per second, after the drop (dashed: arrivals, ceiling)",
                metric: GOODPUT_AFTER,
                unit: "calls per second",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[
                    ChartReference { words: "arrivals", value: ReferenceValue::Param { key: "rate", times: 1 } },
                    AFTER_DROP_CEILING,
                ],
            },
            ChartSpec {
                id: "caller-p99",
                title: "Callers' p99 from the scheduled start, after the drop (log scale; dashed: the deadline)",
                metric: CALLER_P99_AFTER,
                unit: "µs, scheduled start to reply seen",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[DEADLINE],
            },
            ChartSpec {
                id: "served-over-time",
                title: "Answered within the deadline, timed out and shed, per second, per 50 ms window (first measured \
                        iteration)",
                metric: GOODPUT_AFTER,
                unit: "calls per second",
                kind: ChartKind::Series {
                    series: &[
                        SeriesLine {
                            series: "goodput",
                            words: "answered within the deadline",
                            role: SeriesRole::Measured,
                        },
                        SeriesLine { series: "timed_out", words: "timed out", role: SeriesRole::Measured },
                        SeriesLine { series: "shed", words: "shed", role: SeriesRole::Measured },
                    ],
                },
                log_scale: false,
                references: &[],
            },
            ChartSpec {
                id: "latency-over-time",
                title: "Callers' p50 and p99 from the scheduled start, per 50 ms window of arrivals (log scale; \
                        dashed: the deadline)",
                metric: CALLER_P99_AFTER,
                unit: "µs",
                kind: ChartKind::Series {
                    series: &[
                        SeriesLine { series: "caller_p50_us", words: "p50", role: SeriesRole::P50 },
                        SeriesLine { series: "caller_p99_us", words: "p99", role: SeriesRole::P99 },
                    ],
                },
                log_scale: true,
                references: &[DEADLINE],
            },
            ChartSpec {
                id: "limit-over-time",
                title: "The limit, its mean over each 50 ms window",
                metric: "after_drop.limit_mean",
                unit: "calls",
                kind: ChartKind::Series {
                    series: &[SeriesLine { series: "limit", words: "the limit's mean", role: SeriesRole::Limit }],
                },
                log_scale: false,
                references: &[],
            },
        ],
        questions: {
            let under_use = Guard {
                metric: "before_drop.goodput_per_sec",
                words: "goodput before the drop",
                relation: Relation::AtLeast,
                limit: Limit::Counterpart { suffix: "fixed", factor: UNDER_USE },
                why: "a limit that sheds healthy traffic keeps its callers' tail short by turning them away",
            };
            let served = Guard {
                metric: "after_drop.goodput_share",
                words: "share of the servable calls answered in time after the drop",
                relation: Relation::AtLeast,
                limit: Limit::Value(SERVED_FLOOR),
                why: "a short tail bought by shedding or timing out most callers serves nobody",
            };
            let controls = controls();
            let control = |question: Question| controls.iter().fold(question, |q, (phase, why)| q.control(phase.clone(), why.clone()));
            vec![
                Question::new(
                    "service-goodput",
                    "A service whose dependency loses capacity under steady traffic: which admission policy keeps the \
                     most callers served within their deadline after the loss?",
                    Alternatives::Candidates,
                    GOODPUT_AFTER,
                    "calls answered within the deadline per second after the drop",
                    true,
                )
                .situation("a service under steady arrivals whose dependency loses capacity: callers served")
                .guarded(under_use.clone()),
                Question::new(
                    "service-tail",
                    "Which keeps its callers' p99, counted from their scheduled start, lowest after the loss, while \
                     still serving them?",
                    Alternatives::Candidates,
                    CALLER_P99_AFTER,
                    "callers' p99 after the drop, scheduled start to reply seen (µs)",
                    false,
                )
                .situation("the same service: its callers' tail")
                .guarded(under_use)
                .guarded(served),
            ]
            .into_iter()
            .map(control)
            .chain(family_questions(&LIMITERS, &FAMILY, &controls))
            .collect()
        },
    }

    // One timed run of 1.2 s (400 ms healthy, 800 ms after the drop) and one accounting run a quarter as long per
    // process: 15 contestants × 2 rates × 5 processes took 4.6 minutes on 2 cores, so the 18 with `fixed-little`
    // should take about 5.5 (an estimate from that run, not yet measured). A warm-up buys nothing in a run of tens
    // of thousands of calls.
    crate::config::shared_scenario_methods!(
        "overload/src/overload_service/contestants/mod.rs",
        "Builder::new_multi_thread()"
    );
}

#[cfg(test)]
mod tests {
    use measure::question::{answer_all, Alternatives};

    use super::*;
    use crate::service_fixture as fixture;

    #[test]
    fn the_rates_below_the_default_after_drop_ceiling_are_controls_with_their_reason() {
        let controls = controls();
        assert_eq!(controls.len(), 1, "{controls:?}");
        let (phase, why) = &controls[0];
        assert_eq!(phase, "rate_15000");
        assert!(why.contains("below the after-drop ceiling (100 slots ÷ 5 ms = 20,000 calls per second)"), "{why}");
    }

    #[test]
    fn the_questions_of_admission_are_controls_below_the_ceiling_and_answered_above_it() {
        let summary = fixture::run(fixture::expected);
        let answers = answer_all(&summary, &ServiceScenario.questions());
        for id in ["service-goodput", "service-tail", "family-fixed", "family-fixed-little", "family-vegas"] {
            let q = answers.iter().find(|q| q.id == id).unwrap_or_else(|| panic!("no question `{id}`"));
            let at = |phase: &str| q.answers.iter().find(|a| a.phase.as_deref() == Some(phase)).expect("phase");
            let control = at("rate_15000");
            assert_eq!(control.pick, None, "{id}: a control has no pick");
            assert!(control.control.as_deref().is_some_and(|why| why.contains("20,000")), "{id}: {control:?}");
            assert_eq!(at("rate_30000").control, None, "{id}");
        }
        let goodput = answers.iter().find(|q| q.id == "service-goodput").expect("service-goodput");
        let above = goodput.answers.iter().find(|a| a.phase.as_deref() == Some("rate_30000")).expect("rate_30000");
        assert!(above.pick.as_deref().is_some_and(|p| p.ends_with("-aimd")), "{above:?}");
    }

    #[test]
    fn the_family_question_is_asked_at_each_policy_apart_on_goodput_and_on_cpu() {
        let questions = ServiceScenario.questions();
        for kind in LIMITERS {
            let name = kind.name();
            let q = questions.iter().find(|q| q.id == format!("family-{name}")).expect("on goodput");
            assert!(q.family && q.metric == GOODPUT_AFTER, "{q:?}");
            let three = [format!("stream-{name}"), format!("blocking-{name}"), format!("coroutine-{name}")];
            assert_eq!(q.alternatives, Alternatives::Named(three.to_vec()));
            let cpu = questions.iter().find(|q| q.id == format!("family-{name}-cpu")).expect("on CPU");
            assert!(cpu.family && cpu.metric == "cpu_us_per_call" && cpu.controls.is_empty(), "{cpu:?}");
        }
        let policy = questions.iter().find(|q| q.id == "service-goodput").expect("service-goodput");
        assert!(!policy.family, "the policy question is not the family question");
    }
}
