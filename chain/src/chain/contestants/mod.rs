//! Every contestant of the chain scenario, one family group per file; [`contestants`] is the registry.
//!
//! | name | what it is |
//! |---|---|
//! | `baseline-loop` | a plain `for` loop over the slice: the floor |
//! | `baseline-iterator` | a std `Iterator` map/filter/map chain consumed by `try_for_each` |
//! | `blocking-rayon` | rayon `par_iter` map/filter/map/`reduce` on a dedicated pool (unordered) |
//! | `blocking-crossbeam` | a thread per stage, `crossbeam_channel::bounded`, one item per message |
//! | `blocking-crossbeam-batched` | the same, one `Vec` of `items_per_message` items per message |
//! | `blocking-crossbeam-fused` | two busy threads (source+map1+filter, then map2+sum on the caller), one channel, one item per message |
//! | `blocking-crossbeam-fused-batched` | the same, batched |
//! | `blocking-flume` | a thread per stage, `flume::bounded` (sync API), one item per message |
//! | `blocking-flume-batched` | the same, batched |
//! | `blocking-std` | a thread per stage, `std::sync::mpsc::sync_channel`, one item per message |
//! | `blocking-std-batched` | the same, batched |
//! | `stream-futures-adapters` | `futures::stream::iter` + futures `StreamExt` (a future per item in `filter_map`), `futures::executor::block_on` |
//! | `stream-tokio-iter` | `tokio_stream::iter` (yields every 32 items) + tokio-stream adapters, current-thread runtime |
//! | `stream-tokio-stream-adapters` | a never-yielding source + the same tokio-stream adapters and runtime |
//! | `stream-async-stream` | an `async_stream::stream!` generator source + the same adapters and runtime |
//! | `stream-tokio-tasks` | a tokio task per stage and a consumer task on a multi-thread runtime, bounded `tokio::sync::mpsc`, one item per message |
//! | `stream-tokio-tasks-batched` | the same, batched |
//! | `stream-tokio-tasks-fused` | two busy tasks (source+map1+filter, then map2+sum), one channel, one item per message |
//! | `stream-tokio-tasks-fused-batched` | the same, batched |
//! | `baseline-loop-standalone` | the standalone program (role `reference`): `baseline-loop` as a program of its own (the `standalone` crate), run outside the lab's trial process to calibrate the trial process itself; listed by [`listed`], never run in the lab's process (see `standalone`) |
//! | `coroutine-may` | a `may` coroutine per stage and a consumer coroutine (one carrier per CPU, 32 KiB stacks), 4 `may::sync::mpsc` channels each bounded by a `may::sync::Semphore`, one item per message |
//! | `coroutine-may-batched` | the same coroutines, one `Vec` per message, the chain bounded by one semaphore of a permit per batch (the source takes, the consumer gives back) |
//!
//! **Common ground.** Every contestant applies the stages of [`crate::ops`] through [`crate::ops::Stages`];
//! measured runs use the `Clean` hooks, whose error type is `Infallible`, so the ability to carry a stage error
//! compiles away. Runtimes and thread pools are built in [`Contestant::prepare`], outside the timed
//! window, and reused by every iteration; stage threads and tasks are spawned by each run before it calls `go`,
//! so they too stay outside the timed window. Single-threaded
//! contestants catch panics with `catch_unwind`; threaded ones catch them when joining the stage.
//!
//! **Channels and batching.** Staged contestants have four channels (source→map1→filter→map2→consumer) and five
//! busy threads or tasks, more than a 2-core machine has cores; fused ones have one channel and two busy parties
//! ([`Layout`]). Every channel holds `capacity` items: one item per message with `capacity` messages, or
//! `items_per_message = min(batch, capacity / messages)` items per message with `messages` messages (at least
//! one), so a batched sender has room to run ahead (16 messages by default) rather than taking turns with its
//! receiver over one full message. A batch is one `Vec<u64>` the source allocates;
//! map stages rewrite it in place, the filter compacts it with `retain`, the consumer frees it. Buffers are not
//! recycled: one allocation per batch is cheaper than the extra channel operation a return path costs.
//!
//! **Outstanding work.** Contestants that hand items between threads or tasks call the job's meter
//! (`measure::meter::Meter`): `admit(n)` when the source hands `n` items to the first channel, `leave(n)` when the
//! consumer takes them or the filter drops them. In timed iterations the meter is `NoMeter` and those calls
//! compile to nothing; in accounting iterations and conformance checks it is the shared gauge (one relaxed atomic
//! per message: per item, or per batch). [`Contestant::bound`] is the most items their channels and stages can hold:
//! `(channels × messages per channel + busy parties) × items per message` ([`channel_bound`]). The loop,
//! the iterator, single-task streams and rayon hand nothing off through a queue, so they never touch the gauge
//! and their outstanding work is not applicable (bound `None`).

