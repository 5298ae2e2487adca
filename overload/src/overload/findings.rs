//! The overload report's findings as judged rows ([`table`]): every sentence the discussion states only where a
//! verdict backs it, declared here as a claim is declared and judged by the harness's one judge into the
//! summary's findings, so the report reads verdicts and decides nothing. Where a sentence rests on two verdicts
//! on different metrics (the published sentence, Vegas's steering, a pair of feeds), [`all_of`] combines the
//! judged rows as a claim combines its comparisons.
//!
//! Every row has an id, the template's key for it; the rows are the same for every run (a row whose figures the
//! run lacks is undecidable, not missing), apart from the feed rows, which [`crate::feed`] reads by id.

use super::routine::CALLER_OVERHEAD;
use measure::compare::{Basis, Relation};
use measure::judge::{beyond_noise, Beyond, ClaimSpec, Comparison, Phase, Side, Who};
use measure::summary::{ClaimResult, Summary, Verdict};

use super::claims::{longer_id, tail_id, NEAR_CEILING};
use super::contestants::Contestant;
use crate::analysis::HEADLINE;
use crate::config::after_ceiling;
use crate::config::LIMITERS;
use crate::feed::weakest;
use crate::limit::LimiterKind;

/// After-drop mean limit.
pub const LIMIT_MEAN: &str = "after_drop.limit_mean";
/// The limit when the capacity dropped.
const LIMIT_AT_DROP: &str = "limit_at_drop";
/// After-drop throughput.
const AFTER_OPS: &str = "after_drop.ops_per_sec";
/// Cuts over the run.
const DECREASES: &str = "decisions.decreases";

/// Id of the finding that plain `aimd` never cut, in any sample of any family.
pub const NEVER_CUT: &str = "aimd-never-cut";
/// Id of the finding that Vegas's limit had settled below the healthy capacity before the drop.
pub const VEGAS_SETTLED_BELOW: &str = "vegas-settled-below-capacity";
/// Id of the finding that Vegas's families differ in after-drop p99 beyond noise.
pub const VEGAS_FAMILIES_DIFFER: &str = "vegas-families-differ";
/// Id of the finding that Vegas's stream and blocking limits were within noise of each other at the drop.
pub const VEGAS_CLOSE: &str = "vegas-limits-close-at-drop";

/// Id of the finding that `kind` stayed below the near-ceiling claim's factor of the ceiling in every family.
pub fn below_near_id(kind: LimiterKind) -> String {
    format!("{}-below-near-ceiling", kind.name())
}

/// Id of the finding that `kind`'s mean limit after the drop stayed above the new capacity beyond noise.
pub fn above_capacity_id(kind: LimiterKind) -> String {
    format!("{}-limit-above-capacity", kind.name())
}

/// Id of the finding that Vegas's stream contestant's `what` (`overhead` or `limit`, [`ORDERS`]) is `above` (else
/// below) the blocking one's.
fn vegas_order_id(what: &str, above: bool) -> String {
    format!("vegas-stream-{what}-{}", if above { "above" } else { "below" })
}

/// What Vegas's steering compares between its stream and blocking contestants: the caller's overhead before the
/// drop and the limit at the drop, each by name, metric and definition.
const ORDERS: [(&str, &str, &str); 2] = [
    ("overhead", CALLER_OVERHEAD, "the median call before the drop less the idle call, per run"),
    ("limit", LIMIT_AT_DROP, "the limit when the capacity dropped"),
];

/// Every finding of the overload report, as rows the harness judges.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let mut rows = limiter_rows(summary);
    rows.extend(window_rows());
    rows.extend(vegas_rows(summary));
    rows.extend(crate::feed::finding_rows(summary));
    rows
}

/// Each family's contestant of `kind`, each against the fixed `value` described by `label`.
fn against_value(kind: LimiterKind, value: f64, label: &str) -> Vec<Comparison> {
    Contestant::gated(kind)
        .map(|c| Comparison { a: Side::contestant(c.name(), Phase::Unphased), b: Side::value(value, label) })
        .into()
}

