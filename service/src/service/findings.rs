//! The sentences the service report states as findings, as rows the harness judges into the summary's findings;
//! the report prints each only where its verdict holds. Per phase (a work and an arrival rate):
//!
//! - [`lag_id`]: the load generator kept its schedule, its p99 lag within [`LAG_LIMIT_US`] in every style's
//!   runs. Where it did not, the phase's latency figures are not judged: every other row of the phase is
//!   undecidable, and the report says so.
//! - [`in_time_id`]: a style answered at least 99% of its arrivals within the deadline.
//! - [`p99_within_id`]: a style's p99 from the scheduled start was within the deadline.
//!
//! Where the dependency loses capacity (a pair of phases, the style's own bound and AIMD):
//!
//! - [`aimd_protects_id`]: a style under AIMD answered more requests within the deadline after the loss than
//!   under its own bound alone, by more than the testbed's smallest detectable ratio.
//! - [`natural_collapses_id`]: under its own bound alone, a style answered fewer than half its arrivals after the
//!   loss within the deadline.
//!
//! In a search phase (`rate_0`), the rows above judge the runs timed at each process's own sustainable rate: its
//! in-time row is the search's confirmation, judged on process medians. And, per work, whether the hand-off
//! scenario's part of the answer shows in the whole:
//!
//! - [`handoff_id`]: in a family, the style that hands each request from stage to stage sustained a lower rate
//!   than the one that runs a whole request in one place, beyond the testbed's smallest detectable ratio.
//! - [`parts_ceiling_id`]: a style sustained at least [`PARTS_SHARE`] of the rate its parts alone allow (the
//!   lower of what the cores allow the work, the chain's part, and what the dependency's slots allow, the
//!   device's part).

use measure::compare::{Basis, Relation};
use measure::judge::{beyond_noise, Beyond, ClaimSpec, Comparison, Phase, Side};
use measure::summary::Summary;

use super::contestants::Contestant;
use super::search::{SEARCH_CEILING, SUSTAINABLE_RATE};
use super::SEARCH;
use crate::analysis::{GENERATOR_LAG, GOODPUT_AFTER_LOSS, IN_TIME_AFTER_LOSS, IN_TIME_SHARE, P99};

/// The most the load generator's p99 lag behind the schedule may be for a phase's figures to be judged, µs.
pub const LAG_LIMIT_US: f64 = 1_000.0;
/// The share of arrivals answered within the deadline that counts as keeping it (Lancet's and the 99%).
pub const KEPT_SHARE: f64 = 0.99;

/// Id of the finding that the generator kept its schedule at `phase`.
pub fn lag_id(phase: &str) -> String {
    format!("lag-kept-{phase}")
}

/// Id of the finding that `contestant` answered at least [`KEPT_SHARE`] within the deadline at `phase`.
pub fn in_time_id(phase: &str, contestant: &str) -> String {
    format!("in-time-{phase}-{contestant}")
}

/// Id of the finding that `contestant`'s p99 was within the deadline at `phase`.
pub fn p99_within_id(phase: &str, contestant: &str) -> String {
    format!("p99-within-deadline-{phase}-{contestant}")
}

/// Id of the finding that `contestant` under AIMD kept more goodput after the dependency's loss at `phase` (the
/// AIMD phase's name) than under its own bound.
pub fn aimd_protects_id(phase: &str, contestant: &str) -> String {
    format!("aimd-protects-{phase}-{contestant}")
}

/// Id of the finding that `contestant` under its own bound answered fewer than half its arrivals in time after
/// the dependency's loss at `phase` (the natural bound's phase name).
pub fn natural_collapses_id(phase: &str, contestant: &str) -> String {
    format!("collapses-after-loss-{phase}-{contestant}")
}

/// The run's pairs of capacity-loss phases, `(own bound, AIMD)`: each AIMD phase beside the phase of the same
/// levels under the style's own bound.
pub fn loss_pairs(summary: &Summary) -> Vec<(String, String)> {
    let level = |phase: &str, key: &str| summary.param_in(Some(phase), key);
    summary
        .phases
        .iter()
        .filter(|p| level(p, "aimd") == Some(1.0) && level(p, "loss_pct").is_some_and(|l| l > 0.0))
        .filter_map(|aimd| {
            let same = |p: &&String| {
                level(p, "aimd") == Some(0.0)
                    && ["work_us", "rate", "loss_pct"].iter().all(|key| level(p, key) == level(aimd, key))
            };
            summary.phases.iter().find(same).map(|own| (own.clone(), aimd.clone()))
        })
        .collect()
}

