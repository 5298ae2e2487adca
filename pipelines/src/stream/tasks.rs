//! A stage-per-task pipeline on a tokio runtime: every stage is a spawned task, stages are joined by bounded
//! `tokio::sync::mpsc` channels, and the consumer is whatever task awaits the last receiver.
//!
//! Termination follows the channels as in [`crate::blocking::Pipeline`]: a stage whose upstream is gone drains
//! and ends; a stage whose downstream is gone ends at its next send. [`TaskStages::join`] awaits every stage and
//! reports the first, in pipeline order, that returned an error or panicked.
//!
//! ```
//! use pipelines::stream::TaskPipeline;
//!
//! let rt = tokio::runtime::Runtime::new().expect("runtime");
//! let sum = rt.block_on(async {
//!     let pipeline = TaskPipeline::<u64, String>::source(&tokio::runtime::Handle::current(), None, 16, "source", |tx| async move {
//!         for x in 0..1000 {
//!             if tx.send(x).await.is_err() {
//!                 break;
//!             }
//!         }
//!         Ok(())
//!     })
//!     .stage(16, "double", |x| Ok(Some(x * 2)));
//!     let (mut rx, stages) = pipeline.into_parts();
//!     let mut sum = 0;
//!     while let Some(x) = rx.recv().await {
//!         sum += x;
//!     }
//!     stages.join().await.map(|()| sum)
//! });
//! assert_eq!(sum.ok(), Some(999_000));
//! ```

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::panic::panic_message;
use crate::{LiveStages, PipelineError};

/// A pipeline whose stage tasks are already running; `T` is what its last stage sends, `E` the stages' error.
pub struct TaskPipeline<T, E> {
    handle: Handle,
    rx: mpsc::Receiver<T>,
    stages: TaskStages<E>,
    live: Option<Arc<LiveStages>>,
}

/// The running stage tasks of a pipeline, to await once the consumer is done.
pub struct TaskStages<E> {
    tasks: Vec<(&'static str, JoinHandle<Result<(), E>>)>,
}

impl<T, E> fmt::Debug for TaskPipeline<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskPipeline").field("stages", &self.stages).finish_non_exhaustive()
    }
}

impl<E> fmt::Debug for TaskStages<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tasks.iter().map(|(name, _)| *name).collect();
        f.debug_struct("TaskStages").field("stages", &names).finish()
    }
}

impl<T, E> TaskPipeline<T, E>
where
    T: Send + 'static,
    E: Send + 'static + fmt::Debug + fmt::Display,
{
    /// Start a pipeline on `handle`'s runtime with a source task named `name` running `produce(tx)`, where `tx`
    /// sends into a channel of `capacity` messages. Every stage task holds a guard of `live`, if given.
    pub fn source<P, Fut>(
        handle: &Handle,
        live: Option<Arc<LiveStages>>,
        capacity: usize,
        name: &'static str,
        produce: P,
    ) -> Self
    where
        P: FnOnce(mpsc::Sender<T>) -> Fut,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let task = spawn(handle, &live, produce(tx));
        TaskPipeline { handle: handle.clone(), rx, stages: TaskStages { tasks: vec![(name, task)] }, live }
    }

    /// Add a stage task named `name` that applies `step` to every message and sends what it returns into a new
    /// channel of `capacity` messages.
    pub fn stage<U, S>(self, capacity: usize, name: &'static str, mut step: S) -> TaskPipeline<U, E>
    where
        U: Send + 'static,
        S: FnMut(T) -> Result<Option<U>, E> + Send + 'static,
    {
        let TaskPipeline { handle, mut rx, mut stages, live } = self;
        let (tx, next_rx) = mpsc::channel(capacity.max(1));
        let task = spawn(&handle, &live, async move {
            while let Some(message) = rx.recv().await {
                if let Some(out) = step(message)? {
                    if tx.send(out).await.is_err() {
                        break;
                    }
                }
            }
            Ok(())
        });
        stages.tasks.push((name, task));
        TaskPipeline { handle, rx: next_rx, stages, live }
    }

    /// The last stage's receiver, for the consumer, and the stages to join after it. Drop the receiver before
    /// joining if the consumer stops early, or upstream stages wait forever on a full channel.
    pub fn into_parts(self) -> (mpsc::Receiver<T>, TaskStages<E>) {
        (self.rx, self.stages)
    }

    /// Spawn the consumer as a task too, counted in the pipeline's live stages: `consume` gets the last stage's
    /// receiver (and drops it when it returns, which stops the stages upstream). Returns the consumer's handle and
    /// the stages to join after it.
    pub fn consume_in_task<R, C, Fut>(self, consume: C) -> (JoinHandle<R>, TaskStages<E>)
    where
        R: Send + 'static,
        C: FnOnce(mpsc::Receiver<T>) -> Fut,
        Fut: Future<Output = R> + Send + 'static,
    {
        let TaskPipeline { handle, rx, stages, live } = self;
        let guard = live.as_ref().map(LiveStages::enter);
        let body = consume(rx);
        let consumer = handle.spawn(async move {
            let _guard = guard;
            body.await
        });
        (consumer, stages)
    }
}

