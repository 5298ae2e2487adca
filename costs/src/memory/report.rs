//! The memory scenario's report: the per-unit regression over the counts that ran (figures formatted here, one
//! row per contestant and payload) and the verdicts, rendered into `templates/report.md`, which holds every word.

use std::collections::{BTreeMap, BTreeSet};

use measure::summary::Summary;
use measure::template::{claims_by_id, ClaimView};
use serde::Serialize;

use super::{phase, HEADLINE};

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// Markdown discussing `summary`: [`Context`] rendered into `templates/report.md`.
pub fn discussion(summary: &Summary) -> String {
    measure::template::render_or_note("memory/report.md", TEMPLATE, Context::of(summary))
}

/// Everything the template reads.
#[derive(Debug, Serialize)]
pub struct Context {
    /// One row per contestant and payload with at least two counts measured.
    pub rows: Vec<Row>,
    /// Every judged claim by id.
    pub claims: BTreeMap<String, ClaimView>,
}

/// One contestant at one payload: bytes per unit from the slope over the counts, and per count.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The contestant.
    pub name: String,
    /// Payload bytes.
    pub payload: u64,
    /// Resident bytes per unit, the slope (`—` with fewer than two counts).
    pub rss: String,
    /// Resident bytes per unit at each count.
    pub per_count: Vec<String>,
    /// Live heap bytes per unit, the slope.
    pub heap: String,
    /// The counts the resident slope was fitted to.
    pub counts: Vec<String>,
}

/// Least-squares slope of `y` over `x`: the per-unit cost with fixed costs cancelled. `None` with fewer than two
/// distinct `x`.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(sx, sy), (x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) =
        points.iter().fold((0.0, 0.0), |(num, den), (x, y)| (num + (x - mx) * (y - my), den + (x - mx) * (x - mx)));
    (den > 0.0).then(|| num / den)
}

impl Context {
    /// The regression table and verdicts of `summary`.
    pub fn of(summary: &Summary) -> Context {
        let counts: BTreeSet<u64> = summary.levels("count").into_iter().collect();
        let payloads: BTreeSet<u64> = summary.levels("payload").into_iter().collect();
        let mut rows = Vec::new();
        for c in &summary.contestants {
            for &payload in &payloads {
                let points = |metric: &str| -> Vec<(f64, f64)> {
                    counts
                        .iter()
                        .filter_map(|&count| {
                            let median = summary.median_in(&c.name, &phase(count, payload), metric)?;
                            Some((count as f64, median * count as f64))
                        })
                        .collect()
                };
                let (rss, heap) = (points(HEADLINE), points("live_heap_bytes_per_unit"));
                if rss.len() < 2 && heap.len() < 2 {
                    continue;
                }
                let fmt = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.0}"));
                rows.push(Row {
                    name: c.name.clone(),
                    payload,
                    rss: fmt(slope(&rss)),
                    per_count: rss.iter().map(|(x, total)| format!("{:.0}", total / x)).collect(),
                    heap: fmt(slope(&heap)),
                    counts: rss.iter().map(|(x, _)| measure::units::thousands(*x as u64)).collect(),
                });
            }
        }
        Context { rows, claims: claims_by_id(&summary.claims) }
    }
}
