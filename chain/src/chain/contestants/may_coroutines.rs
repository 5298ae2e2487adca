//! `coroutine-may[-batched]`: a `may` 0.3 coroutine per stage (source, map1, filter, map2) and a consumer coroutine, one carrier thread per CPU, 32 KiB stacks, joined by 4 `may::sync::mpsc` channels: one item per message, each channel bounded by a `may::sync::Semphore` of `capacity` permits ([`pipelines::coroutine::bounded`]); or one `Vec` batch per message, the whole chain bounded by one semaphore of a permit per batch the 4 channels would hold (only the source waits for one; the consumer, or the filter emptying a batch, gives it back); in order.
//!
//! **Allocations per item, batched.** The source allocates one `Vec` per batch (the maps rewrite it in place, the
//! filter `retain`s, the consumer frees it: no recycling, as in every batched contestant); `may`'s channels store
//! messages in blocks of slots allocated as they fill, and a coroutine that parks on an empty channel or the
//! semaphore registers a waker (an `Arc`) each time; all three are per batch, so about `(1 + parks) / batch` per
//! item, where the one-item contestant pays the channel's and the semaphores' parking on every item.
//!
//! Every coroutine is spawned before `go`; the source parks on a start channel until `go` has started the clock,
//! and the calling thread (not a carrier) waits until every coroutine has arrived. A stage that fails or panics
//! drops both its ends, so its upstream's next send fails and its downstream sees the end; the consumer stopping
//! early drops its receiver the same way. The calling thread joins every coroutine before returning, upstream
//! first, so a stage failure explains a consumer that ended early.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use may::coroutine::JoinHandle;
use may::sync::{mpsc, Semphore};
use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};

use super::{channel_bound, Chain, ChainContestant, Contestant, Layout, PreparedChain};
use crate::job::{ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Message, Stages};
use crate::sink::{Dispatched, Run, Sink, SinkRun};
use pipelines::coroutine::{self, bounded, BoundedReceiver, BoundedSender, CoroutineConfig};
use pipelines::LiveStages;

/// Carriers and stack: one carrier per CPU the trial may use (as tokio has one worker per CPU), `may`'s default
/// stack.
fn may_config() -> CoroutineConfig {
    CoroutineConfig::per_core()
}

/// Configure `may` for the contestant (checked): a process already configured otherwise cannot run it as described.
fn configure_may(batched: bool) -> Result<(), ChainError> {
    may_config().try_apply().map(drop).map_err(|e| ChainError::Prepare {
        contestant: if batched { "coroutine-may-batched" } else { "coroutine-may" }.to_string(),
        message: e.to_string(),
    })
}

/// A coroutine per stage, one item or one batch per message.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MayCoroutines {
    /// One `Vec` of `items_per_message` items per message, the chain bounded by one semaphore.
    pub(crate) batched: bool,
}

/// A prepared run: `may` configured, the sizing kept.
#[derive(Debug)]
struct MayRun {
    config: ChainConfig,
    batched: bool,
}

impl Contestant<Chain> for MayCoroutines {
    fn info(&self) -> ContestantInfo {
        if self.batched {
            return ContestantInfo::new(
                "coroutine-may-batched",
                Family::Coroutine,
                format!(
                    "one coroutine per stage (source, map1, filter, map2) plus a consumer coroutine summing ({}), \
                     joined by 4 unbounded `may::sync::mpsc` channels carrying one `Vec` of `items_per_message` \
                     items per message; the chain holds at most the batches its 4 channels would (4 × messages per \
                     channel): the source takes a permit of one `may::sync::Semphore` per batch and the consumer \
                     gives it back (the filter, for a batch it empties), so no channel needs its own semaphore; the \
                     source allocates each Vec, maps rewrite it in place, the filter `retain`s, the consumer frees \
                     it; `may`'s rules kept; in order",
                    may_config().describe()
                ),
            );
        }
        ContestantInfo::new(
            "coroutine-may",
            Family::Coroutine,
            format!(
                "one coroutine per stage (source, map1, filter, map2) plus a consumer coroutine summing, 5 busy \
                 coroutines ({}), joined by 4 `may::sync::mpsc` channels (unbounded in `may`) each bounded by a \
                 `may::sync::Semphore` of `capacity` (default 1024) permits, one item per message; blocking-style \
                 `send`/`recv` park the coroutine, not the carrier; coroutines are spawned before the clock \
                 starts, the source held until then; no thread-blocking call and no thread-local held across a \
                 wait inside a coroutine (`may`'s rules); in order",
                may_config().describe()
            ),
        )
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        self.layout().map(|(layout, batched)| channel_bound(config, layout, batched))
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        configure_may(self.batched)?;
        Ok(Box::new(Dispatched(MayRun { config: *config, batched: self.batched })))
    }
}

