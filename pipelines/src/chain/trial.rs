//! One trial of the chain scenario in its own process: conformance checks, then warm-ups and measured
//! iterations bracketed by the probe, each checked against the reference.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;

use measure::gauge::Outstanding;
use measure::probe::{bounded_outstanding_check, Probe};
use measure::record::{IterationRecord, TrialRequest};
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;

use super::job::{Behaviour, ChainConfig, Consumer, Job, Outcome};
use super::{conformance, contestants, ops};
use crate::LiveStages;

pub(super) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let items = request.param("items")?;
    let work = u32::try_from(request.param("work")?)
        .map_err(|_| TrialError::BadParam("`work` does not fit in u32".to_string()))?;
    let batch = request.param_usize("batch")?;
    let capacity = request.param_usize("capacity")?;
    if items == 0 || batch == 0 || capacity == 0 {
        return Err(TrialError::BadParam("`items`, `batch` and `capacity` must be at least 1".to_string()));
    }
    let contestant = contestants::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let config = ChainConfig { batch, capacity };

    for check in conformance::all(&contestant, &config) {
        sink.check(check);
    }

    let input: Arc<[u64]> = black_box((0..items).collect::<Vec<u64>>()).into();
    let reference = ops::reference_checksum(&input, work);
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
        let job = Job {
            input: &input,
            work: black_box(work),
            behaviour: &behaviour,
            consumer: Consumer::Sum,
            gauge: &gauge,
            live: &live,
        };
        let probe = Probe::start(Arc::clone(&gauge));
        let out = black_box(prepared.run(black_box(&job)));
        let measurement = probe.finish(items);
        match out {
            Ok(Outcome::Sum(sum)) if sum == reference => {}
            other => {
                let got = match other {
                    Ok(outcome) => format!("{outcome:?}"),
                    Err(err) => format!("error: {err}"),
                };
                let detail = format!("iteration {index}: got {got}, reference {reference}");
                sink.check(Check::new("checksum", false, detail));
                return Ok(());
            }
        }
        let mut series = BTreeMap::new();
        if !warmup {
            if first_measured {
                if measurement.max_outstanding.is_some() {
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
    sink.check(Check::new("checksum", true, format!("{total} iterations, all equal to reference {reference}")));
    if let Some(bound) = contestant.bound(&config) {
        sink.check(bounded_outstanding_check(measured_max, bound, request.iterations, "items"));
    }
    Ok(())
}
