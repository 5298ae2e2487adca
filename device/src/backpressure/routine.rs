//! One backpressure trial: the request's parameters (items, limit, service time, budget) as a [`TrialSpec`] (a
//! bounded contestant's accounting iteration on a tenth of the items), run by the trial the device and
//! backpressure scenarios share ([`crate::trial`]) after the conformance checks at [`super::conformance`]'s
//! sizes; it measures and verifies every run, and each accounting iteration's `outstanding` series gives it
//! [`MS_TO_PEAK`] and [`MEAN_OUTSTANDING`] ([`series_figures`]).

use std::time::Duration;

use measure::record::{MetricValues, Series, TrialRequest};
use measure::scenario::{TrialError, TrialSink};

use super::{conformance, ACCOUNTING_SHARE, CONTESTANTS, MEAN_OUTSTANDING, MS_TO_PEAK};
use crate::contestants::Contestant;
use crate::trial::{self, TrialSpec};

/// Run the trial `request` names, reporting to `sink`.
pub(crate) fn run(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let contestant = Contestant::find(&CONTESTANTS, &request.contestant)?;
    let limit = request.param_usize("limit")?;
    let service = Duration::from_micros(request.param("service_us")?);
    let items = request.param("items")?;
    let spec = TrialSpec {
        items,
        accounting_items: accounting_items(contestant, items),
        limit,
        service,
        budget: Duration::from_millis(request.param("budget_ms")?),
        // The bound's ceiling; the unbounded contestants ignore the bound, so theirs can exceed 1.
        ideal_ops_per_sec: Some(limit as f64 / service.as_secs_f64()),
        heap_threshold: None,
    };
    trial::run_trial(request, sink, contestant, &spec, conformance::SIZES, series_figures)
}

/// Items of `contestant`'s accounting iteration: a tenth ([`ACCOUNTING_SHARE`]) for a bounded contestant
/// (at least one), every item for an unbounded one.
fn accounting_items(contestant: Contestant, items: u64) -> u64 {
    if contestant.bounded() {
        (items / ACCOUNTING_SHARE).max(items.min(1))
    } else {
        items
    }
}

/// [`MS_TO_PEAK`] and [`MEAN_OUTSTANDING`] of an accounting iteration's `outstanding` series (each where the
/// series has one).
fn series_figures(series: &Series) -> MetricValues {
    let mut metrics = MetricValues::new();
    if let Some(ms) = ms_to_peak(series.period_ms, &series.values) {
        metrics.insert(MS_TO_PEAK.to_string(), ms);
    }
    if !series.values.is_empty() {
        let mean = series.values.iter().sum::<f64>() / series.values.len() as f64;
        metrics.insert(MEAN_OUTSTANDING.to_string(), mean);
    }
    metrics
}

/// The time of the first sample at the series' highest value, or `None` for an empty series or one that
/// never rose above zero.
fn ms_to_peak(period_ms: f64, values: &[f64]) -> Option<f64> {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values.iter().enumerate() {
        if best.is_none_or(|(_, b)| *v > b) {
            best = Some((i, *v));
        }
    }
    best.filter(|(_, v)| *v > 0.0).map(|(i, _)| i as f64 * period_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bounded_contestant_counts_on_fewer_items() {
        let (bounded, unbounded) = (CONTESTANTS[0], CONTESTANTS[4]);
        assert_eq!(accounting_items(bounded, 100_000), 10_000);
        assert_eq!(accounting_items(bounded, 5), 1);
        assert_eq!(accounting_items(bounded, 0), 0);
        assert_eq!(accounting_items(unbounded, 100_000), 100_000);
    }

    #[test]
    fn the_peak_is_the_first_sample_at_the_maximum() {
        assert_eq!(ms_to_peak(1.0, &[0.0, 3.0, 7.0, 7.0, 2.0]), Some(2.0));
        assert_eq!(ms_to_peak(2.0, &[5.0, 1.0]), Some(0.0));
        assert_eq!(ms_to_peak(1.0, &[]), None);
        assert_eq!(ms_to_peak(1.0, &[0.0, 0.0]), None);
    }

    #[test]
    fn a_series_gives_its_peak_time_and_mean() {
        let figures = series_figures(&Series::new(1.0, vec![0.0, 4.0, 8.0, 4.0]));
        assert_eq!(figures.get(MS_TO_PEAK), Some(&2.0));
        assert_eq!(figures.get(MEAN_OUTSTANDING), Some(&4.0));
        assert!(series_figures(&Series::new(1.0, Vec::new())).is_empty());
    }
}