impl ChainContestant for MayCoroutines {
    fn layout(&self) -> Option<(Layout, bool)> {
        Some((Layout::Staged, self.batched))
    }
}

/// A stage coroutine's handle: joining gives its result, or its panic.
type StageHandle<E> = JoinHandle<Result<(), E>>;

/// The chain's coroutines as they are spawned: each one reports on `arrived` once it runs, and the upstream stages
/// are kept in pipeline order for joining.
struct Spawned<'a, E> {
    live: &'a Arc<LiveStages>,
    words: usize,
    arrived: (mpsc::Sender<()>, mpsc::Receiver<()>),
    upstream: Vec<(&'static str, StageHandle<E>)>,
}

impl<'a, E: Into<ChainError> + Send + 'static> Spawned<'a, E> {
    fn new(live: &'a Arc<LiveStages>) -> Self {
        Spawned { live, words: may_config().stack_words, arrived: mpsc::channel(), upstream: Vec::with_capacity(4) }
    }

    /// Spawn the coroutine `name`: it reports that it runs, then runs `body`.
    fn spawn<T: Send + 'static>(
        &self,
        name: &'static str,
        body: impl FnOnce() -> T + Send + 'static,
    ) -> Result<JoinHandle<T>, ChainError> {
        let arrived = self.arrived.0.clone();
        coroutine::spawn(name, self.words, self.live, move || {
            let _ = arrived.send(());
            body()
        })
        .map_err(|source| ChainError::Spawn { stage: name.to_string(), source })
    }

    /// Spawn the upstream stage `name` (source, map1, filter or map2), joined after the consumer.
    fn stage(
        &mut self,
        name: &'static str,
        body: impl FnOnce() -> Result<(), E> + Send + 'static,
    ) -> Result<(), ChainError> {
        let handle = self.spawn(name, body)?;
        self.upstream.push((name, handle));
        Ok(())
    }

    /// Wait until all 5 coroutines run, call `go`, release the source through `start`, then join the consumer and
    /// every upstream stage: upstream first, since a stage failure explains a consumer that ended early.
    fn run(
        self,
        go: &mut dyn FnMut(),
        start: mpsc::Sender<()>,
        consumer: JoinHandle<Outcome>,
    ) -> Result<Outcome, ChainError> {
        for _ in 0..5 {
            let _ = self.arrived.1.recv();
        }
        go();
        // The source holds the start receiver until it has received this or ended.
        let _ = start.send(());
        let consumed = consumer.join();
        let mut first_error = None;
        for (name, handle) in self.upstream {
            let ended = match handle.join() {
                Ok(result) => result.map_err(Into::into),
                Err(payload) => Err(ChainError::from_panic(name, &*payload)),
            };
            if let (Err(e), None) = (ended, &first_error) {
                first_error = Some(e);
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        consumed.map_err(|payload| ChainError::from_panic("consumer", &*payload))
    }
}

/// One stage coroutine: receive from `rx`, apply `f` (`None`: drop the item), send to `tx`, until either end is
/// gone or `f` fails.
fn stage<E: Send + 'static>(
    rx: BoundedReceiver<u64>,
    tx: BoundedSender<u64>,
    mut f: impl FnMut(u64) -> Result<Option<u64>, E>,
) -> Result<(), E> {
    while let Some(x) = rx.recv() {
        if let Some(y) = f(x)? {
            if tx.send(y).is_err() {
                break;
            }
        }
    }
    Ok(())
}

impl SinkRun for MayRun {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        configure_may(self.batched)?;
        if self.batched {
            return self.batches(run);
        }
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let cap = self.config.capacity;
        let (input, meter) = (Arc::clone(job.input), job.meter.clone());
        let (filter_meter, consumer_meter) = (meter.clone(), meter.clone());
        let (s0, r0) = bounded::<u64>(cap);
        let (s1, r1) = bounded::<u64>(cap);
        let (s2, r2) = bounded::<u64>(cap);
        let (s3, r3) = bounded::<u64>(cap);
        let (start_tx, start_rx) = mpsc::channel::<()>();
        let mut spawned = Spawned::<H::Error>::new(job.live);
        spawned.stage("source", move || {
            if start_rx.recv().is_err() {
                return Ok(());
            }
            for &x in input.iter() {
                meter.admit(1);
                if s0.send(x).is_err() {
                    break;
                }
            }
            Ok(())
        })?;
        spawned.stage("map1", move || stage(r0, s1, |x| x.map1(&map1).map(Some)))?;
        spawned.stage("filter", move || stage(r1, s2, |y| y.filter(&filter, &filter_meter)))?;
        spawned.stage("map2", move || stage(r2, s3, |y| y.map2(&map2).map(Some)))?;
        let consumer = spawned.spawn("consumer", move || {
            while let Some(z) = r3.recv() {
                consumer_meter.leave(1);
                if sink.push(z).is_break() {
                    break;
                }
            }
            drop(r3);
            sink.finish()
        })?;
        spawned.run(go, start_tx, consumer)
    }
}

