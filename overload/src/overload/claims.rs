//! The overload scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run makes one seconds-long timed iteration in each process, so every claim is judged on every pairing
//! of those iterations (with one iteration per process, the process medians): it holds when every pairing
//! satisfies it, fails when none does, and is inconclusive in between.
//!
//! The family claim is judged on every pair of families of every limiter, whatever each family fed its
//! limiter; whether the feeds agree is a claim of its own, and the report names the pairs that differed
//! (`feed.rs`). No claim compares the unbounded contestants' p99 with the fixed bound's: the parameters set
//! it (an unbounded stream queues every call at once, so its p99 is about `calls / capacity-after` service
//! times); what a bounded dependency queue does to each limiter is judged instead, on failed calls.
//!
//! Every claim has an id: `templates/report.md` chooses a finding by it, never by the claim's text.

use measure::compare::{format_ratio, Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::summary::Summary;

use super::contestants::Contestant;
use crate::analysis::HEADLINE;
use crate::config::{after_ceiling, LIMITERS};
pub use crate::feed::FEED_TOLERANCE;
use crate::limit::LimiterKind;

/// After-drop throughput.
const AFTER_OPS: &str = "after_drop.ops_per_sec";

/// What the headline measures.
const P99: &str = "99th percentile of call latency (admission to reply; issue to reply without a gate) over the \
                   calls issued after the capacity drop";

/// Least share of the same family's fixed bound's before-drop throughput a limiter must keep to be an answer
/// on latency: below it the limiter is under-using the healthy dependency. Fixed before any run: half, far
/// outside the 20% noise threshold, and far above the tenth the Vegas rows kept in an earlier run.
pub const UNDER_USE: f64 = 0.5;

/// Share of the after-drop ceiling the adaptive limiters must keep.
pub const NEAR_CEILING: f64 = 0.85;
/// Most an adaptive limiter's after-drop p99 may be, as a share of the fixed bound's.
pub const HALVES: f64 = 0.5;
/// Most an adaptive limiter's after-drop failed calls may be, as a share of the fixed bound's.
pub const FEWER_ERRORS: f64 = 0.5;

/// After-drop failed calls.
const AFTER_ERRORS: &str = "after_drop.errors";

/// After-drop mean in flight at admission.
const AFTER_IN_FLIGHT: &str = "after_drop.in_flight_at_admission_mean";

/// Most one family's after-drop p99 may be, as a multiple of another family's, for the same limiter. Fixed
/// before any run: each side's per-run noise is up to the lab's 20% threshold (1.2 × 1.2 ≈ 1.44 between two
/// sides); 1.5× allows that and still catches the 4.4× stream/blocking gap an earlier run showed for Vegas.
pub const FAMILY_AGREEMENT: f64 = 1.5;

/// The whole run's wall time: what the published sentence's "longer overall run" is measured on.
const WALL: &str = "wall_ms";

/// Id of the claim that `kind`'s after-drop p99 is below the fixed bound's beyond noise, in every family.
pub fn tail_id(kind: LimiterKind) -> String {
    format!("tail-below-fixed-{}", kind.name())
}

/// Id of the claim that `kind`'s whole run takes longer than the fixed bound's beyond noise, in every family.
pub fn longer_id(kind: LimiterKind) -> String {
    format!("run-longer-than-fixed-{}", kind.name())
}

/// Every claim of the overload scenario, as data.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let mut table = shared_claims(summary);
    table.extend(policy_claims(summary));
    table
}

/// The two claims of the published sentence ("the adaptive limit protects tail latency at the cost of a longer
/// overall run"), limiter by limiter, each against the fixed bound in every family beyond the metric's noise
/// threshold: its after-drop p99 below the fixed bound's ([`tail_id`]), and its whole run longer ([`longer_id`]).
fn policy_claims(summary: &Summary) -> Vec<ClaimSpec> {
    let below = 1.0 / (1.0 + summary.method.threshold(HEADLINE));
    let above = 1.0 + summary.method.threshold(WALL);
    let against_fixed = |kind: LimiterKind| -> Vec<Comparison> {
        names(kind)
            .into_iter()
            .zip(names(LimiterKind::Fixed))
            .map(|(a, b)| Comparison {
                a: Side::contestant(a, Phase::Unphased),
                b: Side::contestant(b, Phase::Unphased),
            })
            .collect()
    };
    adaptive()
        .flat_map(|kind| {
            let name = kind.name();
            [
                ClaimSpec::new(
                    format!(
                        "After the drop, `{name}` keeps the p99 latency below the fixed bound's beyond noise (at most \
                         {}× it), in every family",
                        format_ratio(below)
                    ),
                    HEADLINE,
                    P99,
                    (Relation::AtMost, below),
                    Basis::ProcessMedians,
                    against_fixed(kind),
                )
                .with_id(tail_id(kind)),
                ClaimSpec::new(
                    format!(
                        "`{name}` makes the whole run longer than the fixed bound's beyond noise (at least {}× its \
                         wall time), in every family",
                        format_ratio(above)
                    ),
                    WALL,
                    "wall time of the whole timed iteration, every call of the run",
                    (Relation::AtLeast, above),
                    Basis::ProcessMedians,
                    against_fixed(kind),
                )
                .with_id(longer_id(kind)),
            ]
        })
        .collect()
}

