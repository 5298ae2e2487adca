//! One trial of the handoff scenario in its own process: conformance checks, then warm-ups and measured
//! iterations bracketed by the probe, each checked against the reference sum and order.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;

use measure::gauge::Outstanding;
use measure::probe::{bounded_outstanding_check, Probe};
use measure::record::{IterationRecord, TrialRequest};
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;
use pipelines::LiveStages;

use crate::conformance::{self, reference_sum};
use crate::contestants;
use crate::job::{Behaviour, Consumer, HandoffConfig, Job, Outcome};
use crate::{items_at, SERIES_CAPACITY};

pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let capacity = request.param_usize("capacity")?;
    let batch = request.param_usize("batch")?;
    let contestant = contestants::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let config = HandoffConfig { capacity, batch };
    let per_message = contestant.items_per_message(&config);
    let items = items_at(request.param("items")?, request.param("small_items")?, capacity as u64, per_message);
    if items == 0 || batch == 0 || capacity == 0 {
        return Err(TrialError::BadParam("`items`, `batch` and `capacity` must be at least 1".to_string()));
    }

    for check in conformance::all(&contestant, &config) {
        sink.check(check);
    }

    let reference = reference_sum(items);
    let prepared = match contestant.prepare(&config) {
        Ok(prepared) => prepared,
        Err(err) => {
            sink.check(Check::new("checksum", false, format!("could not prepare: {err}")));
            return Ok(());
        }
    };
    let gauge = Arc::new(Outstanding::new());
    let live = Arc::new(LiveStages::new());
    let behaviour = Behaviour::Clean;
    let mut measured_max: Option<u64> = None;
    let mut first_measured = true;

    for index in 0..request.warmup + request.iterations {
        let warmup = index < request.warmup;
        let job =
            Job { items: black_box(items), behaviour: &behaviour, consumer: Consumer::Sum, gauge: &gauge, live: &live };
        let probe = Probe::start(Arc::clone(&gauge));
        let out = black_box(prepared.run(black_box(&job)));
        let measurement = probe.finish(items);
        match out {
            Ok(Outcome::Sum { sum, count, first_disorder: None }) if sum == reference && count == items => {}
            other => {
                let got = match other {
                    Ok(outcome) => format!("{outcome:?}"),
                    Err(err) => format!("error: {err}"),
                };
                let detail =
                    format!("iteration {index}: got {got}, reference sum {reference} of {items} items in order");
                sink.check(Check::new("checksum", false, detail));
                return Ok(());
            }
        }
        let mut series = BTreeMap::new();
        if !warmup {
            if first_measured {
                if measurement.max_outstanding.is_some() && capacity == SERIES_CAPACITY {
                    series.insert("outstanding".to_string(), measurement.outstanding_series.clone());
                }
                first_measured = false;
            }
            if let Some(max) = measurement.max_outstanding {
                measured_max = Some(measured_max.map_or(max, |m| m.max(max)));
            }
        }
        sink.iteration(IterationRecord { index, warmup, metrics: measurement.metrics(), series });
    }

    let total = request.warmup + request.iterations;
    sink.check(Check::new(
        "checksum",
        true,
        format!("{total} iterations of {items} items, each summing to {reference} with every item in order"),
    ));
    if let Some(bound) = contestant.bound(&config) {
        sink.check(bounded_outstanding_check(measured_max, bound, request.iterations, "items"));
    }
    Ok(())
}