/// The AIMD and Gradient2 rows: plain `aimd` never cut; each AIMD limiter below the near-ceiling claim's factor
/// of the after-drop ceiling; each AIMD limiter's and Gradient2's mean limit above the new capacity beyond noise.
fn limiter_rows(summary: &Summary) -> Vec<ClaimSpec> {
    let capacity = summary.param("capacity_after");
    let ceiling = after_ceiling(summary);
    let above = beyond_noise(&summary.method, LIMIT_MEAN, Beyond::Above);
    let mut rows = vec![ClaimSpec::new(
        "Plain `aimd` never cut its limit, in any sample of any family: its drops are rejections and calls slower \
         than its timeout",
        DECREASES,
        "cuts of the limit over the timed run",
        (Relation::AtMost, 0.0),
        Basis::WorstSample,
        against_value(LimiterKind::Aimd, 1.0, "one cut"),
    )
    .with_id(NEVER_CUT)];
    for kind in LIMITERS.into_iter().filter(|&k| is_aimd(k) || k == LimiterKind::Gradient2) {
        let name = kind.name();
        if is_aimd(kind) {
            rows.push(
                ClaimSpec::new(
                    format!("`{name}` keeps after-drop throughput below {NEAR_CEILING}× the ceiling, in every family"),
                    AFTER_OPS,
                    "calls answered per second over the calls issued after the capacity drop",
                    (Relation::AtMost, NEAR_CEILING),
                    Basis::ProcessMedians,
                    against_value(kind, ceiling.unwrap_or(0.0), "the after-drop ceiling"),
                )
                .with_id(below_near_id(kind))
                .undecidable_if(ceiling.is_none().then(|| "the run has no capacity_after or service_ms".into())),
            );
        }
        rows.push(
            ClaimSpec::new(
                format!(
                    "`{name}`'s mean limit after the drop stays above the new capacity beyond noise, in every family"
                ),
                LIMIT_MEAN,
                "time-weighted mean of the limit after the capacity drop",
                above,
                Basis::ProcessMedians,
                against_value(kind, capacity.unwrap_or(0.0), "the capacity after the drop"),
            )
            .with_id(above_capacity_id(kind))
            .undecidable_if(capacity.is_none().then(|| "the run has no capacity_after".into())),
        );
    }
    rows
}

/// Id of the finding that no limiter ignored a sample after a cut, in any timed run of any gated contestant.
pub const NONE_IGNORED: &str = "no-sample-ignored";

/// Id of the finding that no limiter closed a window, in any timed run of any gated contestant.
pub const NO_WINDOWS: &str = "no-window-closed";

/// The windowed variant's rows: no limiter ignored a sample after a cut, and none closed a window, in any sample
/// of any gated contestant (a limiter updated on every call, as Netflix's `SimpleLimiter` runs it, does neither).
fn window_rows() -> Vec<ClaimSpec> {
    let rows = [
        (
            NONE_IGNORED,
            "decisions.ignored",
            "samples the limiter ignored after a cut over the timed run",
            "ignored a sample after a cut",
        ),
        (NO_WINDOWS, "decisions.windows", "windows the limiter closed over the timed run", "closed a window"),
    ];
    rows.into_iter()
        .map(|(id, metric, definition, what)| {
            let every: Vec<Comparison> = LIMITERS
                .into_iter()
                .flat_map(Contestant::gated)
                .map(|c| Comparison { a: Side::contestant(c.name(), Phase::Unphased), b: Side::value(1.0, "one") })
                .collect();
            let text = format!("No limiter {what}, in any timed run of any gated contestant");
            ClaimSpec::new(text, metric, definition, (Relation::AtMost, 0.0), Basis::WorstSample, every).with_id(id)
        })
        .collect()
}

