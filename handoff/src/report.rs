//! The handoff scenario's report: the figures and verdicts of a run, gathered from its [`Summary`] into a typed
//! [`Context`] (numbers formatted, claims by id) and rendered with `templates/report.md`, which holds every word
//! of the discussion and chooses each conditional finding by its claim's verdict. Nothing here builds a sentence
//! or looks a claim up by its text; a figure the run lacks is `n/a`, and a finding whose figures are missing is
//! left out by the template.

use std::collections::BTreeMap;

use measure::compare::{differs, format_or_na as num, format_ratio, times_or_na as ratio};
use measure::summary::Summary;
use measure::template::{claims_by_id, ClaimView};
use serde::Serialize;

use crate::claims::{
    capacities, BATCHING_FACTOR, BATCH_PAIRS, BLOCKING_CRATES, CLAIM_CAPACITY, CONDVAR, CROSS_THREAD_PER_ITEM,
    CURRENT_THREAD, LOOP, RECEIVE_SIDE_FACTOR, WAKEUP_FACTOR,
};
use crate::{SERIES_CAPACITY, SMALL_CAPACITY_BELOW};

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The batched contestants whose best figure the advice on blocking code cites.
const BLOCKING_BATCHED: [&str; 3] = ["blocking-crossbeam-batched", "blocking-flume-batched", "blocking-std-batched"];

/// The batched async channels the advice on async code cites.
const ASYNC_BATCHED: [&str; 3] = ["stream-tokio-batched", "stream-flume-batched", "stream-futures-batched"];

/// The per-item contestants whose allocations the allocation finding sets beside `stream-futures`'.
const ALLOCATING: [&str; 4] = ["blocking-crossbeam", "blocking-flume", "stream-tokio", "stream-flume"];

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
    /// What a batched message carries at each capacity, as the run recorded it.
    pub batched_sizes: Vec<Packing>,
    /// The findings of "where the time goes".
    pub findings: Findings,
    /// Each lab contestant beside its bare pair, per capacity.
    pub fidelity: Vec<FidelityRow>,
    /// The fastest blocking batched contestant at the widest capacity.
    pub best_blocking_batched: Option<Figure>,
    /// The batched async channels at the widest capacity.
    pub async_batched: Vec<Figure>,
    /// All three batched async channels ran and are within the noise threshold of each other.
    pub async_close: bool,
    /// Figures the advice cites.
    pub pick: Pick,
    /// `may`'s rules, when the run has coroutine contestants (from [`pipelines::coroutine::rules_note`]).
    pub coroutine_rules: Option<String>,
}

/// Items per message and messages per channel of a batched contestant at one capacity.
#[derive(Debug, Serialize)]
pub struct Packing {
    /// The channel's capacity in items.
    pub capacity: u64,
    /// Items a batched message carries.
    pub items: String,
    /// Messages the batched channel holds.
    pub messages: String,
}

/// A contestant and one formatted figure of it.
#[derive(Debug, Serialize)]
pub struct Figure {
    /// The contestant.
    pub name: String,
    /// The figure, formatted.
    pub value: String,
}

/// A contestant's figure at two points (per item → batched, or one capacity → another), and their ratio.
#[derive(Debug, Serialize)]
pub struct Change {
    /// The contestant the row is named after.
    pub name: String,
    /// The first figure.
    pub from: String,
    /// The second figure.
    pub to: String,
    /// `from / to`, such as `1.30×`.
    pub ratio: String,
}

/// A cross-thread per-item pair at capacity 1.
#[derive(Debug, Serialize)]
pub struct AtOne {
    /// The contestant.
    pub name: String,
    /// Its ms/M at capacity 1.
    pub ms: String,
    /// Its context switches per item there.
    pub switches: String,
    /// Its ms/M there over its ms/M at the claim capacity, such as `54.6×`.
    pub ratio: String,
}

/// A contestant's cost profile at one capacity.
#[derive(Debug, Serialize)]
pub struct Profile {
    /// The contestant.
    pub name: String,
    /// `ms_per_million`.
    pub ms: String,
    /// `cpu_ns_per_item`.
    pub cpu: String,
    /// `cores_used`.
    pub cores: String,
    /// `ctx_switches_per_item`.
    pub switches: String,
}

