//! `stream-futures-adapters`: `futures::stream::iter` + futures `StreamExt` adapters under `futures::executor::block_on`; in order.
//!
//! futures' `filter_map` takes a closure returning a *future* of `Option`: per item it stores that future (here
//! `std::future::ready(..)`) in the adapter and polls it, where tokio-stream's `filter_map` calls a closure
//! returning the `Option` itself. That per-item future, not the executor, is what separates this contestant from
//! `stream-tokio-stream-adapters`.

use std::future::ready;

use futures::StreamExt;
use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};

use super::{Chain, ChainContestant, Contestant, PreparedChain};
use crate::job::{on_caller, ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Stages};
use crate::sink::{drain_stream, Dispatched, Run, Sink, SinkRun};

/// A single-task stream on the futures crate's own executor: no runtime at all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamFutures;

impl Contestant<Chain> for StreamFutures {
    fn info(&self) -> ContestantInfo {
        ContestantInfo::new("stream-futures-adapters", Family::Stream, "futures::stream::iter over the input slice + futures StreamExt `map` / `filter_map` / \
                          `map` (its `filter_map` stores and polls one `Ready` future per item), drained by a `while let Some(x) = s.next().await` wrapping-sum loop under \
                          futures::executor::block_on on the calling thread (no runtime); in order")
    }

    fn prepare(&self, _config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        Ok(Box::new(Dispatched(*self)))
    }
}

impl ChainContestant for StreamFutures {}

impl SinkRun for StreamFutures {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, sink } = run;
        let input: &[u64] = job.input;
        on_caller(go, move || {
            futures::executor::block_on(async move {
                let items = futures::stream::iter(input)
                    .map(|&x| map1.apply(x))
                    .filter_map(|r| ready(filter.on(r)))
                    .map(|r| map2.on(r));
                drain_stream(items, sink).await
            })
        })
    }
}
