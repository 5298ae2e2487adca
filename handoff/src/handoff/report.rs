//! The handoff scenario's report: the figures and verdicts of a run, gathered from its [`Summary`] into a typed
//! [`Context`] (numbers formatted, claims by id) and rendered with `templates/report.md`, which holds every word
//! of the discussion and chooses each conditional finding by its claim's verdict. Nothing here builds a sentence
//! or looks a claim up by its text; a figure the run lacks is `n/a`, and a finding whose figures are missing is
//! left out by the template. Every figure of a contestant reaches the template through one row type,
//! [`Profile`] (its figures at one capacity, read by the table [`FIGURES`]), alone or as two side by side
//! ([`Change`]).

use std::collections::BTreeMap;

use measure::compare::{format_or_na as num, format_p, format_ratio, process_range, times_or_na as ratio};
use measure::external::beside_standalone;
use measure::judge::Beyond;
use measure::summary::{ClaimResult, MetricStats, Role, Summary, Verdict};
use measure::template::{claims_with_table, ClaimView};
use serde::Serialize;

use super::{HEADLINE, SERIES_CAPACITY, SMALL_CAPACITY_BELOW};
use crate::handoff::claims::{
    capacities, phase, BATCHING_FACTOR, BATCH_PAIRS, BLOCKING_CRATES, CLAIM_CAPACITY, CONDVAR, CROSS_THREAD_PER_ITEM,
    CURRENT_THREAD, LOOP, RECEIVE_SIDE_FACTOR, RING, STANDALONE_GUARD, STANDALONE_LIMIT, WAKEUP_FACTOR,
};
use crate::handoff::contestants::{ab_variants, bare_pairs, standalone_pairs};
use crate::handoff::findings::{self, ASYNC_BATCHED};
use crate::job::HandoffConfig;

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The template of the headline's own line: the per-item candidates against the floors.
const HEADLINE_NOTES: &str = include_str!("templates/headline.md");

/// The template of the scenario's appendix sections: the calibration against bare programs in full.
const DETAILS_TEMPLATE: &str = include_str!("templates/details.md");

/// The batched contestants whose best figure the advice on blocking code cites.
const BLOCKING_BATCHED: [&str; 3] = ["blocking-crossbeam-batched", "blocking-flume-batched", "blocking-std-batched"];

/// Above this lab ÷ bare ratio of medians the report states a row's remaining cost and what the judge says of it
/// (below it the lab measures the channel and not itself).
const FIDELITY_BAR: f64 = 1.2;

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
    /// Each lab contestant beside its bare pair, per capacity, judged on process medians.
    pub fidelity: Vec<FidelityRow>,
    /// No row of `fidelity` has a ratio of medians above [`FIDELITY_BAR`].
    pub fidelity_within: bool,
    /// [`FIDELITY_BAR`], formatted (`1.2×`).
    pub fidelity_bar: String,
    /// The run's noise threshold as a percentage (`20%`).
    pub noise: String,
    /// The "lab ÷ standalone" section: each lab contestant beside its standalone program per capacity, rendered
    /// by [`measure::external::section`].
    pub standalone: String,
    /// Each per-cause A/B variant that ran, beside its bare pair, per capacity (empty in a default run).
    pub ab: Vec<AbRow>,
    /// The bare pairs that have per-cause variants besides a control, in listing order.
    pub ab_bares: Vec<String>,
    /// The bare pairs that have only an A/A control, in listing order.
    pub ab_control_only: Vec<String>,
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

/// Every per-item contestant's cost as a multiple of the two floors at each capacity of the run: the ring
/// ([`RING`], the floor of a cross-thread hand-off) and the loop ([`LOOP`], the work without a hand-off). Ratios of
/// medians, `—` where either side did not run; not judged, so they state no finding.
#[derive(Debug, Serialize)]
pub struct FloorMultiples {
    /// The ring's name.
    pub ring: &'static str,
    /// The loop's name.
    pub floor_loop: &'static str,
    /// The ring ran at some capacity.
    pub ring_ran: bool,
    /// The capacities, in the run's order: one group of columns each.
    pub capacities: Vec<u64>,
    /// The loop, then every per-item contestant (one item per message) that ran, in registry order.
    pub rows: Vec<MultiplesRow>,
}

/// One contestant's row of [`FloorMultiples`].
#[derive(Debug, Serialize)]
pub struct MultiplesRow {
    /// The contestant.
    pub name: String,
    /// Its role (`candidate`, `reference`, `floor`).
    pub role: &'static str,
    /// Its figures at each of [`FloorMultiples::capacities`], in order.
    pub cells: Vec<Multiple>,
}

/// A contestant's ms/M at one capacity and its multiples of the floors there, formatted (`—` when missing).
#[derive(Debug, Serialize)]
pub struct Multiple {
    /// Its ms/M.
    pub ms: String,
    /// Its median over the ring's, such as `12.3×`.
    pub of_ring: String,
    /// Its median over the loop's.
    pub of_loop: String,
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

/// What the findings say of one contestant against another ([`findings::against`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The finding holds that it is slower, beyond noise.
    pub slower: bool,
    /// The finding holds that it is faster, beyond noise.
    pub faster: bool,
    /// A side has too few processes to judge (its process range is `n/a`).
    pub too_few: bool,
    /// The exact one-sided p of the finding that holds, formatted.
    pub p: Option<String>,
}

/// Whether the per-cause A/B covers a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AbState {
    /// No variant other than a control exists for this lab contestant.
    NoneExists,
    /// Variants exist, but none other than the control ran at this capacity.
    NotRun,
    /// At least one variant other than the control ran at this capacity.
    Ran,
}