/// The findings of "where the time goes"; a finding whose figures the run lacks is `None` (or empty).
#[derive(Debug, Serialize)]
pub struct Findings {
    /// The loop without a hand-off: its name, `ms_per_million` and `cpu_ns_per_item`.
    pub floor: Profile,
    /// Every cross-thread per-item pair at the claim capacity.
    pub per_item: Vec<Profile>,
    /// Every cross-thread per-item pair at capacity 1.
    pub capacity_one: Vec<AtOne>,
    /// The current-thread pair.
    pub current: Option<Current>,
    /// Every channel per item → batched at the claim capacity.
    pub batching: Vec<Change>,
    /// Allocations per item: `stream-futures`' and the others'.
    pub allocs: Option<Allocs>,
    /// Batched channels from the claim capacity to the widest.
    pub room: Option<Room>,
    /// Cores used (and context switches) at the narrowest and widest capacity.
    pub cores: Vec<CoresAt>,
    /// The current-thread pair's cores used at the claim capacity.
    pub current_cores: String,
    /// The Condvar queue's system CPU.
    pub condvar: Option<Condvar>,
    /// The bridges between a thread and a task.
    pub bridges: Option<Bridges>,
    /// `recv_many` against per item and whole batches.
    pub recv_many: Option<RecvMany>,
    /// Exact against sampled outstanding work.
    pub outstanding: Option<Outstanding>,
}

/// The current-thread pair against the cross-thread pairs.
#[derive(Debug, Serialize)]
pub struct Current {
    /// Its profile.
    pub profile: Profile,
    /// Its exact high-water mark of outstanding items.
    pub max_outstanding: String,
    /// The multi-thread `stream-tokio`'s profile.
    pub tokio: Profile,
    /// `stream-tokio`'s exact high-water mark.
    pub tokio_max_outstanding: String,
    /// The fastest cross-thread per-item pair.
    pub fastest: Profile,
}

/// Allocations per item.
#[derive(Debug, Serialize)]
pub struct Allocs {
    /// `stream-futures`' allocations per item.
    pub futures: String,
    /// The other channels'.
    pub others: Vec<Figure>,
}

/// Batched channels from the claim capacity to the widest.
#[derive(Debug, Serialize)]
pub struct Room {
    /// What a batched message carries at the claim capacity, as recorded.
    pub at_claim: Option<Packing>,
    /// At the widest capacity.
    pub at_wide: Option<Packing>,
    /// Each batched contestant: ms/M at the claim capacity → at the widest.
    pub rows: Vec<Change>,
}

/// Cores used at one capacity.
#[derive(Debug, Serialize)]
pub struct CoresAt {
    /// The capacity.
    pub capacity: u64,
    /// `cores` and `switches` of each contestant shown.
    pub rows: Vec<Profile>,
}

/// The Condvar queue's kernel time.
#[derive(Debug, Serialize)]
pub struct Condvar {
    /// Its system CPU, ns per item.
    pub system_ns: String,
    /// The channel crates' system CPU.
    pub crates: Vec<Figure>,
    /// Its ms/M per item.
    pub ms: String,
    /// Items per message of its batched twin, as recorded.
    pub batch_items: Option<String>,
    /// Its batched twin's ms/M.
    pub batched_ms: String,
}

/// The bridges between a thread and a task.
#[derive(Debug, Serialize)]
pub struct Bridges {
    /// `stream-bridge-blocking-send`'s ms/M.
    pub send: String,
    /// `blocking-bridge-blocking-recv`'s ms/M.
    pub recv: String,
    /// `stream-tokio`'s ms/M.
    pub tokio: String,
    /// The batched send bridge's ms/M.
    pub send_batched: String,
    /// The batched receive bridge's ms/M.
    pub recv_batched: String,
}

/// `recv_many` against per item and whole batches.
#[derive(Debug, Serialize)]
pub struct RecvMany {
    /// `stream-tokio-recv-many`'s ms/M.
    pub many: String,
    /// `stream-tokio`'s ms/M.
    pub tokio: String,
    /// `stream-tokio-batched`'s ms/M.
    pub batched: String,
}

/// Exact against sampled outstanding work.
#[derive(Debug, Serialize)]
pub struct Outstanding {
    /// `blocking-crossbeam`'s exact high-water mark.
    pub exact: String,
    /// Its highest 1 ms sample.
    pub sampled: String,
    /// The contestant whose samples missed most of its exact mark, if any missed.
    pub missed: Option<Missed>,
}

/// The widest miss of the sampler.
#[derive(Debug, Serialize)]
pub struct Missed {
    /// The contestant.
    pub name: String,
    /// Its exact high-water mark.
    pub exact: String,
    /// Its highest sample.
    pub sampled: String,
}

/// A lab contestant beside its bare pair at one capacity.
#[derive(Debug, Serialize)]
pub struct FidelityRow {
    /// The lab contestant.
    pub lab: String,
    /// Its bare pair.
    pub bare: String,
    /// The capacity.
    pub capacity: u64,
    /// The lab contestant's ms/M.
    pub lab_ms: String,
    /// The bare pair's ms/M.
    pub bare_ms: String,
    /// `lab / bare`, or `—`.
    pub ratio: String,
}

