//! `stream-tokio-tasks[-fused][-batched]`: tokio tasks on a multi-thread runtime joined by bounded `tokio::sync::mpsc` channels, the consumer a task too; one task per stage, or fused into two busy tasks (source+map1+filter | map2+sum); in order.
//!
//! Every task, the consumer included, runs on the runtime's workers (one per core): the consumer is not the
//! `block_on` future on the calling thread, which the OS would have to wake each time its channel empties. The
//! stage tasks are spawned before `go`, and the source task holds on a oneshot until it is sent right after
//! `go`, so spawning stays out of the timed window as the blocking pipelines' thread creation does (the tasks'
//! first polls fall inside it).
//!
//! Batches are `Vec<u64>` messages, as in the blocking batched contestants, rather than `recv_many` on a
//! channel of items: `recv_many` batches only the receiving side, while every item would still cost a send
//! (a semaphore permit and a slot); a `Vec` per message amortises both ends and keeps the channels' item
//! capacity equal across contestants.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};
use tokio::runtime::{Handle, Runtime};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::{channel_bound, message_words, piped_name, Chain, ChainContestant, Contestant, Layout, PreparedChain};
use crate::job::{ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Message, Stages};
use crate::sink::{Dispatched, Run, Sink, SinkRun};
use pipelines::stream::{runtime, TaskPipeline, TaskStages};
use pipelines::LiveStages;

/// Stages as tasks, one item or one batch per message.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokioTasks {
    batched: bool,
    layout: Layout,
}

impl TokioTasks {
    pub(crate) fn new(layout: Layout, batched: bool) -> Self {
        TokioTasks { batched, layout }
    }
}

/// The multi-thread runtime, built once per trial, and the sizing.
#[derive(Debug)]
struct TasksRun {
    runtime: Runtime,
    config: ChainConfig,
    batched: bool,
    layout: Layout,
}

impl Contestant<Chain> for TokioTasks {
    fn info(&self) -> ContestantInfo {
        let shape = match self.layout {
            Layout::Staged => {
                "one tokio task per stage (source, map1, filter, map2) and a consumer task that sums, 5 busy tasks on \
                 a multi-thread runtime with one worker per core, joined by 4 bounded tokio::sync::mpsc channels"
            }
            Layout::Fused => {
                "two busy tokio tasks on a multi-thread runtime with one worker per core: source+map1+filter in one \
                 task, map2+sum in the consumer task, joined by one bounded tokio::sync::mpsc channel"
            }
        };
        let messages = message_words(self.batched);
        let description = format!("{shape}, {messages}; the runtime is built once per trial; in order");
        let name = piped_name("stream-tokio-tasks", self.layout, self.batched);
        ContestantInfo::new(name, Family::Stream, description)
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        self.layout().map(|(layout, batched)| channel_bound(config, layout, batched))
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        let runtime = runtime::multi_thread()
            .map_err(|e| ChainError::Prepare { contestant: self.info().name, message: e.to_string() })?;
        Ok(Box::new(Dispatched(TasksRun { runtime, config: *config, batched: self.batched, layout: self.layout })))
    }
}

impl ChainContestant for TokioTasks {
    fn layout(&self) -> Option<(Layout, bool)> {
        Some((self.layout, self.batched))
    }
}

