//! The service scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement: each judged on process medians at every rate phase it applies to (below or above the
//! dependency's ceiling after the drop).

use measure::compare::{format_ratio, Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};
use measure::phase::PhaseKey;
use measure::summary::{Family, Summary};
use measure::units::count;

use super::contestants::{ServiceContestant, LIMITERS};
use crate::config::after_ceiling;
use crate::limit::LimiterKind;
use crate::policy::{contestant, FAMILIES};

/// Id of the claim that below the ceiling every bounded contestant serves its callers.
pub const BELOW_SERVED: &str = "below-ceiling-served";
/// Id of the claim that below the ceiling `kind` serves its callers in every family: [`BELOW_SERVED`] for one
/// limiter, so that the report can say which limiters did.
pub fn below_served_id(kind: LimiterKind) -> String {
    format!("{BELOW_SERVED}-{}", kind.name())
}
/// Id of the claim that above it a fixed bound sized to the healthy capacity times its callers out.
pub const FIXED_TIMES_OUT: &str = "fixed-bound-times-out";
/// Id of the claim that above it each family's best adaptive limiter serves more than its fixed bound.
pub const ADAPTIVE_SERVES: &str = "adaptive-serves-more";
/// Id of the claim that above it the bound Little's law sizes serves more callers than the healthy-capacity one.
pub const LITTLE_SERVES: &str = "little-bound-serves-more";
/// Id of the claim that above it no admission control times most callers out.
pub const UNBOUNDED_TIMES_OUT: &str = "unbounded-times-out";

/// Below the ceiling, every bounded contestant's goodput share is at least this.
pub const BELOW_SHARE: f64 = 0.95;
/// Above it, the fixed bound's share is at most this (when its queue exceeds the deadline).
pub const FIXED_SHARE: f64 = 0.5;
/// Above it, each family's best adaptive goodput is at least this multiple of its fixed bound's.
pub const ADAPTIVE_FACTOR: f64 = 2.0;
/// Above it, the unbounded contestants' share is at most this.
pub const UNBOUNDED_SHARE: f64 = 0.2;

/// The goodput share's definition.
const SHARE: &str = "after_drop.goodput_share";
const SHARE_DEFINITION: &str = "calls answered within the deadline per second after the drop (from one service time \
     after it to the phase's end), as a share of what the dependency could serve at the rate: the lesser of the \
     rate and its ceiling";
const GOODPUT: &str = "after_drop.goodput_per_sec";
const GOODPUT_DEFINITION: &str = "calls answered within the deadline per second after the drop (from one service \
     time after it to the phase's end)";

/// The arrival rate a phase runs at (its level of the `rate` sweep), if it sweeps one.
pub fn phase_rate(phase: &str) -> Option<f64> {
    PhaseKey::parse(phase)?.level("rate").map(|rate| rate as f64)
}

/// The run's phases below and above the dependency's ceiling after the drop (`None` without the parameters).
pub fn split_phases(summary: &Summary) -> Option<(Vec<String>, Vec<String>)> {
    let ceiling = after_ceiling(summary)?;
    let (below, above) = summary
        .phases
        .iter()
        .filter(|p| phase_rate(p).is_some())
        .cloned()
        .partition(|p| phase_rate(p).is_some_and(|r| r < ceiling));
    Some((below, above))
}

/// How long the fixed bound's queue takes to drain at the after-drop ceiling, in ms, and the deadline.
pub fn fixed_queue_ms(summary: &Summary) -> Option<(f64, f64)> {
    Some((summary.param("fixed_limit")? / after_ceiling(summary)? * 1e3, summary.param("deadline_ms")?))
}