/// The claims that judge every limiter at once, and the families against each other.
fn shared_claims(summary: &Summary) -> Vec<ClaimSpec> {
    let named = |name: String| Side::contestant(name, Phase::Unphased);
    let mut halves = Vec::new();
    let mut near = Vec::new();
    let mut fewer_errors = Vec::new();
    for (family, fixed) in names(LimiterKind::Fixed).into_iter().enumerate() {
        for kind in adaptive() {
            let name = names(kind)[family].clone();
            halves.push(Comparison { a: named(name.clone()), b: named(fixed.clone()) });
            fewer_errors.push(Comparison { a: named(name.clone()), b: named(fixed.clone()) });
            if let Some(ceiling) = after_ceiling(summary) {
                near.push(Comparison { a: named(name), b: Side::value(ceiling, "the after-drop ceiling") });
            }
        }
    }
    // Every pair of families of every limiter, both ways: no pair is left out, whatever its feed.
    let pairs = Contestant::family_pairs();
    let both_ways = |pairs: &[(String, String)]| -> Vec<Comparison> {
        pairs
            .iter()
            .flat_map(|(a, b)| {
                [
                    Comparison { a: named(a.clone()), b: named(b.clone()) },
                    Comparison { a: named(b.clone()), b: named(a.clone()) },
                ]
            })
            .collect()
    };
    let queue_limit = summary.param("queue_limit").unwrap_or(0.0);
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
        )
        .with_id("adaptive-halves-fixed-p99"),
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
        .with_id("adaptive-near-ceiling")
        .undecidable_if(after_ceiling(summary).is_none().then(|| "the run has no capacity_after or service_ms".into())),
        ClaimSpec::new(
            format!(
                "Against a dependency that rejects beyond its queue, an adaptive limit fails fewer calls: after the \
                 drop, each adaptive limiter's failed calls are at most {FEWER_ERRORS}× the fixed bound's, in every \
                 family"
            ),
            AFTER_ERRORS,
            "calls issued after the capacity drop that the dependency rejected (its queue full)",
            (Relation::AtMost, FEWER_ERRORS),
            Basis::Ranges,
            fewer_errors,
        )
        .with_id("adaptive-fewer-rejections")
        .undecidable_if(
            (queue_limit == 0.0)
                .then(|| "the dependency queues without limit (`--queue-limit 0`): it rejects nothing".into()),
        ),
        ClaimSpec::new(
            format!(
                "Every family feeds a limiter alike: after the drop, the mean count of calls in flight at admission \
                 (what each of the limiter's samples carries) is within {FEED_TOLERANCE}× between every two \
                 families, for every limiter"
            ),
            AFTER_IN_FLIGHT,
            "mean calls in flight when an after-drop call was admitted, itself included, from every call's record",
            (Relation::AtMost, FEED_TOLERANCE),
            Basis::Ranges,
            both_ways(&pairs),
        )
        .with_id("families-feed-alike"),
        ClaimSpec::new(
            format!(
                "A limiter's after-drop p99 latency is the same in every family: each family's within \
                 {FAMILY_AGREEMENT}× of each other's, judged on every pair of families of every limiter (the \
                 discussion names the pairs whose feeds differed)"
            ),
            HEADLINE,
            P99,
            (Relation::AtMost, FAMILY_AGREEMENT),
            Basis::Ranges,
            both_ways(&pairs),
        )
        .with_id("families-same-p99"),
    ]
}

/// Each family's contestant of `kind`, by name: stream, blocking, coroutine.
fn names(kind: LimiterKind) -> [String; 3] {
    Contestant::gated(kind).map(|c| c.name())
}

/// The adaptive limiters.
fn adaptive() -> impl Iterator<Item = LimiterKind> {
    LIMITERS.into_iter().filter(|k| k.is_adaptive())
}

#[cfg(test)]
mod tests {
    use measure::judge::judge;
    use measure::record::Status;
    use measure::summary::{Check, ClaimResult, Verdict};

    use super::*;
    use crate::analysis::{AFTER_DROP, IN_FLIGHT_AT_ADMISSION};
    use crate::fixture::{p99, run, run_in, set};

