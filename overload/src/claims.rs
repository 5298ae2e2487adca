//! The overload scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run makes one seconds-long iteration in each of three processes, and with three processes the 99.9%
//! Student-t interval (t = 31.6) spans everything, so every claim is judged on the *range* of the measured
//! iterations instead: it holds when every iteration of one side against every iteration of the other satisfies
//! it (the worst pairing), fails when none does (the best pairing), and is inconclusive in between.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::summary::Summary;

use crate::config::LIMITERS;
use crate::limit::LimiterKind;
use crate::HEADLINE;

/// After-drop throughput.
const AFTER_OPS: &str = "after_drop.ops_per_sec";

/// What the headline measures.
const P99: &str = "99th percentile of call latency (admission to reply; issue to reply without a gate) over the \
                   calls issued after the capacity drop";

/// Share of the after-drop ceiling the adaptive limiters must keep.
pub const NEAR_CEILING: f64 = 0.85;
/// Most an adaptive limiter's after-drop p99 may be, as a share of the fixed bound's.
pub const HALVES: f64 = 0.5;
/// Least an unbounded contestant's after-drop p99 must be, as a multiple of the fixed bound's.
pub const UNBOUNDED_FACTOR: f64 = 5.0;

/// The families every limiter runs in, as name prefixes.
pub(crate) const FAMILIES: [&str; 3] = ["stream", "blocking", "coroutine"];

/// The families with an unbounded contestant.
pub(crate) const UNBOUNDED_FAMILIES: [&str; 2] = ["stream", "blocking"];

/// Every claim of the overload scenario, as data.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let named = |name: String| Side::contestant(name, Phase::Unphased);
    let mut halves = Vec::new();
    let mut near = Vec::new();
    for family in FAMILIES {
        for kind in adaptive() {
            let name = format!("{family}-{}", kind.name());
            halves.push(Comparison { a: named(name.clone()), b: named(format!("{family}-fixed")) });
            if let Some(ceiling) = after_ceiling(summary) {
                near.push(Comparison { a: named(name), b: Side::value(ceiling, "the after-drop ceiling") });
            }
        }
    }
    vec![
        ClaimSpec::new(
            format!(
                "After the drop, each adaptive limiter's p99 latency is below {HALVES}× the fixed bound's, in every \
                 family"
            ),
            HEADLINE,
            P99,
            (Relation::AtMost, HALVES),
            Basis::Ranges,
            halves,
        ),
        ClaimSpec::new(
            format!(
                "The adaptive limiters keep after-drop throughput at least {NEAR_CEILING}× the dependency's ceiling \
                 (capacity-after / service time), in every family"
            ),
            AFTER_OPS,
            "calls answered per second over the calls issued after the capacity drop",
            (Relation::AtLeast, NEAR_CEILING),
            Basis::Ranges,
            near,
        )
        .undecidable_if(after_ceiling(summary).is_none().then(|| "the run has no capacity_after or service_ms".into())),
        ClaimSpec::new(
            format!(
                "Cheap concurrency still needs admission control: without a bound, after-drop p99 is at least \
                 {UNBOUNDED_FACTOR}× the fixed bound's, in both families"
            ),
            HEADLINE,
            P99,
            (Relation::AtLeast, UNBOUNDED_FACTOR),
            Basis::Ranges,
            UNBOUNDED_FAMILIES
                .iter()
                .map(|f| Comparison { a: named(format!("{f}-unbounded")), b: named(format!("{f}-fixed")) })
                .collect(),
        ),
    ]
}

/// The after-drop ceiling in calls per second: `capacity_after / service`.
pub(crate) fn after_ceiling(summary: &Summary) -> Option<f64> {
    Some(summary.param("capacity_after")? * 1e3 / summary.param("service_ms")?)
}

/// The adaptive limiters.
fn adaptive() -> impl Iterator<Item = LimiterKind> {
    LIMITERS.into_iter().filter(|k| k.is_adaptive())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use measure::judge::judge;
    use measure::record::Status;
    use measure::summary::{Check, ContestantSummary, Environment, Family, Method, MetricStats, Verdict};

    use super::*;

    fn range(values: [f64; 3]) -> MetricStats {
        measure::stats::summarize(&values.map(|v| vec![v])).expect("samples")
    }

    /// A run where every limiter of both families ran with the given after-drop p99 (µs) and throughput.
    fn run(p99: impl Fn(&str) -> f64, ops: f64) -> Summary {
        let mut contestants = Vec::new();
        for family in FAMILIES {
            let kinds =
                LIMITERS.iter().map(|k| k.name()).chain(UNBOUNDED_FAMILIES.contains(&family).then_some("unbounded"));
            for kind in kinds {
                let name = format!("{family}-{kind}");
                let p = p99(&name);
                contestants.push(ContestantSummary {
                    name: name.clone(),
                    family: match family {
                        "stream" => Family::Stream,
                        "blocking" => Family::Blocking,
                        _ => Family::Coroutine,
                    },
                    description: String::new(),
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics: BTreeMap::from([
                        (HEADLINE.to_string(), range([p * 0.99, p, p * 1.01])),
                        (AFTER_OPS.to_string(), range([ops * 0.99, ops, ops * 1.01])),
                    ]),
                    skipped_phases: BTreeMap::new(),
                });
            }
        }
        Summary {
            scenario: "overload".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment::default(),
            method: Method {
                quick: false,
                forks: 3,
                warmup: 0,
                iterations: 1,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 60.0,
            },
            params: BTreeMap::from([
                ("capacity_after".to_string(), serde_json::Value::from(100)),
                ("service_ms".to_string(), serde_json::Value::from(5)),
            ]),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec![],
        }
    }

    fn p99(name: &str) -> f64 {
        if name.ends_with("fixed") {
            100_000.0
        } else if name.ends_with("unbounded") {
            900_000.0
        } else {
            20_000.0
        }
    }

    #[test]
    fn every_claim_holds_on_a_run_that_bears_it_out() {
        let summary = run(p99, 19_500.0);
        for spec in table(&summary) {
            let claim = judge(&summary, &spec);
            assert_eq!(claim.verdict, Verdict::Holds, "{}: {}", claim.text, claim.detail);
        }
    }

    #[test]
    fn a_slow_adaptive_limiter_or_a_low_throughput_fails_its_claim() {
        let summary = run(|n| if n == "blocking-vegas" { 80_000.0 } else { p99(n) }, 10_000.0);
        let claims: Vec<Verdict> = table(&summary).iter().map(|s| judge(&summary, s).verdict).collect();
        assert_eq!(claims, [Verdict::Fails, Verdict::Fails, Verdict::Holds]);
    }

    #[test]
    fn an_idle_call_failure_leaves_no_claim_holding_on_that_contestant() {
        let mut summary = run(p99, 19_500.0);
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "stream-aimd") {
            c.status = Status::Failed;
            c.metrics.clear();
            c.checks.push(Check::new("idle_call", false, "the dependency refused the call"));
        }
        let claim = judge(&summary, &table(&summary)[0]);
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
        assert!(claim.detail.contains("stream-aimd did not run cleanly (failed)"), "{}", claim.detail);
    }

    #[test]
    fn without_the_ceiling_parameters_the_throughput_claim_cannot_be_decided() {
        let mut summary = run(p99, 19_500.0);
        summary.params.clear();
        assert_eq!(judge(&summary, &table(&summary)[1]).verdict, Verdict::Inconclusive);
    }
}
