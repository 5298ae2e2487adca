//! `stream-unbounded`: `buffer_unordered` as wide as the run, so every call is issued at once.

use std::time::{Duration, Instant};

use futures::{stream, StreamExt};
use tokio::runtime::Runtime;

use dependency::Dependency;

use super::stream::{idle_awaited, runtime};
use crate::error::RunError;
use crate::job::{finish_call, Job, Prepared};
use pipelines::cancel::until_raised;

/// The runtime, built once per trial.
#[derive(Debug)]
pub struct UnboundedStream {
    runtime: Runtime,
}

impl UnboundedStream {
    /// Build the runtime.
    pub fn new() -> Result<UnboundedStream, RunError> {
        Ok(UnboundedStream { runtime: runtime()? })
    }
}

impl Prepared for UnboundedStream {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let (dependency, ledger, cancel) = (job.dependency, job.ledger, job.cancel);
        let width = usize::try_from(job.calls).map_err(|_| RunError::TooManyCalls)?.max(1);
        go();
        self.runtime.block_on(until_raised(
            stream::iter(0..job.calls)
                .map(|index| {
                    if let Some(cancel) = cancel {
                        cancel.pass_counted(index);
                    }
                    async move {
                        let issued = Instant::now();
                        let result = dependency.call(index).await;
                        finish_call(ledger, index, issued, result, None);
                    }
                })
                .buffer_unordered(width)
                .for_each(|()| async {}),
            cancel,
        ));
        Ok(())
    }

    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
        idle_awaited(&self.runtime, dependency, n)
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}
