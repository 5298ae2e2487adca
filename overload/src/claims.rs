//! The overload scenario's falsifiable claims, fixed before any measurement and never tuned to pass.
//!
//! A full run makes one seconds-long iteration in each of three processes, and with three samples the 99.9%
//! Student-t interval (t = 31.6) spans everything, so every claim is judged on the *range* of the measured
//! iterations instead ([`measure::compare::verdict_range_at_most`]): it holds when every iteration of one side
//! against every iteration of the other satisfies it (the worst pairing), fails when none does (the best
//! pairing), and is inconclusive in between.
//! A claim whose contestant did not run cleanly is inconclusive and says so.

use measure::compare::{format_ratio, verdict_range_at_least, verdict_range_at_most};
use measure::summary::{ClaimResult, Summary, Verdict};

use crate::config::LIMITERS;
use crate::limit::LimiterKind;
use crate::HEADLINE;

/// After-drop throughput.
const AFTER_OPS: &str = "after_drop.ops_per_sec";

/// Every claim, judged against `summary`.
pub fn claims(summary: &Summary) -> Vec<ClaimResult> {
    vec![
        adaptive_halves_tail(summary),
        adaptive_near_ceiling(summary),
        family_matters_less(summary),
        unbounded_tail(summary),
    ]
}

/// The after-drop ceiling in calls per second: `capacity_after / service`.
pub(crate) fn after_ceiling(summary: &Summary) -> Option<f64> {
    Some(summary.param("capacity_after")? * 1e3 / summary.param("service_ms")?)
}

/// The adaptive limiters.
fn adaptive() -> impl Iterator<Item = LimiterKind> {
    LIMITERS.into_iter().filter(|k| *k != LimiterKind::Fixed)
}

fn adaptive_halves_tail(summary: &Summary) -> ClaimResult {
    let text = "After the drop, each adaptive limiter's p99 latency is below half the fixed bound's, in both families";
    let mut verdicts = Vec::new();
    let mut details = Vec::new();
    for family in ["stream", "blocking"] {
        let fixed = format!("{family}-fixed");
        for kind in adaptive() {
            let name = format!("{family}-{}", kind.name());
            match (summary.stats(&name, HEADLINE), summary.stats(&fixed, HEADLINE)) {
                (Ok(a), Ok(f)) => {
                    let (verdict, detail) = verdict_range_at_most(a, f, 0.5);
                    verdicts.push(verdict);
                    details.push(format!("{name}: {}, {detail}", verdict.as_str()));
                }
                (Err(e), _) | (_, Err(e)) => {
                    verdicts.push(Verdict::Inconclusive);
                    details.push(e);
                }
            }
        }
    }
    ClaimResult::new(text, Verdict::combine(verdicts), details.join("; "))
}

fn adaptive_near_ceiling(summary: &Summary) -> ClaimResult {
    let text = "The adaptive limiters keep after-drop throughput within 15% of the dependency's ceiling \
                (capacity-after / service time), in both families";
    let Some(ceiling) = after_ceiling(summary) else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no capacity_after or service_ms");
    };
    let floor = 0.85 * ceiling;
    let mut verdicts = Vec::new();
    let mut details = Vec::new();
    for family in ["stream", "blocking"] {
        for kind in adaptive() {
            let name = format!("{family}-{}", kind.name());
            match summary.stats(&name, AFTER_OPS) {
                Ok(s) => {
                    // Every iteration at or above the floor holds; every one below it fails.
                    let verdict = if s.min >= floor {
                        Verdict::Holds
                    } else if s.max < floor {
                        Verdict::Fails
                    } else {
                        Verdict::Inconclusive
                    };
                    verdicts.push(verdict);
                    details.push(format!(
                        "{name}: {} of the ceiling (median {:.0}, {:.0}–{:.0} calls/s), {}",
                        percent(s.median / ceiling),
                        s.median,
                        s.min,
                        s.max,
                        verdict.as_str()
                    ));
                }
                Err(e) => {
                    verdicts.push(Verdict::Inconclusive);
                    details.push(e);
                }
            }
        }
    }
    ClaimResult::new(
        text,
        Verdict::combine(verdicts),
        format!("ceiling {ceiling:.0} calls/s, floor {floor:.0}: {}", details.join("; ")),
    )
}

