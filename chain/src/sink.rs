//! The consumer end shared by every contestant that consumes on one thread: a [`Sink`] per [`Consumer`], and
//! [`dispatch`], which instantiates a contestant's generic run for the job's behaviour and consumer, so that
//! the measured instantiation (clean stages, summing sink) is monomorphic and carries no test hooks.

use std::fmt;
use std::ops::ControlFlow;
use std::pin::pin;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use measure::meter::{GaugeMeter, Meter, NoMeter};

use crate::job::{Behaviour, ChainError, Consumer, Job, Outcome, StageName};
use crate::ops::{Hook, Stages};
use pipelines::cancel::CancellableSink;
use pipelines::conformance::Prepared;
use pipelines::sink::TakeSink;

/// A chain sink: a [`pipelines::sink::Sink`] returning the chain's [`Outcome`] (implemented for every such sink).
/// `Send + 'static` so a consumer task can own it.
pub(crate) trait Sink: pipelines::sink::Sink<Outcome> + Send + 'static {}

impl<S: pipelines::sink::Sink<Outcome> + Send + 'static> Sink for S {}

/// Wrapping sum of every item.
pub(crate) struct SumSink(u64);

impl pipelines::sink::Sink<Outcome> for SumSink {
    #[inline(always)]
    fn push(&mut self, x: u64) -> ControlFlow<()> {
        self.0 = self.0.wrapping_add(x);
        ControlFlow::Continue(())
    }

    #[inline]
    fn push_batch(&mut self, batch: Vec<u64>) -> ControlFlow<()> {
        self.0 = batch.iter().fold(self.0, |acc, &x| acc.wrapping_add(x));
        ControlFlow::Continue(())
    }

    fn finish(self) -> Outcome {
        Outcome::sum(self.0)
    }
}

/// One run as a contestant's generic code receives it: the job, `go` (to call once set up and right before the
/// first item moves), the stages and the sink.
pub(crate) struct Run<'a, 'j, M, H, S> {
    /// The job: input, work, meter, live stages.
    pub(crate) job: &'a Job<'j, M>,
    /// Starts the clock.
    pub(crate) go: &'a mut dyn FnMut(),
    /// The three stages with their hooks.
    pub(crate) stages: Stages<H>,
    /// Where the consumer puts its items.
    pub(crate) sink: S,
}

/// A contestant whose consumer runs on one thread, generic over stage hooks and sink.
pub(crate) trait SinkRun {
    /// Run the job's input through the stages into the sink, calling `go` once set up and right before the first
    /// item moves.
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError>;

    /// Tasks alive on its tokio runtime, as [`Prepared::alive_tasks`] reports them.
    fn alive_tasks(&self) -> Option<usize> {
        None
    }
}

/// Run `job` on `contestant` with the stages and sink the job asks for.
pub(crate) fn dispatch<P: SinkRun, M: Meter>(
    contestant: &P,
    job: &Job<'_, M>,
    go: &mut dyn FnMut(),
) -> Result<Outcome, ChainError> {
    match job.behaviour {
        Behaviour::Clean => with_sink(contestant, job, go, Stages::clean(job.work)),
        Behaviour::Instrumented(instruments) => {
            with_sink(contestant, job, go, Stages::instrumented(job.work, instruments))
        }
    }
}

/// A contestant whose consumer runs on one thread, ready to run: every job goes through [`dispatch`].
#[derive(Debug)]
pub(crate) struct Dispatched<T>(pub(crate) T);

impl<T: SinkRun + Send + fmt::Debug> Prepared<Arc<[u64]>, StageName, ChainError> for Dispatched<T> {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        dispatch(&self.0, job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        dispatch(&self.0, job, go)
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.0.alive_tasks()
    }
}

fn with_sink<P: SinkRun, M: Meter, H: Hook>(
    contestant: &P,
    job: &Job<'_, M>,
    go: &mut dyn FnMut(),
    stages: Stages<H>,
) -> Result<Outcome, ChainError> {
    match job.consumer {
        Consumer::Sum => contestant.run_with(Run { job, go, stages, sink: SumSink(0) }),
        Consumer::Collect => contestant.run_with(Run { job, go, stages, sink: TakeSink::all() }),
        Consumer::Take(k) => contestant.run_with(Run { job, go, stages, sink: TakeSink::first(k) }),
        Consumer::Cancellable => match job.behaviour.cancel() {
            Some(cancel) => {
                contestant.run_with(Run { job, go, stages, sink: CancellableSink::new(Arc::clone(cancel)) })
            }
            None => contestant.run_with(Run { job, go, stages, sink: TakeSink::all() }),
        },
    }
}

/// Feed an iterator of stage results into `sink` until it ends, fails or the sink has enough: one internal
/// `try_fold` that carries the sink by value (so the measured sum stays in a register).
#[inline]
pub(crate) fn drain_iter<E, S: Sink>(mut items: impl Iterator<Item = Result<u64, E>>, sink: S) -> Result<Outcome, E> {
    let flow = items.try_fold(sink, |mut sink, item| match item {
        Ok(z) => match sink.push(z) {
            ControlFlow::Continue(()) => ControlFlow::Continue(sink),
            ControlFlow::Break(()) => ControlFlow::Break(Ok(sink)),
        },
        Err(e) => ControlFlow::Break(Err(e)),
    });
    match flow {
        ControlFlow::Continue(sink) | ControlFlow::Break(Ok(sink)) => Ok(sink.finish()),
        ControlFlow::Break(Err(e)) => Err(e),
    }
}

/// Feed a stream of stage results into `sink` until it ends, fails or the sink has enough (the stream is
/// dropped on return, which is what stops its source).
#[inline]
pub(crate) async fn drain_stream<E, S: Sink>(
    items: impl Stream<Item = Result<u64, E>>,
    mut sink: S,
) -> Result<Outcome, E> {
    let mut items = pin!(items);
    while let Some(item) = items.next().await {
        if sink.push(item?).is_break() {
            break;
        }
    }
    Ok(sink.finish())
}