/// Figures the advice cites.
#[derive(Debug, Serialize)]
pub struct Pick {
    /// The current-thread pair, per item.
    pub current_ms: String,
    /// The current-thread pair, batched.
    pub current_batched_ms: String,
    /// The send bridge, per item.
    pub bridge_ms: String,
    /// The send bridge, batched.
    pub bridge_batched_ms: String,
    /// The Condvar queue, per item.
    pub condvar_ms: String,
    /// The fastest blocking channel crate, per item.
    pub fastest_crate_ms: String,
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
    let async_ms: Vec<(&str, f64)> =
        ASYNC_BATCHED.iter().filter_map(|n| ms(summary, n, wide).map(|m| (*n, m))).collect();
    Context {
        claims: claims(summary),
        has_phases: !caps.is_empty(),
        items: param("items"),
        batch: param_u64(summary, "batch").map(|b| b.to_string()),
        messages: param_u64(summary, "messages").map(|m| m.to_string()),
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
        findings: findings(summary, &caps),
        fidelity: fidelity(summary, &caps),
        best_blocking_batched: fastest(summary, BLOCKING_BATCHED, wide)
            .map(|(name, m)| Figure { name: name.to_string(), value: num(Some(m)) }),
        async_batched: async_ms.iter().map(|(n, m)| Figure { name: n.to_string(), value: num(Some(*m)) }).collect(),
        async_close: async_ms.len() == ASYNC_BATCHED.len() && async_alike(summary, wide),
        pick: Pick {
            current_ms: num(ms(summary, CURRENT_THREAD, c)),
            current_batched_ms: num(ms(summary, "baseline-tokio-current-thread-batched", c)),
            bridge_ms: num(ms(summary, "stream-bridge-blocking-send", c)),
            bridge_batched_ms: num(ms(summary, "stream-bridge-blocking-send-batched", c)),
            condvar_ms: num(ms(summary, CONDVAR, c)),
            fastest_crate_ms: num(fastest(summary, BLOCKING_CRATES, c).map(|(_, m)| m)),
        },
        coroutine_rules: pipelines::coroutine::rules_note(summary),
    }
}

/// Every claim of the table by id, as judged in `summary`; a claim the run did not judge reads as `not judged`.
fn claims(summary: &Summary) -> BTreeMap<String, ClaimView> {
    let mut claims = claims_by_id(&summary.claims);
    for spec in crate::claims::table(summary) {
        claims.entry(spec.id.to_string()).or_insert_with(|| ClaimView {
            verdict: "not judged",
            holds: false,
            fails: false,
            inconclusive: false,
            p: String::new(),
            text: spec.text,
        });
    }
    claims
}

