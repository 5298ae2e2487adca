//! The stream contestants (`stream-tokio-task[-current-thread]`, `stream-futures-unordered`,
//! `stream-async-stream`; see the registry's table), each holding its units on a tokio runtime built once per
//! trial: a task per unit awaiting its own oneshot, a future per unit in one `FuturesUnordered` driven by one task,
//! or a generator per unit suspended after its first `yield`.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::Ordering;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, Stream, StreamExt};
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
    /// An `async_stream::stream!` generator per unit.
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

    /// The runtime's tasks; `None` for generators, which spawn none.
    fn alive_tasks(&self) -> Option<usize> {
        let spawns = !matches!(self.kind, Kind::Generators);
        spawns.then(|| self.runtime.metrics().num_alive_tasks())
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
    let driver = runtime.spawn(async move {
        let mut set = set;
        let mut total = 0u64;
        // The first error ends the driver; the futures still in the set are dropped with it.
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

type Generator<E> = Pin<Box<dyn Stream<Item = Result<u64, E>> + Send>>;

struct HeldGenerators<'a, E> {
    runtime: &'a Runtime,
    generators: Vec<Generator<E>>,
}

/// A generator that yields its unit's number, then (when polled again) its payload's checksum.
fn generator<W: Work>(unit: u64, payload: Payload, work: W) -> Generator<W::Error> {
    let guard = work.start(unit);
    Box::pin(async_stream::stream! {
        let _guard = guard;
        STARTED.fetch_add(1, Ordering::SeqCst);
        yield Ok(unit);
        yield work.finish(unit, payload.checksum());
    })
}

fn generators<W: Work>(runtime: &Runtime, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
    reset_started();
    let generators = runtime.block_on(async move {
        let mut held = Vec::with_capacity(usize::try_from(count).unwrap_or(usize::MAX));
        for unit in 0..count {
            let mut g = generator(unit, Payload::new(unit, bytes), work.clone());
            if work.cancelled() {
                // Dropping a suspended generator ends it.
                return Err(HoldError::Cancelled(unit));
            }
            match g.next().await {
                Some(Ok(first)) if first == unit => held.push(g),
                other => {
                    let other = other.map(|r| r.map_err(|e| e.to_string()));
                    return Err(HoldError::Broken(format!("generator {unit} first yielded {other:?}")));
                }
            }
        }
        Ok(held)
    })?;
    Ok(Box::new(HeldGenerators { runtime, generators }))
}

impl<E: Into<Injected>> Held for HeldGenerators<'_, E> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldGenerators { runtime, generators } = *self;
        runtime.block_on(async move {
            let mut total = Ok(0u64);
            for (unit, mut g) in generators.into_iter().enumerate() {
                // A generator's panic is caught here, as a task's is by its join, and every other generator is
                // still resumed to its end.
                let next = AssertUnwindSafe(g.next()).catch_unwind().await;
                let outcome = match next {
                    Ok(Some(sum)) => Ok(sum),
                    Ok(None) => Err(HoldError::Broken(format!("generator {unit} ended early"))),
                    Err(payload) => Err(HoldError::panicked(&*payload)),
                };
                fold_unit(&mut total, outcome);
            }
            total
        })
    }
}
