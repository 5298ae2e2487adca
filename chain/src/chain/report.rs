//! The chain scenario's report: a typed context of the run's figures (formatted numbers, contestant names) and
//! verdicts (claims by id), rendered into `templates/report.md`, which holds every word. Every figure comes from
//! the run's [`Summary`]; a finding is chosen in the template by the verdict of the claim or the judged finding
//! that backs it ([`super::findings`]), never by a comparison made here.

use std::collections::BTreeMap;

use measure::compare::{format_or_na as num, times_or_na as ratio};
use measure::external::beside_standalone;
use measure::summary::{Family, Summary};
use measure::template::{claims_with_table, ClaimView};
use serde::Serialize;

use super::claims::{self, BATCHING_FACTOR, BATCH_PAIRS, LOOP, NEAR_LOOP_AT_0, STANDALONE_GUARD, STANDALONE_LIMIT};
use super::contestants::standalone_pairs;
use super::findings::{self, crowded_id, spinning_ids};
use super::HEADLINE;

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// Markdown discussing `summary` (whose claims are judged): [`Context`] rendered into `templates/report.md`.
pub fn discussion(summary: &Summary) -> String {
    measure::template::render_or_note("chain/report.md", TEMPLATE, Context::of(summary))
}

/// Everything the template reads.
#[derive(Debug, Default, Serialize)]
struct Context {
    /// At least one `work_<n>` phase ran (otherwise there is nothing to discuss).
    ran: bool,
    /// The `items`, `batch`, `capacity` and `messages` parameters as the run gave them (`?` when absent).
    params: BTreeMap<&'static str, String>,
    /// Logical cores of the machine.
    cores: u32,
    /// The contestant every ratio is taken against.
    floor: &'static str,
    /// The first and the last work of the sweep.
    first: u64,
    last: u64,
    /// Every judged claim by id; a claim of the table that was not judged reads `not judged`.
    claims: BTreeMap<String, ClaimView>,
    /// Every judged finding by id ([`super::findings`]); a finding of the table that was not judged reads `not judged`.
    findings: BTreeMap<String, ClaimView>,
    /// The batching claim's factor and the near-the-loop claim's factor at the first work.
    batching_factor: String,
    near_loop_factor: String,
    /// The loop's CPU per item and its ms per million at the first work, and its ms per million at the last.
    floor_cpu: String,
    floor_first: String,
    floor_last: String,
    /// The per-item channel pipelines at the first work.
    handoff: Vec<Row>,
    /// Batched against per-item pipelines at the first work (`name` against `of`).
    batching: Vec<Row>,
    /// The fastest stream at the first work (the one the fastest-stream claims judge, `Who::Lowest` of the
    /// streams), and every single-task stream (no `tasks` in its name) against the loop.
    fastest: Option<Row>,
    singles: Vec<Row>,
    /// The yielding source (`name`, `ms`) against the one that never yields (`of`, `never`), at the first work.
    yielding: Option<Row>,
    /// Contestants that kept more than one core busy and were slower than the loop (both findings hold).
    spinning: Vec<Row>,
    /// Channel pipelines with more threads than cores (the finding holds).
    crowded: Vec<Row>,
    /// A few contestants against the loop from the first work to the last (empty when the sweep has one work).
    gap: Vec<Row>,
    /// `blocking-rayon` against the loop at the last work.
    rayon_last: String,
    /// The fastest batched pipeline at the first work.
    best_batched: Option<Row>,
    /// The "lab ÷ standalone" section: the loop beside its standalone program at every work, rendered by
    /// [`measure::external::section`].
    standalone: String,
}

/// One contestant's figures in a list of the discussion: each list fills the fields its sentence prints and
/// leaves the others empty. Ratios are against the loop unless a list says otherwise.
#[derive(Debug, Default, Serialize)]
struct Row {
    /// The contestant, and the one it is compared with when not the loop (a batched pipeline's per-item twin).
    name: String,
    of: String,
    /// Milliseconds per million items, and the compared contestant's.
    ms: String,
    never: String,
    /// Against the loop, or against `of`.
    ratio: String,
    /// CPU ns per item, cores used, threads and context switches per item.
    cpu: String,
    cores: String,
    threads: String,
    switches: String,
    /// Against the loop at the first work and at the last.
    from: String,
    to: String,
}

