//! Every per-item contestant against the scenario's two floors: the ring ([`RING`], the floor of a cross-thread
//! hand-off) and the loop ([`LOOP`], the work without a hand-off), as the headline's own line
//! (`templates/headline.md`) and the report's table. Ratios of medians, judged by nothing: they state no finding.

use measure::compare::{format_or_na as num, format_ratio};
use measure::summary::{Role, Summary};
use serde::Serialize;

use super::claims::{phase, CLAIM_CAPACITY, LOOP, RING};
use super::HEADLINE;
use crate::job::HandoffConfig;

/// The template of the headline's own line: the per-item candidates against the floors.
const HEADLINE_NOTES: &str = include_str!("templates/headline.md");

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

/// [`FloorMultiples`] of `summary` at `caps`: the loop's row, then each registered per-item contestant that has a
/// figure at some capacity.
pub fn floor_multiples(summary: &Summary, caps: &[u64]) -> FloorMultiples {
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
