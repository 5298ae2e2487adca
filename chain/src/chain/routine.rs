//! One trial of the chain scenario in its own process: the harness's loop ([`measure::harness::run`]) over the
//! kit's [`ItemsRoutine`], every run checked against the reference sum, then, in the first process of each
//! contestant and phase, the conformance checks ([`measure_then_check`]).

use std::hint::black_box;
use std::sync::Arc;

use measure::harness;
use measure::record::TrialRequest;
use measure::scenario::{measure_then_check, TrialError, TrialSink};
use pipelines::conformance::{prepared_or_failed, Expected, ItemsRoutine};

use super::conformance;
use super::contestants;
use crate::job::ChainConfig;
use crate::ops;

pub(super) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let items = request.param("items")?;
    let work = u32::try_from(request.param("work")?)
        .map_err(|_| TrialError::BadParam("`work` does not fit in u32".to_string()))?;
    let batch = request.param_usize("batch")?;
    let capacity = request.param_usize("capacity")?;
    let messages = request.param_usize("messages")?;
    if items == 0 || batch == 0 || capacity == 0 || messages == 0 {
        return Err(TrialError::BadParam("`items`, `batch`, `capacity` and `messages` must be at least 1".to_string()));
    }
    let contestant = contestants::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let config = ChainConfig { batch, capacity, messages };

    let measure = |sink: &mut dyn TrialSink| {
        let input: Arc<[u64]> = black_box((0..items).collect::<Vec<u64>>()).into();
        let reference = ops::reference_checksum(&input, work);
        let Some(prepared) = prepared_or_failed(contestant.prepare(&config), "checksum", sink) else {
            return Ok(());
        };
        let expected = Expected {
            sum: reference,
            count: None,
            in_order: false,
            reference: format!("reference {reference}"),
            passed: format!(", all equal to reference {reference}"),
        };
        let mut routine = ItemsRoutine::new(prepared, input, work, expected)
            .bound(contestant.bound(&config))
            .channel(contestant.layout().map(|(_, batched)| config.message_sizes(batched)))
            .channels(contestant.layout().map_or(1, |(layout, _)| layout.channels()));
        harness::run(&mut routine, request, sink);
        Ok(())
    };
    measure_then_check(request, sink, measure, || conformance::all(&contestant, &config))
}
