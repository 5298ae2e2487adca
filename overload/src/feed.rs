//! What kind of sample stream each family fed a limiter, from a run's summary: for every pair of families of
//! every limiter, whether their limiters saw "the same kind" of stream ([`Feed::unlike`]), and where not, which
//! measures differ. The report names the pairs that differ, a finding in its own right; the family claim judges
//! every pair whatever its feed ([`crate::claims`]).

use measure::summary::Summary;
use serde::Serialize;

use crate::analysis::{AFTER_DROP, DECISIONS, IN_FLIGHT_AT_ADMISSION, SAMPLES_PER_WINDOW};
use crate::claims::FEED_TOLERANCE;
use crate::config::LIMITERS;
use crate::contestants::Contestant;

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

/// One measure on which two feeds are more than [`FEED_TOLERANCE`] apart, with each side's value (to two
/// decimals, as a reader compares them by eye).
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

/// How two feeds compare: alike, apart on some measures, or not comparable because one side has no feed.
#[derive(Debug, Clone, PartialEq)]
pub enum Pairing {
    /// Every measure within [`FEED_TOLERANCE`].
    Alike,
    /// The measures more than [`FEED_TOLERANCE`] apart.
    Apart(Vec<Apart>),
    /// One side has no feed.
    Missing(NoFeed),
}

impl Feed {
    /// The feed from one run's metrics (`metric(key)`), or the missing metric's name.
    pub fn from_metrics(metric: impl Fn(&str) -> Option<f64>) -> Result<Feed, String> {
        let windows_key = format!("{DECISIONS}.windows");
        let in_flight_key = format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}");
        let windows = metric(&windows_key).ok_or_else(|| windows_key.clone())?;
        let in_flight = metric(&in_flight_key).ok_or_else(|| in_flight_key.clone())?;
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
        match (self.samples_per_window, other.samples_per_window) {
            (Some(a), Some(b)) => check(Measure::SamplesPerWindow, a, b),
            (None, None) => {}
            (a, b) => check(Measure::SamplesPerWindow, a.unwrap_or(0.0), b.unwrap_or(0.0)),
        }
        check(Measure::InFlight, self.in_flight, other.in_flight);
        apart
    }
}

/// Whether `a` and `b` are within [`FEED_TOLERANCE`] of each other (both zero counts as equal).
fn within(a: f64, b: f64) -> bool {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    high == low || (low > 0.0 && high / low <= FEED_TOLERANCE)
}

/// `v` to two decimals, for a figure a reader compares by eye.
fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Every pair of families of every limiter (stream / blocking, stream / coroutine, blocking / coroutine), as
/// contestant names, with how their feeds compare.
pub fn family_pairs(summary: &Summary) -> Vec<(String, String, Pairing)> {
    let mut pairs = Vec::new();
    for kind in LIMITERS {
        let names = Contestant::gated(kind).map(|c| c.name());
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                let pairing = match (Feed::of(summary, a), Feed::of(summary, b)) {
                    (Ok(fa), Ok(fb)) => match fa.unlike(&fb) {
                        apart if apart.is_empty() => Pairing::Alike,
                        apart => Pairing::Apart(apart),
                    },
                    (Err(missing), _) | (_, Err(missing)) => Pairing::Missing(missing),
                };
                pairs.push((a.clone(), b.clone(), pairing));
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{p99, run, set};

    /// The pairs of `summary` whose feeds are not alike.
    fn unlike(summary: &Summary) -> Vec<(String, String, Pairing)> {
        family_pairs(summary).into_iter().filter(|(_, _, p)| *p != Pairing::Alike).collect()
    }

    #[test]
    fn a_pair_fed_differently_is_named_with_the_measure_that_differs() {
        let mut summary = run(p99, 19_500.0);
        assert_eq!(family_pairs(&summary).len(), 3 * LIMITERS.len());
        assert_eq!(unlike(&summary), []);
        set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
        let windows = |a: &str, b: &str| Pairing::Apart(vec![apart(Measure::Windows, a, b)]);
        assert_eq!(
            unlike(&summary),
            [
                ("stream-vegas".to_string(), "blocking-vegas".to_string(), windows("400", "200")),
                ("blocking-vegas".to_string(), "coroutine-vegas".to_string(), windows("200", "400")),
            ]
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
        assert!(pairs.contains(&(
            "stream-aimd".to_string(),
            "blocking-aimd".to_string(),
            Pairing::Apart(vec![apart(Measure::InFlight, "100", "130")])
        )));
        let missing = NoFeed { contestant: "coroutine-aimd".to_string(), metric: Some(key) };
        assert!(pairs.contains(&("stream-aimd".to_string(), "coroutine-aimd".to_string(), Pairing::Missing(missing))));
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