    /// The claim `id` of `summary`'s table, judged.
    fn claim(summary: &Summary, id: &str) -> ClaimResult {
        let spec = table(summary).into_iter().find(|s| s.id == id);
        judge(summary, &spec.unwrap_or_else(|| panic!("no claim `{id}`")))
    }

    #[test]
    fn every_claim_holds_on_a_run_that_bears_it_out() {
        // Five processes: against a fixed value (the ceiling) three give p = 0.125, too weak for a verdict.
        let summary = run_in(5, p99, 19_500.0);
        for spec in table(&summary) {
            let claim = judge(&summary, &spec);
            assert_eq!(claim.verdict, Verdict::Holds, "{}: {}", claim.text, claim.detail);
        }
    }

    #[test]
    fn a_slow_adaptive_limiter_or_a_low_throughput_fails_its_claim() {
        // Five processes: against a fixed value (the ceiling) three give p = 0.125, too weak for a verdict.
        let summary = run_in(5, |n| if n == "blocking-vegas" { 80_000.0 } else { p99(n) }, 10_000.0);
        let verdict = |id| claim(&summary, id).verdict;
        assert_eq!(verdict("adaptive-halves-fixed-p99"), Verdict::Fails);
        assert_eq!(verdict("adaptive-near-ceiling"), Verdict::Fails);
        assert_eq!(verdict("adaptive-fewer-rejections"), Verdict::Holds);
        assert_eq!(verdict("families-feed-alike"), Verdict::Holds);
        assert_eq!(verdict("families-same-p99"), Verdict::Fails);
    }

    #[test]
    fn an_idle_call_failure_leaves_no_claim_holding_on_that_contestant() {
        let mut summary = run(p99, 19_500.0);
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "stream-aimd") {
            c.status = Status::Failed;
            c.metrics.clear();
            c.checks.push(Check::new("idle_call", false, "the dependency refused the call"));
        }
        let claim = claim(&summary, "adaptive-halves-fixed-p99");
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
        assert!(claim.detail.contains("stream-aimd did not run cleanly (failed)"), "{}", claim.detail);
    }

    #[test]
    fn without_the_ceiling_parameters_the_throughput_claim_cannot_be_decided() {
        let mut summary = run(p99, 19_500.0);
        summary.params.clear();
        assert_eq!(claim(&summary, "adaptive-near-ceiling").verdict, Verdict::Inconclusive);
    }

    #[test]
    fn a_pair_fed_differently_is_still_judged() {
        // blocking-vegas is 4× slower and its limiter closed half the windows: the family claim still judges it,
        // and fails.
        let mut summary = run(|n| if n == "blocking-vegas" { 80_000.0 } else { p99(n) }, 19_500.0);
        set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
        let family = claim(&summary, "families-same-p99");
        assert_eq!(family.verdict, Verdict::Fails, "{}", family.detail);
        assert!(family.detail.contains("blocking-vegas"), "{}", family.detail);
    }

    #[test]
    fn families_that_feed_a_limiter_different_in_flight_counts_fail_the_feed_claim() {
        let mut summary = run(p99, 19_500.0);
        let feed = |summary: &Summary| claim(summary, "families-feed-alike");
        assert_eq!(feed(&summary).verdict, Verdict::Holds, "{}", feed(&summary).detail);
        set(&mut summary, "blocking-aimd", &format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"), 130.0);
        assert_eq!(feed(&summary).verdict, Verdict::Fails, "{}", feed(&summary).detail);
    }

    #[test]
    fn the_errors_claim_fails_when_an_adaptive_limiter_fails_as_many_calls_and_is_moot_without_a_queue_limit() {
        let errors_claim = |summary: &Summary| claim(summary, "adaptive-fewer-rejections");
        let mut summary = run(p99, 19_500.0);
        assert_eq!(errors_claim(&summary).verdict, Verdict::Holds);
        set(&mut summary, "coroutine-gradient2", AFTER_ERRORS, 9_000.0);
        assert_eq!(errors_claim(&summary).verdict, Verdict::Fails);
        summary.params.insert("queue_limit".to_string(), serde_json::Value::from(0));
        assert_eq!(errors_claim(&summary).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn families_within_the_agreement_factor_hold_and_beyond_it_fail_in_either_direction() {
        let p = |slower: f64| move |n: &str| if n == "stream-gradient2" { 20_000.0 * slower } else { p99(n) };
        let family = |summary: Summary| claim(&summary, "families-same-p99").verdict;
        assert_eq!(family(run(p(1.3), 19_500.0)), Verdict::Holds);
        assert_eq!(family(run(p(2.0), 19_500.0)), Verdict::Fails);
        assert_eq!(family(run(p(0.5), 19_500.0)), Verdict::Fails);
    }
}
