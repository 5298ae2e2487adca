//! One backpressure trial: this scenario's conformance checks ([`super::conformance`]), then the request's
//! parameters (items, limit, service time, budget) as a [`TrialSpec`] (a bounded contestant's accounting
//! iteration on a tenth of the items), run by the trial the device and backpressure scenarios share
//! ([`crate::trial`]), which measures and verifies every run; each iteration that carries an `outstanding`
//! series gains [`MS_TO_PEAK`] and [`MEAN_OUTSTANDING`] on its way to the sink.

use std::time::Duration;

use measure::record::{IterationRecord, TrialRequest};
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;

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
    let checks = conformance::checks(contestant, request);
    trial::run_trial(request, &mut SeriesMetrics { inner: sink }, contestant, &spec, checks)
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

/// Passes every message through, adding [`MS_TO_PEAK`] and [`MEAN_OUTSTANDING`] to each iteration that carries
/// an `outstanding` series.
struct SeriesMetrics<'a> {
    inner: &'a mut dyn TrialSink,
}

impl TrialSink for SeriesMetrics<'_> {
    fn iteration(&mut self, mut record: IterationRecord) {
        if let Some(series) = record.series.get("outstanding") {
            if let Some(ms) = ms_to_peak(series.period_ms, &series.values) {
                record.metrics.insert(MS_TO_PEAK.to_string(), ms);
            }
            if !series.values.is_empty() {
                let mean = series.values.iter().sum::<f64>() / series.values.len() as f64;
                record.metrics.insert(MEAN_OUTSTANDING.to_string(), mean);
            }
        }
        self.inner.iteration(record);
    }

    fn check(&mut self, check: Check) {
        self.inner.check(check);
    }

    fn skipped(&mut self, reason: &str) {
        self.inner.skipped(reason);
    }
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
    fn iterations_with_a_series_gain_its_peak_time_and_mean() {
        #[derive(Default)]
        struct Keep(Vec<IterationRecord>);
        impl TrialSink for Keep {
            fn iteration(&mut self, record: IterationRecord) {
                self.0.push(record);
            }
            fn check(&mut self, _: Check) {}
            fn skipped(&mut self, _: &str) {}
        }
        let mut keep = Keep::default();
        let series = measure::record::Series::new(1.0, vec![0.0, 4.0, 8.0, 4.0]);
        let with = IterationRecord {
            index: 0,
            warmup: false,
            accounting: true,
            metrics: Default::default(),
            series: [("outstanding".to_string(), series)].into_iter().collect(),
            ..IterationRecord::default()
        };
        let without = IterationRecord {
            index: 1,
            warmup: false,
            accounting: false,
            metrics: Default::default(),
            series: Default::default(),
            ..IterationRecord::default()
        };
        let mut sink = SeriesMetrics { inner: &mut keep };
        sink.iteration(with);
        sink.iteration(without);
        assert_eq!(keep.0[0].metrics.get(MS_TO_PEAK), Some(&2.0));
        assert_eq!(keep.0[0].metrics.get(MEAN_OUTSTANDING), Some(&4.0));
        assert!(keep.0[1].metrics.is_empty());
    }
}
