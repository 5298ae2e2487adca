//! The device report's context for `templates/report.md` (the discussion) and `templates/headline.md` (the
//! headline's own lines): the run's settings, the claims and findings by id ([`claims_by_id`], judged before this
//! runs: [`super::findings`]) and each section's figures ([`super::figures`]); every word, and the choice of every
//! finding by its verdict, is in the templates.

use measure::summary::Summary;
use measure::template::claims_by_id;
use serde_json::json;

use super::claims::{PRECISION_MS, STREAMS_AHEAD, TRAP_FACTOR};
use super::figures::{
    budget_trap, coroutines, cpu_table, cut_short, memory, own_timers, per_level, pick, single, skipped, start, threads,
};
use super::HEAP_READ_AT;
use crate::format::{notes, percent};

/// The discussion's template: every word of the report's discussion.
const REPORT: &str = include_str!("templates/report.md");
/// The headline notes' template: one note per line.
const HEADLINE_NOTES: &str = include_str!("templates/headline.md");

/// The discussion section of the report, rendered from `templates/report.md`: the run's settings, then one
/// section of figures each (`null` or empty where the run has nothing for it), each built by one function of [`super::figures`].
pub(crate) fn discussion(summary: &Summary) -> String {
    let service = summary.param("service_ms");
    let context = json!({
        "claims": claims_by_id(&summary.claims),
        "findings": claims_by_id(&summary.findings),
        "service": service.map(|s| format!("{s:.0}")),
        "service_tick": service.map(|s| format!("{:.0}", s + 1.0)),
        "cores": summary.environment.cores,
        "rounds": summary.param("rounds").map(|r| format!("{r:.0}")),
        "trap_factor": TRAP_FACTOR.to_string(),
        "precision_ms": PRECISION_MS.to_string(),
        "streams_ahead": STREAMS_AHEAD.to_string(),
        "heap_read_at": percent(HEAP_READ_AT),
        "budget": summary.param("budget_ms").map(|b| format!("{:.1}", b / 1e3)),
        "levels": per_level(summary),
        "single": single(summary),
        "start": start(summary),
        "trap": budget_trap(summary),
        "own": own_timers(summary),
        "threads": threads(summary),
        "coroutines": coroutines(summary),
        "cpu": cpu_table(summary),
        "memory": memory(summary),
        "cut": cut_short(summary),
        "pick": pick(summary),
    });
    measure::template::render_or_note("device/report.md", REPORT, context)
}

/// The headline's own lines, rendered from `templates/headline.md`: the budget trap at the highest level, and the
/// levels threads could not reach.
pub(crate) fn headline_notes(summary: &Summary) -> Vec<String> {
    let context = json!({ "trap": budget_trap(summary), "skipped": skipped(summary, |_| true) });
    notes("device/headline.md", HEADLINE_NOTES, context)
}