impl Context {
    /// The figures and verdicts of `summary`.
    fn of(summary: &Summary) -> Context {
        let works = summary.levels("work");
        let Some(&first) = works.first() else {
            return Context::default();
        };
        let last = *works.last().unwrap_or(&first);
        let (first_phase, last_phase) = (format!("work_{first}"), format!("work_{last}"));
        let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
        let at = |name: &str, metric: &str| num(summary.median_in(name, &first_phase, metric));
        let headline = |name: &str| summary.median_in(name, &first_phase, HEADLINE);
        let headline_last = |name: &str| summary.median_in(name, &last_phase, HEADLINE);
        let (floor, floor_last) = (headline(LOOP), headline_last(LOOP));
        // The stream with the lowest median headline at a phase.
        let fastest_stream = |work: u64| {
            measure::question::best(summary, Some(Family::Stream), &format!("work_{work}.{HEADLINE}"), false)
                .map(|best| (best.contestant.name.clone(), best.stats.median))
        };

        let mut handoff = Vec::new();
        let mut batching = Vec::new();
        for (single, batched) in BATCH_PAIRS {
            let (a, b) = (headline(single), headline(batched));
            if a.is_some() {
                handoff.push(Row {
                    name: single.to_string(),
                    ms: num(a),
                    ratio: ratio(a, floor),
                    cpu: at(single, "cpu_ns_per_item"),
                    cores: at(single, "cores_used"),
                    switches: at(single, "ctx_switches_per_item"),
                    ..Row::default()
                });
            }
            if a.is_some() && b.is_some() {
                let of = single.to_string();
                batching.push(Row { name: batched.to_string(), of, ratio: ratio(a, b), ..Row::default() });
            }
        }

        let fastest = fastest_stream(first).map(|(name, m)| Row {
            name,
            ms: num(Some(m)),
            ratio: ratio(Some(m), floor),
            ..Row::default()
        });
        let singles = summary
            .contestants
            .iter()
            .filter(|c| c.family == Family::Stream && !c.name.contains("tasks"))
            .filter_map(|c| headline(&c.name).map(|m| (c.name.clone(), m)))
            .map(|(name, m)| Row { name, ratio: ratio(Some(m), floor), ..Row::default() })
            .collect();

        let (iter, adapters) = ("stream-tokio-iter", "stream-tokio-stream-adapters");
        let yielding = headline(iter).zip(headline(adapters)).map(|(y, n)| Row {
            name: iter.to_string(),
            of: adapters.to_string(),
            ms: num(Some(y)),
            never: num(Some(n)),
            ratio: ratio(Some(y), Some(n)),
            ..Row::default()
        });

        // The rows whose findings hold: more than one core busy and slower than the loop; more threads than cores.
        let holds = |id: &str| summary.finding_holds(id);
        let spinning = summary
            .contestants
            .iter()
            .filter(|c| spinning_ids(&c.name).is_some_and(|(cores, slower)| holds(&cores) && holds(&slower)))
            .map(|c| Row {
                name: c.name.clone(),
                cores: at(&c.name, "cores_used"),
                ratio: ratio(headline(&c.name), floor),
                ..Row::default()
            })
            .collect();
        let crowded = BATCH_PAIRS
            .iter()
            .flat_map(|(single, batched)| [*single, *batched])
            .filter(|name| crowded_id(name).is_some_and(|id| holds(&id)))
            .filter_map(|name| {
                let threads = summary.median_in(name, &first_phase, "threads")?;
                let switches = summary.median_in(name, &first_phase, "ctx_switches_per_item")?;
                let (threads, switches) = (format!("{threads:.0}"), num(Some(switches)));
                Some(Row { name: name.to_string(), threads, switches, ..Row::default() })
            })
            .collect();

        let mut gap = Vec::new();
        if last != first {
            let (single, batched) = BATCH_PAIRS[0];
            let names = fastest_stream(last).map(|(name, _)| name).into_iter();
            for name in names.chain([single, batched, "blocking-rayon"].map(String::from)) {
                let (from, to) = (ratio(headline(&name), floor), ratio(headline_last(&name), floor_last));
                gap.push(Row { name, from, to, ..Row::default() });
            }
        }

        // Every batched pipeline, the fused ones and the coroutines' included, not only the pairs the batching
        // claim compares.
        let best_batched = summary
            .contestants
            .iter()
            .filter(|c| c.name.ends_with("-batched"))
            .filter_map(|c| headline(&c.name).map(|m| (c.name.as_str(), m)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(name, m)| Row { name: name.to_string(), ratio: ratio(Some(m), floor), ..Row::default() });

        Context {
            ran: true,
            params: ["items", "batch", "capacity", "messages"].into_iter().map(|k| (k, param(k))).collect(),
            cores: summary.environment.cores,
            floor: LOOP,
            first,
            last,
            claims: claims_with_table(&summary.claims, claims::table(summary).into_iter().map(|c| (c.id, c.text))),
            findings: claims_with_table(
                &summary.findings,
                findings::table(summary).into_iter().map(|c| (c.id, c.text)),
            ),
            batching_factor: BATCHING_FACTOR.to_string(),
            near_loop_factor: NEAR_LOOP_AT_0.to_string(),
            floor_cpu: at(LOOP, "cpu_ns_per_item"),
            floor_first: num(floor),
            floor_last: num(floor_last),
            handoff,
            batching,
            fastest,
            singles,
            yielding,
            spinning,
            crowded,
            gap,
            rayon_last: ratio(headline_last("blocking-rayon"), floor_last),
            best_batched,
            standalone: measure::external::section(
                &beside_standalone(summary, &standalone_pairs(), HEADLINE, STANDALONE_LIMIT),
                "ms/M",
                STANDALONE_LIMIT,
                STANDALONE_GUARD,
                standalone::BUILD,
            ),
        }
    }
}
