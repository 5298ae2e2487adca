//! `coroutine-may-spawn-join`: from a coroutine, spawn a `may` coroutine that returns its number, then `join` it.

use std::hint::black_box;
use std::sync::Arc;

use pipelines::coroutine::{self, CoroutineConfig};
use pipelines::LiveStages;

use super::{cancelled, in_coroutine, panicked, Primitive};
use crate::work::{Checked, Plain, Work};

/// `may` configured once per trial: a carrier per core, its default stack and pool.
#[derive(Debug)]
pub(crate) struct MaySpawn {
    config: CoroutineConfig,
}

impl MaySpawn {
    pub(crate) fn new(config: CoroutineConfig) -> MaySpawn {
        config.apply();
        MaySpawn { config }
    }
}

impl MaySpawn {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        let words = self.config.stack_words;
        in_coroutine(words, move || {
            let live = Arc::new(LiveStages::new());
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(cancelled(i));
                }
                let (guard, work) = (work.start(i), work.clone());
                let child = coroutine::spawn("op", words, &live, move || {
                    let _guard = guard;
                    work.finish(i, black_box(i))
                })
                .map_err(|e| e.to_string())?;
                // `join` inside a coroutine parks the coroutine, not its carrier.
                let n = child.join().map_err(|payload| panicked(&format!("coroutine {i}"), &*payload))?;
                sum = sum.wrapping_add(n.map_err(|e| e.to_string())?);
            }
            Ok(sum)
        })
    }
}

impl Primitive for MaySpawn {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }
}
