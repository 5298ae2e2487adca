//! The stream family's request paths, on a tokio multi-thread runtime: one stream of requests with
//! `buffer_unordered` ([`buffer_unordered`]), and a task per stage behind bounded channels ([`stage_tasks`]).

use std::future::ready;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_stream::wrappers::ReceiverStream;

use super::{drain, Running};
use crate::config::ServiceConfig;
use crate::error::RunError;
use crate::requests::Requests;

/// A running stream service: its entry and every task it spawned for the run.
pub(super) struct Tasks<'a> {
    runtime: &'a Runtime,
    entry: Option<mpsc::Sender<(u64, u64)>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Running for Tasks<'_> {
    fn submit(&self, index: u64) -> Result<(), RunError> {
        self.entry.as_ref().ok_or(RunError::EntryRefused)?.try_send((index, index)).map_err(|_| RunError::EntryRefused)
    }

    fn close(mut self: Box<Self>, requests: &Requests, limit: Duration) -> Result<(), RunError> {
        drop(self.entry.take());
        let drained = drain(requests, limit, || self.tasks.iter().all(JoinHandle::is_finished));
        if drained.is_err() {
            self.tasks.iter().for_each(JoinHandle::abort);
        }
        for task in self.tasks.drain(..) {
            if let Err(e) = self.runtime.block_on(task) {
                if e.is_panic() {
                    return Err(RunError::Panicked);
                }
            }
        }
        drained
    }
}

/// The last step of both stream paths: a stream of `(index, value)` from `receiver` calling the dependency, at
/// most `dependency_bound` calls at once, replying to each.
async fn call_and_reply(receiver: mpsc::Receiver<(u64, u64)>, requests: Arc<Requests>, dependency_bound: usize) {
    ReceiverStream::new(receiver)
        .map(|(index, value)| {
            let requests = Arc::clone(&requests);
            async move {
                let result = requests.call(index).await;
                requests.called();
                requests.reply(index, value, result);
            }
        })
        .buffer_unordered(dependency_bound)
        .for_each(|()| ready(()))
        .await
}

/// One stream of requests: each `map`ped to a spawned task running its stages in turn (so the CPU work spreads
/// over the workers), `buffer_unordered(queue)`, then the dependency call under `buffer_unordered(bound)`.
pub(super) fn buffer_unordered<'a>(
    runtime: &'a Runtime,
    requests: &Arc<Requests>,
    config: &ServiceConfig,
) -> Tasks<'a> {
    let (entry, receiver) = mpsc::channel::<(u64, u64)>(config.admission);
    let (to_calls, calls) = mpsc::channel::<(u64, u64)>(config.queue);
    let work = requests.work;
    let queue = config.queue;
    let stages = runtime.spawn(async move {
        let mut worked = ReceiverStream::new(receiver)
            .map(move |(index, input)| tokio::spawn(async move { (index, work.all_stages(input)) }))
            .buffer_unordered(queue)
            .filter_map(|joined| ready(joined.ok()));
        while let Some(done) = worked.next().await {
            if to_calls.send(done).await.is_err() {
                break;
            }
        }
    });
    let replies = runtime.spawn(call_and_reply(calls, Arc::clone(requests), config.dependency_bound));
    Tasks { runtime, entry: Some(entry), tasks: vec![stages, replies] }
}

/// A task per stage behind bounded channels of `queue`, then the dependency call under `buffer_unordered(bound)`.
pub(super) fn stage_tasks<'a>(runtime: &'a Runtime, requests: &Arc<Requests>, config: &ServiceConfig) -> Tasks<'a> {
    let (entry, mut receiver) = mpsc::channel::<(u64, u64)>(config.admission);
    let work = requests.work;
    let mut tasks = Vec::new();
    for _ in 0..work.stages {
        let (sender, next) = mpsc::channel::<(u64, u64)>(config.queue);
        let mut input = std::mem::replace(&mut receiver, next);
        tasks.push(runtime.spawn(async move {
            while let Some((index, x)) = input.recv().await {
                if sender.send((index, work.stage(x))).await.is_err() {
                    break;
                }
            }
        }));
    }
    tasks.push(runtime.spawn(call_and_reply(receiver, Arc::clone(requests), config.dependency_bound)));
    Tasks { runtime, entry: Some(entry), tasks }
}