/// Every claim, as data.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let (below, above) = split_phases(summary).unwrap_or_default();
    let all = ServiceContestant::all();
    let bounded: Vec<String> = all.iter().filter(|c| c.limiter.is_some()).map(ServiceContestant::name).collect();
    let families = [Family::Stream, Family::Blocking, Family::Coroutine];
    let fixed = |f: Family| format!("{}-fixed", f.as_str());
    let unbounded = |f: Family| format!("{}-unbounded", f.as_str());
    let adaptive = |f: Family| -> Vec<String> {
        LIMITERS.iter().filter(|k| k.is_adaptive()).map(|k| format!("{}-{}", f.as_str(), k.name())).collect()
    };
    let one = Side::value(1.0, "everything the dependency could serve");
    let at = |p: &String| Phase::Named(p.clone());
    // A claim that each of `names` at each of `phases` answers `relation` `share` of everything the dependency
    // could serve in time.
    let share = |text: String, relation: Relation, share: f64, phases: &[String], names: &[String]| {
        let comparisons = phases
            .iter()
            .flat_map(|p| names.iter().map(|n| Comparison { a: Side::contestant(n, at(p)), b: one.clone() }))
            .collect();
        ClaimSpec::new(text, SHARE, SHARE_DEFINITION, (relation, share), Basis::ProcessMedians, comparisons)
    };
    // A claim that in each family, at each phase above the ceiling, `side` answers at least `factor` times as many
    // callers in time as the family's fixed bound.
    let over_fixed = |text: String, factor: f64, side: &dyn Fn(Family, Phase) -> Side| {
        let comparisons = above
            .iter()
            .flat_map(|p| {
                families.iter().map(|&f| Comparison { a: side(f, at(p)), b: Side::contestant(fixed(f), at(p)) })
            })
            .collect();
        ClaimSpec::new(
            text,
            GOODPUT,
            GOODPUT_DEFINITION,
            (Relation::AtLeast, factor),
            Basis::ProcessMedians,
            comparisons,
        )
    };
    let none_below = below.is_empty().then(|| "no rate of this run is below the after-drop ceiling".to_string());
    let none_above = above.is_empty().then(|| "no rate of this run is above the after-drop ceiling".to_string());
    let queue = fixed_queue_ms(summary);
    let queue_fits = queue.and_then(|(q, d)| {
        (q <= d).then(|| format!("the fixed bound's queue drains in {q:.0} ms, within the {d:.0} ms deadline"))
    });
    let queue_text = queue.map_or_else(String::new, |(q, d)| {
        format!(
            " (its {} calls take {q:.0} ms to drain at the after-drop ceiling, past the {d:.0} ms deadline)",
            count(summary.param("fixed_limit").unwrap_or(0.0))
        )
    });
    let little = 1.0 + summary.method.threshold(GOODPUT);
    vec![
        share(
            format!(
                "Below the after-drop ceiling, every bounded contestant answers at least {:.0}% of its callers within \
                 the deadline after the drop",
                BELOW_SHARE * 100.0
            ),
            Relation::AtLeast,
            BELOW_SHARE,
            &below,
            &bounded,
        )
        .with_id(BELOW_SERVED)
        .undecidable_if(none_below.clone()),
        share(
            format!(
                "Above the after-drop ceiling, a fixed bound sized to the healthy capacity times its callers out{queue_text}: \
                 each family's `fixed` answers at most {:.0}% of what the dependency could serve in time",
                FIXED_SHARE * 100.0
            ),
            Relation::AtMost,
            FIXED_SHARE,
            &above,
            &families.map(fixed),
        )
        .with_id(FIXED_TIMES_OUT)
        .undecidable_if(none_above.clone().or(queue_fits)),
        over_fixed(
            format!(
                "Above the after-drop ceiling, each family's best adaptive limiter answers at least {}× as many callers \
                 within the deadline as its fixed bound",
                format_ratio(ADAPTIVE_FACTOR)
            ),
            ADAPTIVE_FACTOR,
            &|f, phase| Side { who: Who::Highest(adaptive(f)), phase },
        )
        .with_id(ADAPTIVE_SERVES)
        .undecidable_if(none_above.clone()),
        over_fixed(
            format!(
                "Above the after-drop ceiling, a fixed bound sized by Little's law (the after-drop ceiling × the \
                 deadline) answers more callers within the deadline than the one sized to the healthy capacity, \
                 beyond noise (at least {}× as many), in every family",
                format_ratio(little)
            ),
            little,
            &|f, phase| Side::contestant(contestant(f, LimiterKind::FixedLittle), phase),
        )
        .with_id(LITTLE_SERVES)
        .undecidable_if(none_above.clone().or_else(|| {
            let ran = families.iter().any(|&f| summary.contestant(&contestant(f, LimiterKind::FixedLittle)).is_some());
            (!ran).then(|| "the run has no bound sized by Little's law (`fixed-little`)".to_string())
        })),
        share(
            format!(
                "Above the after-drop ceiling, no admission control times most callers out: each family's unbounded \
                 contestant answers at most {:.0}% of what the dependency could serve in time",
                UNBOUNDED_SHARE * 100.0
            ),
            Relation::AtMost,
            UNBOUNDED_SHARE,
            &above,
            &families.map(unbounded),
        )
        .with_id(UNBOUNDED_TIMES_OUT)
        .undecidable_if(none_above),
    ]
    .into_iter()
    .chain(LIMITERS.iter().filter_map(|&kind| {
        let names: Vec<String> = FAMILIES.iter().map(|&f| contestant(f, kind)).collect();
        // A limiter none of whose contestants is in the run (one recorded before it joined) has no claim.
        names.iter().any(|n| summary.contestant(n).is_some()).then_some(())?;
        let text = format!(
            "Below the after-drop ceiling, `{}` answers at least {:.0}% of its callers within the deadline after the \
             drop, in every family",
            kind.name(),
            BELOW_SHARE * 100.0
        );
        Some(
            share(text, Relation::AtLeast, BELOW_SHARE, &below, &names)
                .with_id(below_served_id(kind))
                .undecidable_if(none_below.clone()),
        )
    }))
    .collect()
}

