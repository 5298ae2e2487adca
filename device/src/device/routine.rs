//! One device trial: the request's parameters (level, rounds, service time, budget) as a [`TrialSpec`], run by
//! the trial the device and backpressure scenarios share ([`crate::trial`]) after the conformance checks at
//! [`super::conformance`]'s sizes; it measures and verifies every run.

use std::time::Duration;

use measure::record::{MetricValues, TrialRequest};
use measure::scenario::{TrialError, TrialSink};

use super::{conformance, CONTESTANTS, HEAP_READ_AT};
use crate::contestants::Contestant;
use crate::trial::{self, TrialSpec};

/// Run the trial `request` names, reporting to `sink`.
pub(crate) fn run(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let contestant = Contestant::find(&CONTESTANTS, &request.contestant)?;
    let in_flight = request.param_usize("in_flight")?;
    let rounds = request.param("rounds")?;
    let service = Duration::from_millis(request.param("service_ms")?);
    let items = (in_flight as u64).saturating_mul(rounds);
    let spec = TrialSpec {
        items,
        // Memory per waiting call is read in the first round, but the instrumented figures beside the timed
        // ones are only comparable over the same run.
        accounting_items: items,
        limit: in_flight,
        service,
        budget: Duration::from_millis(request.param("budget_ms")?),
        ideal_ops_per_sec: Some(in_flight as f64 / service.as_secs_f64()),
        heap_threshold: Some(((in_flight as f64) * HEAP_READ_AT).ceil() as u64),
    };
    trial::run_trial(request, sink, contestant, &spec, conformance::SIZES, |_| MetricValues::new())
}
