//! The numbers the handoff report prints, computed before it is rendered: a contestant's figures at one capacity
//! ([`Profile`], read by the table [`FIGURES`]), alone or two side by side ([`Change`]), gathered into the rows of
//! "where the time goes" ([`TimeGoes`]). Analysis only: nothing here words a sentence, and where a row rests on a
//! verdict it is read back from the run's judged findings ([`mod@findings`]), never drawn from the figures.

use std::collections::BTreeMap;

use measure::compare::{format_or_na as num, format_p, format_ratio, times_or_na as ratio};
use measure::summary::{Role, Summary};
use serde::Serialize;

use super::claims::CURRENT_THREAD;
use super::claims::{phase, BATCH_PAIRS, BLOCKING_CRATES, CLAIM_CAPACITY, CONDVAR, CROSS_THREAD_PER_ITEM};
use super::findings::{self, holding};
use super::HEADLINE;

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
    /// The exact p of the finding that tells the two apart, for a pair it told apart.
    pub p: Option<String>,
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
    /// At the claim capacity a batched channel holds a single message, as recorded (a count the run's
    /// parameters set, not a measured cost).
    pub one_batch_at_claim: bool,
}

/// The rows of "where the time goes" beyond each contestant's own profile (the report's `at`); a row whose
/// figures the run lacks is `None` (or empty). Every profile is at the claim capacity unless its field says
/// otherwise.
#[derive(Debug, Serialize)]
pub struct TimeGoes {
    /// Every cross-thread per-item pair.
    pub per_item: Vec<Profile>,
    /// Every cross-thread per-item pair at capacity 1 beside itself at the claim capacity.
    pub capacity_one: Vec<Change>,
    /// The cross-thread per-item pairs judged cheaper per item than the current-thread pair beyond noise
    /// ([`findings::faster_than_current_thread`]); `None` when the current-thread pair did not run.
    pub current_faster: Option<Vec<Profile>>,
    /// Every channel per item → batched.
    pub batching: Vec<Change>,
    /// The others whose allocations per item are set beside `stream-futures`'; `None` when it has none.
    pub allocs: Option<Vec<Profile>>,
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
    /// The channel crates whose system CPU is set beside the Condvar queue's; `None` when it has none.
    pub condvar: Option<Vec<Profile>>,
    /// Items per message of the Condvar queue's batched twin, as recorded.
    pub condvar_batch_items: Option<String>,
    /// A bridge between a thread and a task ran (their figures are in the report's `at`).
    pub bridges: bool,
    /// `stream-tokio-recv-many` ran (its figures against per item and whole batches are in the report's `at`).
    pub recv_many: bool,
    /// `blocking-crossbeam` or some contestant recorded its exact and sampled outstanding work.
    pub outstanding: bool,
    /// The contestant whose 1 ms samples caught the smallest share of its exact outstanding peak.
    pub widest_miss: Option<Profile>,
}