/// Vegas's rows: its limit settled below the healthy capacity before the drop; its families apart in after-drop
/// p99 beyond noise; its stream and blocking limits within noise at the drop; and which of the two has the larger
/// caller overhead and the higher limit at the drop, each way (for [`vegas_steering`]).
fn vegas_rows(summary: &Summary) -> Vec<ClaimSpec> {
    let [stream, blocking, coroutine] = Contestant::gated(LimiterKind::Vegas).map(|c| c.name());
    let capacity = summary.param("capacity");
    let side = |who: Who| Side { who, phase: Phase::Unphased };
    let every = vec![stream.clone(), blocking.clone(), coroutine];
    let extremes = Comparison { a: side(Who::Highest(every.clone())), b: side(Who::Lowest(every)) };
    let (s_b, b_s) = (
        Comparison::contestants(&stream, &blocking, Phase::Unphased),
        Comparison::contestants(&blocking, &stream, Phase::Unphased),
    );
    let close = (Relation::AtMost, 1.0 + summary.method.threshold(LIMIT_AT_DROP));
    let mut rows = vec![
        ClaimSpec::new(
            "Vegas's limit had settled below the healthy capacity beyond noise before the drop, in every family",
            LIMIT_AT_DROP,
            "the limit when the capacity dropped",
            beyond_noise(&summary.method, LIMIT_AT_DROP, Beyond::Below),
            Basis::ProcessMedians,
            against_value(LimiterKind::Vegas, capacity.unwrap_or(0.0), "the healthy capacity"),
        )
        .with_id(VEGAS_SETTLED_BELOW)
        .undecidable_if(capacity.is_none().then(|| "the run has no capacity".into())),
        ClaimSpec::new(
            "Vegas's families differ in after-drop p99 beyond noise: the highest above the lowest",
            HEADLINE,
            "99th percentile of call latency over the calls issued after the capacity drop",
            beyond_noise(&summary.method, HEADLINE, Beyond::Above),
            Basis::ProcessMedians,
            vec![extremes],
        )
        .with_id(VEGAS_FAMILIES_DIFFER),
        ClaimSpec::new(
            "Vegas's stream and blocking limits were within noise of each other at the drop",
            LIMIT_AT_DROP,
            "the limit when the capacity dropped",
            close,
            Basis::ProcessMedians,
            vec![s_b.clone(), b_s],
        )
        .with_id(VEGAS_CLOSE),
    ];
    for (what, metric, definition) in ORDERS {
        for (above, relation, words) in [(true, Relation::AtLeast, "above"), (false, Relation::AtMost, "below")] {
            rows.push(
                ClaimSpec::new(
                    format!("Vegas's stream `{metric}` is {words} the blocking family's"),
                    metric,
                    definition,
                    (relation, 1.0),
                    Basis::ProcessMedians,
                    vec![s_b.clone()],
                )
                .with_id(vegas_order_id(what, above)),
            );
        }
    }
    rows
}

/// Whether `kind` is one of the AIMD limiters.
fn is_aimd(kind: LimiterKind) -> bool {
    matches!(kind, LimiterKind::Aimd | LimiterKind::AimdLatency(_))
}

/// The verdicts of the findings or claims `ids`, combined as a claim combines its comparisons ([`weakest`]):
/// every one must hold; one the run did not judge counts as inconclusive.
pub fn all_of(summary: &Summary, ids: &[&str]) -> ClaimResult {
    weakest(
        ids.iter()
            .map(|id| summary.finding(id).or(summary.claims.iter().find(|c| c.id == *id)))
            .map(|found| found.map_or((Verdict::Inconclusive, None), |f| (f.verdict, f.p))),
    )
}

/// The published sentence for `kind`: its tail below the fixed bound's and its run longer, both claims judged.
pub fn published_sentence(summary: &Summary, kind: LimiterKind) -> ClaimResult {
    all_of(summary, &[&tail_id(kind), &longer_id(kind)])
}