/// A lab contestant beside its bare pair at one capacity, judged on process medians.
#[derive(Debug, Serialize)]
pub struct FidelityRow {
    /// The lab contestant.
    pub lab: String,
    /// Its bare pair.
    pub bare: String,
    /// The capacity.
    pub capacity: u64,
    /// The lab contestant's figures beside the bare pair's.
    #[serde(flatten)]
    pub beside: Beside,
    /// The ratio of medians is above [`FIDELITY_BAR`].
    pub above_bar: bool,
    /// `lab − bare` in ms/M: the measured remaining cost.
    pub cost: String,
    /// Whether the per-cause A/B covers this row.
    pub ab: AbState,
    /// The A/A control at this capacity, when it ran.
    pub control: Option<Control>,
    /// The variants other than the control judged slower than the bare pair at this capacity and, where the
    /// control ran, slower than the control too.
    pub causes_slower: Vec<AbRow>,
}

/// A contestant's figures beside its bare pair's at one capacity, judged against them.
#[derive(Debug, Clone, Serialize)]
pub struct Beside {
    /// Its ms/M.
    pub ms: String,
    /// The lowest and highest of its process medians (`45.1–52.3`), or `n/a`.
    pub range: String,
    /// The bare pair's ms/M.
    pub bare_ms: String,
    /// The same of the bare pair.
    pub bare_range: String,
    /// Its median over the bare pair's, such as `1.04×`.
    pub ratio: String,
    /// It against the bare pair.
    pub judged: Judgement,
}

/// The A/A control (an identical copy of the bare pair) at one capacity.
#[derive(Debug, Serialize)]
pub struct Control {
    /// The control's name.
    pub name: String,
    /// Its figures beside the bare pair.
    #[serde(flatten)]
    pub beside: Beside,
    /// The lab contestant against the control.
    pub lab_against: Judgement,
}

/// A per-cause A/B variant beside its bare pair at one capacity.
#[derive(Debug, Clone, Serialize)]
pub struct AbRow {
    /// The variant.
    pub variant: String,
    /// The lab contestant whose gap it looks into.
    pub lab: String,
    /// The suffix of the cause it puts back (`control`, `lab-loops`, ...).
    pub cause: String,
    /// It is the A/A control.
    pub control: bool,
    /// Its pair's ends are tasks, not threads (what `cause` puts back is worded for tasks).
    pub tasks: bool,
    /// The capacity.
    pub capacity: u64,
    /// Its figures beside the bare pair.
    #[serde(flatten)]
    pub beside: Beside,
    /// The variant against the A/A control at this capacity, when the control ran (and this is not it).
    pub against_control: Option<Judgement>,
}

/// Markdown discussing `summary`: [`context`] rendered with `templates/report.md`.
pub fn report(summary: &Summary) -> String {
    measure::template::render_or_note("handoff/report.md", TEMPLATE, context(summary))
}

/// The scenario's sections of the appendix: [`context`] rendered with `templates/details.md`.
pub fn details(summary: &Summary) -> String {
    measure::template::render_or_note("handoff/details.md", DETAILS_TEMPLATE, context(summary))
}

/// The headline's own line (the report's headline and the index show it), rendered from `templates/headline.md`:
/// at the claim capacity, the lowest and highest multiple of the ring and of the loop among the candidates that
/// hand off one item per message; nothing when either floor or every such candidate is missing.
pub fn headline_notes(summary: &Summary) -> Vec<String> {
    let Some(note) = floor_note(summary) else { return Vec::new() };
    match measure::template::render("handoff/headline.md", HEADLINE_NOTES, note) {
        Ok(text) => text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
        Err(err) => vec![format!("_The headline notes could not be rendered: {err}._")],
    }
}

/// What `templates/headline.md` reads: the per-item candidates' multiples of the floors at the claim capacity.
#[derive(Debug, Serialize)]
pub struct FloorNote {
    /// The capacity ([`CLAIM_CAPACITY`]).
    pub capacity: u64,
    /// The ring's name.
    pub ring: &'static str,
    /// The ring's ms/M.
    pub ring_ms: String,
    /// The loop's name.
    pub floor_loop: &'static str,
    /// How many per-item candidates ran.
    pub candidates: usize,
    /// The candidate's name, when only one ran.
    pub only: Option<String>,
    /// The lowest and highest candidate median over the ring's (`12.3×`).
    pub of_ring: (String, String),
    /// The lowest and highest candidate median over the loop's.
    pub of_loop: (String, String),
}

/// [`FloorNote`] of `summary`, when both floors and a per-item candidate ran at the claim capacity.
fn floor_note(summary: &Summary) -> Option<FloorNote> {
    let c = CLAIM_CAPACITY;
    let at = |name: &str| summary.median_in(name, &phase(c), HEADLINE);
    let (ring, floor_loop) = (at(RING)?, at(LOOP)?);
    let mut candidates: Vec<(String, f64)> = crate::handoff::contestants::contestants()
        .iter()
        .filter(|c| c.info().role == Role::Candidate && c.items_per_message(&HandoffConfig::default()) == Some(1))
        .filter_map(|c| Some((c.info().name, at(&c.info().name)?)))
        .collect();
    candidates.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (low, high) = (candidates.first()?.1, candidates.last()?.1);
    let only = match candidates.as_slice() {
        [(name, _)] => Some(name.clone()),
        _ => None,
    };
    let times = |a: f64, b: f64| format!("{}×", format_ratio(a / b));
    (ring > 0.0 && floor_loop > 0.0).then(|| FloorNote {
        capacity: c,
        ring: RING,
        ring_ms: num(Some(ring)),
        floor_loop: LOOP,
        candidates: candidates.len(),
        only,
        of_ring: (times(low, ring), times(high, ring)),
        of_loop: (times(low, floor_loop), times(high, floor_loop)),
    })
}