/// Each family's style that hands a request from stage to stage, then its style that runs a whole request in one
/// place (a task, a pool thread, a coroutine): the pair the hand-off finding compares.
pub const HANDOFF_PAIRS: [(Contestant, Contestant); 3] = [
    (Contestant::StreamStageTasks, Contestant::StreamBufferUnordered),
    (Contestant::BlockingStageThreads, Contestant::BlockingPool),
    (Contestant::CoroutineStageCoroutines, Contestant::CoroutinePerRequest),
];

/// The share of the rate the parts alone allow that a style must sustain for the parts to have predicted it.
pub const PARTS_SHARE: f64 = 0.8;

/// Id of the finding that `contestant` sustained at least [`PARTS_SHARE`] of the rate its parts allow at the
/// search phase `phase`.
pub fn parts_ceiling_id(phase: &str, contestant: &str) -> String {
    format!("parts-ceiling-reached-{phase}-{contestant}")
}

/// Id of the finding that, at the search phase `phase`, `staged` sustained a lower rate than its family's style
/// that runs a whole request in one place.
pub fn handoff_id(phase: &str, staged: &str) -> String {
    format!("handoff-lowers-rate-{phase}-{staged}")
}

/// The run's search phases.
fn searched(summary: &Summary) -> impl Iterator<Item = &String> {
    summary.phases.iter().filter(|p| summary.param_in(Some(p), "rate") == Some(SEARCH as f64))
}

/// The rows of the search phases: per style, its sustainable rate against the rate its parts allow (the lowest
/// process median of the ceiling the search started from, over the styles).
fn parts_rows(summary: &Summary, unjudged: &dyn Fn(&str) -> Option<String>) -> Vec<ClaimSpec> {
    let mut rows = Vec::new();
    for phase in searched(summary) {
        let ceilings = Contestant::ALL.iter().filter_map(|c| summary.median_in(c.name(), phase, SEARCH_CEILING));
        let Some(ceiling) = ceilings.reduce(f64::min) else {
            continue;
        };
        for c in Contestant::ALL {
            rows.push(
                ClaimSpec::new(
                    format!("At {phase}, `{}` sustained at least 80% of the rate its parts alone allow", c.name()),
                    SUSTAINABLE_RATE,
                    "the highest arrival rate answered 99% within the deadline, found per process, per second",
                    (Relation::AtLeast, PARTS_SHARE),
                    Basis::ProcessMedians,
                    vec![Comparison {
                        a: Side::contestant(c.name(), Phase::Named(phase.clone())),
                        b: Side::value(
                            ceiling,
                            "the lower of what the cores allow the work and the dependency's slots",
                        ),
                    }],
                )
                .with_id(parts_ceiling_id(phase, c.name()))
                .undecidable_if(unjudged(phase)),
            );
        }
    }
    rows
}

/// The rows of the search phases: per family, its staged style's sustainable rate below its whole-request one's.
fn handoff_rows(summary: &Summary, unjudged: &dyn Fn(&str) -> Option<String>) -> Vec<ClaimSpec> {
    let (relation, factor) = beyond_noise(&summary.method, SUSTAINABLE_RATE, Beyond::Below);
    searched(summary)
        .flat_map(|phase| {
            HANDOFF_PAIRS.iter().map(move |(staged, whole)| {
                let at = |c: &Contestant| Side::contestant(c.name(), Phase::Named(phase.clone()));
                ClaimSpec::new(
                    format!(
                        "At {phase}, `{}` (stage to stage) sustained a lower rate than `{}` (a whole request in one place)",
                        staged.name(),
                        whole.name()
                    ),
                    SUSTAINABLE_RATE,
                    "the highest arrival rate answered 99% within the deadline, found per process, per second",
                    (relation, factor),
                    Basis::ProcessMedians,
                    vec![Comparison { a: at(staged), b: at(whole) }],
                )
                .with_id(handoff_id(phase, staged.name()))
                .undecidable_if(unjudged(phase))
            })
        })
        .collect()
}