/// Whether Vegas's stream / blocking order in caller overhead is the opposite of their order in limit at the
/// drop (`steered`: the larger overhead with the lower limit, as Vegas's queue estimate predicts) or the same
/// (`against`), each order judged both ways; inconclusive unless both orders are decided.
pub fn vegas_steering(summary: &Summary) -> [(&'static str, ClaimResult); 2] {
    let order = |what: &str| {
        let verdict = |above| summary.finding(&vegas_order_id(what, above)).map(|f| (f.verdict, f.p));
        match (verdict(true)?, verdict(false)?) {
            ((Verdict::Holds, Some(p)), (Verdict::Fails, _)) => Some((true, p)),
            ((Verdict::Fails, _), (Verdict::Holds, Some(p))) => Some((false, p)),
            _ => None,
        }
    };
    let orders = order("overhead").zip(order("limit"));
    let combined = |same: bool| {
        weakest(orders.map(|((o, po), (l, pl))| {
            (if (o == l) == same { Verdict::Holds } else { Verdict::Fails }, Some(po.max(pl)))
        }))
    };
    [("steered", combined(false)), ("against", combined(true))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{p99, run, run_in, set};

    /// `summary` judged as the harness judges it.
    fn judged(summary: Summary) -> Summary {
        measure::scenario::judged(&crate::overload::OverloadScenario, summary)
    }

    #[test]
    fn every_row_has_its_own_id() {
        let rows = table(&run(p99, 19_000.0));
        let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_ref()).collect();
        assert!(ids.iter().all(|id| !id.is_empty()));
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), rows.len());
    }

    #[test]
    fn aimd_never_cut_only_when_every_sample_of_every_family_cut_zero_times() {
        let mut summary = run(p99, 19_000.0);
        for family in ["stream", "blocking", "coroutine"] {
            set(&mut summary, &format!("{family}-aimd"), DECREASES, 0.0);
        }
        assert!(judged(summary.clone()).finding_holds(NEVER_CUT));
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "stream-aimd") {
            c.metrics.insert(DECREASES.to_string(), crate::fixture::range([0.0, 0.0, 1.0]));
        }
        assert_eq!(judged(summary).finding(NEVER_CUT).map(|f| f.verdict), Some(Verdict::Fails));
    }

    #[test]
    fn no_window_closed_only_when_every_run_of_every_gated_contestant_closed_none() {
        let mut summary = run(p99, 19_000.0);
        for c in LIMITERS.into_iter().flat_map(Contestant::gated) {
            set(&mut summary, &c.name(), "decisions.windows", 0.0);
        }
        assert!(judged(summary.clone()).finding_holds(NO_WINDOWS));
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "coroutine-vegas") {
            c.metrics.insert("decisions.windows".to_string(), crate::fixture::range([0.0, 0.0, 3.0]));
        }
        assert_eq!(judged(summary).finding(NO_WINDOWS).map(|f| f.verdict), Some(Verdict::Fails));
    }

    #[test]
    fn a_limit_above_the_capacity_needs_every_process_beyond_noise() {
        // Five processes: against a fixed value three give p = 0.125, too weak for a verdict.
        let mut summary = run_in(5, p99, 19_000.0);
        for family in ["stream", "blocking", "coroutine"] {
            set(&mut summary, &format!("{family}-aimd"), LIMIT_MEAN, 180.0);
        }
        let id = above_capacity_id(LimiterKind::Aimd);
        assert!(judged(summary.clone()).finding_holds(&id));
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "stream-aimd") {
            c.metrics.insert(LIMIT_MEAN.to_string(), crate::fixture::range_in(5, [110.0, 180.0, 185.0]));
        }
        assert!(!judged(summary).finding_holds(&id));
    }

    #[test]
    fn the_callers_overhead_steers_vegas_only_when_both_orders_are_judged() {
        let mut summary = run(p99, 19_000.0);
        for (name, overhead, limit) in [("stream-vegas", 150.0, 60.0), ("blocking-vegas", 550.0, 40.0)] {
            set(&mut summary, name, CALLER_OVERHEAD, overhead);
            set(&mut summary, name, LIMIT_AT_DROP, limit);
        }
        let [(_, steered), (_, against)] = vegas_steering(&judged(summary.clone()));
        assert_eq!((steered.verdict, against.verdict), (Verdict::Holds, Verdict::Fails));
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "blocking-vegas") {
            c.metrics.insert(LIMIT_AT_DROP.to_string(), crate::fixture::range([40.0, 45.0, 65.0]));
        }
        let [(_, steered), (_, against)] = vegas_steering(&judged(summary));
        assert_eq!((steered.verdict, against.verdict), (Verdict::Inconclusive, Verdict::Inconclusive));
    }

    #[test]
    fn vegas_families_differ_only_when_every_pairing_of_processes_is_apart() {
        let mut summary = run(p99, 19_000.0);
        set(&mut summary, "blocking-vegas", HEADLINE, 40_000.0);
        assert!(judged(summary.clone()).finding_holds(VEGAS_FAMILIES_DIFFER));
        // The medians 2× apart, but the ranges of process medians overlap: no finding.
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "blocking-vegas") {
            c.metrics.insert(HEADLINE.to_string(), crate::fixture::range([19_000.0, 40_000.0, 41_000.0]));
        }
        assert!(!judged(summary).finding_holds(VEGAS_FAMILIES_DIFFER));
    }
}