/// The figures and verdicts of `summary` that the report's template reads.
pub fn context(summary: &Summary) -> Context {
    let caps = capacities(summary);
    let c = CLAIM_CAPACITY;
    let wide = caps.iter().copied().max().unwrap_or(c);
    let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
    let param_u64 = |k: &str| summary.params.get(k).and_then(|v| v.as_u64()).map(|n| n.to_string());
    let (fidelity_rows, ab_rows) = calibration(summary, &caps);
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
        findings: findings(summary, &caps, wide),
        fidelity_within: fidelity_rows.iter().all(|r| !r.above_bar),
        fidelity: fidelity_rows,
        fidelity_bar: format!("{FIDELITY_BAR}×"),
        noise: format!("{}%", (summary.method.threshold("ms_per_million") * 1000.0).round() / 10.0),
        standalone: against_standalone(summary),
        ab: ab_rows,
        ab_bares: ab_bares(true),
        ab_control_only: ab_bares(false),
        best_blocking_batched: fastest(summary, BLOCKING_BATCHED, wide).map(|(name, _)| profile(summary, name, wide)),
        async_close: summary.finding_holds(findings::async_alike(wide)),
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

/// [`FloorMultiples`] of `summary` at `caps`: the loop's row, then each registered per-item contestant that has a
/// figure at some capacity.
fn floor_multiples(summary: &Summary, caps: &[u64]) -> FloorMultiples {
    let at = |name: &str, capacity: u64| summary.median_in(name, &phase(capacity), HEADLINE);
    let missing = || "—".to_string();
    let times = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{}×", format_ratio(a / b)),
        _ => missing(),
    };
    let per_item = crate::handoff::contestants::contestants()
        .iter()
        .filter(|c| c.info().name == LOOP || c.items_per_message(&HandoffConfig::default()) == Some(1))
        .map(|c| c.info())
        .collect::<Vec<_>>();
    let rows = per_item
        .iter()
        .filter(|info| caps.iter().any(|&capacity| at(&info.name, capacity).is_some()))
        .map(|info| MultiplesRow {
            name: info.name.clone(),
            role: info.role.as_str(),
            cells: caps
                .iter()
                .map(|&capacity| {
                    let ms = at(&info.name, capacity);
                    Multiple {
                        ms: ms.map_or_else(missing, |m| num(Some(m))),
                        of_ring: times(ms, at(RING, capacity)),
                        of_loop: times(ms, at(LOOP, capacity)),
                    }
                })
                .collect(),
        })
        .collect();
    FloorMultiples {
        ring: RING,
        floor_loop: LOOP,
        ring_ran: caps.iter().any(|&capacity| at(RING, capacity).is_some()),
        capacities: caps.to_vec(),
        rows,
    }
}

/// Each lab contestant beside its standalone program at every capacity both ran ([`standalone_pairs`]), as the
/// report's "lab ÷ standalone" section, judged at [`STANDALONE_LIMIT`].
fn against_standalone(summary: &Summary) -> String {
    let rows = beside_standalone(summary, &standalone_pairs(), HEADLINE, STANDALONE_LIMIT);
    measure::external::section(&rows, "ms/M", STANDALONE_LIMIT, STANDALONE_GUARD, standalone::BUILD)
}

/// The findings of "where the time goes" (`wide`: the widest capacity).
fn findings(summary: &Summary, caps: &[u64], wide: u64) -> Findings {
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
            let slower = holding(summary, findings::batched_slower(single, c))?;
            let more = |stem| summary.finding_holds(findings::batched_wakes_more(stem, single, c));
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

/// Each lab contestant beside its bare reference pair ([`bare_pairs`]), and each per-cause A/B variant
/// ([`ab_variants`]) that ran beside its bare pair, at every capacity where both have a figure, judged on process
/// medians: the fidelity rows (one above [`FIDELITY_BAR`] gets what its A/B rows say of it) and the A/B rows, by
/// lab contestant, then capacity, then variant (the control first).
fn calibration(summary: &Summary, caps: &[u64]) -> (Vec<FidelityRow>, Vec<AbRow>) {
    let variants = ab_variants();
    let (mut rows, mut ab) = (Vec::new(), Vec::new());
    for (lab, bare) in bare_pairs() {
        for &capacity in caps {
            let stats = |name: &str| ms_stats(summary, name, capacity);
            let ours = || variants.iter().filter(|v| v.lab == lab);
            let control = ours().find(|v| v.control).and_then(|v| Some((v, stats(&v.name)?)));
            let here: Vec<AbRow> = ours()
                .filter_map(|variant| {
                    let (v, b) = (stats(&variant.name)?, stats(&variant.bare)?);
                    Some(AbRow {
                        variant: variant.name.clone(),
                        lab: variant.lab.to_string(),
                        cause: variant.cause.to_string(),
                        control: variant.control,
                        tasks: variant.tasks,
                        capacity,
                        beside: beside(summary, (&variant.name, v), b, capacity),
                        against_control: control
                            .filter(|_| !variant.control)
                            .map(|(_, c)| judge(summary, (&variant.name, true), [v, c], capacity)),
                    })
                })
                .collect();
            if let (Some(l), Some(b)) = (stats(lab), stats(&bare)) {
                let control = control.map(|(v, c)| Control {
                    name: v.name.clone(),
                    beside: beside(summary, (&v.name, c), b, capacity),
                    lab_against: judge(summary, (lab, true), [l, c], capacity),
                });
                let above_bar = b.median > 0.0 && l.median / b.median > FIDELITY_BAR;
                let ab_state = if here.iter().any(|r| !r.control) {
                    AbState::Ran
                } else if ours().any(|v| !v.control) {
                    AbState::NotRun
                } else {
                    AbState::NoneExists
                };
                rows.push(FidelityRow {
                    lab: lab.to_string(),
                    bare: bare.clone(),
                    capacity,
                    beside: beside(summary, (lab, l), b, capacity),
                    above_bar,
                    cost: num(Some(l.median - b.median)),
                    ab: ab_state,
                    control,
                    causes_slower: here
                        .iter()
                        .filter(|r| !r.control && r.beside.judged.slower)
                        .filter(|r| r.against_control.as_ref().is_none_or(|j| j.slower))
                        .cloned()
                        .collect(),
                });
            }
            ab.extend(here);
        }
    }
    (rows, ab)
}

/// The bare pairs with per-cause variants besides their control (`causes`), or with only a control (`!causes`).
fn ab_bares(causes: bool) -> Vec<String> {
    let variants = ab_variants();
    let mut bares: Vec<String> = Vec::new();
    for v in &variants {
        let has_causes = variants.iter().any(|w| w.bare == v.bare && !w.control);
        if has_causes == causes && !bares.contains(&v.bare) {
            bares.push(v.bare.clone());
        }
    }
    bares
}

/// The finding `id` of `summary`, when it holds.
fn holding<'a>(summary: &'a Summary, id: &str) -> Option<&'a ClaimResult> {
    summary.finding(id).filter(|f| f.verdict == Verdict::Holds)
}