/// The rows of "where the time goes" of `summary`, whose capacities are `caps` (`wide` the widest).
pub fn time_goes(summary: &Summary, caps: &[u64], wide: u64) -> TimeGoes {
    let c = CLAIM_CAPACITY;
    let median_at = |n: &str, metric: &str| summary.median_in(n, &phase(c), metric);
    let has = |n: &str, capacity: u64| summary.median_in(n, &phase(capacity), HEADLINE).is_some();
    let faster = |n: &&&str| summary.finding_holds(&findings::faster_than_current_thread(n, c));
    let current_faster = has(CURRENT_THREAD, c)
        .then(|| CROSS_THREAD_PER_ITEM.iter().filter(faster).map(|n| profile(summary, n, c)).collect());
    let room = caps.iter().copied().filter(|&w| w > c).max().and_then(|wide| {
        let batched = BATCH_PAIRS.iter().map(|(_, batched)| batched).filter(|batched| has(batched, wide));
        let rows: Vec<Change> = batched.filter_map(|batched| change(summary, (batched, c), (batched, wide))).collect();
        let (at_claim, at_wide) = (packing(summary, c), packing(summary, wide));
        let one_batch_at_claim = at_claim.as_ref().is_some_and(|p| p["messages"] == "1");
        (!rows.is_empty()).then_some(Room { at_claim, at_wide, rows, one_batch_at_claim })
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
    let widest_miss = widest_miss(summary);
    let pairs_at = |capacity| BATCH_PAIRS.iter().filter(move |(_, batched)| has(batched, capacity));
    TimeGoes {
        per_item: ran(summary, CROSS_THREAD_PER_ITEM, c, HEADLINE),
        capacity_one: CROSS_THREAD_PER_ITEM
            .iter()
            .filter(|_| caps.contains(&1))
            .filter_map(|n| change(summary, (n, 1), (n, c)))
            .collect(),
        current_faster,
        batching: pairs_at(c).filter_map(|(single, batched)| change(summary, (single, c), (batched, c))).collect(),
        allocs: median_at("stream-futures", "allocs_per_item").map(|_| ran(summary, ALLOCATING, c, "allocs_per_item")),
        room,
        batched_slower_wakes_more: batched_slower.iter().all(|(_, wakes_more)| *wakes_more),
        batched_slower: batched_slower.into_iter().map(|(row, _)| row).collect(),
        one_message: one_message_pairs()
            .iter()
            .filter_map(|(single, one)| change(summary, (one, wide), (single, wide)))
            .collect(),
        cores: ends.into_iter().flatten().map(cores_at).filter(|rows| !rows.is_empty()).collect(),
        condvar: median_at(CONDVAR, "cpu_system_ns_per_item")
            .map(|_| ran(summary, BLOCKING_CRATES, c, "cpu_system_ns_per_item")),
        condvar_batch_items: median_at("blocking-condvar-batched", "items_per_message").map(|k| count(Some(k))),
        bridges: ["stream-bridge-blocking-send", "blocking-bridge-blocking-recv"].iter().any(|n| has(n, c)),
        recv_many: has("stream-tokio-recv-many", c),
        outstanding: median_at("blocking-crossbeam", "max_outstanding").is_some() || widest_miss.is_some(),
        widest_miss,
    }
}

/// Each one-message contestant (role `pathology`) after its per-item twin, in registry order.
pub fn one_message_pairs() -> Vec<(String, String)> {
    let registry = crate::handoff::contestants::contestants();
    let one = registry.iter().map(|c| c.info()).filter(|i| i.role == Role::Pathology);
    one.filter_map(|i| Some((i.name.strip_suffix("-one-message")?.to_string(), i.name))).collect()
}

/// The contestant whose 1 ms samples caught the smallest share of its exact outstanding peak at the claim capacity.
fn widest_miss(summary: &Summary) -> Option<Profile> {
    let c = CLAIM_CAPACITY;
    let peaks = |name: &str| {
        let at = |metric| summary.median_in(name, &phase(c), metric);
        Some((at("max_outstanding")?, at("max_outstanding_sampled")?))
    };
    summary
        .contestants
        .iter()
        .filter_map(|contestant| {
            let (exact, sampled) = peaks(&contestant.name)?;
            (exact > 0.0).then(|| (contestant.name.as_str(), sampled / exact))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(name, _)| profile(summary, name, c))
}

/// The profile at `capacity` of the first batched contestant that recorded both what its message carries and
/// how many the channel holds.
pub fn packing(summary: &Summary, capacity: u64) -> Option<Profile> {
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
pub fn profile(summary: &Summary, name: &str, capacity: u64) -> Profile {
    let mut profile = Profile::from([("name", name.to_string()), ("capacity", capacity.to_string())]);
    for (key, metric, whole) in FIGURES {
        let x = summary.median_in(name, &phase(capacity), metric);
        profile.insert(key, if whole { count(x) } else { num(x) });
    }
    profile
}

/// The profiles at `capacity` of those of `names` that have `metric` there, in order.
pub fn ran<'a>(
    summary: &Summary,
    names: impl IntoIterator<Item = &'a str>,
    capacity: u64,
    metric: &str,
) -> Vec<Profile> {
    let names = names.into_iter().filter(|n| summary.median_in(n, &phase(capacity), metric).is_some());
    names.map(|n| profile(summary, n, capacity)).collect()
}

/// A count (items, messages), rounded to a whole number; `n/a` when missing.
fn count(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |x| format!("{}", x.round()))
}

/// `items / small_items` as a ratio (`25.0×`), when both are single numbers.
pub fn small_weight(summary: &Summary) -> Option<String> {
    let (items, small) = (summary.param("items")?, summary.param("small_items")?);
    (small > 0.0).then(|| format!("{}×", format_ratio(items / small)))
}
