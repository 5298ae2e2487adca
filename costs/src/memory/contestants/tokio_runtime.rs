//! The stream contestants (`stream-tokio-task[-current-thread]`, `stream-futures-unordered`,
//! `stream-async-stream`; see the registry's table), each holding its units on a tokio runtime built once per
//! trial: a task per unit awaiting its own oneshot, a future per unit awaiting its own oneshot in one
//! `FuturesUnordered` driven by one task, or a generator per unit awaiting its own oneshot in one `SelectAll` driven
//! by one task.
//!
//! Every unit waits on the same kind of event, its own oneshot, with a waker registered: what a user's waiting
//! unit does. (A generator polled once and kept in a `Vec`, suspended at a `yield` with nothing to wait on and no
//! waker anywhere, held less than any of them and could not be woken by anything: it answered a question no user
//! asks, so the generators now wait as the futures do, and are driven the way a user merges many streams.)

use std::pin::Pin;
use std::sync::atomic::Ordering;

use futures::stream::{FuturesUnordered, SelectAll};
use futures::{Stream, StreamExt};
use tokio::runtime::{Builder, Runtime};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{fold_unit, reset_started, until_started, Held, HoldError, Holding, STARTED};
use crate::payload::Payload;
use crate::work::{Injected, Work};

/// A runtime built once per trial, and the kind of unit held on it.
#[derive(Debug)]
pub(crate) struct Tokio {
    runtime: Runtime,
    kind: Kind,
}

/// Which kind of unit.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// A task per unit.
    Tasks,
    /// A future per unit in one `FuturesUnordered`.
    Unordered,
    /// An `async_stream::stream!` generator per unit awaiting its own oneshot, in one `SelectAll`.
    Generators,
}

impl Tokio {
    /// `kind` on the runtime `builder` builds (with its timers), or why it could not be built.
    pub(crate) fn new(mut builder: Builder, kind: Kind) -> Result<Tokio, HoldError> {
        let runtime =
            builder.enable_time().build().map_err(|e| HoldError::Broken(format!("cannot build the runtime: {e}")))?;
        Ok(Tokio { runtime, kind })
    }
}

impl Holding for Tokio {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        match self.kind {
            Kind::Tasks => tasks(&self.runtime, count, bytes, work),
            Kind::Unordered => unordered(&self.runtime, count, bytes, work),
            Kind::Generators => generators(&self.runtime, count, bytes, work),
        }
    }

    /// The runtime's tasks.
    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

/// The waiting tasks: each one's wake-up and its join handle.
struct HeldTasks<'a, E> {
    runtime: &'a Runtime,
    wake: Vec<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<Result<u64, E>>>,
}

fn tasks<W: Work>(runtime: &Runtime, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
    reset_started();
    let n = usize::try_from(count).unwrap_or(usize::MAX);
    let mut held = HeldTasks { runtime, wake: Vec::with_capacity(n), tasks: Vec::with_capacity(n) };
    for unit in 0..count {
        let guard = work.start(unit);
        if work.cancelled() {
            drop(guard);
            return Err(held.end(unit));
        }
        let (tx, rx) = oneshot::channel::<()>();
        let payload = Payload::new(unit, bytes);
        let work = work.clone();
        held.tasks.push(runtime.spawn(async move {
            let _guard = guard;
            STARTED.fetch_add(1, Ordering::SeqCst);
            let _ = rx.await;
            work.finish(unit, payload.checksum())
        }));
        held.wake.push(tx);
    }
    if !runtime.block_on(until_started(count, || work.cancelled())) {
        return Err(held.end(count));
    }
    Ok(Box::new(held))
}

impl<E> HeldTasks<'_, E> {
    /// The caller cancelled after `made` units: dropping them wakes every task and waits for each to end.
    fn end(self, made: u64) -> HoldError {
        drop(self);
        HoldError::Cancelled(made)
    }
}

/// Dropped without a release (the caller's cancel), every task is woken and driven to its end before the drop
/// returns: on a current-thread runtime nothing else would poll them, and each would keep its payload until
/// the next `block_on`.
impl<E> Drop for HeldTasks<'_, E> {
    fn drop(&mut self) {
        self.wake.clear();
        let tasks = std::mem::take(&mut self.tasks);
        if !tasks.is_empty() {
            self.runtime.block_on(async move {
                for task in tasks {
                    let _ = task.await;
                }
            });
        }
    }
}

