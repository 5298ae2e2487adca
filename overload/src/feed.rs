//! What kind of sample stream each family fed a limiter, from a run's summary: for every pair of families of
//! every limiter, whether their limiters saw "the same kind" of stream, judged measure by measure on process
//! medians as a claim is judged (the rows of [`finding_rows`], read back by [`family_pairs`]), and where not, which measures
//! differ. The report names the pairs that differ, a finding in its own right, and those the run cannot tell
//! apart; the family claim judges every pair whatever its feed ([`crate::overload::claims`]). A trial's test
//! compares two single runs' feeds (`Feed::unlike`).

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side};
use measure::summary::{ClaimResult, Summary, Verdict};
use measure::template::ClaimView;
use serde::Serialize;

use crate::analysis::SAMPLES_PER_WINDOW;
use crate::overload::contestants::Contestant;

/// How far apart (larger / smaller) each measure of two limiters' sample streams may be for the streams to be
/// "the same kind" (this file), and the feed claim's factor. Fixed before any run: a quarter is wider than the
/// 20% noise threshold of one measure, and narrower than the 5× fewer, 5× fuller windows a feed that releases its
/// completions in batches gives a window of two round trips.
pub const FEED_TOLERANCE: f64 = 1.25;

/// What the sample stream a limiter saw over a run looked like, from the run's records once its clocks have
/// stopped (nothing in the timed code counts it): two limiters saw "the same kind" of stream when every measure
/// agrees within [`FEED_TOLERANCE`] (a run's pairs judged by [`finding_rows`]; two single runs compared by `Feed::unlike`
/// in tests).
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

/// Which measure of two feeds differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Windows the limiter closed.
    Windows,
    /// Mean samples per closed window.
    SamplesPerWindow,
    /// After-drop mean calls in flight at admission.
    InFlight,
}

impl Measure {
    /// Its key, as ids and the template name it: `windows`, `samples_per_window`, `in_flight`.
    pub fn key(self) -> &'static str {
        match self {
            Measure::Windows => "windows",
            Measure::SamplesPerWindow => "samples_per_window",
            Measure::InFlight => "in_flight",
        }
    }

    /// What its metric measures.
    fn definition(self) -> &'static str {
        match self {
            Measure::Windows => "windows the limiter closed over the timed run",
            Measure::SamplesPerWindow => "mean samples per closed window",
            Measure::InFlight => "mean calls in flight when an after-drop call was admitted, itself included",
        }
    }
}

/// One measure of two feeds with each side's value (to two decimals, as a reader compares them by eye): in a
/// [`Judged`] measure, each side's median (a trial's test lists those on which two runs' feeds are more than
/// [`FEED_TOLERANCE`] apart the same way).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Apart {
    /// The measure.
    pub measure: Measure,
    /// The first side's value.
    pub a: String,
    /// The second side's value.
    pub b: String,
}

/// Why a contestant has no feed: it did not run, or it has no `metric`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoFeed {
    /// The contestant.
    pub contestant: String,
    /// The metric it lacks (`None`: it did not run).
    pub metric: Option<String>,
}

/// One measure of two families' feeds, judged on process medians: alike when each side is within
/// [`FEED_TOLERANCE`] of the other in every pairing of processes, apart when in every pairing one side is more
/// than [`FEED_TOLERANCE`] times the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The measure, with each side's median.
    pub figures: Apart,
    /// Holds: alike; fails: apart; inconclusive: not told apart by this run.
    pub verdict: Verdict,
    /// The verdict's p (`None` when inconclusive).
    pub p: Option<f64>,
}

/// How two feeds compare: every measure judged, or not comparable because one side has no feed.
#[derive(Debug, Clone, PartialEq)]
pub enum Pairing {
    /// Every measure either side has, judged (a measure zero in every process of both sides, such as the windows
    /// of a limiter that closes none, is left out: the counts are equal).
    Judged(Vec<Judged>),
    /// One side has no feed.
    Missing(NoFeed),
}

impl Pairing {
    /// The pair's verdict that its feeds are alike: holds when every measure is alike, fails when some measure is
    /// apart, inconclusive otherwise (and when a side has no feed), with its p ([`weakest`]).
    pub fn alike(&self) -> ClaimResult {
        match self {
            Pairing::Judged(measures) => weakest(measures.iter().map(|m| (m.verdict, m.p))),
            Pairing::Missing(_) => weakest([]),
        }
    }