impl SinkRun for TasksRun {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        match (self.layout, self.batched) {
            (Layout::Staged, false) => self.runtime.block_on(self.staged::<u64, M, H, S>(run)),
            (Layout::Staged, true) => self.runtime.block_on(self.staged::<Vec<u64>, M, H, S>(run)),
            (Layout::Fused, false) => self.runtime.block_on(self.fused::<u64, M, H, S>(run)),
            (Layout::Fused, true) => self.runtime.block_on(self.fused::<Vec<u64>, M, H, S>(run)),
        }
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

/// Call `go`, release the held source through `start`, await the consumer task, then join the stage tasks:
/// upstream first, since a stage failure explains a consumer that ended early. A consumer task that did not
/// return panicked (a stage fault in map2, for the fused layout) or was cancelled.
async fn release_and_join<R, E>(
    go: &mut dyn FnMut(),
    start: oneshot::Sender<()>,
    consumer: JoinHandle<R>,
    stages: TaskStages<E>,
) -> Result<R, ChainError>
where
    E: Into<ChainError> + fmt::Debug + fmt::Display,
{
    go();
    // The source task holds the receiver until this send: it cannot have gone.
    let _ = start.send(());
    let consumed = consumer.await;
    stages.join().await.map_err(ChainError::from_pipeline)?;
    consumed.map_err(|join| {
        if join.is_panic() {
            ChainError::from_panic("consumer", &*join.into_panic())
        } else {
            ChainError::Cancelled { stage: "consumer".to_string() }
        }
    })
}

/// A task pipeline on the current runtime whose source task, `name`, holds until the returned sender fires (right
/// after `go`, so spawning stays out of the timed window), then runs `produce`.
fn held_source<T, E, P, Fut>(
    live: &Arc<LiveStages>,
    cap: usize,
    name: &'static str,
    produce: P,
) -> (oneshot::Sender<()>, TaskPipeline<T, E>)
where
    T: Send + 'static,
    E: Send + 'static + fmt::Debug + fmt::Display,
    P: FnOnce(mpsc::Sender<T>) -> Fut,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
{
    let (start, held) = oneshot::channel::<()>();
    let pipeline = TaskPipeline::source(&Handle::current(), Some(live.clone()), cap, name, |tx| {
        let produce = produce(tx);
        async move {
            if held.await.is_err() {
                return Ok(());
            }
            produce.await
        }
    });
    (start, pipeline)
}

impl TasksRun {
    /// A task per stage and a consumer task, `P` per message.
    async fn staged<P: Message, M: Meter, H: Hook, S: Sink>(
        &self,
        run: Run<'_, '_, M, H, S>,
    ) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let (input, meter) = (Arc::clone(job.input), job.meter.clone());
        let (batch, cap) = self.config.message_sizes(P::BATCHED);
        let (source_meter, filter_meter) = (meter.clone(), meter.clone());
        let (start, source) = held_source::<P, H::Error, _, _>(job.live, cap, "source", |tx| async move {
            for m in P::split(&input, batch) {
                source_meter.admit(m.items());
                if tx.send(m).await.is_err() {
                    break;
                }
            }
            Ok(())
        });
        let pipeline = source
            .stage(cap, "map1", move |m: P| m.map1(&map1).map(Some))
            .stage(cap, "filter", move |m: P| m.filter(&filter, &filter_meter))
            .stage(cap, "map2", move |m: P| m.map2(&map2).map(Some));
        let (consumer, stages) = pipeline.consume_in_task(move |mut rx| async move {
            while let Some(m) = rx.recv().await {
                meter.leave(m.items());
                if m.deliver(&mut sink).is_break() {
                    break;
                }
            }
            sink.finish()
        });
        release_and_join(go, start, consumer, stages).await
    }

    /// Source+map1+filter in one task, map2+sum in the consumer task, `P` per message.
    async fn fused<P: Message, M: Meter, H: Hook, S: Sink>(
        &self,
        run: Run<'_, '_, M, H, S>,
    ) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let (input, meter) = (Arc::clone(job.input), job.meter.clone());
        let (batch, cap) = self.config.message_sizes(P::BATCHED);
        let source_meter = meter.clone();
        let (start, pipeline) =
            held_source::<P, H::Error, _, _>(job.live, cap, "source+map1+filter", |tx| async move {
                for m in P::split(&input, batch) {
                    let Some(m) = m.map1(&map1)?.keep(&filter)? else {
                        continue;
                    };
                    source_meter.admit(m.items());
                    if tx.send(m).await.is_err() {
                        break;
                    }
                }
                Ok(())
            });
        let (consumer, stages) = pipeline.consume_in_task(move |mut rx| async move {
            while let Some(m) = rx.recv().await {
                meter.leave(m.items());
                if m.map2(&map2)?.deliver(&mut sink).is_break() {
                    break;
                }
            }
            Ok::<Outcome, H::Error>(sink.finish())
        });
        release_and_join(go, start, consumer, stages).await?.map_err(Into::into)
    }
}