mod baseline;
mod channels;
mod futures_stream;
mod may_coroutines;
mod rayon;
mod standalone;
mod tokio_stream;
mod tokio_tasks;

use std::sync::Arc;

use measure::external::ExternalProgram;
use measure::record::TrialRequest;
use measure::scenario::TrialError;
use measure::summary::ContestantInfo;

use crate::chain::conformance::Chain;
use crate::job::{ChainConfig, ChainError, StageName};
use pipelines::blocking::{crossbeam::Crossbeam, flume::Flume, std_sync::StdSync};
use pipelines::conformance::{Contestant, Prepared};

/// A way of running the chain, as the registry lists it: the items kit's [`Contestant`] of the [`Chain`], with its
/// channel layout.
pub trait ChainContestant: Contestant<Chain> {
    /// Its channel layout and whether it batches; `None` when it hands nothing off through a channel. A contestant
    /// with one bounds its outstanding items by [`channel_bound`].
    fn layout(&self) -> Option<(Layout, bool)> {
        None
    }
}

/// A chain contestant ready to run, its runtime or pool, if any, built: the items contract's
/// [`pipelines::conformance::Prepared`] over the chain's input, stages and error. Contestants whose consumer runs on
/// one thread are wrapped in `sink::Dispatched`, which picks the instantiation for the job's stages and sink.
pub type PreparedChain = dyn Prepared<Arc<[u64]>, StageName, ChainError>;

/// Every contestant, in report order.
pub fn contestants() -> Vec<Arc<dyn ChainContestant>> {
    vec![
        Arc::new(baseline::BaselineLoop),
        Arc::new(baseline::BaselineIterator),
        Arc::new(rayon::BlockingRayon),
        Arc::new(channels::ChannelThreads::<Crossbeam>::new(Layout::Staged, false)),
        Arc::new(channels::ChannelThreads::<Crossbeam>::new(Layout::Staged, true)),
        Arc::new(channels::ChannelThreads::<Crossbeam>::new(Layout::Fused, false)),
        Arc::new(channels::ChannelThreads::<Crossbeam>::new(Layout::Fused, true)),
        Arc::new(channels::ChannelThreads::<Flume>::new(Layout::Staged, false)),
        Arc::new(channels::ChannelThreads::<Flume>::new(Layout::Staged, true)),
        Arc::new(channels::ChannelThreads::<StdSync>::new(Layout::Staged, false)),
        Arc::new(channels::ChannelThreads::<StdSync>::new(Layout::Staged, true)),
        Arc::new(futures_stream::StreamFutures),
        Arc::new(tokio_stream::CurrentThreadStream::new(tokio_stream::Source::TokioIter)),
        Arc::new(tokio_stream::CurrentThreadStream::new(tokio_stream::Source::NoYield)),
        Arc::new(tokio_stream::CurrentThreadStream::new(tokio_stream::Source::AsyncStream)),
        Arc::new(tokio_tasks::TokioTasks::new(Layout::Staged, false)),
        Arc::new(tokio_tasks::TokioTasks::new(Layout::Staged, true)),
        Arc::new(tokio_tasks::TokioTasks::new(Layout::Fused, false)),
        Arc::new(tokio_tasks::TokioTasks::new(Layout::Fused, true)),
        Arc::new(may_coroutines::MayCoroutines { batched: false }),
        Arc::new(may_coroutines::MayCoroutines { batched: true }),
    ]
}