    /// The measures that decided the pair's verdict: those apart when it fails, those not told apart when it is
    /// inconclusive, every one when it holds.
    pub fn deciding(&self) -> Vec<Apart> {
        let verdict = self.alike().verdict;
        match self {
            Pairing::Judged(measures) => {
                measures.iter().filter(|m| m.verdict == verdict).map(|m| m.figures.clone()).collect()
            }
            Pairing::Missing(_) => Vec::new(),
        }
    }
}

/// Verdicts combined as a claim's comparisons are ([`Verdict::combine`]: every one must hold, one failing
/// fails), with the claim's p: the largest among the parts whose verdict is the whole's (the weakest link).
pub fn weakest(parts: impl IntoIterator<Item = (Verdict, Option<f64>)>) -> ClaimResult {
    let parts: Vec<(Verdict, Option<f64>)> = parts.into_iter().collect();
    let verdict = Verdict::combine(parts.iter().map(|(v, _)| *v));
    let mut result = ClaimResult::new("", verdict, "");
    if verdict != Verdict::Inconclusive {
        result.p = parts.iter().filter(|(v, _)| *v == verdict).filter_map(|(_, p)| *p).reduce(f64::max);
    }
    result
}

impl Feed {
    /// The feed from one run's metrics (`metric(key)`), or the missing metric's name.
    pub fn from_metrics(metric: impl Fn(&str) -> Option<f64>) -> Result<Feed, String> {
        let windows = metric(WINDOWS).ok_or_else(|| WINDOWS.to_string())?;
        let in_flight = metric(IN_FLIGHT).ok_or_else(|| IN_FLIGHT.to_string())?;
        Ok(Feed { windows, samples_per_window: metric(SAMPLES_PER_WINDOW), in_flight })
    }

    /// The feed of `contestant` in `summary`, from the medians of its measured runs.
    pub fn of(summary: &Summary, contestant: &str) -> Result<Feed, NoFeed> {
        let stats = summary
            .contestant(contestant)
            .ok_or_else(|| NoFeed { contestant: contestant.to_string(), metric: None })?;
        Feed::from_metrics(|key| stats.metrics.get(key).map(|m| m.median))
            .map_err(|metric| NoFeed { contestant: contestant.to_string(), metric: Some(metric) })
    }
}

/// `v` to two decimals, for a figure a reader compares by eye.
fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Every pair of families of every limiter (stream / blocking, stream / coroutine, blocking / coroutine), as
/// contestant names, with how their feeds compare: each measure's finding as the summary judged it
/// ([`finding_rows`]).
pub fn family_pairs(summary: &Summary) -> Vec<(String, String, Pairing)> {
    let pairs = Contestant::family_pairs().into_iter();
    pairs
        .map(|(a, b)| {
            let pairing = match (Feed::of(summary, &a), Feed::of(summary, &b)) {
                (Ok(fa), Ok(fb)) => Pairing::Judged(
                    measures(&fa, &fb)
                        .into_iter()
                        .filter_map(|(measure, _, va, vb)| {
                            let found = summary.finding(&feed_id(&a, &b, measure))?;
                            let figures = Apart { measure, a: round(va).to_string(), b: round(vb).to_string() };
                            Some(Judged { figures, verdict: found.verdict, p: found.p })
                        })
                        .collect(),
                ),
                (Err(missing), _) | (_, Err(missing)) => Pairing::Missing(missing),
            };
            (a, b, pairing)
        })
        .collect()
}

/// Id of the finding that `a` and `b` fed their limiter alike on `measure` ([`finding_rows`]).
pub fn feed_id(a: &str, b: &str, measure: Measure) -> String {
    format!("feed-alike-{a}-{b}-{}", measure.key())
}

/// Windows the limiter closed, as a claim's metric.
const WINDOWS: &str = "decisions.windows";

/// After-drop mean calls in flight at admission, as a claim's metric.
const IN_FLIGHT: &str = "after_drop.in_flight_at_admission_mean";

