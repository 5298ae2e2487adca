//! `stream-tokio-iter`, `stream-tokio-stream-adapters`, `stream-async-stream`: one source each + tokio-stream adapters in `block_on` on a current-thread runtime; in order.

use ::tokio_stream::StreamExt;
use futures::Stream;
use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};
use tokio::runtime::Runtime;

use super::{Chain, ChainContestant, Contestant, PreparedChain};
use crate::job::{on_caller, ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Stages};
use crate::sink::{drain_stream, Dispatched, Run, Sink, SinkRun};
use pipelines::stream::{runtime, tokio_iter_yield_interval};

/// Which source stream feeds the tokio-stream adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `tokio_stream::iter`, which yields to the scheduler periodically.
    TokioIter,
    /// `futures::stream::iter`, which is always ready.
    NoYield,
    /// An `async_stream::stream!` generator.
    AsyncStream,
}

/// A single-task stream polled by `Runtime::block_on` on a current-thread tokio runtime.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CurrentThreadStream {
    source: Source,
}

impl CurrentThreadStream {
    pub(crate) fn new(source: Source) -> Self {
        CurrentThreadStream { source }
    }
}

/// The runtime, built once per trial.
#[derive(Debug)]
struct CurrentThreadRun {
    source: Source,
    runtime: Runtime,
}

const ADAPTERS: &str = "+ tokio_stream::StreamExt `map` / `filter_map` (a closure returning `Option`) / `map`, drained by a `while let Some(x) = \
                        s.next().await` wrapping-sum loop in Runtime::block_on on a current-thread tokio runtime \
                        built once per trial; in order";

impl Contestant<Chain> for CurrentThreadStream {
    fn info(&self) -> ContestantInfo {
        let (name, source) = match self.source {
            Source::TokioIter => {
                let yields = match tokio_iter_yield_interval() {
                    Some(n) => format!(
                        "which in this build (tokio-stream without its `rt` feature) returns Pending after every \
                         {n} items, waking itself, so the task passes through the scheduler once per {n} items"
                    ),
                    None => "which in this build (tokio-stream with its `rt` feature) spends tokio's cooperative \
                             budget and yields when it runs out"
                        .to_string(),
                };
                ("stream-tokio-iter", format!("tokio_stream::iter over the input slice, {yields},"))
            }
            Source::NoYield => (
                "stream-tokio-stream-adapters",
                "futures::stream::iter over the input slice (always ready, never yields: the difference from \
                 stream-tokio-iter is the cost of cooperative yielding; the difference from \
                 stream-futures-adapters, whose source is the same, is the adapters: tokio-stream's `filter_map` \
                 calls a closure returning the `Option`, futures' polls a future per item)"
                    .to_string(),
            ),
            Source::AsyncStream => (
                "stream-async-stream",
                "an async_stream::stream! generator yielding each element of the input slice".to_string(),
            ),
        };
        ContestantInfo::new(name, Family::Stream, format!("{source} {ADAPTERS}"))
    }

    fn prepare(&self, _config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        let runtime = runtime::current_thread()
            .map_err(|e| ChainError::Prepare { contestant: self.info().name, message: e.to_string() })?;
        Ok(Box::new(Dispatched(CurrentThreadRun { source: self.source, runtime })))
    }
}

impl ChainContestant for CurrentThreadStream {}

impl SinkRun for CurrentThreadRun {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages, sink } = run;
        let input: &[u64] = job.input;
        on_caller(go, || match self.source {
            Source::TokioIter => self.runtime.block_on(adapt_and_drain(::tokio_stream::iter(input), stages, sink)),
            Source::NoYield => self.runtime.block_on(adapt_and_drain(futures::stream::iter(input), stages, sink)),
            Source::AsyncStream => {
                let source = async_stream::stream! {
                    for x in input {
                        yield x;
                    }
                };
                self.runtime.block_on(adapt_and_drain(source, stages, sink))
            }
        })
    }
}

/// The three stages as tokio-stream adapters over `source`, drained into `sink`.
async fn adapt_and_drain<'a, H: Hook, S: Sink>(
    source: impl Stream<Item = &'a u64>,
    stages: Stages<H>,
    sink: S,
) -> Result<Outcome, H::Error> {
    let Stages { map1, filter, map2 } = stages;
    let items = source.map(|&x| map1.apply(x)).filter_map(|r| filter.on(r)).map(|r| map2.on(r));
    drain_stream(items, sink).await
}
