//! The chain scenario's report: a typed context of the run's figures (formatted numbers, contestant names) and
//! verdicts (claims by id), rendered into `templates/report.md`, which holds every word. Every figure comes from
//! the run's [`Summary`]; a finding is chosen in the template by the verdict of the claim that backs it, or by a
//! comparison at the run's noise threshold computed here as a flag.

use std::collections::BTreeMap;

use measure::compare::{beyond_noise, differs, format_or_na as num, times_or_na as ratio};
use measure::external::beside_standalone;
use measure::summary::{Family, Summary};
use measure::template::{claims_with_table, ClaimView};
use serde::Serialize;

use super::claims::{self, BATCHING_FACTOR, BATCH_PAIRS, LOOP, NEAR_LOOP_AT_0, STANDALONE_GUARD, STANDALONE_LIMIT};
use super::contestants::standalone_pairs;
use super::HEADLINE;

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// Markdown discussing `summary` (whose claims are judged): [`Context`] rendered into `templates/report.md`.
pub fn discussion(summary: &Summary) -> String {
    measure::template::render_or_note("chain/report.md", TEMPLATE, Context::of(summary))
}

/// Everything the template reads.
#[derive(Debug, Default, Serialize)]
pub struct Context {
    /// At least one `work_<n>` phase ran (otherwise there is nothing to discuss).
    pub ran: bool,
    /// The `items` parameter.
    pub items: String,
    /// The `batch` parameter.
    pub batch: String,
    /// The `capacity` parameter.
    pub capacity: String,
    /// The `messages` parameter.
    pub messages: String,
    /// Logical cores of the machine.
    pub cores: u32,
    /// The contestant every ratio is taken against.
    pub floor: &'static str,
    /// The first work of the sweep.
    pub first: u64,
    /// The last work of the sweep.
    pub last: u64,
    /// Every judged claim by id; a claim of the table that was not judged reads `not judged`.
    pub claims: BTreeMap<String, ClaimView>,
    /// The batching claim's factor.
    pub batching_factor: String,
    /// The near-the-loop claim's factor at the first work.
    pub near_loop_factor: String,
    /// The loop's CPU per item at the first work.
    pub floor_cpu: String,
    /// The per-item channel pipelines at the first work.
    pub handoff: Vec<Row>,
    /// Batched against per-item pipelines at the first work (`name` against `of`).
    pub batching: Vec<Row>,
    /// The fastest stream at the first work, and the single-task streams against the loop.
    pub streams: Option<Streams>,
    /// The yielding source against the one that never yields, at the first work.
    pub yielding: Option<Yielding>,
    /// Contestants that kept more than one core busy and were slower than the loop (beyond noise).
    pub spinning: Vec<Row>,
    /// Channel pipelines with more threads than cores.
    pub crowded: Vec<Row>,
    /// From the first work to the last (absent when the sweep has one work).
    pub gap: Option<Gap>,
    /// `blocking-rayon` against the loop at the last work.
    pub rayon_last: String,
    /// The fastest batched pipeline at the first work.
    pub best_batched: Option<Row>,
    /// What `may` asks of coroutine code, when the run has coroutine contestants.
    pub coroutine_rules: Option<String>,
    /// The "lab ÷ standalone" section: the loop beside its standalone program at every work, rendered by
    /// [`measure::external::section`].
    pub standalone: String,
}

/// One contestant's figures in a list of the discussion: each list fills the fields its sentence prints and
/// leaves the others empty.
#[derive(Debug, Default, Serialize)]
pub struct Row {
    /// The contestant.
    pub name: String,
    /// The per-item twin a batched contestant is compared with.
    pub of: String,
    /// Milliseconds per million items.
    pub ms: String,
    /// Against the loop, or against its twin.
    pub ratio: String,
    /// CPU ns per item.
    pub cpu: String,
    /// Cores used.
    pub cores: String,
    /// Threads.
    pub threads: String,
    /// Context switches per item.
    pub switches: String,
    /// Against the loop at the first work.
    pub from: String,
    /// Against the loop at the last work.
    pub to: String,
}

/// The single-task streams.
#[derive(Debug, Serialize)]
pub struct Streams {
    /// The fastest stream contestant.
    pub fastest: String,
    /// Its milliseconds per million.
    pub ms: String,
    /// Its ratio to the loop.
    pub ratio: String,
    /// Every single-task stream (no `tasks` in its name) against the loop.
    pub singles: Vec<Row>,
}

/// The yielding source against the never-yielding one.
#[derive(Debug, Serialize)]
pub struct Yielding {
    /// `stream-tokio-iter` ms per million.
    pub yielding: String,
    /// `stream-tokio-stream-adapters` ms per million.
    pub never: String,
    /// Their ratio.
    pub ratio: String,
    /// The two are within the noise threshold of each other.
    pub within_noise: bool,
}

/// The loop and a few contestants from the first work to the last.
#[derive(Debug, Serialize)]
pub struct Gap {
    /// The loop's ms per million at the first work.
    pub floor_first: String,
    /// The loop's ms per million at the last work.
    pub floor_last: String,
    /// Each contestant's ratio to the loop at the first and last work.
    pub rows: Vec<Row>,
}

/// The stream contestant with the lowest median headline at `work` (measure's pick, so the report and the
/// answer agree on it).
fn fastest_stream(summary: &Summary, work: u64) -> Option<measure::question::Entry<'_>> {
    measure::question::best(summary, Some(Family::Stream), &format!("work_{work}.{HEADLINE}"), false)
}