/// What the findings say of `name` against its bare pair (or, with `control`, its pair's A/A control) at
/// `capacity`, the two sides' statistics being `sides`.
fn judge(summary: &Summary, (name, control): (&str, bool), sides: [&MetricStats; 2], capacity: u64) -> Judgement {
    let way = |beyond| holding(summary, findings::against(name, beyond, control, capacity));
    let (slower, faster) = (way(Beyond::Above), way(Beyond::Below));
    Judgement {
        slower: slower.is_some(),
        faster: faster.is_some(),
        too_few: sides.iter().any(|s| process_range(s).is_none()),
        p: slower.or(faster).and_then(|f| f.p).map(format_p),
    }
}

/// `name`'s figures (`a`) beside its bare pair's at `capacity`, and what the findings say of them.
fn beside(summary: &Summary, (name, a): (&str, &MetricStats), bare: &MetricStats, capacity: u64) -> Beside {
    let range = |stats: &MetricStats| {
        process_range(stats)
            .map_or_else(|| "n/a".to_string(), |(low, high)| format!("{}–{}", num(Some(low)), num(Some(high))))
    };
    Beside {
        ms: num(Some(a.median)),
        range: range(a),
        bare_ms: num(Some(bare.median)),
        bare_range: range(bare),
        ratio: ratio(Some(a.median), Some(bare.median)),
        judged: judge(summary, (name, false), [a, bare], capacity),
    }
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

/// The statistics of `ms_per_million` for `contestant` at `capacity`, if it ran cleanly.
fn ms_stats<'a>(summary: &'a Summary, contestant: &str, capacity: u64) -> Option<&'a MetricStats> {
    summary.metric(contestant, &format!("{}.{HEADLINE}", phase(capacity)))
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
mod tests {
    use super::*;
    use crate::handoff::claims::tests::summary_with;
    use measure::summary::Verdict;
    use testkit::fixture::processes;

    /// `summary` with its claims judged, as the harness does before rendering.
    fn judged(mut summary: Summary) -> Summary {
        summary.claims = measure::judge::judge_all(&summary, &crate::handoff::claims::table(&summary));
        summary.findings = measure::judge::judge_all(&summary, &findings::table(&summary));
        summary
    }

    /// `summary` with the claim `id` given `verdict`.
    fn with_verdict(mut summary: Summary, id: &str, verdict: Verdict) -> Summary {
        for claim in summary.claims.iter_mut().filter(|c| c.id == id) {
            claim.verdict = verdict;
        }
        summary
    }

    /// Fails on what a sentence assembled from pieces shows when a piece is missing or misplaced.
    fn assert_whole(text: &str) {
        for bad in ["  ", " ,", " ;", " .", "()", "( ", " )", "0.00 items", "sampled 0.00"] {
            assert!(!text.contains(bad), "`{bad}` in:\n{text}");
        }
        let glued = text.match_indices("ms/M").any(|(i, _)| text[i + 4..].starts_with(|c: char| c.is_ascii_digit()));
        assert!(!glued, "a number glued to a unit:\n{text}");
    }

    #[test]
    fn each_lab_contestant_stands_beside_its_bare_pair_as_a_ratio() {
        let summary = judged(summary_with(&[
            ("blocking-crossbeam", 256, 60.0),
            ("blocking-crossbeam-bare", 256, 40.0),
            ("stream-tokio", 256, 150.0),
        ]));
        let text = details(&summary);
        assert!(
            text.contains(
                "| `blocking-crossbeam` | `blocking-crossbeam-bare` | 256 | 60.0 | 40.0 | 1.50× | 59.9–60.1 | 40.0–40.0 | \
                 slower, p = 0.050 |"
            ),
            "{text}"
        );
        assert!(text.contains("| `stream-tokio` | `stream-tokio-bare` | 256 | 150 | 100 | 1.50× |"), "{text}");
        assert!(text.contains("`just fidelity-ab` runs the bare pairs' variants"), "no variant ran: {text}");
        assert!(text.contains("`reports/fidelity-ab/handoff.md`"), "{text}");
        assert_whole(&text);
        let main = report(&summary);
        assert!(main.contains("(handoff-details.md#the-lab-against-bare-programs)"), "{main}");
        assert!(
            main.contains("`blocking-crossbeam` at capacity 256, 1.50× its bare pair (slower, p = 0.050)"),
            "{main}"
        );
        assert_whole(&main);
        let mut without = summary_with(&[("blocking-crossbeam", 256, 60.0)]);
        without.contestants.retain(|c| !c.name.ends_with("-bare"));
        let none = details(&judged(without));
        assert!(none.contains("The bare reference pairs did not run"), "{none}");
    }

