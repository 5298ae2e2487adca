//! The overload scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run makes one seconds-long timed iteration in each process, so every claim is judged on every pairing
//! of those iterations (with one iteration per process, the process medians): it holds when every pairing
//! satisfies it, fails when none does, and is inconclusive in between.
//!
//! The family claim is judged on every pair of families of every limiter, whatever each family fed its
//! limiter; whether the feeds agree is a claim of its own, and the discussion names the pairs that differed.
//! The earlier claim that no bound costs at least 5× the fixed bound's p99 was set by the parameters (an
//! unbounded stream queues every call at once, so its p99 is about `calls / capacity-after` service times):
//! it is gone; what a bounded dependency queue does to each limiter is judged instead, on failed calls.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::summary::Summary;

use crate::analysis::HEADLINE;
use crate::analysis::{AFTER_DROP, IN_FLIGHT_AT_ADMISSION};
use crate::config::LIMITERS;
use crate::limit::LimiterKind;
use crate::routine::{DECISIONS, SAMPLES_PER_WINDOW};

/// After-drop throughput.
const AFTER_OPS: &str = "after_drop.ops_per_sec";

/// What the headline measures.
const P99: &str = "99th percentile of call latency (admission to reply; issue to reply without a gate) over the \
                   calls issued after the capacity drop";

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
/// sides); 1.5× allows that and still catches the 4.4× stream/blocking gap the issue reported for Vegas.
pub const FAMILY_AGREEMENT: f64 = 1.5;

/// How far apart (larger / smaller) each measure of two limiters' sample streams may be for the streams to be
/// "the same kind" ([`Feed::unlike`]). Fixed before any run: a quarter is wider than the 20% noise threshold of
/// one measure, and narrower than the 5× fewer, 5× fuller windows a feed that releases its completions in
/// batches gives a window of two round trips.
pub const FEED_TOLERANCE: f64 = 1.25;

/// What the sample stream a limiter saw over a run looked like, from the run's records once its clocks have
/// stopped (nothing in the timed code counts it): two limiters saw "the same kind" of stream when every measure
/// agrees within [`FEED_TOLERANCE`] ([`Feed::unlike`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feed {
    /// Windows the limiter closed (`decisions.windows`; 0 for the fixed limit, which has none).
    pub windows: f64,
    /// Mean samples per closed window (`samples_per_window`; `None` without windows).
    pub samples_per_window: Option<f64>,
    /// Mean calls in flight when an after-drop call was admitted, itself included
    /// (`after_drop.in_flight_at_admission_mean`): the in-flight count each of the limiter's samples carries.
    pub in_flight: f64,
}

impl Feed {
    /// The feed from one run's metrics (`metric(key)`), or the missing metric's name.
    pub fn from_metrics(metric: impl Fn(&str) -> Option<f64>) -> Result<Feed, String> {
        let windows_key = format!("{DECISIONS}.windows");
        let in_flight_key = format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}");
        let windows = metric(&windows_key).ok_or_else(|| format!("no `{windows_key}`"))?;
        let in_flight = metric(&in_flight_key).ok_or_else(|| format!("no `{in_flight_key}`"))?;
        Ok(Feed { windows, samples_per_window: metric(SAMPLES_PER_WINDOW), in_flight })
    }

    /// The feed of `contestant` in `summary`, from the medians of its measured runs.
    pub fn of(summary: &Summary, contestant: &str) -> Result<Feed, String> {
        let stats = summary.contestant(contestant).ok_or_else(|| format!("{contestant} did not run"))?;
        Feed::from_metrics(|key| stats.metrics.get(key).map(|m| m.median)).map_err(|e| format!("{contestant} has {e}"))
    }

    /// Why `self` and `other` are not the same kind of sample stream, or `None` when they are: each of windows,
    /// samples per window and after-drop mean in-flight at admission within [`FEED_TOLERANCE`] of the other's.
    pub fn unlike(&self, other: &Feed) -> Option<String> {
        let mut apart = Vec::new();
        let mut check = |what: &str, a: f64, b: f64| {
            if !within(a, b) {
                apart.push(format!("{what} {} vs {}", round(a), round(b)));
            }
        };
        check("windows", self.windows, other.windows);
        match (self.samples_per_window, other.samples_per_window) {
            (Some(a), Some(b)) => check("samples per window", a, b),
            (None, None) => {}
            (a, b) => check("samples per window", a.unwrap_or(0.0), b.unwrap_or(0.0)),
        }
        check("after-drop mean in flight at admission", self.in_flight, other.in_flight);
        (!apart.is_empty()).then(|| format!("{} (more than {FEED_TOLERANCE}× apart)", apart.join(", ")))
    }
}

