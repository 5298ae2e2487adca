//! The overload report: the figures `figures.rs` computed from a run's summary, and the claims and findings by id
//! ([`measure::template::claims_by_id`]), rendered with `templates/report.md`, which holds every word. Every
//! verdict comes from the summary: its claims (`claims.rs`) and its findings (`findings.rs`); nothing here
//! computes a figure or chooses a sentence.

use measure::summary::Summary;
use measure::template::claims_by_id;

use super::figures;
use crate::config::IDLE_CALLS;
use crate::feed::Feeds;

/// Every word of the report's discussion, with the figures below filled in.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The version of the published peer whose API the report describes (read from its source).
const PEER_VERSION: &str = "0.1.0";

/// The discussion section of the report: [`context`] of `summary`, rendered with `templates/report.md`.
pub fn render(summary: &Summary) -> String {
    measure::template::render_or_note("overload/report.md", TEMPLATE, context(summary))
}

/// Everything `templates/report.md` reads, by key: the run's `claims` and `findings` by id, the feeds
/// ([`Feeds::of`]), the idle-call count and the peer's version, and each other key from the function of
/// [`figures`] that makes it, where it is described.
pub fn context(summary: &Summary) -> serde_json::Value {
    let policies = figures::policies(summary);
    serde_json::json!({
        "claims": claims_by_id(&summary.claims),
        "findings": claims_by_id(&summary.findings),
        "factors": figures::factors(),
        "params": figures::params(summary),
        "ceiling": figures::ceiling(summary),
        "idle": figures::idle(summary),
        "idle_calls": IDLE_CALLS,
        "published_calls": figures::fewer_calls_than_published(summary),
        "rejects": figures::rejects(summary),
        "windowed": figures::windowed(summary),
        "long_window": figures::long_window(),
        "trade_rows": figures::trade_rows(summary),
        "limiters": figures::limiters(summary),
        "unbounded": figures::unbounded_rows(summary),
        "unbounded_threads": figures::unbounded_threads(summary),
        "family_cpu": figures::family_cpu(summary),
        "tail_by_verdict": figures::tail_by_verdict(&policies),
        "policies": policies,
        "feeds": Feeds::of(summary),
        "peer_version": PEER_VERSION,
        "peers": figures::peers(summary),
        "more": figures::more_rows(summary),
    })
}

#[cfg(test)]
mod tests;