    #[test]
    fn every_per_item_row_reads_as_a_multiple_of_the_ring_and_of_the_loop_at_each_capacity() {
        let summary = judged(summary_with(&[
            (RING, 256, 2.0),
            (LOOP, 256, 1.0),
            (LOOP, 1, 4.0),
            ("blocking-crossbeam", 256, 50.0),
            ("stream-tokio", 1, 800.0),
        ]));
        let text = report(&summary);
        assert!(
            text.contains("| contestant | role | ms/M at 1 | × ring | × loop | ms/M at 256 | × ring | × loop |"),
            "{text}"
        );
        assert!(
            text.contains("| `blocking-crossbeam` | candidate | 100 | 1.00× | 25.0× | 50.0 | 25.0× | 50.0× |"),
            "{text}"
        );
        assert!(text.contains("| `stream-tokio` | candidate | 800 | 8.00× | 200× | 100 | 50.0× | 100× |"), "{text}");
        assert!(
            text.contains(&format!("| `{RING}` | reference | 100 | 1.00× | 25.0× | 2.00 | 1.00× | 2.00× |")),
            "{text}"
        );
        assert!(
            text.contains(&format!("| `{LOOP}` | floor | 4.00 | 0.0400× | 1.00× | 1.00 | 0.500× | 1.00× |")),
            "{text}"
        );
        let rows: Vec<String> = context(&summary).floor_multiples.rows.into_iter().map(|r| r.name).collect();
        assert_eq!(&rows[..3], [LOOP, RING, "blocking-crossbeam"]);
        for batched in ["blocking-crossbeam-batched", "blocking-crossbeam-one-message", "stream-tokio-batched"] {
            assert!(!rows.iter().any(|r| r == batched), "{batched} hands off more than one item per message");
        }
        assert!(!text.contains(&format!("`{RING}` did not run")), "{text}");
        assert!(!text.contains("|\n\n\n"), "one blank line after the table:\n{text}");
        assert_whole(&text);

        let mut without = summary_with(&[("blocking-crossbeam", 256, 50.0)]);
        without.contestants.retain(|c| c.name != RING);
        let text = report(&judged(without));
        assert!(text.contains(&format!("`{RING}` did not run in this run, so its column reads `—`")), "{text}");
        assert!(text.contains("| `blocking-crossbeam` | candidate | 100 | — | 1.00× | 50.0 | — | 0.500× |"), "{text}");
        assert_whole(&text);
    }

    #[test]
    fn the_headline_sets_the_per_item_candidates_between_their_multiples_of_the_floors() {
        let medians =
            [(RING, 256, 2.0), (LOOP, 256, 1.0), ("blocking-crossbeam", 256, 50.0), ("stream-flume", 256, 400.0)];
        let notes = headline_notes(&judged(summary_with(&medians)));
        let candidates = crate::handoff::contestants::contestants()
            .iter()
            .filter(|c| c.info().role == Role::Candidate && c.items_per_message(&HandoffConfig::default()) == Some(1))
            .count();
        assert_eq!(
            notes,
            [format!(
                "Per item at capacity 256, the {candidates} candidates that hand off one item per message cost 25.0× to \
                 200× the floor of a cross-thread hand-off here (`{RING}`, a bounded single-producer single-consumer \
                 ring, 2.00 ms/M) and 50.0× to 400× the work without a hand-off (`{LOOP}`)."
            )]
        );
        let mut one = summary_with(&medians);
        one.contestants.retain(|c| [RING, LOOP, "blocking-crossbeam"].contains(&c.name.as_str()));
        assert_eq!(
            headline_notes(&judged(one.clone())),
            [format!(
                "Per item at capacity 256, the one candidate that hands off one item per message, \
                 `blocking-crossbeam`, costs 25.0× the floor of a cross-thread hand-off here (`{RING}`, a bounded \
                 single-producer single-consumer ring, 2.00 ms/M) and 50.0× the work without a hand-off (`{LOOP}`)."
            )]
        );
        one.contestants.retain(|c| c.name != RING);
        assert!(headline_notes(&judged(one)).is_empty(), "no ring, no line");
    }

    #[test]
    fn each_pair_stands_beside_its_standalone_program_with_cores_and_a_failed_guard_is_a_claim() {
        let mut summary = summary_with(&[]);
        for (lab, standalone) in standalone_pairs() {
            let mut copy = summary.contestant(&lab).expect("the lab twin").clone();
            copy.name = standalone;
            copy.metrics.insert("capacity_256.cores_used".to_string(), processes(&[1.5, 1.5, 1.5]));
            summary.contestants.push(copy);
        }
        let summary = with_processes(summary, "blocking-crossbeam", &[48.0, 52.0, 56.0]);
        let summary = with_processes(summary, "blocking-crossbeam-standalone", &[26.0, 30.0, 38.0]);
        let summary = judged(summary);
        let text = report(&summary);
        assert!(
            text.contains(
                "| `blocking-crossbeam` | `blocking-crossbeam-standalone` | `capacity_256` | 52.0 | 30.0 | **1.73×** \
                 | 1.25 | 1.50 | above, p = 0.050 |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| `stream-tokio` | `stream-tokio-standalone` | `capacity_1` | 100 | 100 | 1.00× |"),
            "{text}"
        );
        assert!(text.contains("Above 1.10×: `blocking-crossbeam` at `capacity_256` (1.73×, on 1.25 cores against 1.50"));
        assert_whole(&text);
        let guard = summary.claims.iter().find(|c| c.id == STANDALONE_GUARD).expect("the guard is judged");
        assert_eq!((guard.verdict, guard.guard), (Verdict::Fails, true), "{}", guard.detail);
        let none = report(&judged(summary_with(&[])));
        assert!(none.contains("The standalone programs did not run in this run"), "{none}");
        assert!(none.contains("`cargo build --release -p standalone` builds them"), "{none}");
    }