/// Every contestant a run lists, in report order: the registry's ([`contestants`], which run in the lab's trial
/// process), then the standalone program, which runs as a program of its own ([`external`]).
pub fn listed() -> Vec<ContestantInfo> {
    contestants().iter().map(|c| c.info()).chain([standalone::info()]).collect()
}

/// Each lab contestant beside its standalone program (role `reference`, a program of its own run outside the
/// lab's trial process): `(lab, standalone)` names.
pub fn standalone_pairs() -> Vec<(String, String)> {
    standalone::pairs()
}

/// The program that runs `request`'s trial instead of the lab's trial process, when its contestant is the
/// standalone program; `None` for every contestant of the registry.
pub fn external(request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
    standalone::external(request)
}

/// The contestant named `name`.
pub fn find(name: &str) -> Option<Arc<dyn ChainContestant>> {
    contestants().into_iter().find(|c| c.info().name == name)
}

/// How a channel pipeline's stages map onto threads or tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One thread or task per stage: source, map1, filter, map2, and the consumer (5 busy parties, 4 channels).
    Staged,
    /// Two busy parties: source+map1+filter, then map2+sum in the consumer (1 channel), no more than the cores of
    /// a 2-core machine.
    Fused,
}

impl Layout {
    /// Channels between the source and the consumer.
    pub fn channels(self) -> u64 {
        match self {
            Layout::Staged => 4,
            Layout::Fused => 1,
        }
    }

    /// Parties that keep a core busy and can hold a message outside a channel.
    pub fn busy(self) -> u64 {
        match self {
            Layout::Staged => 5,
            Layout::Fused => 2,
        }
    }
}

/// A channel pipeline's name: `prefix`, then `-fused` and `-batched` where they apply.
pub(crate) fn piped_name(prefix: &str, layout: Layout, batched: bool) -> String {
    let fused = if layout == Layout::Fused { "-fused" } else { "" };
    format!("{prefix}{fused}{}", if batched { "-batched" } else { "" })
}

/// What a channel pipeline's message carries, in its description.
pub(crate) fn message_words(batched: bool) -> &'static str {
    if batched {
        "carrying one Vec<u64> of `items_per_message` items per message, `messages_per_channel` messages per \
         channel (both in the results table; the same items as unbatched); the source allocates each Vec, maps \
         rewrite it in place, the filter `retain`s, the consumer frees it"
    } else {
        "of `capacity` (default 1024) messages of one item"
    }
}

/// The outstanding-work bound of a channel pipeline: every channel full, plus one message in each busy party's
/// hand, `(channels × messages per channel + busy) × items per message`.
pub(crate) fn channel_bound(config: &ChainConfig, layout: Layout, batched: bool) -> u64 {
    let messages = config.messages_per_channel(batched) as u64;
    (layout.channels() * messages + layout.busy()) * config.items_per_message(batched) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_follow_the_family() {
        let infos: Vec<ContestantInfo> = contestants().iter().map(|c| c.info()).collect();
        testkit::checks::assert_names_follow_families(&infos);
    }

    #[test]
    fn every_channel_holds_the_same_items_batched_or_not() {
        let config = ChainConfig { batch: 256, capacity: 1024, messages: 16 };
        assert_eq!((config.items_per_message(true), config.messages_per_channel(true)), (64, 16));
        assert_eq!(channel_bound(&config, Layout::Staged, false), 4 * 1024 + 5);
        assert_eq!(channel_bound(&config, Layout::Staged, true), (4 * 16 + 5) * 64);
        assert_eq!(channel_bound(&config, Layout::Fused, true), (16 + 2) * 64);
        let capped = ChainConfig { batch: 256, capacity: 65_536, messages: 16 };
        assert_eq!((capped.items_per_message(true), capped.messages_per_channel(true)), (256, 256));
        let tiny = ChainConfig { batch: 256, capacity: 10, messages: 16 };
        assert_eq!((tiny.items_per_message(true), tiny.messages_per_channel(true)), (1, 10));
    }
}