/// Whether `a` and `b` are within [`FEED_TOLERANCE`] of each other (both zero counts as equal).
fn within(a: f64, b: f64) -> bool {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    high == low || (low > 0.0 && high / low <= FEED_TOLERANCE)
}

/// `v` to two decimals, for a reason a reader compares by eye.
fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The family pairs of every limiter: those whose limiters saw the same kind of sample stream, and, for the
/// others, why not (`stream-vegas / blocking-vegas: windows 812 vs 1301 ...`).
pub(crate) fn family_pairs(summary: &Summary) -> (Vec<(String, String)>, Vec<String>) {
    let (mut like, mut unlike) = (Vec::new(), Vec::new());
    for kind in LIMITERS {
        for (i, a) in FAMILIES.iter().enumerate() {
            for b in &FAMILIES[i + 1..] {
                let (a, b) = (format!("{a}-{}", kind.name()), format!("{b}-{}", kind.name()));
                match (Feed::of(summary, &a), Feed::of(summary, &b)) {
                    (Ok(fa), Ok(fb)) => match fa.unlike(&fb) {
                        None => like.push((a, b)),
                        Some(why) => unlike.push(format!("{a} / {b}: {why}")),
                    },
                    (Err(why), _) | (_, Err(why)) => unlike.push(format!("{a} / {b}: {why}")),
                }
            }
        }
    }
    (like, unlike)
}

/// The families every limiter runs in, as name prefixes.
pub(crate) const FAMILIES: [&str; 3] = ["stream", "blocking", "coroutine"];

/// The families with an unbounded contestant.
#[cfg(test)]
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
    // Every pair of families of every limiter, both ways: no pair is left out, whatever its feed.
    let pairs = every_family_pair();
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
    let fewer_errors: Vec<Comparison> = FAMILIES
        .iter()
        .flat_map(|family| {
            adaptive().map(move |kind| Comparison {
                a: named(format!("{family}-{}", kind.name())),
                b: named(format!("{family}-fixed")),
            })
        })
        .collect();
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
        ),
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
        ),
    ]
}