    /// `summary` with `name`'s `ms_per_million` at capacity 256 read from the process medians `medians`; a
    /// contestant the summary lacks (an A/B variant, on request only) is added as a copy of its bare pair.
    fn with_processes(mut summary: Summary, name: &str, medians: &[f64]) -> Summary {
        if summary.contestant(name).is_none() {
            let bare = name.find("-bare-").map_or(name, |i| &name[..i + "-bare".len()]);
            let mut copy = summary.contestant(bare).expect("its bare pair").clone();
            copy.name = name.to_string();
            summary.contestants.push(copy);
        }
        let contestant = summary.contestants.iter_mut().find(|c| c.name == name).expect("added");
        contestant.metrics.insert("capacity_256.ms_per_million".to_string(), processes(medians));
        summary
    }

    const BARE: [f64; 5] = [48.0, 50.0, 49.0, 51.0, 50.5];

    #[test]
    fn a_row_above_the_bar_states_its_cost_and_what_the_judge_and_the_control_say() {
        let lab = [80.0, 82.0, 79.0, 85.0, 81.0];
        let base = with_processes(summary_with(&[]), "blocking-crossbeam-bare", &BARE);

        // The lab told slower than its bare pair and than an identical copy; one cause told slower than both.
        let mut summary = with_processes(base.clone(), "blocking-crossbeam", &lab);
        summary = with_processes(summary, "blocking-crossbeam-bare-control", &[49.0, 50.5, 48.5, 51.5, 50.0]);
        summary = with_processes(summary, "blocking-crossbeam-bare-lab-loops", &[78.0, 80.0, 83.0, 79.5, 81.5]);
        summary = with_processes(summary, "blocking-crossbeam-bare-lab-message", &[47.0, 52.0, 60.0, 49.5, 80.0]);
        let context = context(&judged(summary.clone()));
        let row = context.fidelity.iter().find(|r| r.lab == "blocking-crossbeam" && r.capacity == 256).expect("row");
        assert!(row.beside.judged.slower && row.control.as_ref().is_some_and(|c| c.lab_against.slower));
        let causes: Vec<&str> = row.causes_slower.iter().map(|r| r.cause.as_str()).collect();
        assert_eq!(causes, ["lab-loops"]);
        let text = details(&judged(summary));
        assert!(text.contains("- **`blocking-crossbeam` at capacity 256**: 81.0 against 50.0 ms/M, a remaining cost of 31.0 ms/M (1.62×). The judge tells it apart from the bare pair: every lab process median (79.0–85.0) is above every bare one (48.0–51.0) by more than 20%, p = 0.0040."), "{text}");
        assert!(
            text.contains("is not told apart from the bare pair; the lab against the control: slower, p = 0.0040."),
            "{text}"
        );
        assert!(
            text.contains(
                "That is a cost of the lab's own code, beyond what an identical copy of the bare pair shows."
            ),
            "{text}"
        );
        assert!(text.contains("the lab's producer and consumer loops (`blocking-crossbeam-bare-lab-loops`, 1.60× the bare pair's, p = 0.0040) is told slower than it and than the control: the cost comes from there."), "{text}");
        assert!(text.contains("| `blocking-crossbeam-bare-lab-message` | the lab's message type, `Result<u64, Infallible>` | 256 | 52.0 | 1.04× | 47.0–80.0 | not told apart |"), "{text}");
        assert!(!text.contains("`just fidelity-ab` runs"), "the A/B ran: {text}");
        assert_whole(&text);

        // A/A: the lab's processes overlap the bare pair's and the control's: no lab cost is stated.
        let spread = [47.0, 65.0, 80.0, 49.5, 90.0];
        let mut summary = with_processes(base.clone(), "blocking-crossbeam", &spread);
        summary = with_processes(summary, "blocking-crossbeam-bare-control", &[48.0, 79.0, 85.0, 50.0, 66.0]);
        let text = details(&judged(summary));
        assert!(text.contains("The judge does not tell it apart from the bare pair: not every lab process median is above every bare one by more than 20% (lab 47.0–90.0, bare 48.0–51.0)."), "{text}");
        assert!(text.contains("So the gap is within the pair's own process-to-process spread: the lab is told apart neither from the bare pair nor, as slower, from an identical copy of it"), "{text}");
        assert!(!text.contains("That is a cost of the lab's own code"), "{text}");
        assert_whole(&text);

        // Told slower, but not slower than an identical copy, which is told slower too: not shown to be the lab's.
        let mut summary = with_processes(base.clone(), "blocking-crossbeam", &lab);
        summary = with_processes(summary, "blocking-crossbeam-bare-control", &[79.5, 84.0, 78.0, 86.0, 80.0]);
        let text = details(&judged(summary));
        assert!(
            text.contains(
                "and is told slower than the bare pair (p = 0.0040); the lab against the control: not told apart."
            ),
            "{text}"
        );
        assert!(text.contains("so the separation is not shown to be a cost of the lab's code"), "{text}");
        assert!(!text.contains("That is a cost of the lab's own code"), "{text}");
        assert_whole(&text);

        // No A/B ran: told slower, the cost stated as far as the run can tell, and the reader pointed to the A/B.
        let text = details(&judged(with_processes(base, "blocking-crossbeam", &lab)));
        assert!(
            text.contains("That is the measured remaining cost of the lab's code as far as this run can tell"),
            "{text}"
        );
        assert!(
            text.contains("The per-cause A/B that would isolate its cause did not run here (see below)."),
            "{text}"
        );
        assert!(text.contains("`just fidelity-ab` runs the bare pairs' variants"), "{text}");
        assert_whole(&text);
    }

