//! The handoff routine: one trial in its own process — the harness's loop ([`measure::harness::run`]) over the
//! kit's [`ItemsRoutine`], every run checked against the reference sum and order, then, in the first process of
//! each contestant and phase, the conformance checks ([`measure_then_check`]).

use measure::harness;
use measure::record::TrialRequest;
use measure::scenario::{measure_then_check, TrialError, TrialSink};
use pipelines::conformance::{prepared_or_failed, Expected, ItemsRoutine};

use super::{items_at, SERIES_CAPACITY};
use crate::handoff::conformance::{self, reference_sum};
use crate::handoff::contestants;
use crate::job::HandoffConfig;

pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let capacity = request.param_usize("capacity")?;
    let batch = request.param_usize("batch")?;
    let messages = request.param_usize("messages")?;
    let contestant = contestants::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let config = HandoffConfig { capacity, batch, messages };
    let per_message = contestant.items_per_message(&config);
    let items = items_at(request.param("items")?, request.param("small_items")?, capacity as u64, per_message);
    if items == 0 || batch == 0 || capacity == 0 || messages == 0 {
        return Err(TrialError::BadParam("`items`, `batch`, `capacity` and `messages` must be at least 1".to_string()));
    }

    let measure = |sink: &mut dyn TrialSink| {
        let Some(prepared) = prepared_or_failed(contestant.prepare(&config), "checksum", sink) else {
            return Ok(());
        };
        let reference = reference_sum(items);
        let expected = Expected {
            sum: reference,
            count: Some(items),
            in_order: true,
            reference: format!("reference sum {reference} of {items} items in order"),
            passed: format!(" of {items} items, each summing to {reference} with every item in order"),
        };
        let mut routine = ItemsRoutine::new(prepared, items, 0, expected)
            .bound(contestant.bound(&config))
            .channel(per_message.map(|items| (items, config.messages(items))))
            .keep_series(capacity == SERIES_CAPACITY);
        harness::run(&mut routine, request, sink);
        Ok(())
    };
    measure_then_check(request, sink, measure, || conformance::all(&contestant, &config))
}
