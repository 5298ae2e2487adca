//! `stream-async-stream`: an `async_stream::stream!` generator per unit, suspended after its first `yield`.

use std::pin::Pin;
use std::sync::atomic::Ordering;

use futures::{Stream, StreamExt};
use tokio::runtime::Runtime;

use super::{reset_started, runtime, Held, HoldError, Units, STARTED};
use crate::payload::Payload;

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

type Generator = Pin<Box<dyn Stream<Item = u64> + Send>>;

struct HeldGenerators<'a> {
    runtime: &'a Runtime,
    generators: Vec<Generator>,
}

/// A generator that yields its unit's number, then (when polled again) its payload's checksum.
fn generator(unit: u64, payload: Payload) -> Generator {
    Box::pin(async_stream::stream! {
        STARTED.fetch_add(1, Ordering::SeqCst);
        yield unit;
        yield payload.checksum();
    })
}

impl Units for Generators {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        reset_started();
        let generators = self.runtime.block_on(async move {
            let mut held = Vec::with_capacity(usize::try_from(count).unwrap_or(usize::MAX));
            for unit in 0..count {
                let mut g = generator(unit, Payload::new(unit, bytes));
                match g.next().await {
                    Some(first) if first == unit => held.push(g),
                    other => return Err(HoldError::Broken(format!("generator {unit} first yielded {other:?}"))),
                }
            }
            Ok(held)
        })?;
        Ok(Box::new(HeldGenerators { runtime: &self.runtime, generators }))
    }
}

impl Held for HeldGenerators<'_> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldGenerators { runtime, generators } = *self;
        runtime.block_on(async move {
            let mut total = 0u64;
            for (unit, mut g) in generators.into_iter().enumerate() {
                let sum = g.next().await.ok_or_else(|| HoldError::Broken(format!("generator {unit} ended early")))?;
                total = total.wrapping_add(sum);
            }
            Ok(total)
        })
    }
}