    #[test]
    fn the_task_pairs_variants_read_as_tasks_and_a_lone_control_isolates_no_cause() {
        let lab = [80.0, 82.0, 79.0, 85.0, 81.0];
        let mut summary = with_processes(summary_with(&[]), "stream-flume-bare", &BARE);
        summary = with_processes(summary, "stream-flume", &lab);
        summary = with_processes(summary, "stream-flume-bare-control", &[49.0, 50.5, 48.5, 51.5, 50.0]);
        summary = with_processes(summary, "stream-flume-bare-started-before", &[78.0, 80.0, 83.0, 79.5, 81.5]);
        summary = with_processes(summary, "stream-tokio-bare", &BARE);
        summary = with_processes(summary, "stream-tokio", &lab);
        summary = with_processes(summary, "stream-tokio-bare-control", &[49.0, 50.5, 48.5, 51.5, 50.0]);
        let context = context(&judged(summary.clone()));
        let row = |lab: &str| context.fidelity.iter().find(|r| r.lab == lab && r.capacity == 256).expect("row");
        assert_eq!(row("stream-flume").ab, AbState::Ran);
        assert_eq!(row("stream-tokio").ab, AbState::NoneExists, "a control alone isolates no cause");
        assert!(row("stream-tokio").control.is_some());
        let text = details(&judged(summary));
        assert!(text.contains("both tasks spawned before the clock, the producer released by the lab's oneshot (`stream-flume-bare-started-before`"), "{text}");
        assert!(text.contains("No per-cause A/B exists for this pair (the variants cover `blocking-crossbeam-bare`, `blocking-flume-bare` and `stream-flume-bare`)"), "{text}");
        assert_whole(&text);
        let none = details(&judged(summary_with(&[("stream-flume", 256, 60.0)])));
        assert!(none.contains("(`blocking-crossbeam-bare-<cause>`, `blocking-flume-bare-<cause>` and `stream-flume-bare-<cause>`, each"), "{none}");
        assert!(none.contains("from a lab cost, of `stream-tokio-bare` too) beside their pairs"), "{none}");
    }

    #[test]
    fn every_a_b_variant_renders_with_what_it_puts_back() {
        let mut summary = summary_with(&[]);
        for variant in crate::handoff::contestants::ab_variants() {
            summary = with_processes(summary, &variant.name, &BARE);
        }
        let context = context(&judged(summary.clone()));
        assert_eq!(
            context.ab.len(),
            2 * crate::handoff::contestants::ab_variants().len(),
            "one row per variant and capacity"
        );
        let text = details(&judged(summary));
        assert!(!text.contains("could not be rendered"), "{text}");
        for variant in crate::handoff::contestants::ab_variants() {
            assert!(text.contains(&format!("| `{}` |", variant.name)), "{text}");
        }
        assert_whole(&text);
    }

    #[test]
    fn every_figure_comes_from_the_summary() {
        let summary = judged(summary_with(&[
            (LOOP, 256, 1.25),
            ("blocking-crossbeam", 256, 62.5),
            ("blocking-crossbeam-batched", 256, 3.125),
            (CURRENT_THREAD, 256, 115.0),
        ]));
        let text = report(&summary);
        assert!(text.contains("1.25"), "{text}");
        assert!(text.contains("20.0×"), "{text}"); // crossbeam per item over batched
        assert!(text.contains("beats every cross-thread pair fails: the fastest, `blocking-crossbeam`"), "{text}");
        assert!(text.contains("50,000") || text.contains("50000"), "{text}");
        assert!(text.contains("### What to pick"));
        assert_whole(&text);
    }

    #[test]
    fn the_packing_is_read_from_the_run_not_from_the_batch_parameter() {
        let mut summary = summary_with(&[]);
        for c in summary.contestants.iter_mut().filter(|c| c.name.ends_with("-batched")) {
            for (capacity, items, messages) in [(1u64, 1.0, 1.0), (256, 16.0, 16.0)] {
                let stats = c.metrics[&format!("capacity_{capacity}.ms_per_million")].clone();
                let scaled = |x: f64| measure::summary::MetricStats { median: x, ..stats.clone() };
                c.metrics.insert(format!("capacity_{capacity}.items_per_message"), scaled(items));
                c.metrics.insert(format!("capacity_{capacity}.messages_per_channel"), scaled(messages));
            }
        }
        summary.params.insert("messages".to_string(), serde_json::Value::from(16));
        let text = report(&judged(summary));
        assert!(
            text.contains("batched contestants send 1 and 16 items per message at capacities 1 and 256 (capacity / 16"),
            "{text}"
        );
        assert!(text.contains("the same costs are paid once per 16 items"), "{text}");
        assert!(text.contains("1 of 1 at capacity 1 and 16 of 16 at capacity 256"), "{text}");
        assert!(!text.contains("send 256 items per message"), "{text}");
        assert_whole(&text);
    }

