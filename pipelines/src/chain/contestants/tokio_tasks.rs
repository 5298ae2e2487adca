//! `stream-tokio-tasks[-batched]`: one tokio task per stage on a multi-thread runtime, joined by bounded `tokio::sync::mpsc` channels; in order.
//!
//! The stage tasks are spawned before `go` and the source task holds on a oneshot until it is sent right after
//! `go`, so spawning stays out of the timed window as the blocking pipelines' thread creation does (the tasks'
//! first polls fall inside it).
//!
//! Batches are `Vec<u64>` messages, as in the blocking batched contestants, rather than `recv_many` on a
//! channel of items: `recv_many` batches only the receiving side, while every item would still cost a send
//! (a semaphore permit and a slot); a `Vec` per message amortises both ends and keeps the channels' item
//! capacity equal across contestants.

use std::sync::Arc;

use measure::meter::{GaugeMeter, Meter};
use measure::summary::{ContestantInfo, Family};
use tokio::runtime::{Handle, Runtime};
use tokio::sync::oneshot;

use super::{channel_bound, ChainContestant, PreparedChain};
use crate::chain::job::{ChainConfig, ChainError, Job, Outcome};
use crate::chain::ops::{Hook, Stages};
use crate::chain::sink::{dispatch, Sink, SinkRun};
use crate::stream::{runtime, TaskPipeline};

/// Stages as tasks, one item or one batch per message.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokioTasks {
    batched: bool,
}

impl TokioTasks {
    pub(crate) fn new(batched: bool) -> Self {
        TokioTasks { batched }
    }
}

/// The multi-thread runtime, built once per trial, and the sizing.
#[derive(Debug)]
struct TasksRun {
    runtime: Runtime,
    config: ChainConfig,
    batched: bool,
}

impl ChainContestant for TokioTasks {
    fn info(&self) -> ContestantInfo {
        let common = "one tokio task per stage (source, map1, filter, map2) spawned on a multi-thread runtime \
                      (default worker count) built once per trial, joined by bounded tokio::sync::mpsc channels";
        let (name, description) = if self.batched {
            (
                "stream-tokio-tasks-batched",
                format!(
                    "{common} carrying one Vec<u64> of `batch` (default 256) items per message, `capacity / batch` \
                     messages per channel (same items as unbatched; source allocates each Vec, maps rewrite it in \
                     place, the filter `retain`s, the consumer frees it); the block_on task receives and sums; \
                     in order"
                ),
            )
        } else {
            (
                "stream-tokio-tasks",
                format!(
                    "{common} of `capacity` (default 1024) messages, one item per message; the block_on task \
                     receives and sums; in order"
                ),
            )
        };
        ContestantInfo { name: name.into(), family: Family::Stream, description }
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        Some(channel_bound(config, if self.batched { config.batch } else { 1 }))
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<dyn PreparedChain>, ChainError> {
        let runtime = runtime::multi_thread()
            .map_err(|e| ChainError::Prepare { contestant: self.info().name, message: e.to_string() })?;
        Ok(Box::new(TasksRun { runtime, config: *config, batched: self.batched }))
    }
}

impl PreparedChain for TasksRun {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        dispatch(self, job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        dispatch(self, job, go)
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

impl SinkRun for TasksRun {
    fn run_with<M: Meter, H: Hook, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        stages: Stages<H>,
        sink: S,
    ) -> Result<Outcome, ChainError> {
        if self.batched {
            self.runtime.block_on(self.batches(job, go, stages, sink))
        } else {
            self.runtime.block_on(self.items(job, go, stages, sink))
        }
    }
}

impl TasksRun {
    async fn items<M: Meter, H: Hook, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        stages: Stages<H>,
        mut sink: S,
    ) -> Result<Outcome, ChainError> {
        let Stages { map1, filter, map2 } = stages;
        let (input, meter, cap) = (Arc::clone(job.input), job.meter.clone(), self.config.capacity);
        let (source_meter, filter_meter) = (meter.clone(), meter.clone());
        let (start, held) = oneshot::channel::<()>();
        let pipeline = TaskPipeline::<u64, H::Error>::source(
            &Handle::current(),
            Some(job.live.clone()),
            cap,
            "source",
            |tx| async move {
                if held.await.is_err() {
                    return Ok(());
                }
                for &x in input.iter() {
                    source_meter.admit(1);
                    if tx.send(x).await.is_err() {
                        break;
                    }
                }
                Ok(())
            },
        )
        .stage(cap, "map1", move |x| map1.apply(x).map(Some))
        .stage(cap, "filter", move |y| {
            if filter.test(y)? {
                Ok(Some(y))
            } else {
                filter_meter.leave(1);
                Ok(None)
            }
        })
        .stage(cap, "map2", move |y| map2.apply(y).map(Some));
        let (mut rx, stages) = pipeline.into_parts();
        go();
        // The receiver is gone only if the source task already ended, which it cannot before this send.
        let _ = start.send(());
        while let Some(z) = rx.recv().await {
            meter.leave(1);
            if sink.push(z).is_break() {
                break;
            }
        }
        drop(rx);
        stages.join().await.map_err(ChainError::from_pipeline)?;
        Ok(sink.finish())
    }

    async fn batches<M: Meter, H: Hook, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        stages: Stages<H>,
        mut sink: S,
    ) -> Result<Outcome, ChainError> {
        let Stages { map1, filter, map2 } = stages;
        let (input, meter) = (Arc::clone(job.input), job.meter.clone());
        let (batch, cap) = (self.config.batch.max(1), self.config.messages_per_channel(self.config.batch));
        let (source_meter, filter_meter) = (meter.clone(), meter.clone());
        let (start, held) = oneshot::channel::<()>();
        let pipeline = TaskPipeline::<Vec<u64>, H::Error>::source(
            &Handle::current(),
            Some(job.live.clone()),
            cap,
            "source",
            |tx| async move {
                if held.await.is_err() {
                    return Ok(());
                }
                for chunk in input.chunks(batch) {
                    source_meter.admit(chunk.len() as u64);
                    if tx.send(chunk.to_vec()).await.is_err() {
                        break;
                    }
                }
                Ok(())
            },
        )
        .stage(cap, "map1", move |mut b: Vec<u64>| {
            map1.apply_batch(&mut b)?;
            Ok(Some(b))
        })
        .stage(cap, "filter", move |mut b: Vec<u64>| {
            let before = b.len();
            filter.retain(&mut b)?;
            filter_meter.leave((before - b.len()) as u64);
            Ok((!b.is_empty()).then_some(b))
        })
        .stage(cap, "map2", move |mut b: Vec<u64>| {
            map2.apply_batch(&mut b)?;
            Ok(Some(b))
        });
        let (mut rx, stages) = pipeline.into_parts();
        go();
        // The receiver is gone only if the source task already ended, which it cannot before this send.
        let _ = start.send(());
        while let Some(b) = rx.recv().await {
            meter.leave(b.len() as u64);
            if sink.push_batch(b).is_break() {
                break;
            }
        }
        drop(rx);
        stages.join().await.map_err(ChainError::from_pipeline)?;
        Ok(sink.finish())
    }
}
