//! The handoff scenario's report: the figures and verdicts of a run, gathered from its [`Summary`] into a typed
//! [`Context`] (numbers formatted, claims by id, findings as the verdicts of [`mod@findings`]' rows) and rendered with
//! `templates/report.md`, which holds every word of the discussion and prints each conditional sentence by its
//! claim's or finding's verdict. Nothing here builds a sentence, decides one from the figures or looks a claim up
//! by its text; a figure the run lacks is `n/a`, and a finding whose figures are missing is left out by the
//! template. Every figure of a contestant reaches the template through one row type,
//! [`Profile`] (its figures at one capacity, read by the table [`FIGURES`]), alone or as two side by side
//! ([`Change`]).

use std::collections::BTreeMap;

use measure::compare::{format_or_na as num, format_p, format_ratio, times_or_na as ratio};
use measure::external::beside_standalone;
use measure::summary::{Role, Summary};
use measure::template::{claims_with_table, ClaimView};
use serde::Serialize;

use super::{HEADLINE, SERIES_CAPACITY, SMALL_CAPACITY_BELOW};
use crate::handoff::calibration::{calibration, Calibration};
use crate::handoff::claims::{
    capacities, phase, BATCHING_FACTOR, BATCH_PAIRS, BLOCKING_CRATES, CLAIM_CAPACITY, CONDVAR, CROSS_THREAD_PER_ITEM,
    CURRENT_THREAD, LOOP, RECEIVE_SIDE_FACTOR, STANDALONE_GUARD, STANDALONE_LIMIT, WAKEUP_FACTOR,
};
use crate::handoff::contestants::standalone_pairs;
use crate::handoff::findings::{self, holding, ASYNC_BATCHED};
use crate::handoff::floors::{floor_multiples, FloorMultiples};

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The batched contestants whose best figure the advice on blocking code cites.
const BLOCKING_BATCHED: [&str; 3] = ["blocking-crossbeam-batched", "blocking-flume-batched", "blocking-std-batched"];

/// The per-item contestants whose allocations the allocation finding sets beside `stream-futures`'.
const ALLOCATING: [&str; 4] = ["blocking-crossbeam", "blocking-flume", "stream-tokio", "stream-flume"];

/// The figures of a [`Profile`]: the template's key, the metric it reads, and whether it is a count (printed as a
/// whole number, such as the exact high-water mark) rather than a ratio-style figure.
const FIGURES: [(&str, &str, bool); 10] = [
    ("ms", HEADLINE, false),
    ("cpu", "cpu_ns_per_item", false),
    ("cores", "cores_used", false),
    ("switches", "ctx_switches_per_item", false),
    ("system", "cpu_system_ns_per_item", false),
    ("allocs", "allocs_per_item", false),
    ("max_outstanding", "max_outstanding", true),
    ("sampled", "max_outstanding_sampled", true),
    ("items", "items_per_message", true),
    ("messages", "messages_per_channel", true),
];

/// A contestant's figures at one capacity, formatted: `name`, `capacity` and each of [`FIGURES`] by its key (`n/a`
/// when the run lacks it). The one row type of the report's findings and lists.
pub type Profile = BTreeMap<&'static str, String>;

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
    /// The findings of "where the time goes".
    pub findings: Findings,
    /// The lab against bare programs: its rows above the bar are cited ([`Calibration`]).
    #[serde(flatten)]
    pub calibration: Calibration,
    /// The "lab ÷ standalone" section: each lab contestant beside its standalone program per capacity, rendered
    /// by [`measure::external::section`].
    pub standalone: String,
    /// The fastest blocking batched contestant at the widest capacity.
    pub best_blocking_batched: Option<Profile>,
    /// The batched async channels at the widest capacity.
    pub async_batched: Vec<Profile>,
    /// The finding holds that the batched async channels are within noise of each other at the widest capacity.
    pub async_close: bool,
    /// Every registered contestant's `ms_per_million` at the claim capacity, formatted (`n/a` when it did not run).
    pub ms: BTreeMap<String, String>,
    /// The fastest blocking channel crate's `ms_per_million` at the claim capacity.
    pub fastest_crate_ms: String,
    /// `may`'s rules, when the run has coroutine contestants (from [`pipelines::coroutine::rules_note`]).
    pub coroutine_rules: Option<String>,
    /// Every per-item contestant's ms/M as a multiple of the ring's and of the loop's, at each capacity.
    pub floor_multiples: FloorMultiples,
}