/// The findings of "where the time goes".
fn findings(summary: &Summary, caps: &[u64]) -> Findings {
    let c = CLAIM_CAPACITY;
    let median_at = |n: &str, metric: &str| median(summary, n, c, metric);
    let fastest_cross = fastest(summary, CROSS_THREAD_PER_ITEM, c);
    let current = match (ms(summary, CURRENT_THREAD, c), fastest_cross) {
        (Some(_), Some((name, _))) => Some(Current {
            profile: profile(summary, CURRENT_THREAD, c),
            max_outstanding: count(median_at(CURRENT_THREAD, "max_outstanding")),
            tokio: profile(summary, "stream-tokio", c),
            tokio_max_outstanding: count(median_at("stream-tokio", "max_outstanding")),
            fastest: profile(summary, name, c),
        }),
        _ => None,
    };
    let room = caps.iter().copied().filter(|&w| w > c).max().and_then(|wide| {
        let rows: Vec<Change> = BATCH_PAIRS
            .iter()
            .filter_map(|(_, batched)| {
                let (a, b) = (ms(summary, batched, c)?, ms(summary, batched, wide)?);
                Some(change(batched, a, b))
            })
            .collect();
        (!rows.is_empty()).then(|| Room { at_claim: packing(summary, c), at_wide: packing(summary, wide), rows })
    });
    let ends = [caps.first().copied(), caps.last().copied().filter(|&w| Some(w) != caps.first().copied())];
    let cores = ends
        .into_iter()
        .flatten()
        .map(|capacity| CoresAt {
            capacity,
            rows: BLOCKING_CRATES
                .iter()
                .chain(&[CONDVAR, "stream-tokio"])
                .filter(|n| median(summary, n, capacity, "cores_used").is_some())
                .map(|n| profile(summary, n, capacity))
                .collect(),
        })
        .filter(|at| !at.rows.is_empty())
        .collect();
    let sys = |n: &str| median_at(n, "cpu_system_ns_per_item");
    let condvar = sys(CONDVAR).map(|system| Condvar {
        system_ns: num(Some(system)),
        crates: BLOCKING_CRATES
            .iter()
            .filter_map(|n| sys(n).map(|s| Figure { name: n.to_string(), value: num(Some(s)) }))
            .collect(),
        ms: num(ms(summary, CONDVAR, c)),
        batch_items: median_at("blocking-condvar-batched", "items_per_message").map(|k| count(Some(k))),
        batched_ms: num(ms(summary, "blocking-condvar-batched", c)),
    });
    let (send, recv) = (ms(summary, "stream-bridge-blocking-send", c), ms(summary, "blocking-bridge-blocking-recv", c));
    let bridges = (send.is_some() || recv.is_some()).then(|| Bridges {
        send: num(send),
        recv: num(recv),
        tokio: num(ms(summary, "stream-tokio", c)),
        send_batched: num(ms(summary, "stream-bridge-blocking-send-batched", c)),
        recv_batched: num(ms(summary, "blocking-bridge-blocking-recv-batched", c)),
    });
    let recv_many = ms(summary, "stream-tokio-recv-many", c).map(|many| RecvMany {
        many: num(Some(many)),
        tokio: num(ms(summary, "stream-tokio", c)),
        batched: num(ms(summary, "stream-tokio-batched", c)),
    });
    Findings {
        floor: profile(summary, LOOP, c),
        per_item: CROSS_THREAD_PER_ITEM
            .iter()
            .filter(|n| ms(summary, n, c).is_some())
            .map(|n| profile(summary, n, c))
            .collect(),
        capacity_one: if caps.contains(&1) {
            CROSS_THREAD_PER_ITEM
                .iter()
                .filter_map(|n| {
                    let m1 = ms(summary, n, 1)?;
                    Some(AtOne {
                        name: n.to_string(),
                        ms: num(Some(m1)),
                        switches: num(median(summary, n, 1, "ctx_switches_per_item")),
                        ratio: ratio(Some(m1), ms(summary, n, c)),
                    })
                })
                .collect()
        } else {
            Vec::new()
        },
        current,
        batching: BATCH_PAIRS
            .iter()
            .filter_map(|(single, batched)| Some(change(single, ms(summary, single, c)?, ms(summary, batched, c)?)))
            .collect(),
        allocs: median_at("stream-futures", "allocs_per_item").map(|futures| Allocs {
            futures: num(Some(futures)),
            others: ALLOCATING
                .iter()
                .filter_map(|n| {
                    median_at(n, "allocs_per_item").map(|a| Figure { name: n.to_string(), value: num(Some(a)) })
                })
                .collect(),
        }),
        room,
        cores,
        current_cores: num(median_at(CURRENT_THREAD, "cores_used")),
        condvar,
        bridges,
        recv_many,
        outstanding: outstanding(summary),
    }
}

/// Exact against sampled outstanding work at the claim capacity: `blocking-crossbeam`'s, and the contestant whose
/// 1 ms samples missed most of its exact peak.
fn outstanding(summary: &Summary) -> Option<Outstanding> {
    let c = CLAIM_CAPACITY;
    let exact = median(summary, "blocking-crossbeam", c, "max_outstanding");
    let sampled = median(summary, "blocking-crossbeam", c, "max_outstanding_sampled");
    let missed = summary
        .contestants
        .iter()
        .filter_map(|contestant| {
            let exact = median(summary, &contestant.name, c, "max_outstanding")?;
            let sampled = median(summary, &contestant.name, c, "max_outstanding_sampled")?;
            (exact > 0.0).then(|| (contestant.name.as_str(), exact, sampled, sampled / exact))
        })
        .min_by(|a, b| a.3.total_cmp(&b.3));
    (exact.is_some() || missed.is_some()).then(|| Outstanding {
        exact: count(exact),
        sampled: count(sampled),
        missed: missed.filter(|m| m.3 < 1.0).map(|(name, e, s, _)| Missed {
            name: name.to_string(),
            exact: count(Some(e)),
            sampled: count(Some(s)),
        }),
    })
}