/// Every pair of families of every limiter, as contestant names.
fn every_family_pair() -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for kind in LIMITERS {
        for (i, a) in FAMILIES.iter().enumerate() {
            for b in &FAMILIES[i + 1..] {
                pairs.push((format!("{a}-{}", kind.name()), format!("{b}-{}", kind.name())));
            }
        }
    }
    pairs
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
                    role: Default::default(),
                    description: String::new(),
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics: BTreeMap::from([
                        (HEADLINE.to_string(), range([p * 0.99, p, p * 1.01])),
                        (AFTER_OPS.to_string(), range([ops * 0.99, ops, ops * 1.01])),
                        (AFTER_ERRORS.to_string(), range([errors(&name); 3])),
                    ]),
                    skipped_phases: BTreeMap::new(),
                    disturbed: Default::default(),
                });
                let last = contestants.last_mut().expect("just pushed");
                let windowed = kind != "fixed" && kind != "unbounded";
                let mut feed = vec![(format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"), 100.0)];
                feed.push((format!("{DECISIONS}.windows"), if windowed { 400.0 } else { 0.0 }));
                if windowed {
                    feed.push((SAMPLES_PER_WINDOW.to_string(), 150.0));
                }
                for (key, v) in feed {
                    last.metrics.insert(key, range([v * 0.98, v, v * 1.02]));
                }
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
                ("queue_limit".to_string(), serde_json::Value::from(100)),
            ]),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec![],
        }
    }

    /// After-drop failed calls: many for the fixed bound, few for the adaptive limiters.
    fn errors(name: &str) -> f64 {
        if name.ends_with("fixed") || name.ends_with("unbounded") {
            10_000.0
        } else {
            500.0
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
        assert_eq!(claims, [Verdict::Fails, Verdict::Fails, Verdict::Holds, Verdict::Holds, Verdict::Fails]);
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

    /// The family claim of `summary`, judged.
    fn family_claim(summary: &Summary) -> measure::summary::ClaimResult {
        judge(summary, &table(summary)[4])
    }

    /// The feed claim of `summary`, judged.
    fn feed_claim(summary: &Summary) -> measure::summary::ClaimResult {
        judge(summary, &table(summary)[3])
    }

    fn set(summary: &mut Summary, contestant: &str, key: &str, v: f64) {
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == contestant) {
            c.metrics.insert(key.to_string(), range([v, v, v]));
        }
    }

    #[test]
    fn a_pair_fed_differently_is_still_judged_and_its_feed_is_a_finding() {
        // blocking-vegas is 4× slower and its limiter closed half the windows: the family claim still judges it
        // (and fails), and the pair is named with why its feed differed.
        let mut summary = run(|n| if n == "blocking-vegas" { 80_000.0 } else { p99(n) }, 19_500.0);
        set(&mut summary, "blocking-vegas", &format!("{DECISIONS}.windows"), 200.0);
        assert_eq!(family_claim(&summary).verdict, Verdict::Fails, "{}", family_claim(&summary).detail);
        let (like, unlike) = family_pairs(&summary);
        assert_eq!(like.len(), 3 * LIMITERS.len() - 2);
        assert_eq!(
            unlike,
            [
                "stream-vegas / blocking-vegas: windows 400 vs 200 (more than 1.25× apart)",
                "blocking-vegas / coroutine-vegas: windows 200 vs 400 (more than 1.25× apart)",
            ]
        );
    }

    #[test]
    fn families_that_feed_a_limiter_different_in_flight_counts_fail_the_feed_claim() {
        let mut summary = run(p99, 19_500.0);
        assert_eq!(feed_claim(&summary).verdict, Verdict::Holds, "{}", feed_claim(&summary).detail);
        set(&mut summary, "blocking-aimd", &format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"), 130.0);
        assert_eq!(feed_claim(&summary).verdict, Verdict::Fails, "{}", feed_claim(&summary).detail);
        for c in &mut summary.contestants {
            if c.name.starts_with("coroutine-") {
                c.metrics.remove(&format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"));
            }
        }
        let (_, unlike) = family_pairs(&summary);
        assert!(unlike.iter().any(|u| u.contains("after-drop mean in flight at admission 100 vs 130")), "{unlike:?}");
        assert!(unlike.iter().any(|u| u.contains("coroutine-aimd has no `after_drop.in_flight_at_admission_mean`")));
    }

    #[test]
    fn the_errors_claim_fails_when_an_adaptive_limiter_fails_as_many_calls_and_is_moot_without_a_queue_limit() {
        let errors_claim = |summary: &Summary| judge(summary, &table(summary)[2]);
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
        assert_eq!(family_claim(&run(p(1.3), 19_500.0)).verdict, Verdict::Holds);
        assert_eq!(family_claim(&run(p(2.0), 19_500.0)).verdict, Verdict::Fails);
        assert_eq!(family_claim(&run(p(0.5), 19_500.0)).verdict, Verdict::Fails);
    }

    #[test]
    fn feeds_agree_within_the_tolerance_on_every_measure() {
        let feed = Feed { windows: 400.0, samples_per_window: Some(150.0), in_flight: 100.0 };
        assert_eq!(feed.unlike(&Feed { windows: 480.0, samples_per_window: Some(130.0), in_flight: 90.0 }), None);
        let fuller = Feed { samples_per_window: Some(200.0), ..feed };
        assert!(feed.unlike(&fuller).is_some_and(|why| why.starts_with("samples per window 150 vs 200")));
        let unwindowed = Feed { windows: 0.0, samples_per_window: None, ..feed };
        assert_eq!(unwindowed.unlike(&unwindowed), None);
        assert!(feed.unlike(&unwindowed).is_some());
    }
}
