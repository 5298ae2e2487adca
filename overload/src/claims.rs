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

use crate::analysis::{AFTER_DROP, IN_FLIGHT_AT_ADMISSION};
use crate::config::LIMITERS;
use crate::limit::LimiterKind;
use crate::trial::{DECISIONS, SAMPLES_PER_WINDOW};
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

/// Most one family's after-drop p99 may be, as a multiple of another family's, for the same limiter fed the same
/// kind of sample stream. Fixed before any run: each side's per-run noise is up to the lab's 20% threshold
/// (1.2 × 1.2 ≈ 1.44 between two sides), and a windowed limiter moves once per window of about two round trips,
/// so one window more or less at a high limit shifts the tail by a fraction of a round trip; 1.5× allows both
/// and still catches the 4.4× stream/blocking gap the issue reported for Vegas.
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
    let (like, unlike) = family_pairs(summary);
    // Agreement both ways: each side at most FAMILY_AGREEMENT× the other.
    let agree: Vec<Comparison> = like
        .iter()
        .flat_map(|(a, b)| {
            [
                Comparison { a: named(a.clone()), b: named(b.clone()) },
                Comparison { a: named(b.clone()), b: named(a.clone()) },
            ]
        })
        .collect();
    let no_pair = agree
        .is_empty()
        .then(|| format!("no limiter's families fed it the same kind of sample stream: {}", unlike.join("; ")));
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
        ClaimSpec::new(
            format!(
                "Fed the same kind of sample stream, a limiter's after-drop p99 latency is the same in every family: \
                 each family's within {FAMILY_AGREEMENT}× of each other's (judged only on the pairs whose limiters \
                 saw windows, samples per window and mean in-flight at admission within {FEED_TOLERANCE}× of each \
                 other; the discussion names the pairs left out)"
            ),
            HEADLINE,
            P99,
            (Relation::AtMost, FAMILY_AGREEMENT),
            Basis::Ranges,
            agree,
        )
        .undecidable_if(no_pair),
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
                    role: Default::default(),
                    description: String::new(),
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics: BTreeMap::from([
                        (HEADLINE.to_string(), range([p * 0.99, p, p * 1.01])),
                        (AFTER_OPS.to_string(), range([ops * 0.99, ops, ops * 1.01])),
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
        assert_eq!(claims, [Verdict::Fails, Verdict::Fails, Verdict::Holds, Verdict::Fails]);
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
        judge(summary, &table(summary)[3])
    }

    fn set(summary: &mut Summary, contestant: &str, key: &str, v: f64) {
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == contestant) {
            c.metrics.insert(key.to_string(), range([v, v, v]));
        }
    }

    #[test]
    fn a_pair_fed_a_different_kind_of_stream_is_left_out_of_the_family_claim_and_named() {
        // blocking-vegas is 4× slower, but its limiter closed half the windows: not judged against the others.
        let mut summary = run(|n| if n == "blocking-vegas" { 80_000.0 } else { p99(n) }, 19_500.0);
        set(&mut summary, "blocking-vegas", &format!("{DECISIONS}.windows"), 200.0);
        assert_eq!(family_claim(&summary).verdict, Verdict::Holds, "{}", family_claim(&summary).detail);
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
    fn without_one_like_pair_the_family_claim_cannot_be_decided_and_says_why() {
        let mut summary = run(p99, 19_500.0);
        for c in &mut summary.contestants {
            if c.name.starts_with("coroutine-") {
                c.metrics.remove(&format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"));
            } else if c.name.starts_with("blocking-") {
                c.metrics.insert(format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"), range([130.0; 3]));
            }
        }
        let claim = family_claim(&summary);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.starts_with("no limiter's families fed it the same kind"), "{}", claim.detail);
        assert!(claim.detail.contains("after-drop mean in flight at admission 100 vs 130"), "{}", claim.detail);
        assert!(claim.detail.contains("coroutine-aimd has no `after_drop.in_flight_at_admission_mean`"));
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