#[cfg(test)]
mod tests {
    use measure::summary::Verdict;

    use super::*;
    use crate::service_fixture as fixture;

    fn verdicts(summary: &Summary) -> BTreeMap<String, Verdict> {
        measure::judge::judge_all(summary, &table(summary)).into_iter().map(|c| (c.id, c.verdict)).collect()
    }

    use std::collections::BTreeMap;

    #[test]
    fn a_run_that_bears_them_out_holds_every_claim() {
        let v = verdicts(&fixture::run(fixture::expected));
        assert!(v.values().all(|&v| v == Verdict::Holds), "{v:?}");
    }

    #[test]
    fn a_fixed_bound_that_serves_fails_its_claims_and_a_short_queue_makes_them_undecidable() {
        let serving = |name: &str, rate: u64| if name.ends_with("fixed") { 0.7 } else { fixture::expected(name, rate) };
        let v = verdicts(&fixture::run(serving));
        assert_eq!(v[FIXED_TIMES_OUT], Verdict::Fails);
        assert_eq!(v[ADAPTIVE_SERVES], Verdict::Fails);
        let mut summary = fixture::run(fixture::expected);
        summary.params.insert("deadline_ms".to_string(), serde_json::Value::from(50));
        assert_eq!(verdicts(&summary)[FIXED_TIMES_OUT], Verdict::Inconclusive);
    }

    #[test]
    fn the_bound_sized_by_littles_law_is_judged_against_the_healthy_capacity_bound_only_where_it_ran() {
        let v = verdicts(&fixture::run(fixture::expected));
        assert_eq!(v[LITTLE_SERVES], Verdict::Holds, "20% of the servable calls against 10%");
        let mut summary = fixture::run(fixture::expected);
        summary.contestants.retain(|c| !c.name.ends_with("fixed-little"));
        let v = verdicts(&summary);
        assert_eq!(v[LITTLE_SERVES], Verdict::Inconclusive, "a run recorded before `fixed-little` joined");
        assert!(!v.contains_key(&below_served_id(LimiterKind::FixedLittle)), "no claim on a limiter that did not run");
    }

    #[test]
    fn the_phases_split_at_the_after_drop_ceiling() {
        let (below, above) = split_phases(&fixture::run(fixture::expected)).expect("params");
        assert_eq!((below, above), (vec!["rate_15000".to_string()], vec!["rate_30000".to_string()]));
        assert_eq!(phase_rate("rate_20000"), Some(20_000.0));
        assert_eq!(phase_rate("work_0"), None);
    }
}
