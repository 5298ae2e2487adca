//! The service's claim table: what the scenario expects before it runs, judged by the harness.
//!
//! Both are judged on the fixed-rate phases with a healthy dependency (not the sustainable-rate search, whose
//! rate differs by process, nor the capacity loss):
//!
//! - `work-dominates-cpu`: at the largest work of the sweep, where the stages' CPU dwarfs any style's overhead,
//!   every style costs at most 1.5× the cheapest style's CPU per request, at every arrival rate.
//! - `deadline-held-at-lowest-rate`: at the lowest fixed arrival rate of the sweep, wherever the work asks at
//!   most half the cores there (far below saturation), every style keeps its p99 from the scheduled start
//!   within the deadline.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};
use measure::summary::Summary;

use super::contestants::Contestant;
use super::SEARCH;
use crate::analysis::{CPU_PER_REQUEST, P99};

/// Id of the claim that the styles' CPU per request is alike where the work dominates.
pub const WORK_DOMINATES: &str = "work-dominates-cpu";
/// Id of the claim that every style keeps the deadline at the lowest rate.
pub const DEADLINE_AT_LOWEST: &str = "deadline-held-at-lowest-rate";

/// The run's phases at a fixed arrival rate with a healthy dependency and the styles' own bounds.
pub fn fixed_rate_phases(summary: &Summary) -> Vec<&String> {
    let level = |phase: &str, key: &str| summary.param_in(Some(phase), key).unwrap_or(0.0);
    summary
        .phases
        .iter()
        .filter(|p| level(p, "rate") != SEARCH as f64 && level(p, "loss_pct") == 0.0 && level(p, "aimd") == 0.0)
        .collect()
}

/// The fixed-rate phases ([`fixed_rate_phases`]) whose `key` is at its highest (`highest`) or lowest level among
/// them.
pub fn phases_at(summary: &Summary, key: &str, highest: bool) -> Vec<String> {
    let fixed = fixed_rate_phases(summary);
    let levels = fixed.iter().filter_map(|p| summary.param_in(Some(p), key));
    let level = if highest { levels.reduce(f64::max) } else { levels.reduce(f64::min) };
    fixed.into_iter().filter(|p| level.is_some() && summary.param_in(Some(p), key) == level).cloned().collect()
}

/// The claim table of `summary`'s run.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let names: Vec<String> = Contestant::ALL.iter().map(|c| c.name().to_string()).collect();
    let names = &names;
    let cheapest = |phase: &String| {
        let phase = phase.clone();
        names.iter().map(move |name| Comparison {
            a: Side::contestant(name.clone(), Phase::Named(phase.clone())),
            b: Side { who: Who::Lowest(names.clone()), phase: Phase::Named(phase.clone()) },
        })
    };
    let deadline_us = summary.param("deadline_ms").unwrap_or(0.0) * 1e3;
    let half_the_cores = f64::from(summary.environment.cores.max(1)) / 2.0;
    let light = |phase: &String| {
        let asked = |key: &str| summary.param_in(Some(phase), key).unwrap_or(0.0);
        asked("work_us") * asked("rate") / 1e6 <= half_the_cores
    };
    let within = |phase: &String| {
        let phase = phase.clone();
        names.iter().map(move |name| Comparison {
            a: Side::contestant(name.clone(), Phase::Named(phase.clone())),
            b: Side::value(deadline_us, "the deadline"),
        })
    };
    vec![
        ClaimSpec::new(
            "Where the work dominates (the largest work of the sweep), every style costs at most 1.5× the cheapest \
             style's CPU per request, at every arrival rate",
            CPU_PER_REQUEST,
            "CPU of the whole trial process per arrival over the timed run, µs",
            (Relation::AtMost, 1.5),
            Basis::ProcessMedians,
            phases_at(summary, "work_us", true).iter().flat_map(cheapest).collect(),
        )
        .with_id(WORK_DOMINATES),
        ClaimSpec::new(
            "At the lowest fixed arrival rate of the sweep, wherever the work asks at most half the cores, every \
             style keeps its p99 from the scheduled start within the deadline",
            P99,
            "latency p99 of the answered requests, from each one's scheduled start to its reply, µs",
            (Relation::AtMost, 1.0),
            Basis::ProcessMedians,
            phases_at(summary, "rate", false).iter().filter(|p| light(p)).flat_map(within).collect(),
        )
        .with_id(DEADLINE_AT_LOWEST),
    ]
}