/// Two profiles side by side (per item → batched, one capacity → another, a one-message row → its twin) and the
/// ratio of their ms/M.
#[derive(Debug, Serialize)]
pub struct Change {
    /// The first.
    pub from: Profile,
    /// The second.
    pub to: Profile,
    /// `from / to` of ms/M, such as `1.30×`.
    pub ratio: String,
    /// The exact p of the judge's separation of the two, for a pair it told apart.
    pub p: Option<String>,
}

/// A profile beside others it is compared with.
#[derive(Debug, Serialize)]
pub struct Group {
    /// The profile the finding is about.
    pub lead: Profile,
    /// The ones set beside it.
    pub others: Vec<Profile>,
}

/// The findings of "where the time goes"; a finding whose figures the run lacks is `None` (or empty). Every
/// profile is at the claim capacity unless its field says otherwise.
#[derive(Debug, Serialize)]
pub struct Findings {
    /// The loop without a hand-off.
    pub floor: Profile,
    /// Every cross-thread per-item pair.
    pub per_item: Vec<Profile>,
    /// Every cross-thread per-item pair at capacity 1 beside itself at the claim capacity.
    pub capacity_one: Vec<Change>,
    /// The current-thread pair.
    pub current: Option<Current>,
    /// Every channel per item → batched.
    pub batching: Vec<Change>,
    /// Allocations per item: `stream-futures`' beside the others'.
    pub allocs: Option<Group>,
    /// Batched channels from the claim capacity to the widest.
    pub room: Option<Room>,
    /// Channels whose batched row (`to`) is judged slower than its per-item twin (`from`), with the wake-up
    /// figures that show why.
    pub batched_slower: Vec<Change>,
    /// For every row of `batched_slower`, the findings hold that it had more context switches and more system CPU
    /// per item than its twin.
    pub batched_slower_wakes_more: bool,
    /// The one-message rows (`from`) beside their per-item twins (`to`) at the widest capacity.
    pub one_message: Vec<Change>,
    /// Cores used (and context switches) at the narrowest and widest capacity: one list of profiles each.
    pub cores: Vec<Vec<Profile>>,
    /// The current-thread pair's cores used.
    pub current_cores: String,
    /// The Condvar queue's system CPU beside the channel crates'.
    pub condvar: Option<Group>,
    /// Items per message of the Condvar queue's batched twin, as recorded.
    pub condvar_batch_items: Option<String>,
    /// A bridge between a thread and a task ran (their figures are in [`Context::ms`]).
    pub bridges: bool,
    /// `stream-tokio-recv-many` ran (its figures against per item and whole batches are in [`Context::ms`]).
    pub recv_many: bool,
    /// Exact against sampled outstanding work.
    pub outstanding: Option<Outstanding>,
}

/// The current-thread pair against the cross-thread pairs.
#[derive(Debug, Serialize)]
pub struct Current {
    /// Its profile.
    pub profile: Profile,
    /// The multi-thread `stream-tokio`'s profile.
    pub tokio: Profile,
    /// The fastest cross-thread per-item pair.
    pub fastest: Profile,
}

/// Batched channels from the claim capacity to the widest.
#[derive(Debug, Serialize)]
pub struct Room {
    /// What a batched message carries at the claim capacity, as recorded.
    pub at_claim: Option<Profile>,
    /// At the widest capacity.
    pub at_wide: Option<Profile>,
    /// Each batched contestant at the claim capacity → at the widest.
    pub rows: Vec<Change>,
}

/// Exact against sampled outstanding work (`max_outstanding` and `sampled` of each profile).
#[derive(Debug, Serialize)]
pub struct Outstanding {
    /// `blocking-crossbeam`.
    pub crossbeam: Profile,
    /// The contestant whose samples missed most of its exact mark, if any missed.
    pub missed: Option<Profile>,
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
    let async_batched = ran(summary, ASYNC_BATCHED, wide, HEADLINE);
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
        small: caps.iter().filter(|&&c| c < SMALL_CAPACITY_BELOW).map(|c| format!("capacity_{c}")).collect(),
        small_below: SMALL_CAPACITY_BELOW,
        small_weight: ratio_of_items(summary).map(|r| format!("{}×", format_ratio(r))),
        current_thread: CURRENT_THREAD,
        capacity: c,
        wide,
        series_capacity: SERIES_CAPACITY,
        batching_factor: BATCHING_FACTOR.to_string(),
        wakeup_factor: WAKEUP_FACTOR.to_string(),
        receive_side_factor: RECEIVE_SIDE_FACTOR.to_string(),
        batched_sizes: caps.iter().filter_map(|&cap| packing(summary, cap)).collect(),
        findings: where_the_time_goes(summary, &caps, wide),
        calibration: calibration(summary),
        standalone: against_standalone(summary),
        best_blocking_batched: fastest(summary, BLOCKING_BATCHED, wide).map(|(name, _)| profile(summary, name, wide)),
        async_close: summary.finding_holds(&findings::async_alike(wide)),
        async_batched,
        ms: crate::handoff::contestants::contestants()
            .iter()
            .map(|contestant| contestant.info().name)
            .map(|name| (name.clone(), num(summary.median_in(&name, &phase(c), HEADLINE))))
            .collect(),
        fastest_crate_ms: num(fastest(summary, BLOCKING_CRATES, c).map(|(_, m)| m)),
        coroutine_rules: pipelines::coroutine::rules_note(summary),
        floor_multiples: floor_multiples(summary, &caps),
    }
}

