//! The overload report: a typed context ([`Context`]) of the figures `figures.rs` computed from a run's summary,
//! the contestant names, and the claims and findings by id ([`measure::template::claims_by_id`]), rendered with
//! `templates/report.md`, which holds every word. Every verdict comes from the summary: its claims (`claims.rs`)
//! and its findings (`findings.rs`); nothing here computes a figure or chooses a sentence.

use std::collections::BTreeMap;

use measure::summary::Summary;
use measure::template::{claims_by_id, ClaimView};
use serde::Serialize;

use super::figures::{self, Figures, Limiters, MaybeFigures, Policy, Row};
use crate::config::IDLE_CALLS;
use crate::feed::Feeds;

/// Every word of the report's discussion, with the figures below filled in.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The version of the published peer whose API the report describes (read from its source).
const PEER_VERSION: &str = "0.1.0";

/// The discussion section of the report: [`Context::of`] `summary`, rendered with `templates/report.md`.
pub fn render(summary: &Summary) -> String {
    measure::template::render_or_note("overload/report.md", TEMPLATE, Context::of(summary))
}

/// Everything `templates/report.md` reads; each field's figures are described where they are made.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// The run's claims, by id.
    pub claims: BTreeMap<String, ClaimView>,
    /// The run's findings, by id (`findings.rs`).
    pub findings: BTreeMap<String, ClaimView>,
    /// The claims' factors, as their texts print them: `halves`, `near`, `family` and `feed`.
    pub factors: Figures,
    /// The run's parameters by key ([`figures::params`]), each whole.
    pub params: MaybeFigures,
    /// The dependency's ceilings in calls per second, `before` and `after_ops` the drop.
    pub ceiling: Option<Figures>,
    /// Median idle overshoot over each family's contestants, by family (`—` where none measured it).
    pub idle: Option<Figures>,
    /// Uncontended calls each trial process made to measure the no-load latency.
    pub idle_calls: u32,
    /// The run made fewer calls than the published experiment's 200,000.
    pub published_calls: bool,
    /// The adaptive limiters ran in the lab's short window (`--windowed 1`).
    pub windowed: bool,
    /// Gradient2's long window, in samples (windows with `--windowed 1`).
    pub long_window: usize,
    /// One row per limiter and family, in report order ([`figures::trade_rows`]).
    pub trade_rows: Vec<Row>,
    /// The figures on each adaptive limiter ([`figures::limiters`]).
    pub limiters: Option<Limiters>,
    /// The unbounded contestants that ran ([`figures::unbounded_rows`]).
    pub unbounded: Vec<Figures>,
    /// `blocking-unbounded`'s thread counts ([`figures::unbounded_threads`]).
    pub unbounded_threads: MaybeFigures,
    /// Per family, medians over its bounded contestants ([`figures::family_cpu`]).
    pub family_cpu: Vec<Figures>,
    /// Each adaptive limiter against the fixed bound, whose two claims the run judged ([`Policy`]).
    pub policies: Vec<Policy>,
    /// The adaptive limiters by the verdict (`holds`, `fails`, `inconclusive`) of their tail claim.
    pub tail_by_verdict: BTreeMap<&'static str, Vec<&'static str>>,
    /// Whether the families fed their limiters alike, pair by pair ([`Feeds`]).
    pub feeds: Feeds,
    /// The published peer's version.
    pub peer_version: &'static str,
    /// Contestants of this run that admit through a limiter of their own rather than the lab's gate.
    pub peers: Vec<String>,
    /// Per contestant, medians of more metrics ([`figures::more_rows`]) for the tables at the end, in report order.
    pub more: Vec<Row>,
}

impl Context {
    /// The context of `summary`, whose claims and findings are judged.
    pub fn of(summary: &Summary) -> Context {
        let policies = figures::policies(summary);
        Context {
            claims: claims_by_id(&summary.claims),
            findings: claims_by_id(&summary.findings),
            factors: figures::factors(),
            params: figures::params(summary),
            ceiling: figures::ceiling(summary),
            idle: figures::idle(summary),
            idle_calls: IDLE_CALLS,
            published_calls: figures::fewer_calls_than_published(summary),
            windowed: figures::windowed(summary),
            long_window: figures::long_window(),
            trade_rows: figures::trade_rows(summary),
            limiters: figures::limiters(summary),
            unbounded: figures::unbounded_rows(summary),
            unbounded_threads: figures::unbounded_threads(summary),
            family_cpu: figures::family_cpu(summary),
            tail_by_verdict: figures::tail_by_verdict(&policies),
            policies,
            feeds: Feeds::of(summary),
            peer_version: PEER_VERSION,
            peers: figures::peers(summary),
            more: figures::more_rows(summary),
        }
    }
}

#[cfg(test)]
mod tests;
