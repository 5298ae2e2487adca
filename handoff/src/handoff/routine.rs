//! The handoff routine: one trial in its own process — conformance checks, then the harness's loop
//! ([`measure::harness::run`]) over a [`HandoffRoutine`], every run checked against the reference sum and order.

use std::hint::black_box;
use std::sync::Arc;

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::meter::NoMeter;
use measure::probe::bounded_outstanding_check;
use measure::record::TrialRequest;
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;
use pipelines::LiveStages;

use super::{items_at, SERIES_CAPACITY};
use crate::handoff::conformance::{self, reference_sum};
use crate::handoff::contestants::{self, PreparedHandoff};
use crate::job::{Behaviour, Consumer, HandoffConfig, HandoffError, Job, Outcome};

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

    for check in conformance::all(&contestant, &config) {
        sink.check(check);
    }

    let prepared = match contestant.prepare(&config) {
        Ok(prepared) => prepared,
        Err(err) => {
            sink.check(Check::new("checksum", false, format!("could not prepare: {err}")));
            return Ok(());
        }
    };
    let mut routine = HandoffRoutine {
        prepared,
        items,
        reference: reference_sum(items),
        bound: contestant.bound(&config),
        channel: per_message.map(|items| (items, config.messages(items))),
        keep_series: capacity == SERIES_CAPACITY,
        live: Arc::new(LiveStages::new()),
        measured_max: None,
    };
    harness::run(&mut routine, request, sink);
    Ok(())
}

/// A prepared hand-off contestant as the harness runs it: the item count, the reference sum, and the bound its
/// accounting iterations are held to.
#[derive(Debug)]
struct HandoffRoutine {
    prepared: Box<dyn PreparedHandoff>,
    items: u64,
    reference: u64,
    bound: Option<u64>,
    /// Items per message and messages per channel, for contestants that hand items off.
    channel: Option<(usize, usize)>,
    /// Whether this trial's capacity is the one whose outstanding series the report charts.
    keep_series: bool,
    live: Arc<LiveStages>,
    /// The highest exact high-water mark of outstanding items over the accounting iterations.
    measured_max: Option<u64>,
}

impl Routine for HandoffRoutine {
    type Output = Result<Outcome, HandoffError>;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<Self::Output, Stop> {
        let behaviour = Behaviour::Clean;
        let (items, live, consumer) = (black_box(self.items), &self.live, Consumer::Sum);
        Ok(match instruments {
            Instruments::Timed => {
                let job = Job { input: &items, work: 0, behaviour: &behaviour, consumer, meter: NoMeter, live };
                black_box(self.prepared.run(black_box(&job), go))
            }
            Instruments::Accounting(meter) => {
                let job = Job { input: &items, work: 0, behaviour: &behaviour, consumer, meter: meter.clone(), live };
                black_box(self.prepared.run_metered(black_box(&job), go))
            }
        })
    }

    fn items(&self, _: &Self::Output) -> u64 {
        self.items
    }

    fn finish(
        &mut self,
        iteration: Iteration,
        output: Self::Output,
        window: Window<'_>,
    ) -> Result<IterationData, Stop> {
        let (items, reference) = (self.items, self.reference);
        match output {
            Ok(Outcome::Sum { sum, count, first_disorder: None }) if sum == reference && count == Some(items) => {}
            other => {
                let got = match other {
                    Ok(outcome) => format!("{outcome:?}"),
                    Err(err) => format!("error: {err}"),
                };
                let detail = format!(
                    "iteration {}: got {got}, reference sum {reference} of {items} items in order",
                    iteration.index
                );
                return Err(Stop::failed("checksum", detail));
            }
        }
        let mut data = IterationData::from_window(window);
        // One channel: a message crosses it once, so one hand-off per message (none for the loop).
        let hand_offs = self.channel.map_or(0.0, |(items, _)| 1.0 / items.max(1) as f64);
        data.timing.insert(measure::cost_model::HAND_OFFS_METRIC.to_string(), hand_offs);
        if let Some((items, messages)) = self.channel {
            data.timing.insert("items_per_message".to_string(), items as f64);
            data.timing.insert("messages_per_channel".to_string(), messages as f64);
        }
        if let Some(measurement) = window.accounting() {
            if let Some(max) = measurement.max_outstanding {
                self.measured_max = Some(self.measured_max.map_or(max, |m| m.max(max)));
                if self.keep_series {
                    data.series.insert("outstanding".to_string(), measurement.outstanding_series.clone());
                }
            }
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let mut checks = vec![Check::new(
            "checksum",
            true,
            format!(
                "{measured} timed and {accounted} accounting iterations (and the warm-ups) of {} items, each summing \
                 to {} with every item in order",
                self.items, self.reference
            ),
        )];
        if let Some(bound) = self.bound {
            checks.push(bounded_outstanding_check(self.measured_max, bound, accounted, "items"));
        }
        checks
    }
}
