//! `stream-tokio-tasks[-batched]`: one tokio task per stage on a multi-thread runtime, joined by bounded `tokio::sync::mpsc` channels; in order.
//!
//! Batches are `Vec<u64>` messages, as in the blocking batched contestants, rather than `recv_many` on a
//! channel of items: `recv_many` batches only the receiving side, while every item would still cost a send
//! (a semaphore permit and a slot); a `Vec` per message amortises both ends and keeps the channels' item
//! capacity equal across contestants.

use std::sync::Arc;

use measure::summary::{ContestantInfo, Family};
use tokio::runtime::{Handle, Runtime};

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
    fn run(&self, job: &Job<'_>) -> Result<Outcome, ChainError> {
        dispatch(self, job)
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

impl SinkRun for TasksRun {
    fn run_with<H: Hook, S: Sink>(&self, job: &Job<'_>, stages: Stages<H>, sink: S) -> Result<Outcome, ChainError> {
        if self.batched {
            self.runtime.block_on(self.batches(job, stages, sink))
        } else {
            self.runtime.block_on(self.items(job, stages, sink))
        }
    }
}

impl TasksRun {
    async fn items<H: Hook, S: Sink>(
        &self,
        job: &Job<'_>,
        stages: Stages<H>,
        mut sink: S,
    ) -> Result<Outcome, ChainError> {
        let Stages { map1, filter, map2 } = stages;
        let (input, gauge, cap) = (Arc::clone(job.input), Arc::clone(job.gauge), self.config.capacity);
        let source_gauge = Arc::clone(&gauge);
        let filter_gauge = Arc::clone(&gauge);
        let pipeline = TaskPipeline::<u64, H::Error>::source(
            &Handle::current(),
            Some(job.live.clone()),
            cap,
            "source",
            |tx| async move {
                for &x in input.iter() {
                    source_gauge.admit(1);
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
                filter_gauge.leave(1);
                Ok(None)
            }
        })
        .stage(cap, "map2", move |y| map2.apply(y).map(Some));
        let (mut rx, stages) = pipeline.into_parts();
        while let Some(z) = rx.recv().await {
            gauge.leave(1);
            if sink.push(z).is_break() {
                break;
            }
        }
        drop(rx);
        stages.join().await.map_err(ChainError::from_pipeline)?;
        Ok(sink.finish())
    }

    async fn batches<H: Hook, S: Sink>(
        &self,
        job: &Job<'_>,
        stages: Stages<H>,
        mut sink: S,
    ) -> Result<Outcome, ChainError> {
        let Stages { map1, filter, map2 } = stages;
        let (input, gauge) = (Arc::clone(job.input), Arc::clone(job.gauge));
        let (batch, cap) = (self.config.batch.max(1), self.config.messages_per_channel(self.config.batch));
        let source_gauge = Arc::clone(&gauge);
        let filter_gauge = Arc::clone(&gauge);
        let pipeline = TaskPipeline::<Vec<u64>, H::Error>::source(
            &Handle::current(),
            Some(job.live.clone()),
            cap,
            "source",
            |tx| async move {
                for chunk in input.chunks(batch) {
                    source_gauge.admit(chunk.len() as u64);
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
            filter_gauge.leave((before - b.len()) as u64);
            Ok((!b.is_empty()).then_some(b))
        })
        .stage(cap, "map2", move |mut b: Vec<u64>| {
            map2.apply_batch(&mut b)?;
            Ok(Some(b))
        });
        let (mut rx, stages) = pipeline.into_parts();
        while let Some(b) = rx.recv().await {
            gauge.leave(b.len() as u64);
            if sink.push_batch(b).is_break() {
                break;
            }
        }
        drop(rx);
        stages.join().await.map_err(ChainError::from_pipeline)?;
        Ok(sink.finish())
    }
}