/// Each measure of two feeds `fa`, `fb` with its metric and each side's median (samples per window zero where a
/// side has no windows).
fn measures(fa: &Feed, fb: &Feed) -> [(Measure, &'static str, f64, f64); 3] {
    let per_window = |f: &Feed| f.samples_per_window.unwrap_or(0.0);
    [
        (Measure::Windows, WINDOWS, fa.windows, fb.windows),
        (Measure::SamplesPerWindow, SAMPLES_PER_WINDOW, per_window(fa), per_window(fb)),
        (Measure::InFlight, IN_FLIGHT, fa.in_flight, fb.in_flight),
    ]
}

/// The findings that each family pair of each limiter fed it alike, one row per measure (id [`feed_id`]), judged
/// on process medians: each side at least 1 / [`FEED_TOLERANCE`] of the other in every pairing of processes (that
/// is, within [`FEED_TOLERANCE`]×, and a count of zero against one above zero is apart, where a ratio to zero is
/// not decided). A pair of which a side has no feed has no rows; a measure zero in every process of both sides is
/// equal and has none; samples per window, which a side without windows lacks, counts as zero there.
pub fn finding_rows(summary: &Summary) -> Vec<ClaimSpec> {
    let mut rows = Vec::new();
    for (a, b) in Contestant::family_pairs() {
        let (Ok(fa), Ok(fb)) = (Feed::of(summary, &a), Feed::of(summary, &b)) else { continue };
        let zero_everywhere = |metric: &str| {
            [&a, &b].iter().all(|name| summary.metric(name, metric).is_none_or(|s| s.min == 0.0 && s.max == 0.0))
        };
        let side = |name: &str, metric: &str| match summary.metric(name, metric) {
            Some(_) => Side::contestant(name, Phase::Unphased),
            None => Side::value(0.0, "no windows"),
        };
        for (measure, metric, _, _) in measures(&fa, &fb) {
            if zero_everywhere(metric) {
                continue;
            }
            let (sa, sb) = (side(&a, metric), side(&b, metric));
            let both_ways = vec![Comparison { a: sa.clone(), b: sb.clone() }, Comparison { a: sb, b: sa }];
            let words = measure.definition();
            let text =
                format!("`{a}` and `{b}` fed their limiter alike: {words} within {FEED_TOLERANCE}× of each other");
            let rule = (Relation::AtLeast, 1.0 / FEED_TOLERANCE);
            rows.push(
                ClaimSpec::new(text, metric, measure.definition(), rule, Basis::ProcessMedians, both_ways)
                    .with_id(feed_id(&a, &b, measure)),
            );
        }
    }
    rows
}

/// Whether each family pair of each limiter fed it alike, as the summary's findings say ([`family_pairs`]), as
/// the report lists them.
#[derive(Debug, Clone, Serialize)]
pub struct Feeds {
    /// Every pair's feeds alike on every measure (the pairs' verdicts combined).
    pub every_alike: ClaimView,
    /// The pairs judged apart on some measure, and those of which a side has no feed.
    pub differ: Vec<FeedPair>,
    /// The pairs this run cannot tell apart: neither alike nor apart.
    pub unsettled: Vec<FeedPair>,
}

/// A family pair whose limiters were not judged fed alike.
#[derive(Debug, Clone, Serialize)]
pub struct FeedPair {
    /// One side.
    pub a: String,
    /// The other.
    pub b: String,
    /// The measures that decided its verdict, each side's median (empty when a side has no feed).
    pub measures: Vec<Apart>,
    /// Its verdict that the two were fed alike.
    pub alike: ClaimView,
    /// The side without a feed.
    pub missing: Option<NoFeed>,
    /// `[mean limit after the drop a, b, limit at the drop a, b]`.
    pub limits: Option<[String; 4]>,
}

/// Every family pair's feed verdict, from the summary's findings: the pairs judged apart (or without a feed) and
/// those the run cannot tell apart, each with the limits each side reached, and whether every pair was fed alike.
impl Feeds {
    /// The feeds of `summary`.
    pub fn of(summary: &Summary) -> Feeds {
        let pairs = family_pairs(summary);
        let every_alike =
            ClaimView::of(&weakest(pairs.iter().map(|(.., pairing)| pairing.alike()).map(|a| (a.verdict, a.p))));
        let (mut differ, mut unsettled) = (Vec::new(), Vec::new());
        let limits =
            |name: &str| Some((summary.median(name, "after_drop.limit_mean")?, summary.median(name, "limit_at_drop")?));
        for (a, b, pairing) in pairs {
            let alike = pairing.alike();
            let missing = match &pairing {
                Pairing::Missing(missing) => Some(missing.clone()),
                Pairing::Judged(_) => None,
            };
            let limits =
                limits(&a).zip(limits(&b)).map(|((ma, da), (mb, db))| [ma, mb, da, db].map(|v| format!("{v:.0}")));
            let pair = FeedPair { a, b, measures: pairing.deciding(), alike: ClaimView::of(&alike), missing, limits };
            match alike.verdict {
                Verdict::Holds => {}
                Verdict::Inconclusive if pair.missing.is_none() => unsettled.push(pair),
                _ => differ.push(pair),
            }
        }
        Feeds { every_alike, differ, unsettled }
    }
}

/// What a trial's test compares: two single runs' feeds, measure by measure.
#[cfg(test)]
impl Feed {
    /// The measures on which `self` and `other` are not the same kind of sample stream (empty when they are):
    /// each of windows, samples per window and after-drop mean in-flight at admission within [`FEED_TOLERANCE`]
    /// of the other's.
    pub fn unlike(&self, other: &Feed) -> Vec<Apart> {
        let mut apart = Vec::new();
        let mut check = |measure: Measure, a: f64, b: f64| {
            if !within(a, b) {
                apart.push(Apart { measure, a: round(a).to_string(), b: round(b).to_string() });
            }
        };
        check(Measure::Windows, self.windows, other.windows);
        if self.samples_per_window.is_some() || other.samples_per_window.is_some() {
            let (a, b) = (self.samples_per_window.unwrap_or(0.0), other.samples_per_window.unwrap_or(0.0));
            check(Measure::SamplesPerWindow, a, b);
        }
        check(Measure::InFlight, self.in_flight, other.in_flight);
        apart
    }
}

/// Whether `a` and `b` are within [`FEED_TOLERANCE`] of each other (both zero counts as equal).
#[cfg(test)]
fn within(a: f64, b: f64) -> bool {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    high == low || (low > 0.0 && high / low <= FEED_TOLERANCE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AFTER_DROP, IN_FLIGHT_AT_ADMISSION};
    use crate::config::LIMITERS;
    use crate::fixture::{p99, run, run_in, set};

    /// `summary` with its feed findings judged.
    fn judged(summary: &Summary) -> Summary {
        let mut summary = summary.clone();
        summary.findings = measure::judge::judge_all(&summary, &finding_rows(&summary));
        summary
    }

    /// A pair, its verdict that it was fed alike, and the measures that decided it or what a side lacks.
    type Unlike = (String, String, Verdict, Result<Vec<Apart>, NoFeed>);

    /// The pairs of `summary` whose feeds are not judged alike, each with its verdict and the measures that
    /// decided it (or what a side lacks).
    fn unlike(summary: &Summary) -> Vec<Unlike> {
        family_pairs(&judged(summary))
            .into_iter()
            .filter(|(_, _, p)| p.alike().verdict != Verdict::Holds)
            .map(|(a, b, p)| {
                let deciding = match &p {
                    Pairing::Missing(missing) => Err(missing.clone()),
                    Pairing::Judged(_) => Ok(p.deciding()),
                };
                (a, b, p.alike().verdict, deciding)
            })
            .collect()
    }

    #[test]
    fn a_pair_fed_differently_is_named_with_the_measure_that_differs() {
        let mut summary = run(p99, 19_500.0);
        assert_eq!(family_pairs(&judged(&summary)).len(), 3 * LIMITERS.len());
        assert_eq!(unlike(&summary), []);
        set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
        let windows = |a: &str, b: &str| Ok(vec![apart(Measure::Windows, a, b)]);
        let fails = Verdict::Fails;
        assert_eq!(
            unlike(&summary),
            [
                ("stream-vegas".to_string(), "blocking-vegas".to_string(), fails, windows("400", "200")),
                ("blocking-vegas".to_string(), "coroutine-vegas".to_string(), fails, windows("200", "400")),
            ]
        );
    }

    #[test]
    fn every_pair_alike_is_a_verdict_with_its_p() {
        let summary = run(p99, 19_500.0);
        for (a, b, pairing) in family_pairs(&judged(&summary)) {
            let alike = pairing.alike();
            // Three processes a side: every pairing on one side has p = 1 / C(6, 3).
            assert_eq!((alike.verdict, alike.p), (Verdict::Holds, Some(0.05)), "{a} / {b}");
        }
    }

    #[test]
    fn a_pair_whose_medians_differ_but_whose_processes_overlap_is_not_stated_as_differing() {
        let mut summary = run(p99, 19_500.0);
        let key = format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}");
        // Medians 100 and 200, 2× apart (beyond 1.25×), but one blocking process at 110, within 1.25× of the
        // stream's 100: neither alike nor apart in every pairing of processes.
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "blocking-aimd") {
            c.metrics.insert(key.clone(), crate::fixture::range([110.0, 200.0, 210.0]));
        }
        let pairs = unlike(&summary);
        let stream_blocking = pairs.iter().find(|(a, b, ..)| a == "stream-aimd" && b == "blocking-aimd");
        assert_eq!(
            stream_blocking.map(|(_, _, v, m)| (*v, m.clone())),
            Some((Verdict::Inconclusive, Ok(vec![apart(Measure::InFlight, "100", "200")])))
        );
        assert!(pairs.iter().all(|(_, _, v, _)| *v != Verdict::Fails), "{pairs:?}");
    }

    #[test]
    fn a_count_of_zero_against_one_above_zero_is_apart_and_zero_against_zero_is_left_out() {
        // Five processes: a side without samples per window is the fixed value 0, against which three processes
        // give p = 0.125, too weak to tell the pair apart.
        let mut summary = run_in(5, p99, 19_500.0);
        // The fixed limit closes no windows in any family: its pairs are alike on the in-flight count alone.
        let fixed = family_pairs(&judged(&summary)).into_iter().find(|(a, ..)| a == "stream-fixed").map(|(.., p)| p);
        match fixed {
            Some(Pairing::Judged(measures)) => {
                assert_eq!(measures.iter().map(|m| m.figures.measure).collect::<Vec<_>>(), [Measure::InFlight])
            }
            other => panic!("{other:?}"),
        }
        // One family's aimd closed none (and so has no samples per window): apart on both.
        set(&mut summary, "coroutine-aimd", "decisions.windows", 0.0);
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == "coroutine-aimd") {
            c.metrics.remove(SAMPLES_PER_WINDOW);
        }
        let pairs = unlike(&summary);
        let apart_both = Ok(vec![apart(Measure::Windows, "400", "0"), apart(Measure::SamplesPerWindow, "150", "0")]);
        assert!(
            pairs.contains(&("stream-aimd".to_string(), "coroutine-aimd".to_string(), Verdict::Fails, apart_both)),
            "{pairs:?}"
        );
    }

    #[test]
    fn a_pair_without_a_feed_names_the_contestant_and_what_it_lacks() {
        let mut summary = run(p99, 19_500.0);
        let key = format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}");
        set(&mut summary, "blocking-aimd", &key, 130.0);
        for c in &mut summary.contestants {
            if c.name.starts_with("coroutine-") {
                c.metrics.remove(&key);
            }
        }
        let pairs = unlike(&summary);
        let in_flight = Ok(vec![apart(Measure::InFlight, "100", "130")]);
        assert!(pairs.contains(&("stream-aimd".to_string(), "blocking-aimd".to_string(), Verdict::Fails, in_flight)));
        let missing = NoFeed { contestant: "coroutine-aimd".to_string(), metric: Some(key) };
        assert!(pairs.contains(&(
            "stream-aimd".to_string(),
            "coroutine-aimd".to_string(),
            Verdict::Inconclusive,
            Err(missing)
        )));
    }

    fn apart(measure: Measure, a: &str, b: &str) -> Apart {
        Apart { measure, a: a.to_string(), b: b.to_string() }
    }

    #[test]
    fn feeds_agree_within_the_tolerance_on_every_measure() {
        let feed = Feed { windows: 400.0, samples_per_window: Some(150.0), in_flight: 100.0 };
        assert_eq!(feed.unlike(&Feed { windows: 480.0, samples_per_window: Some(130.0), in_flight: 90.0 }), []);
        let fuller = Feed { samples_per_window: Some(200.0), ..feed };
        assert_eq!(feed.unlike(&fuller), [apart(Measure::SamplesPerWindow, "150", "200")]);
        let unwindowed = Feed { windows: 0.0, samples_per_window: None, ..feed };
        assert_eq!(unwindowed.unlike(&unwindowed), []);
        assert!(!feed.unlike(&unwindowed).is_empty());
    }

    #[test]
    fn a_figure_apart_keeps_two_decimals() {
        let a = Feed { windows: 0.0, samples_per_window: None, in_flight: 396.381 };
        let b = Feed { in_flight: 500.0, ..a };
        assert_eq!(a.unlike(&b), [apart(Measure::InFlight, "396.38", "500")]);
    }

    #[test]
    fn a_missing_metric_names_the_contestant_and_the_metric() {
        let missing = Feed::from_metrics(|key| (key == "decisions.windows").then_some(1.0));
        assert_eq!(missing, Err("after_drop.in_flight_at_admission_mean".to_string()));
    }
}