/// The largest stream/blocking ratio of after-drop p99 over the bounded limiters must be at most half the
/// largest spread between limiters within a family.
fn family_matters_less(summary: &Summary) -> ClaimResult {
    let text = "The family (stream or blocking) matters far less than the limiter: the largest stream/blocking \
                gap in after-drop p99 for one limiter is at most half the largest gap between two limiters of one \
                family";
    let mut family_gap: Option<(f64, String)> = None;
    let mut missing = Vec::new();
    for kind in LIMITERS {
        let (s, b) = (format!("stream-{}", kind.name()), format!("blocking-{}", kind.name()));
        match (summary.stats(&s, HEADLINE), summary.stats(&b, HEADLINE)) {
            (Ok(x), Ok(y)) => {
                let gap = x.median.max(y.median) / x.median.min(y.median);
                if family_gap.as_ref().is_none_or(|(g, _)| gap > *g) {
                    family_gap =
                        Some((gap, format!("{} ({s} {:.0} µs, {b} {:.0} µs)", kind.name(), x.median, y.median)));
                }
            }
            (Err(e), _) | (_, Err(e)) => missing.push(e),
        }
    }
    let mut limiter_gap: Option<(f64, String)> = None;
    for family in ["stream", "blocking"] {
        let medians: Vec<(String, f64)> = LIMITERS
            .iter()
            .filter_map(|k| {
                let name = format!("{family}-{}", k.name());
                summary.stats(&name, HEADLINE).ok().map(|s| (name, s.median))
            })
            .collect();
        let lo = medians.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let hi = medians.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(lo), Some(hi)) = (lo, hi) {
            let gap = hi.1 / lo.1;
            if limiter_gap.as_ref().is_none_or(|(g, _)| gap > *g) {
                limiter_gap = Some((gap, format!("{} {:.0} µs against {} {:.0} µs", hi.0, hi.1, lo.0, lo.1)));
            }
        }
    }
    match (family_gap, limiter_gap) {
        (Some((fg, fd)), Some((lg, ld))) if missing.is_empty() => {
            let verdict = if fg * 2.0 <= lg { Verdict::Holds } else { Verdict::Fails };
            ClaimResult::new(
                text,
                verdict,
                format!(
                    "largest family gap {}× at {fd}; largest limiter gap {}×: {ld} (ratios of medians)",
                    format_ratio(fg),
                    format_ratio(lg)
                ),
            )
        }
        _ => ClaimResult::new(text, Verdict::Inconclusive, format!("missing results: {}", missing.join("; "))),
    }
}

fn unbounded_tail(summary: &Summary) -> ClaimResult {
    let text = "Cheap concurrency still needs admission control: without a bound, after-drop p99 is at least 5× the \
                fixed bound's, in both families";
    let mut verdicts = Vec::new();
    let mut details = Vec::new();
    for family in ["stream", "blocking"] {
        let (u, f) = (format!("{family}-unbounded"), format!("{family}-fixed"));
        match (summary.stats(&u, HEADLINE), summary.stats(&f, HEADLINE)) {
            (Ok(a), Ok(b)) => {
                let (verdict, detail) = verdict_range_at_least(a, b, 5.0);
                verdicts.push(verdict);
                details.push(format!("{u}: {}, {detail}", verdict.as_str()));
            }
            (Err(e), _) | (_, Err(e)) => {
                verdicts.push(Verdict::Inconclusive);
                details.push(e);
            }
        }
    }
    ClaimResult::new(text, Verdict::combine(verdicts), details.join("; "))
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}