impl Context {
    /// The figures and verdicts of `summary`.
    pub fn of(summary: &Summary) -> Context {
        let works: Vec<u64> = summary.phases.iter().filter_map(|p| p.strip_prefix("work_")?.parse().ok()).collect();
        let Some(&first) = works.first() else {
            return Context::default();
        };
        let last = *works.last().unwrap_or(&first);
        let (first_phase, last_phase) = (format!("work_{first}"), format!("work_{last}"));
        let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
        let noise = summary.method.threshold(crate::chain::HEADLINE);
        let floor = summary.median_in(LOOP, &first_phase, HEADLINE);
        let at = |name: &str, metric: &str| num(summary.median_in(name, &first_phase, metric));

        let mut handoff = Vec::new();
        let mut batching = Vec::new();
        for (single, batched) in BATCH_PAIRS {
            let (a, b) =
                (summary.median_in(single, &first_phase, HEADLINE), summary.median_in(batched, &first_phase, HEADLINE));
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
                batching.push(Row {
                    name: batched.to_string(),
                    of: single.to_string(),
                    ratio: ratio(a, b),
                    ..Row::default()
                });
            }
        }

        let streams = fastest_stream(summary, first).map(|best| Streams {
            fastest: best.contestant.name.clone(),
            ms: num(Some(best.stats.median)),
            ratio: ratio(Some(best.stats.median), floor),
            singles: summary
                .contestants
                .iter()
                .filter(|c| c.family == Family::Stream && !c.name.contains("tasks"))
                .filter_map(|c| {
                    summary.median_in(&c.name, &first_phase, HEADLINE).map(|m| Row {
                        name: c.name.clone(),
                        ratio: ratio(Some(m), floor),
                        ..Row::default()
                    })
                })
                .collect(),
        });

        // The headline's statistics at the first work: the noise comparison needs both sides' process medians.
        let stats = |name: &str| summary.metric(name, &format!("{first_phase}.{HEADLINE}"));
        let yielding = match (stats("stream-tokio-iter"), stats("stream-tokio-stream-adapters")) {
            (Some(y), Some(n)) => Some(Yielding {
                yielding: num(Some(y.median)),
                never: num(Some(n.median)),
                ratio: ratio(Some(y.median), Some(n.median)),
                within_noise: !differs(y, n, noise),
            }),
            _ => None,
        };

        let spinning = summary
            .contestants
            .iter()
            .filter_map(|c| {
                let cores = summary.median_in(&c.name, &first_phase, "cores_used")?;
                let m = summary.median_in(&c.name, &first_phase, HEADLINE)?;
                (beyond_noise(cores, 1.0, noise) && floor.is_some_and(|f| beyond_noise(m, f, noise))).then(|| Row {
                    name: c.name.clone(),
                    cores: num(Some(cores)),
                    ratio: ratio(Some(m), floor),
                    ..Row::default()
                })
            })
            .collect();

        let cores = f64::from(summary.environment.cores);
        let crowded = BATCH_PAIRS
            .iter()
            .flat_map(|(single, batched)| [*single, *batched])
            .filter_map(|name| {
                let threads = summary.median_in(name, &first_phase, "threads").filter(|t| *t > cores)?;
                let switches = summary.median_in(name, &first_phase, "ctx_switches_per_item")?;
                let (threads, switches) = (format!("{threads:.0}"), num(Some(switches)));
                Some(Row { name: name.to_string(), threads, switches, ..Row::default() })
            })
            .collect();

        let gap = (last != first).then(|| {
            let floor_last = summary.median_in(LOOP, &last_phase, HEADLINE);
            let row = |name: &str| Row {
                name: name.to_string(),
                from: ratio(summary.median_in(name, &first_phase, HEADLINE), floor),
                to: ratio(summary.median_in(name, &last_phase, HEADLINE), floor_last),
                ..Row::default()
            };
            let mut rows = Vec::new();
            if let Some(best) = fastest_stream(summary, last) {
                rows.push(row(&best.contestant.name));
            }
            for (single, batched) in BATCH_PAIRS.iter().take(1) {
                rows.push(row(single));
                rows.push(row(batched));
            }
            rows.push(row("blocking-rayon"));
            Gap { floor_first: num(floor), floor_last: num(floor_last), rows }
        });

        // Every batched pipeline, the fused ones and the coroutines' included, not only the pairs the batching
        // claim compares.
        let best_batched = summary
            .contestants
            .iter()
            .filter(|c| c.name.ends_with("-batched"))
            .filter_map(|c| summary.median_in(&c.name, &first_phase, HEADLINE).map(|m| (c.name.as_str(), m)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(name, m)| Row { name: name.to_string(), ratio: ratio(Some(m), floor), ..Row::default() });

        Context {
            ran: true,
            items: param("items"),
            batch: param("batch"),
            capacity: param("capacity"),
            messages: param("messages"),
            cores: summary.environment.cores,
            floor: LOOP,
            first,
            last,
            claims: claims_with_table(&summary.claims, claims::table(summary).into_iter().map(|c| (c.id, c.text))),
            batching_factor: BATCHING_FACTOR.to_string(),
            near_loop_factor: NEAR_LOOP_AT_0.to_string(),
            floor_cpu: num(summary.median_in(LOOP, &first_phase, "cpu_ns_per_item")),
            handoff,
            batching,
            streams,
            yielding,
            spinning,
            crowded,
            gap,
            rayon_last: ratio(
                summary.median_in("blocking-rayon", &last_phase, HEADLINE),
                summary.median_in(LOOP, &last_phase, HEADLINE),
            ),
            best_batched,
            coroutine_rules: pipelines::coroutine::rules_note(summary),
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