/// Each lab contestant beside its standalone program at every capacity both ran ([`standalone_pairs`]), as the
/// report's "lab ÷ standalone" section, judged at [`STANDALONE_LIMIT`].
fn against_standalone(summary: &Summary) -> String {
    let rows = beside_standalone(summary, &standalone_pairs(), HEADLINE, STANDALONE_LIMIT);
    measure::external::section(&rows, "ms/M", STANDALONE_LIMIT, STANDALONE_GUARD, standalone::BUILD)
}

/// The findings of "where the time goes" (`wide`: the widest capacity).
fn where_the_time_goes(summary: &Summary, caps: &[u64], wide: u64) -> Findings {
    let c = CLAIM_CAPACITY;
    let median_at = |n: &str, metric: &str| summary.median_in(n, &phase(c), metric);
    let has = |n: &str, capacity: u64| summary.median_in(n, &phase(capacity), HEADLINE).is_some();
    let current = fastest(summary, CROSS_THREAD_PER_ITEM, c).filter(|_| has(CURRENT_THREAD, c)).map(|(name, _)| {
        let tokio = profile(summary, "stream-tokio", c);
        Current { profile: profile(summary, CURRENT_THREAD, c), tokio, fastest: profile(summary, name, c) }
    });
    let room = caps.iter().copied().filter(|&w| w > c).max().and_then(|wide| {
        let rows: Vec<Change> = BATCH_PAIRS
            .iter()
            .filter(|(_, batched)| has(batched, wide))
            .filter_map(|(_, batched)| change(summary, (batched, c), (batched, wide)))
            .collect();
        (!rows.is_empty()).then(|| Room { at_claim: packing(summary, c), at_wide: packing(summary, wide), rows })
    });
    let ends = [caps.first().copied(), caps.last().copied().filter(|&w| Some(w) != caps.first().copied())];
    let cores_at =
        |capacity| ran(summary, BLOCKING_CRATES.into_iter().chain([CONDVAR, "stream-tokio"]), capacity, "cores_used");
    let batched_slower: Vec<(Change, bool)> = BATCH_PAIRS
        .iter()
        .filter_map(|(single, batched)| {
            let slower = holding(summary, &findings::batched_slower(single, c))?;
            let more = |stem| summary.finding_holds(&findings::batched_wakes_more(stem, single, c));
            let p = Some(slower.p.map_or_else(|| "n/a".to_string(), format_p));
            change(summary, (single, c), (batched, c))
                .map(|row| (Change { p, ..row }, more("switches") && more("system")))
        })
        .collect();
    Findings {
        floor: profile(summary, LOOP, c),
        per_item: ran(summary, CROSS_THREAD_PER_ITEM, c, HEADLINE),
        capacity_one: if caps.contains(&1) {
            CROSS_THREAD_PER_ITEM.iter().filter_map(|n| change(summary, (n, 1), (n, c))).collect()
        } else {
            Vec::new()
        },
        current,
        batching: BATCH_PAIRS
            .iter()
            .filter(|(_, batched)| has(batched, c))
            .filter_map(|(single, batched)| change(summary, (single, c), (batched, c)))
            .collect(),
        allocs: median_at("stream-futures", "allocs_per_item").map(|_| Group {
            lead: profile(summary, "stream-futures", c),
            others: ran(summary, ALLOCATING, c, "allocs_per_item"),
        }),
        room,
        batched_slower_wakes_more: batched_slower.iter().all(|(_, wakes_more)| *wakes_more),
        batched_slower: batched_slower.into_iter().map(|(row, _)| row).collect(),
        one_message: one_message_pairs()
            .iter()
            .filter_map(|(single, one)| change(summary, (one, wide), (single, wide)))
            .collect(),
        cores: ends.into_iter().flatten().map(cores_at).filter(|rows| !rows.is_empty()).collect(),
        current_cores: num(median_at(CURRENT_THREAD, "cores_used")),
        condvar: median_at(CONDVAR, "cpu_system_ns_per_item").map(|_| Group {
            lead: profile(summary, CONDVAR, c),
            others: ran(summary, BLOCKING_CRATES, c, "cpu_system_ns_per_item"),
        }),
        condvar_batch_items: median_at("blocking-condvar-batched", "items_per_message").map(|k| count(Some(k))),
        bridges: ["stream-bridge-blocking-send", "blocking-bridge-blocking-recv"].iter().any(|n| has(n, c)),
        recv_many: has("stream-tokio-recv-many", c),
        outstanding: outstanding(summary),
    }
}