/// The rows of the capacity-loss phases: per style, AIMD against its own bound, and its own bound's collapse.
fn loss_rows(summary: &Summary, unjudged: &dyn Fn(&str) -> Option<String>) -> Vec<ClaimSpec> {
    let (relation, factor) = beyond_noise(&summary.method, GOODPUT_AFTER_LOSS, Beyond::Above);
    let mut rows = Vec::new();
    for (own, aimd) in loss_pairs(summary) {
        let why = unjudged(&own).or_else(|| unjudged(&aimd));
        for c in Contestant::ALL {
            let at = |phase: &str| Side::contestant(c.name(), Phase::Named(phase.to_string()));
            rows.push(
                ClaimSpec::new(
                    format!(
                        "`{}` under AIMD answered more requests in time after the loss than under its own bound",
                        c.name()
                    ),
                    GOODPUT_AFTER_LOSS,
                    "requests answered within the deadline per second, of those scheduled after the dependency's loss",
                    (relation, factor),
                    Basis::ProcessMedians,
                    vec![Comparison { a: at(&aimd), b: at(&own) }],
                )
                .with_id(aimd_protects_id(&aimd, c.name()))
                .undecidable_if(why.clone()),
            );
            rows.push(
                ClaimSpec::new(
                    format!(
                        "`{}` under its own bound answered fewer than half its arrivals in time after the loss",
                        c.name()
                    ),
                    IN_TIME_AFTER_LOSS,
                    "arrivals scheduled after the dependency's loss answered within the deadline, as a share of them",
                    (Relation::AtMost, 0.5),
                    Basis::ProcessMedians,
                    vec![Comparison { a: at(&own), b: Side::value(1.0, "every arrival") }],
                )
                .with_id(natural_collapses_id(&own, c.name()))
                .undecidable_if(why.clone()),
            );
        }
    }
    rows
}

/// Why `phase`'s figures cannot be judged, when a style's median generator lag there is beyond the limit.
fn lag_beyond(summary: &Summary, phase: &str) -> Option<String> {
    let worst = Contestant::ALL
        .iter()
        .filter_map(|c| summary.median_in(c.name(), phase, GENERATOR_LAG))
        .fold(None, |most: Option<f64>, v| Some(most.map_or(v, |m| m.max(v))))?;
    (worst > LAG_LIMIT_US).then(|| {
        format!("the load generator's p99 lag reached {worst:.0} µs here, beyond the {LAG_LIMIT_US:.0} µs limit")
    })
}

/// The finding rows of `summary`'s run.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let deadline_us = summary.param("deadline_ms").unwrap_or(0.0) * 1e3;
    let mut rows = Vec::new();
    for phase in &summary.phases {
        let named = || Phase::Named(phase.clone());
        rows.push(
            ClaimSpec::new(
                format!("The load generator kept its schedule at {phase}"),
                GENERATOR_LAG,
                "the load generator's p99 lag behind the schedule over each timed run, µs",
                (Relation::AtMost, 1.0),
                Basis::WorstSample,
                Contestant::ALL
                    .iter()
                    .map(|c| Comparison {
                        a: Side::contestant(c.name(), named()),
                        b: Side::value(LAG_LIMIT_US, "the lag limit"),
                    })
                    .collect(),
            )
            .with_id(lag_id(phase)),
        );
        let unjudged = lag_beyond(summary, phase);
        for c in Contestant::ALL {
            let at = || Side::contestant(c.name(), named());
            rows.push(
                ClaimSpec::new(
                    format!("`{}` answered at least 99% of its arrivals within the deadline at {phase}", c.name()),
                    IN_TIME_SHARE,
                    "arrivals answered within the deadline from their scheduled start, as a share of all arrivals",
                    (Relation::AtLeast, KEPT_SHARE),
                    Basis::ProcessMedians,
                    vec![Comparison { a: at(), b: Side::value(1.0, "every arrival") }],
                )
                .with_id(in_time_id(phase, c.name()))
                .undecidable_if(unjudged.clone()),
            );
            rows.push(
                ClaimSpec::new(
                    format!("`{}` kept its p99 within the deadline at {phase}", c.name()),
                    P99,
                    "latency p99 of the answered requests, from each one's scheduled start to its reply, µs",
                    (Relation::AtMost, 1.0),
                    Basis::ProcessMedians,
                    vec![Comparison { a: at(), b: Side::value(deadline_us, "the deadline") }],
                )
                .with_id(p99_within_id(phase, c.name()))
                .undecidable_if(unjudged.clone()),
            );
        }
    }
    rows.extend(loss_rows(summary, &|phase| lag_beyond(summary, phase)));
    rows.extend(handoff_rows(summary, &|phase| lag_beyond(summary, phase)));
    rows.extend(parts_rows(summary, &|phase| lag_beyond(summary, phase)));
    rows
}