impl<E: Into<Injected> + Send + 'static> Held for HeldTasks<'_, E> {
    fn release(mut self: Box<Self>) -> Result<u64, HoldError> {
        let (wake, tasks) = (std::mem::take(&mut self.wake), std::mem::take(&mut self.tasks));
        for tx in wake {
            // A task that is gone has panicked; its join below says so.
            let _ = tx.send(());
        }
        self.runtime.block_on(async move {
            let mut total = Ok(0u64);
            for task in tasks {
                let joined = task.await.map_err(|e| match e.try_into_panic() {
                    Ok(payload) => HoldError::panicked(&*payload),
                    Err(e) => HoldError::Broken(format!("a unit's task failed: {e}")),
                });
                fold_unit(&mut total, joined);
            }
            total
        })
    }
}

struct HeldSet<'a, E> {
    runtime: &'a Runtime,
    wake: Vec<oneshot::Sender<()>>,
    driver: JoinHandle<Result<u64, E>>,
}

fn unordered<W: Work>(runtime: &Runtime, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
    reset_started();
    let n = usize::try_from(count).unwrap_or(usize::MAX);
    let mut wake = Vec::with_capacity(n);
    let set = FuturesUnordered::new();
    for unit in 0..count {
        let guard = work.start(unit);
        if work.cancelled() {
            // No future has been polled: dropping them ends them.
            return Err(HoldError::Cancelled(unit));
        }
        let (tx, rx) = oneshot::channel::<()>();
        wake.push(tx);
        let payload = Payload::new(unit, bytes);
        let work = work.clone();
        set.push(async move {
            let _guard = guard;
            STARTED.fetch_add(1, Ordering::SeqCst);
            let _ = rx.await;
            work.finish(unit, payload.checksum())
        });
    }
    drive(runtime, count, wake, set, work)
}

/// One generator per unit: it awaits its own oneshot, then yields its payload's checksum and ends.
type Generator<E> = Pin<Box<dyn Stream<Item = Result<u64, E>> + Send>>;

/// A generator for `unit`, owning `payload` and `guard`: suspended at its `rx.await` once polled, as a stream
/// waiting for its input is.
fn generator<W: Work>(
    unit: u64,
    payload: Payload,
    rx: oneshot::Receiver<()>,
    guard: W::Guard,
    work: W,
) -> Generator<W::Error> {
    Box::pin(async_stream::stream! {
        let _guard = guard;
        STARTED.fetch_add(1, Ordering::SeqCst);
        let _ = rx.await;
        yield work.finish(unit, payload.checksum());
    })
}

fn generators<W: Work>(runtime: &Runtime, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
    reset_started();
    let n = usize::try_from(count).unwrap_or(usize::MAX);
    let mut wake = Vec::with_capacity(n);
    let mut set = SelectAll::new();
    for unit in 0..count {
        let guard = work.start(unit);
        if work.cancelled() {
            // No generator has been polled: dropping them ends them.
            return Err(HoldError::Cancelled(unit));
        }
        let (tx, rx) = oneshot::channel::<()>();
        wake.push(tx);
        set.push(generator(unit, Payload::new(unit, bytes), rx, guard, work.clone()));
    }
    drive(runtime, count, wake, set, work)
}

/// Spawn one task driving `set` (a `FuturesUnordered` of futures or a `SelectAll` of generators, each unit
/// handing back its checksum) and return once all `count` units wait; the first error ends the driver, and the
/// units still in the set are dropped with it.
fn drive<W: Work, S>(
    runtime: &Runtime,
    count: u64,
    wake: Vec<oneshot::Sender<()>>,
    set: S,
    work: W,
) -> Result<Box<dyn Held + '_>, HoldError>
where
    S: Stream<Item = Result<u64, W::Error>> + Send + Unpin + 'static,
{
    let driver = runtime.spawn(async move {
        let mut set = set;
        let mut total = 0u64;
        while let Some(sum) = set.next().await {
            total = total.wrapping_add(sum?);
        }
        Ok::<u64, W::Error>(total)
    });
    let held = HeldSet { runtime, wake, driver };
    if !runtime.block_on(until_started(count, || work.cancelled())) {
        let HeldSet { runtime, wake, driver } = held;
        drop(wake);
        let _ = runtime.block_on(driver);
        return Err(HoldError::Cancelled(count));
    }
    Ok(Box::new(held))
}

impl<E: Into<Injected> + Send + 'static> Held for HeldSet<'_, E> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldSet { runtime, wake, driver } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        match runtime.block_on(driver) {
            Ok(Ok(total)) => Ok(total),
            Ok(Err(e)) => Err(HoldError::failed(e)),
            Err(e) => match e.try_into_panic() {
                Ok(payload) => Err(HoldError::panicked(&*payload)),
                Err(e) => Err(HoldError::Broken(format!("the driving task failed: {e}"))),
            },
        }
    }
}