impl<E: fmt::Debug + fmt::Display> TaskStages<E> {
    /// Await every stage task; the first failure in pipeline order, if any.
    pub async fn join(self) -> Result<(), PipelineError<E>> {
        let mut failure = None;
        for (name, task) in self.tasks {
            let err = match task.await {
                Ok(Ok(())) => continue,
                Ok(Err(error)) => PipelineError::Stage { stage: name, error },
                Err(join) if join.is_panic() => {
                    PipelineError::Panicked { stage: name, message: panic_message(&*join.into_panic()) }
                }
                Err(_) => PipelineError::Cancelled { stage: name },
            };
            failure.get_or_insert(err);
        }
        match failure {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }
}

fn spawn<E: Send + 'static>(
    handle: &Handle,
    live: &Option<Arc<LiveStages>>,
    body: impl Future<Output = Result<(), E>> + Send + 'static,
) -> JoinHandle<Result<(), E>> {
    let guard = live.as_ref().map(LiveStages::enter);
    handle.spawn(async move {
        let _guard = guard;
        body.await
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counting_source(handle: &Handle, live: &Arc<LiveStages>) -> TaskPipeline<u64, String> {
        TaskPipeline::source(handle, Some(live.clone()), 4, "source", |tx| async move {
            for x in 0..100_000 {
                if tx.send(x).await.is_err() {
                    break;
                }
            }
            Ok(())
        })
    }

    #[test]
    fn a_stage_error_ends_the_pipeline_with_that_error() -> std::io::Result<()> {
        let rt = crate::stream::runtime::multi_thread()?;
        let live = Arc::new(LiveStages::new());
        let result = rt.block_on(async {
            let pipeline = counting_source(&Handle::current(), &live).stage(4, "fails", |x| {
                if x == 50 {
                    Err(format!("bad {x}"))
                } else {
                    Ok(Some(x))
                }
            });
            let (mut rx, stages) = pipeline.into_parts();
            let mut seen = 0;
            while rx.recv().await.is_some() {
                seen += 1;
            }
            stages.join().await.map(|()| seen)
        });
        assert!(matches!(result, Err(PipelineError::Stage { stage: "fails", ref error }) if error == "bad 50"));
        assert_eq!(live.current(), 0);
        Ok(())
    }

    #[test]
    fn dropping_the_receiver_ends_every_stage() -> std::io::Result<()> {
        let rt = crate::stream::runtime::multi_thread()?;
        let live = Arc::new(LiveStages::new());
        let taken = rt.block_on(async {
            let (mut rx, stages) =
                counting_source(&Handle::current(), &live).stage(4, "id", |x| Ok(Some(x))).into_parts();
            let mut taken = Vec::new();
            while let Some(x) = rx.recv().await {
                taken.push(x);
                if taken.len() == 3 {
                    break;
                }
            }
            drop(rx);
            stages.join().await.map(|()| taken)
        });
        assert_eq!(taken.ok(), Some(vec![0, 1, 2]));
        assert_eq!(live.current(), 0);
        Ok(())
    }
}