/// Each lab contestant beside its bare reference pair ([`crate::bare_pairs`]) at every capacity where both have
/// a figure.
fn fidelity(summary: &Summary, caps: &[u64]) -> Vec<FidelityRow> {
    let mut rows = Vec::new();
    for (lab, bare) in crate::bare_pairs() {
        for &capacity in caps {
            let (Some(l), Some(b)) = (ms(summary, lab, capacity), ms(summary, &bare, capacity)) else { continue };
            rows.push(FidelityRow {
                lab: lab.to_string(),
                bare: bare.clone(),
                capacity,
                lab_ms: num(Some(l)),
                bare_ms: num(Some(b)),
                ratio: if b > 0.0 { format!("{}×", format_ratio(l / b)) } else { "—".to_string() },
            });
        }
    }
    rows
}

/// What a batched message carries at `capacity` and how many the channel holds, as the first batched contestant
/// with both figures recorded them.
fn packing(summary: &Summary, capacity: u64) -> Option<Packing> {
    BATCH_PAIRS.iter().find_map(|(_, batched)| {
        let items = median(summary, batched, capacity, "items_per_message")?;
        let messages = median(summary, batched, capacity, "messages_per_channel")?;
        Some(Packing { capacity, items: count(Some(items)), messages: count(Some(messages)) })
    })
}

/// `name`'s `from → to` and their ratio.
fn change(name: &str, from: f64, to: f64) -> Change {
    Change { name: name.to_string(), from: num(Some(from)), to: num(Some(to)), ratio: ratio(Some(from), Some(to)) }
}

/// `name`'s cost profile at `capacity`; a missing figure is `n/a`.
fn profile(summary: &Summary, name: &str, capacity: u64) -> Profile {
    let at = |metric: &str| num(median(summary, name, capacity, metric));
    Profile {
        name: name.to_string(),
        ms: at("ms_per_million"),
        cpu: at("cpu_ns_per_item"),
        cores: at("cores_used"),
        switches: at("ctx_switches_per_item"),
    }
}

/// A count (items, messages), rounded to a whole number; `n/a` when missing.
fn count(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |x| format!("{}", x.round()))
}

/// The median of `metric` for `contestant` at `capacity`, if it ran cleanly.
fn median(summary: &Summary, contestant: &str, capacity: u64, metric: &str) -> Option<f64> {
    summary.metric(contestant, &format!("capacity_{capacity}.{metric}")).map(|s| s.median)
}

/// Whether every pair of the async batched contestants at `capacity` is within noise by the one noise rule
/// (`measure::compare::differs` on process medians); false when one did not run.
fn async_alike(summary: &Summary, capacity: u64) -> bool {
    let stats: Vec<_> = ASYNC_BATCHED
        .iter()
        .filter_map(|n| summary.metric(n, &format!("capacity_{capacity}.ms_per_million")))
        .collect();
    let noise = summary.method.noise_threshold;
    stats.len() == ASYNC_BATCHED.len()
        && stats.iter().enumerate().all(|(i, a)| stats[i + 1..].iter().all(|b| !differs(a, b, noise)))
}

fn ms(summary: &Summary, contestant: &str, capacity: u64) -> Option<f64> {
    median(summary, contestant, capacity, "ms_per_million")
}

/// The contestant among `names` with the lowest median `ms_per_million` at `capacity`.
fn fastest<'a>(summary: &Summary, names: impl IntoIterator<Item = &'a str>, capacity: u64) -> Option<(&'a str, f64)> {
    names.into_iter().filter_map(|n| ms(summary, n, capacity).map(|m| (n, m))).min_by(|a, b| a.1.total_cmp(&b.1))
}

/// `items / small_items`, when both are single numbers.
fn ratio_of_items(summary: &Summary) -> Option<f64> {
    let items = summary.params.get("items")?.as_f64()?;
    let small = summary.params.get("small_items")?.as_f64()?;
    (small > 0.0).then(|| items / small)
}

fn param_u64(summary: &Summary, key: &str) -> Option<u64> {
    summary.params.get(key).and_then(|v| v.as_u64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::tests::summary_with;
    use measure::summary::Verdict;

    /// `summary` with its claims judged, as the harness does before rendering.
    fn judged(mut summary: Summary) -> Summary {
        summary.claims = measure::judge::judge_all(&summary, &crate::claims::table(&summary));
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
        let text = report(&summary);
        assert!(
            text.contains("| `blocking-crossbeam` | `blocking-crossbeam-bare` | 256 | 60.0 | 40.0 | 1.50× |"),
            "{text}"
        );
        assert!(text.contains("| `stream-tokio` | `stream-tokio-bare` | 256 | 150 | 100 | 1.50× |"), "{text}");
        let mut without = summary_with(&[("blocking-crossbeam", 256, 60.0)]);
        without.contestants.retain(|c| !c.name.ends_with("-bare"));
        let none = report(&judged(without));
        assert!(none.contains("The bare reference pairs did not run"), "{none}");
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
