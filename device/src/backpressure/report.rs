//! The backpressure report's context for `templates/report.md` (and the headline's `templates/headline.md`): the
//! claims and findings by id ([`claims_with_table`], [`claims_by_id`]: judged before this runs,
//! [`super::findings`]), the claims' factors and each section's figures ([`super::figures`]); every word is in the
//! templates, each finding's sentence printed only where its verdict holds.

use measure::summary::Summary;
use measure::template::{claims_by_id, claims_with_table};
use serde_json::json;

use super::claims::{
    BOUNDED_ALIKE, BOUNDED_SPREAD, THREADS_THROTTLED, THREAD_SHARE, UNBOUNDED_FACTOR, UNBOUNDED_PILES_UP,
};
use super::figures::{
    bound, bound_study, cost, not_clean, pick, reached, sampled, semantics, throughput, unbounded_stream,
    unbounded_threads,
};
use crate::format::{fig, notes};

/// The report's words.
const TEMPLATE: &str = include_str!("templates/report.md");
/// The headline note's words.
const HEADLINE: &str = include_str!("templates/headline.md");

/// The report's discussion, from `templates/report.md`: the claims (`not judged` where the run has none) and
/// findings by id, the claims' factors, then one section of figures each (`null` or empty where the run has nothing
/// for it), each built by the function of the same name.
pub(crate) fn discussion(summary: &Summary) -> String {
    let table = [UNBOUNDED_PILES_UP, BOUNDED_ALIKE, THREADS_THROTTLED].map(|id| (id, String::new()));
    let context = json!({
        "claims": claims_with_table(&summary.claims, table),
        "findings": claims_by_id(&summary.findings),
        "factors": {
            "unbounded": fig(UNBOUNDED_FACTOR),
            "spread": fig(BOUNDED_SPREAD),
            "thread_share": fig(THREAD_SHARE),
        },
        "not_clean": not_clean(summary),
        "budget_s": summary.param("budget_ms").map(|b| fig(b / 1e3)),
        "bound": bound(summary),
        "bound_study": bound_study(summary),
        "unbounded_stream": unbounded_stream(summary),
        "unbounded_threads": unbounded_threads(summary),
        "sampled": sampled(summary),
        "throughput": throughput(summary),
        "cost": cost(summary),
        "semantics": semantics(summary),
        "pick": pick(summary),
    });
    measure::template::render_or_note("backpressure/report.md", TEMPLATE, context)
}

/// The headline's own line: how far outstanding calls ran without admission, in each family ([`reached`]).
pub(crate) fn headline_notes(summary: &Summary) -> Vec<String> {
    let reached = reached(summary);
    if reached.is_empty() {
        return Vec::new();
    }
    notes("backpressure/headline.md", HEADLINE, json!({ "reached": reached }))
}
