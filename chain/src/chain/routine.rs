//! One trial of the chain scenario in its own process: conformance checks, then the harness's loop
//! ([`measure::harness::run`]) over a [`ChainRoutine`], every run checked against the reference sum.

use std::hint::black_box;
use std::sync::Arc;

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::meter::NoMeter;
use measure::probe::bounded_outstanding_check;
use measure::record::TrialRequest;
use measure::scenario::{TrialError, TrialSink};
use measure::summary::Check;

use super::conformance;
use super::contestants::{self, PreparedChain};
use crate::job::{Behaviour, ChainConfig, ChainError, Consumer, Job, Outcome};
use crate::ops;
use pipelines::LiveStages;

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
    let mut routine = ChainRoutine {
        prepared,
        input,
        work,
        reference,
        bound: contestant.bound(&config),
        channel: contestant.layout().map(|(_, batched)| config.message_sizes(batched)),
        hand_offs: contestant.layout().map_or(0.0, |(layout, batched)| {
            layout.channels() as f64 / config.items_per_message(batched).max(1) as f64
        }),
        live: Arc::new(LiveStages::new()),
        measured_max: None,
    };
    harness::run(&mut routine, request, sink);
    Ok(())
}

/// A prepared chain contestant as the harness runs it: the input, the reference sum, and the bound its accounting
/// iterations are held to.
#[derive(Debug)]
struct ChainRoutine {
    prepared: Box<dyn PreparedChain>,
    input: Arc<[u64]>,
    work: u32,
    reference: u64,
    bound: Option<u64>,
    /// Items per message and messages per channel, for contestants with channels.
    channel: Option<(usize, usize)>,
    /// Messages handed across threads per item: the channels an item crosses over the items per message (0
    /// without channels), for the cost model ([`measure::cost_model::HAND_OFFS_METRIC`]).
    hand_offs: f64,
    live: Arc<LiveStages>,
    /// The highest exact high-water mark of outstanding items over the accounting iterations.
    measured_max: Option<u64>,
}

impl Routine for ChainRoutine {
    type Output = Result<Outcome, ChainError>;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<Self::Output, Stop> {
        let behaviour = Behaviour::Clean;
        let (input, work, live) = (&self.input, black_box(self.work), &self.live);
        let consumer = Consumer::Sum;
        Ok(match instruments {
            Instruments::Timed => {
                let job = Job { input, work, behaviour: &behaviour, consumer, meter: NoMeter, live };
                black_box(self.prepared.run(black_box(&job), go))
            }
            Instruments::Accounting(meter) => {
                let job = Job { input, work, behaviour: &behaviour, consumer, meter: meter.clone(), live };
                black_box(self.prepared.run_metered(black_box(&job), go))
            }
        })
    }

    fn items(&self, _: &Self::Output) -> u64 {
        self.input.len() as u64
    }

    fn finish(
        &mut self,
        iteration: Iteration,
        output: Self::Output,
        window: Window<'_>,
    ) -> Result<IterationData, Stop> {
        match output {
            Ok(Outcome::Sum { sum, .. }) if sum == self.reference => {}
            other => {
                let got = match other {
                    Ok(outcome) => format!("{outcome:?}"),
                    Err(err) => format!("error: {err}"),
                };
                let detail = format!("iteration {}: got {got}, reference {}", iteration.index, self.reference);
                return Err(Stop::failed("checksum", detail));
            }
        }
        let mut data = IterationData::from_window(window);
        data.timing.insert(measure::cost_model::HAND_OFFS_METRIC.to_string(), self.hand_offs);
        if let Some((items, messages)) = self.channel {
            data.timing.insert("items_per_message".to_string(), items as f64);
            data.timing.insert("messages_per_channel".to_string(), messages as f64);
        }
        if let Some(measurement) = window.accounting() {
            if let Some(max) = measurement.max_outstanding {
                self.measured_max = Some(self.measured_max.map_or(max, |m| m.max(max)));
                data.series.insert("outstanding".to_string(), measurement.outstanding_series.clone());
            }
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let mut checks = vec![Check::new(
            "checksum",
            true,
            format!(
                "{measured} timed and {accounted} accounting iterations (and the warm-ups), all equal to reference {}",
                self.reference
            ),
        )];
        if let Some(bound) = self.bound {
            checks.push(bounded_outstanding_check(self.measured_max, bound, accounted, "items"));
        }
        checks
    }
}
