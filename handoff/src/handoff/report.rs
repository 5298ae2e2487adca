//! The handoff scenario's report: the figures and verdicts of a run, gathered from its [`Summary`] into a typed
//! [`Context`] and rendered with `templates/report.md`, which holds every word of the discussion and prints each
//! conditional sentence by its claim's or finding's verdict. The numbers come from [`mod@figures`] (analysis
//! before rendering); nothing here builds a sentence, decides one from the figures or looks a claim up by its
//! text. A figure the run lacks is `n/a`, and a finding whose figures are missing is left out by the template.

use std::collections::BTreeMap;

use measure::external::beside_standalone;
use measure::summary::Summary;
use measure::template::{claims_with_table, ClaimView};
use serde::Serialize;

use super::{HEADLINE, SERIES_CAPACITY, SMALL_CAPACITY_BELOW};
use crate::handoff::calibration::{calibration, Calibration};
use crate::handoff::claims::{
    capacities, phase, BATCHING_FACTOR, CLAIM_CAPACITY, CURRENT_THREAD, RECEIVE_SIDE_FACTOR, STANDALONE_GUARD,
    STANDALONE_LIMIT, WAKEUP_FACTOR,
};
use crate::handoff::contestants::standalone_pairs;
use crate::handoff::figures::{packing, profile, ran, small_weight, time_goes, Profile, TimeGoes};
use crate::handoff::findings::{self, ASYNC_BATCHED};
use crate::handoff::floors::{floor_multiples, FloorMultiples};

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The batched blocking channels whose figures the advice on blocking code cites.
const BLOCKING_BATCHED: [&str; 3] = ["blocking-crossbeam-batched", "blocking-flume-batched", "blocking-std-batched"];

/// Everything `templates/report.md` reads: formatted figures, contestant names and verdicts.
#[derive(Debug, Serialize)]
pub struct Context {
    /// Every claim of the table by id; one the run did not judge reads as `not judged`.
    pub claims: BTreeMap<String, ClaimView>,
    /// The run has a `capacity_<n>` phase (else there is nothing to discuss).
    pub has_phases: bool,
    /// The `items` parameter.
    pub items: String,
    /// The `batch` parameter, or `None` when the run has none.
    pub batch: Option<String>,
    /// The `messages` parameter, or `None` for a run from before it existed.
    pub messages: Option<String>,
    /// The `small_items` parameter.
    pub small_items: String,
    /// Logical cores of the machine.
    pub cores: String,
    /// Phases below [`SMALL_CAPACITY_BELOW`] (such as `capacity_1`), which hand off `small_items`.
    pub small: Vec<String>,
    /// [`SMALL_CAPACITY_BELOW`].
    pub small_below: u64,
    /// `items / small_items` as a ratio (`25.0×`), when both are numbers.
    pub small_weight: Option<String>,
    /// The current-thread pair's name.
    pub current_thread: &'static str,
    /// The capacity most figures and claims are read at ([`CLAIM_CAPACITY`]).
    pub capacity: u64,
    /// The widest capacity of the run.
    pub wide: u64,
    /// The capacity whose outstanding series is charted.
    pub series_capacity: usize,
    /// The claims' factors, formatted.
    pub batching_factor: String,
    /// See [`WAKEUP_FACTOR`].
    pub wakeup_factor: String,
    /// See [`RECEIVE_SIDE_FACTOR`].
    pub receive_side_factor: String,
    /// What a batched message carries (`items`) and how many the channel holds (`messages`) at each capacity, as
    /// the first batched contestant with both figures recorded them.
    pub batched_sizes: Vec<Profile>,
    /// The rows of "where the time goes".
    pub time_goes: TimeGoes,
    /// The lab against bare programs: its rows above the bar are cited ([`Calibration`]).
    #[serde(flatten)]
    pub calibration: Calibration,
    /// The "lab ÷ standalone" section: each lab contestant beside its standalone program per capacity, rendered
    /// by [`measure::external::section`].
    pub standalone: String,
    /// The batched blocking channels at the widest capacity.
    pub blocking_batched: Vec<Profile>,
    /// The batched async channels at the widest capacity.
    pub async_batched: Vec<Profile>,
    /// The finding holds that the batched async channels are within noise of each other at the widest capacity.
    pub async_close: bool,
    /// Every registered contestant's profile at the claim capacity, by name (`n/a` for a figure it lacks).
    pub at: BTreeMap<String, Profile>,
    /// Every per-item contestant's ms/M as a multiple of the ring's and of the loop's, at each capacity.
    pub floor_multiples: FloorMultiples,
}

/// Markdown discussing `summary`: [`context`] rendered with `templates/report.md`.
pub fn report(summary: &Summary) -> String {
    measure::template::render_or_note("handoff/report.md", TEMPLATE, context(summary))
}

/// The figures and verdicts of `summary` that the report's template reads.
pub fn context(summary: &Summary) -> Context {
    let caps = capacities(summary);
    let c = CLAIM_CAPACITY;
    let wide = caps.iter().copied().max().unwrap_or(c);
    let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
    let param_u64 = |k: &str| summary.params.get(k).and_then(|v| v.as_u64()).map(|n| n.to_string());
    Context {
        claims: claims_with_table(
            &summary.claims,
            crate::handoff::claims::table(summary).into_iter().map(|c| (c.id, c.text)),
        ),
        has_phases: !caps.is_empty(),
        items: param("items"),
        batch: param_u64("batch"),
        messages: param_u64("messages"),
        small_items: param("small_items"),
        cores: summary.environment.cores.to_string(),
        small: caps.iter().filter(|&&c| c < SMALL_CAPACITY_BELOW).map(|&c| phase(c)).collect(),
        small_below: SMALL_CAPACITY_BELOW,
        small_weight: small_weight(summary),
        current_thread: CURRENT_THREAD,
        capacity: c,
        wide,
        series_capacity: SERIES_CAPACITY,
        batching_factor: BATCHING_FACTOR.to_string(),
        wakeup_factor: WAKEUP_FACTOR.to_string(),
        receive_side_factor: RECEIVE_SIDE_FACTOR.to_string(),
        batched_sizes: caps.iter().filter_map(|&cap| packing(summary, cap)).collect(),
        time_goes: time_goes(summary, &caps, wide),
        calibration: calibration(summary),
        standalone: against_standalone(summary),
        blocking_batched: ran(summary, BLOCKING_BATCHED, wide, HEADLINE),
        async_close: summary.finding_holds(&findings::async_alike(wide)),
        async_batched: ran(summary, ASYNC_BATCHED, wide, HEADLINE),
        at: crate::handoff::contestants::contestants()
            .iter()
            .map(|contestant| contestant.info().name)
            .map(|name| (name.clone(), profile(summary, &name, c)))
            .collect(),
        floor_multiples: floor_multiples(summary, &caps),
    }
}

/// Each lab contestant beside its standalone program at every capacity both ran ([`standalone_pairs`]), as the
/// report's "lab ÷ standalone" section, judged at [`STANDALONE_LIMIT`].
fn against_standalone(summary: &Summary) -> String {
    let rows = beside_standalone(summary, &standalone_pairs(), HEADLINE, STANDALONE_LIMIT);
    measure::external::section(&rows, "ms/M", STANDALONE_LIMIT, STANDALONE_GUARD, standalone::BUILD)
}

#[cfg(test)]
mod tests;