/// When a batched stage ends, however it ends: marks the chain stopped, then gives `permits` permits back to the
/// chain's semaphore, so a source parked for a permit wakes, sees the mark and ends without admitting anything
/// (the extra permits are only a wake-up; admitting on them would break the bound while a failure propagates,
/// which the `stage_panic` check caught).
struct ReleaseOnExit {
    semaphore: Arc<Semphore>,
    stopped: Arc<AtomicBool>,
    permits: usize,
}

impl Drop for ReleaseOnExit {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::Release);
        for _ in 0..self.permits {
            self.semaphore.post();
        }
    }
}

/// One batched stage coroutine: receive a batch, apply `f` (`None`: the batch is gone, its permit given back),
/// send it on, until either end is gone or `f` fails; then both ends are dropped, and `exit` last.
fn batch_stage<E: Send + 'static>(
    exit: ReleaseOnExit,
    rx: mpsc::Receiver<Vec<u64>>,
    tx: mpsc::Sender<Vec<u64>>,
    mut f: impl FnMut(Vec<u64>) -> Result<Option<Vec<u64>>, E>,
) -> Result<(), E> {
    let permits = &*exit.semaphore;
    while let Ok(b) = rx.recv() {
        match f(b)? {
            Some(b) => {
                if tx.send(b).is_err() {
                    break;
                }
            }
            None => permits.post(),
        }
    }
    Ok(())
}

impl MayRun {
    /// The batched chain: 4 unbounded channels of `Vec`s, one semaphore bounding the batches in the chain.
    fn batches<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let batch = self.config.items_per_message(true);
        let total = (Layout::Staged.channels() as usize) * self.config.messages_per_channel(true);
        let permits = Arc::new(Semphore::new(total));
        let (input, meter) = (Arc::clone(job.input), job.meter.clone());
        let (filter_meter, consumer_meter) = (meter.clone(), meter.clone());
        let (s0, r0) = mpsc::channel::<Vec<u64>>();
        let (s1, r1) = mpsc::channel::<Vec<u64>>();
        let (s2, r2) = mpsc::channel::<Vec<u64>>();
        let (s3, r3) = mpsc::channel::<Vec<u64>>();
        let (start_tx, start_rx) = mpsc::channel::<()>();
        let stopped = Arc::new(AtomicBool::new(false));
        let release =
            || ReleaseOnExit { semaphore: Arc::clone(&permits), stopped: Arc::clone(&stopped), permits: total };
        let mut spawned = Spawned::<H::Error>::new(job.live);
        let (source_permits, source_stopped) = (Arc::clone(&permits), Arc::clone(&stopped));
        spawned.stage("source", move || {
            if start_rx.recv().is_err() {
                return Ok(());
            }
            for chunk in input.chunks(batch) {
                source_permits.wait();
                if source_stopped.load(Ordering::Acquire) {
                    break;
                }
                meter.admit(chunk.len() as u64);
                if s0.send(chunk.to_vec()).is_err() {
                    break;
                }
            }
            Ok(())
        })?;
        let exit = release();
        spawned.stage("map1", move || batch_stage(exit, r0, s1, |b| b.map1(&map1).map(Some)))?;
        let exit = release();
        spawned.stage("filter", move || batch_stage(exit, r1, s2, |b| b.filter(&filter, &filter_meter)))?;
        let exit = release();
        spawned.stage("map2", move || batch_stage(exit, r2, s3, |b| b.map2(&map2).map(Some)))?;
        let exit = release();
        let consumer = spawned.spawn("consumer", move || {
            while let Ok(b) = r3.recv() {
                consumer_meter.leave(b.len() as u64);
                let stop = sink.push_batch(b).is_break();
                exit.semaphore.post();
                if stop {
                    break;
                }
            }
            drop(r3);
            drop(exit);
            sink.finish()
        })?;
        spawned.run(go, start_tx, consumer)
    }
}
