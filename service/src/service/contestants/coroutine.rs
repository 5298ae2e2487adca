//! The coroutine family's request paths, on `may` with one carrier per CPU: a coroutine per request
//! ([`per_request`]), and a coroutine per stage behind bounded channels with a coroutine per call
//! ([`stage_coroutines`]). Every wait parks the coroutine, never the carrier: the channels are
//! [`pipelines::coroutine::bounded`], the bound on calls a `may::sync::Semphore`, and the dependency's completion
//! parks a coroutine caller.

use std::sync::Arc;
use std::time::Duration;

use may::sync::Semphore;
use pipelines::coroutine::{bounded, BoundedSender};
use pipelines::LiveStages;

use super::{drain, Running};
use crate::config::ServiceConfig;
use crate::error::RunError;
use crate::requests::Requests;

/// Stack of every coroutine, in words: `may`'s configured default.
fn stack_words() -> usize {
    overload::job::coroutine_config().stack_words
}

/// The call of request `index` (under one of `permits`, taken by the caller), then its reply.
fn call_and_reply(requests: &Requests, permits: &Semphore, index: u64, value: u64) {
    let result = requests.call(index).wait();
    requests.called();
    permits.post();
    requests.reply(index, value, result);
}

/// A coroutine per admitted request.
pub(super) struct PerRequest<'a> {
    live: &'a Arc<LiveStages>,
    requests: Arc<Requests>,
    permits: Arc<Semphore>,
}

impl Running for PerRequest<'_> {
    fn submit(&self, index: u64) -> Result<(), RunError> {
        let (requests, permits) = (Arc::clone(&self.requests), Arc::clone(&self.permits));
        pipelines::coroutine::spawn("service-request", stack_words(), self.live, move || {
            let value = requests.work.all_stages(index);
            permits.wait();
            call_and_reply(&requests, &permits, index, value);
        })
        .map(drop)
        .map_err(RunError::Coroutine)
    }

    fn close(self: Box<Self>, requests: &Requests, limit: Duration) -> Result<(), RunError> {
        drain(requests, limit, || self.live.current() == 0)
    }
}

/// A coroutine per request, running its stages in turn, then its call under a semaphore of `dependency_bound`.
pub(super) fn per_request<'a>(
    live: &'a Arc<LiveStages>,
    requests: &Arc<Requests>,
    config: &ServiceConfig,
) -> PerRequest<'a> {
    PerRequest { live, requests: Arc::clone(requests), permits: Arc::new(Semphore::new(config.dependency_bound)) }
}

/// A coroutine per stage behind bounded channels.
pub(super) struct Stages<'a> {
    live: &'a Arc<LiveStages>,
    entry: Option<BoundedSender<(u64, u64)>>,
}

impl Running for Stages<'_> {
    fn submit(&self, index: u64) -> Result<(), RunError> {
        self.entry.as_ref().ok_or(RunError::EntryRefused)?.send((index, index)).map_err(|_| RunError::EntryRefused)
    }

    fn close(mut self: Box<Self>, requests: &Requests, limit: Duration) -> Result<(), RunError> {
        drop(self.entry.take());
        drain(requests, limit, || self.live.current() == 0)
    }
}

/// A coroutine per stage behind bounded channels of `queue`; the last channel's reader takes one of
/// `dependency_bound` permits per request and spawns a coroutine for its call.
pub(super) fn stage_coroutines<'a>(
    live: &'a Arc<LiveStages>,
    requests: &Arc<Requests>,
    config: &ServiceConfig,
) -> Result<Stages<'a>, RunError> {
    let (entry, mut receiver) = bounded::<(u64, u64)>(config.admission);
    let work = requests.work;
    for _ in 0..work.stages {
        let (sender, next) = bounded::<(u64, u64)>(config.queue);
        let input = std::mem::replace(&mut receiver, next);
        pipelines::coroutine::spawn("service-stage", stack_words(), live, move || {
            while let Some((index, x)) = input.recv() {
                if sender.send((index, work.stage(x))).is_err() {
                    break;
                }
            }
        })
        .map_err(RunError::Coroutine)?;
    }
    let (requests, permits) = (Arc::clone(requests), Arc::new(Semphore::new(config.dependency_bound)));
    let spawner = Arc::clone(live);
    pipelines::coroutine::spawn("service-calls", stack_words(), live, move || {
        while let Some((index, value)) = receiver.recv() {
            permits.wait();
            let (requests, permits) = (Arc::clone(&requests), Arc::clone(&permits));
            let spawned = pipelines::coroutine::spawn("service-call", stack_words(), &spawner, move || {
                call_and_reply(&requests, &permits, index, value)
            });
            if spawned.is_err() {
                break;
            }
        }
    })
    .map_err(RunError::Coroutine)?;
    Ok(Stages { live, entry: Some(entry) })
}
