//! `stream-<limiter>` and `stream-unbounded`: one stream on a multi-thread tokio runtime, whose concurrent width
//! follows the limiter (`limited_unordered`), or, with no gate, is as wide as the run (`buffer_unordered`), so
//! every call is issued at once.

use std::time::{Duration, Instant};

use futures::{stream, StreamExt};
use tokio::runtime::Runtime;

use dependency::Dependency;

use crate::error::RunError;
use crate::job::{finish_call, Job, Prepared};
use crate::stream_ext::LimitedStreamExt;
use pipelines::cancel::until_raised;

/// The runtime, built once per trial.
#[derive(Debug)]
pub struct StreamRuntime {
    runtime: Runtime,
}

impl StreamRuntime {
    /// A multi-thread runtime with the default number of workers (one per core), as `#[tokio::main]` builds.
    pub fn new() -> Result<StreamRuntime, RunError> {
        Ok(StreamRuntime { runtime: tokio::runtime::Builder::new_multi_thread().build().map_err(RunError::Runtime)? })
    }
}

impl Prepared for StreamRuntime {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let (dependency, ledger, cancel) = (job.dependency, job.ledger, job.cancel);
        let Some(gate) = job.gate.clone() else {
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
            return Ok(());
        };
        // Like `#[tokio::main]`: the stream is the runtime's main future (dropped if the caller cancels).
        go();
        self.runtime.block_on(until_raised(
            stream::iter(0..job.calls)
                .limited_unordered(gate, |index, permit| {
                    if let Some(cancel) = cancel {
                        cancel.pass_counted(index);
                    }
                    async move {
                        let issued = Instant::now();
                        let result = dependency.call(index).await;
                        finish_call(ledger, index, issued, result, Some(permit));
                    }
                })
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

/// `n` calls awaited one at a time on `runtime`.
pub(crate) fn idle_awaited(runtime: &Runtime, dependency: &Dependency, n: u32) -> Vec<Duration> {
    runtime.block_on(async {
        let mut out = Vec::new();
        for i in 0..n {
            let issued = Instant::now();
            let _ = dependency.call(u64::from(i)).await;
            out.push(issued.elapsed());
        }
        out
    })
}
