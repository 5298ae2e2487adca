//! `stream-async-stream`: an `async_stream::stream!` generator per unit, suspended after its first `yield`.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::Ordering;

use futures::{FutureExt, Stream, StreamExt};
use tokio::runtime::Runtime;

use super::{fold_unit, reset_started, runtime, Held, HoldError, Holding, STARTED};
use crate::payload::Payload;
use crate::work::{Injected, Work};

/// Generators polled on a current-thread runtime built once per trial.
#[derive(Debug)]
pub(crate) struct Generators {
    runtime: Runtime,
}

impl Generators {
    pub(crate) fn new() -> Result<Generators, HoldError> {
        Ok(Generators { runtime: runtime(true)? })
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

impl Holding for Generators {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        reset_started();
        let generators = self.runtime.block_on(async move {
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
        Ok(Box::new(HeldGenerators { runtime: &self.runtime, generators }))
    }
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