    #[test]
    fn counts_print_as_whole_numbers() {
        let mut summary = summary_with(&[]);
        let one_message = summary.contestants.iter_mut().find(|c| c.name == "stream-tokio-one-message");
        if let Some(stats) = one_message.and_then(|c| c.metrics.get_mut("capacity_256.max_outstanding_sampled")) {
            stats.median = 0.0;
        }
        let text = report(&judged(summary));
        assert!(text.contains("the widest miss here is `stream-tokio-one-message`: exact 384, sampled 0."), "{text}");
        assert_whole(&text);
    }

    #[test]
    fn a_missing_phase_is_said_not_invented() {
        let mut summary = summary_with(&[]);
        summary.phases.clear();
        assert!(report(&summary).contains("nothing to discuss"));
    }

    #[test]
    fn a_missing_contestant_reads_as_not_available() {
        let mut summary = summary_with(&[]);
        summary.contestants.retain(|c| c.name != CONDVAR);
        let text = report(&summary);
        assert!(!text.contains("pays the kernel on every operation"), "{text}");
        assert!(text.contains("n/a"), "{text}");
    }

    #[test]
    fn a_batched_row_slower_than_its_twin_is_explained_only_as_far_as_the_figures_go() {
        // Every row at 100 ms/M except flume batched at 200: the judge tells it slower, and as its wake-up
        // figures equal its twin's, the report does not claim wake-ups as the cause.
        let text = report(&judged(summary_with(&[("blocking-flume-batched", 256, 200.0)])));
        assert_whole(&text);
        assert!(text.contains("**Where batching cost more than it saved.**"), "{text}");
        assert!(text.contains("`blocking-flume-batched` took 200 ms/M against 100 for `blocking-flume`"), "{text}");
        assert!(text.contains("This run's wake-up figures do not show the cause"), "{text}");
        assert!(!text.contains("here the cost was the wake-ups"), "{text}");
        // No batched row slower: no such bullet.
        let text = report(&judged(summary_with(&[])));
        assert!(!text.contains("Where batching cost more"), "{text}");
    }

    #[test]
    fn the_one_message_rows_say_what_they_hold_against_their_twins() {
        let text = report(&judged(summary_with(&[])));
        assert!(text.contains("**Why the one-message rows are never the answer"), "{text}");
        let pairs = one_message_pairs();
        assert_eq!(pairs.len(), 3);
        for (single, one) in pairs {
            assert!(text.contains(&format!("`{one}` 100 ms/M")), "{one}: {text}");
            assert!(text.contains(&format!("for `{single}`")), "{single}: {text}");
        }
    }

    #[test]
    fn a_finding_is_printed_only_when_its_claim_holds() {
        // Every batched channel 20× cheaper: the batching claim holds.
        let fast: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 256, 5.0)).collect();
        let holds = judged(summary_with(&fast));
        assert!(holds.claims.iter().any(|c| c.id == "batching-pays" && c.verdict == Verdict::Holds));
        let text = report(&holds);
        assert!(text.contains("Batching divides every per-message cost by the batch"), "{text}");
        assert!(text.contains("at least 10× cheaper per item here"), "{text}");
        assert!(text.contains("send batches, not items"), "the recommendation appears with the verdict: {text}");
        assert_whole(&text);

        // The same run with the batching claim inconclusive: neither sentence is printed, the verdict is named.
        let text = report(&with_verdict(holds, "batching-pays", Verdict::Inconclusive));
        assert!(!text.contains("Batching divides every per-message cost"), "{text}");
        assert!(!text.contains("cheaper per item here"), "{text}");
        assert!(text.contains("cheaper for every channel: inconclusive"), "{text}");
        assert!(!text.contains("send batches, not items"), "the recommendation needs the verdict: {text}");
        assert_whole(&text);
    }

    #[test]
    fn the_current_thread_runtime_is_recommended_for_speed_only_when_its_claim_holds() {
        let summary = judged(summary_with(&[]));
        let id = "current-thread-beats-cross-thread";
        let holds = report(&with_verdict(summary.clone(), id, Verdict::Holds));
        assert!(holds.contains("run them as tasks on one current-thread runtime"), "{holds}");
        let fails = report(&with_verdict(summary, id, Verdict::Fails));
        assert!(!fails.contains("run them as tasks on one current-thread runtime"), "{fails}");
        assert!(fails.contains("choose it for its semantics, not for speed"), "{fails}");
        assert_whole(&holds);
        assert_whole(&fails);
    }

    #[test]
    fn the_condvar_finding_reads_whole_under_every_verdict() {
        let summary = judged(summary_with(&[(CONDVAR, 256, 500.0)]));
        for verdict in [Verdict::Holds, Verdict::Fails, Verdict::Inconclusive] {
            let text = report(&with_verdict(summary.clone(), "condvar-slowest-blocking", verdict));
            assert!(text.contains("Per item it takes 500 ms/M"), "{text}");
            assert_whole(&text);
        }
    }

    #[test]
    fn an_unjudged_run_states_no_finding() {
        // No claims judged: every claim-backed finding is withheld and said to be unjudged.
        let text = report(&summary_with(&[(CONDVAR, 256, 500.0)]));
        assert!(!text.contains("Do not hand-write"), "{text}");
        assert!(!text.contains("the slowest blocking channel here"), "{text}");
        assert!(!text.contains("is where most of the per-item cost is"), "{text}");
        assert!(text.contains("the slowest blocking channel: not judged"), "{text}");
        assert!(!text.contains("could not be rendered"), "{text}");
        assert_whole(&text);
    }
}
