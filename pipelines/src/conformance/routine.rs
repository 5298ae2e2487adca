//! [`Prepared`]: an items contestant ready to run a job, plain in timed iterations and metered in accounting
//! iterations and the checks; and [`ItemsRoutine`], the harness's routine over one, every run held to the sum the
//! scenario expects ([`Expected`]).

use std::fmt;
use std::hint::black_box;
use std::sync::Arc;

use measure::harness::{Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::meter::{GaugeMeter, NoMeter};
use measure::probe::bounded_outstanding_check;
use measure::scenario::{ChartKind, ChartSpec, ParamSpec, SeriesLine, SeriesRole, TrialSink};
use measure::summary::Check;

use super::{Behaviour, Consume, Input, Job, Outcome};
use crate::LiveStages;

/// An items contestant with what a long-lived application builds once (runtime, pool) built: it runs jobs of
/// `In` with faults at sites `S`, failing with `E`.
pub trait Prepared<In, S, E>: Send + fmt::Debug {
    /// Run one job to the end, calling `go` once its threads and tasks are spawned and right before the first item
    /// moves: every thread and task it started has ended when this returns, except that tokio may release a
    /// finished task's slot a moment later (see [`Prepared::alive_tasks`]). The timed instantiation: the meter is
    /// [`NoMeter`] and compiles away.
    fn run(&self, job: &Job<'_, In, S, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, E>;

    /// [`Prepared::run`] counting outstanding items into the job's gauge (accounting iterations and conformance
    /// checks); the same generic code, instantiated with [`GaugeMeter`].
    fn run_metered(&self, job: &Job<'_, In, S, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, E>;

    /// Tasks alive on its tokio runtime (`RuntimeMetrics::num_alive_tasks`); `None` without a runtime that spawns
    /// tasks.
    fn alive_tasks(&self) -> Option<usize> {
        None
    }
}

/// What every timed run must return, and how the `checksum` check words it.
#[derive(Debug, Clone)]
pub struct Expected {
    /// The wrapping sum of the items the consumer receives.
    pub sum: u64,
    /// The items the consumer must have counted, where it counts them.
    pub count: Option<u64>,
    /// Whether the consumer must have seen every item in order.
    pub in_order: bool,
    /// The reference, as a failed iteration's detail names it (`reference 1234`).
    pub reference: String,
    /// What every iteration returned, after `… accounting iterations (and the warm-ups)` in the passed check.
    pub passed: String,
}

impl Expected {
    fn holds(&self, outcome: &Outcome) -> bool {
        match *outcome {
            Outcome::Sum { sum, count, first_disorder } => {
                sum == self.sum
                    && self.count.is_none_or(|n| count == Some(n))
                    && (!self.in_order || first_disorder.is_none())
            }
            Outcome::Items(_) => false,
        }
    }
}

/// A prepared items contestant as the harness runs it: a clean summing job of `input` at `work`, every run held to
/// [`Expected`]; in accounting iterations the gauge's high-water mark is held to the bound, and the channel's
/// sizes and the outstanding series are recorded.
#[derive(Debug)]
pub struct ItemsRoutine<In, S, E> {
    prepared: Box<dyn Prepared<In, S, E>>,
    input: In,
    work: u32,
    expected: Expected,
    bound: Option<u64>,
    channel: Option<(usize, usize)>,
    /// Channels an item crosses between the source and the consumer (1 unless told otherwise).
    channels: u64,
    keep_series: bool,
    live: Arc<LiveStages>,
    /// The highest exact high-water mark of outstanding items over the accounting iterations.
    measured_max: Option<u64>,
}

impl<In, S, E> ItemsRoutine<In, S, E> {
    /// `prepared` running `input` at `work`, held to `expected`, its outstanding series kept; no bound, no channel.
    pub fn new(prepared: Box<dyn Prepared<In, S, E>>, input: In, work: u32, expected: Expected) -> Self {
        let (bound, channel, keep_series, live) = (None, None, true, Arc::new(LiveStages::new()));
        let channels = 1;
        ItemsRoutine {
            prepared,
            input,
            work,
            expected,
            bound,
            channel,
            channels,
            keep_series,
            live,
            measured_max: None,
        }
    }

    /// Hold the accounting iterations' high-water mark to `bound` (none: the contestant hands nothing off).
    pub fn bound(self, bound: Option<u64>) -> Self {
        ItemsRoutine { bound, ..self }
    }

    /// Record the items per message and messages per channel of a contestant with channels.
    pub fn channel(self, channel: Option<(usize, usize)>) -> Self {
        ItemsRoutine { channel, ..self }
    }

    /// The channels an item crosses between the source and the consumer, for the cost model's hand-offs per item.
    pub fn channels(self, channels: u64) -> Self {
        ItemsRoutine { channels, ..self }
    }

    /// Whether to record the outstanding series of the accounting iterations.
    pub fn keep_series(self, keep_series: bool) -> Self {
        ItemsRoutine { keep_series, ..self }
    }
}

impl<In: Input, S, E: fmt::Display> Routine for ItemsRoutine<In, S, E> {
    type Output = Result<Outcome, E>;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<Self::Output, Stop> {
        let behaviour = Behaviour::Clean;
        let (input, work, live, consumer) = (black_box(&self.input), black_box(self.work), &self.live, Consume::Sum);
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
        self.input.items()
    }

    fn finish(&mut self, iteration: Iteration, out: Self::Output, window: Window<'_>) -> Result<IterationData, Stop> {
        let got = match out {
            Ok(outcome) if self.expected.holds(&outcome) => None,
            Ok(outcome) => Some(format!("{outcome:?}")),
            Err(err) => Some(format!("error: {err}")),
        };
        if let Some(got) = got {
            let detail = format!("iteration {}: got {got}, {}", iteration.index, self.expected.reference);
            return Err(Stop::failed("checksum", detail));
        }
        let mut data = IterationData::from_window(window);
        // Messages handed across threads per item, for the cost model: each channel an item crosses carries it
        // once per message (none without a channel).
        let hand_offs = self.channel.map_or(0.0, |(items, _)| self.channels as f64 / items.max(1) as f64);
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
        let checksum = every_iteration_passed("checksum", measured, accounted, &self.expected.passed);
        let bounded = self.bound.map(|bound| bounded_outstanding_check(self.measured_max, bound, accounted, "items"));
        [checksum].into_iter().chain(bounded).collect()
    }
}

/// The passed check `check` that closes a trial whose `measured` timed and `accounted` accounting iterations (and
/// warm-ups) each returned what they should, `what` saying what (after `… (and the warm-ups)`).
pub fn every_iteration_passed(check: &str, measured: u32, accounted: u32, what: &str) -> Check {
    Check::new(check, true, format!("{measured} timed and {accounted} accounting iterations (and the warm-ups){what}"))
}

/// The chart of the outstanding series an [`ItemsRoutine`] records in its first accounting iteration: items in
/// flight over time, titled `title`.
pub fn outstanding_chart(title: &'static str) -> ChartSpec {
    const IN_FLIGHT: SeriesLine =
        SeriesLine { series: "outstanding", words: "items in flight", role: SeriesRole::Measured };
    let (id, metric, unit, kind) =
        ("outstanding", "max_outstanding", "items", ChartKind::Series { series: &[IN_FLIGHT] });
    ChartSpec { id, title, metric, unit, kind, log_scale: false, references: &[] }
}

/// The `batch` parameter of an items scenario whose contestants batch their messages.
pub fn batch_param() -> ParamSpec {
    ParamSpec::single("batch", "Most items per message for the batched contestants.", 256, 256, 1, 1_000_000)
}

/// The `messages` parameter of an items scenario whose contestants batch their messages: the batch is
/// `capacity / messages` items, at most `batch`.
pub fn messages_param() -> ParamSpec {
    let what = "Messages a batched channel holds, room to run ahead: a batch is capacity/messages items (at most \
                `batch`).";
    ParamSpec::single("messages", what, 16, 16, 1, 1_000_000)
}

/// What `prepare` built; if it failed, the failed check `check` (`could not prepare: …`) goes to `sink` instead
/// and the trial ends there.
pub fn prepared_or_failed<P, E: fmt::Display>(
    prepared: Result<P, E>,
    check: &str,
    sink: &mut dyn TrialSink,
) -> Option<P> {
    match prepared {
        Ok(prepared) => Some(prepared),
        Err(err) => {
            sink.check(Check::new(check, false, format!("could not prepare: {err}")));
            None
        }
    }
}