/// Each one-message contestant (role `pathology`) after its per-item twin, in registry order.
fn one_message_pairs() -> Vec<(String, String)> {
    let registry = crate::handoff::contestants::contestants();
    let one = registry.iter().map(|c| c.info()).filter(|i| i.role == Role::Pathology);
    one.filter_map(|i| Some((i.name.strip_suffix("-one-message")?.to_string(), i.name))).collect()
}

/// Exact against sampled outstanding work at the claim capacity: `blocking-crossbeam`'s, and the contestant whose
/// 1 ms samples missed most of its exact peak.
fn outstanding(summary: &Summary) -> Option<Outstanding> {
    let c = CLAIM_CAPACITY;
    let peaks = |name: &str| {
        let at = |metric| summary.median_in(name, &phase(c), metric);
        Some((at("max_outstanding")?, at("max_outstanding_sampled")?))
    };
    let missed = summary
        .contestants
        .iter()
        .filter_map(|contestant| {
            let (exact, sampled) = peaks(&contestant.name)?;
            (exact > 0.0).then(|| (contestant.name.as_str(), sampled / exact))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let exact = summary.median_in("blocking-crossbeam", &phase(c), "max_outstanding");
    (exact.is_some() || missed.is_some()).then(|| Outstanding {
        crossbeam: profile(summary, "blocking-crossbeam", c),
        missed: missed.filter(|m| m.1 < 1.0).map(|(name, _)| profile(summary, name, c)),
    })
}

/// The profile at `capacity` of the first batched contestant that recorded both what its message carries and
/// how many the channel holds.
fn packing(summary: &Summary, capacity: u64) -> Option<Profile> {
    let recorded = |metric| move |n: &&str| summary.median_in(n, &phase(capacity), metric).is_some();
    let batched = BATCH_PAIRS.iter().map(|(_, batched)| *batched);
    let first = batched.filter(recorded("items_per_message")).find(recorded("messages_per_channel"));
    first.map(|name| profile(summary, name, capacity))
}

/// `from` (a contestant at a capacity) beside `to`, when `from` has an ms/M.
fn change(summary: &Summary, from: (&str, u64), to: (&str, u64)) -> Option<Change> {
    let at = |(name, capacity): (&str, u64)| summary.median_in(name, &phase(capacity), HEADLINE);
    let ratio = ratio(Some(at(from)?), at(to));
    Some(Change { from: profile(summary, from.0, from.1), to: profile(summary, to.0, to.1), ratio, p: None })
}

/// `name`'s [`Profile`] at `capacity`.
fn profile(summary: &Summary, name: &str, capacity: u64) -> Profile {
    let mut profile = Profile::from([("name", name.to_string()), ("capacity", capacity.to_string())]);
    for (key, metric, whole) in FIGURES {
        let x = summary.median_in(name, &phase(capacity), metric);
        profile.insert(key, if whole { count(x) } else { num(x) });
    }
    profile
}

/// The profiles at `capacity` of those of `names` that have `metric` there, in order.
fn ran<'a>(summary: &Summary, names: impl IntoIterator<Item = &'a str>, capacity: u64, metric: &str) -> Vec<Profile> {
    let names = names.into_iter().filter(|n| summary.median_in(n, &phase(capacity), metric).is_some());
    names.map(|n| profile(summary, n, capacity)).collect()
}

/// A count (items, messages), rounded to a whole number; `n/a` when missing.
fn count(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |x| format!("{}", x.round()))
}

/// The contestant among `names` with the lowest median `ms_per_million` at `capacity`.
fn fastest<'a>(summary: &Summary, names: impl IntoIterator<Item = &'a str>, capacity: u64) -> Option<(&'a str, f64)> {
    names
        .into_iter()
        .filter_map(|n| summary.median_in(n, &phase(capacity), HEADLINE).map(|m| (n, m)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// `items / small_items`, when both are single numbers.
fn ratio_of_items(summary: &Summary) -> Option<f64> {
    let (items, small) = (summary.param("items")?, summary.param("small_items")?);
    (small > 0.0).then(|| items / small)
}

#[cfg(test)]
mod tests;
